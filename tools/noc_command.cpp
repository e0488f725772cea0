// `warpsim noc`: studies of the on-chip network alone. `noc run` drives the
// configured network with synthetic traffic (interconnect/traffic/) and
// prints latency and throughput per injection rate, measured the way
// BookSim 2 does (docs/noc-traffic.md). `noc` is a group: each study is one
// subcommand registered in register_noc_command.
//
// Every number and list is read here rather than by CLI11, so that bad input
// gets a message naming the option and exit status 2, like every other
// error of the command.
#include <fmt/format.h>
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/diagnostics.h"
#include "interconnect/network_registry.h"
#include "interconnect/traffic/packet_sizes.h"
#include "interconnect/traffic/rate_sweep.h"
#include "interconnect/traffic/traffic_measurement.h"
#include "interconnect/traffic/traffic_pattern.h"
#include "timing/sim_config.h"
#include "tools/commands.h"

namespace warpsim::tools {

namespace {

using namespace warpsim::interconnect;

// Bisections of the automatic sweep's bracket around the knee: the bracket
// shrinks to 1/32 of a 1-2-5 step (about 4% of the rate there).
constexpr uint32_t kSweepRefinements = 5;
// The most nodes `--nodes` builds.
constexpr uint64_t kMaxNodes = 1 << 16;

struct NocRunOptions {
  std::string config;
  std::vector<std::string> overrides;
  std::string traffic = "uniform";
  std::string rate;
  std::string sweep;
  bool sweep_given = false;
  std::string packet_flits;
  std::string nodes;
  std::string seed = "0";
  std::string warmup_periods = "3", sample_period = "5000", max_samples = "20", latency_threshold = "500";
  std::string hotspot;
  std::string gpu_read_fraction, gpu_hotspot, gpu_hotspot_node;
  std::string json;
};

// A user error: the message, printed as "warpsim noc run: <message>".
struct BadInput {
  std::string message;
};

template <class T>
T whole(std::string_view option, const std::string& text, T min, T max) {
  T v{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < min || v > max)
    throw BadInput{fmt::format("{} '{}' is not a whole number from {} to {}", option, text, min, max)};
  return v;
}

double real(std::string_view option, const std::string& text) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
    throw BadInput{fmt::format("{} '{}' is not a number", option, text)};
  return v;
}

double fraction(std::string_view option, const std::string& text) {
  const double v = real(option, text);
  if (v < 0 || v > 1) throw BadInput{fmt::format("{} {} is not a fraction from 0 to 1", option, text)};
  return v;
}

// An injection rate: packets per node per cycle, a probability in (0, 1].
double rate(std::string_view option, const std::string& text) {
  const double v = real(option, text);
  if (v <= 0 || v > 1)
    throw BadInput{
        fmt::format("{} {}: a rate is packets per node per cycle, more than 0 and at most 1", option, text)};
  return v;
}

std::vector<double> rate_list(const std::string& text) {
  std::vector<double> rates;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    rates.push_back(rate("--sweep", text.substr(start, comma - start)));
    start = comma + 1;
  }
  return rates;
}

// The network's nodes: --nodes N Core nodes, or the GPU's as the memory
// system builds them (timing/memory/memory_system.cpp): one Core node per
// cluster, then one Memory node per L2 slice.
std::vector<NodeRole> node_roles(const NocRunOptions& opt, const SimConfig& config) {
  if (!opt.nodes.empty()) {
    const auto n = whole<uint64_t>("--nodes", opt.nodes, 1, kMaxNodes);
    return std::vector<NodeRole>(n, NodeRole::Core);
  }
  return network_roles(config);
}

TrafficParams traffic_params(const NocRunOptions& opt) {
  const bool gpu = opt.traffic == "gpu";
  TrafficParams p;
  if (!opt.packet_flits.empty()) {
    if (gpu)
      throw BadInput{
          "--packet-flits does not apply to the gpu pattern, which sizes its own requests and "
          "replies"};
    std::string error;
    auto sizes = parse_packet_sizes(opt.packet_flits, error);
    if (!sizes) throw BadInput{"--packet-flits: " + error};
    p.sizes = *sizes;
  }
  if (!opt.hotspot.empty() && opt.traffic != "hotspot")
    throw BadInput{"--hotspot applies to the hotspot pattern only (--traffic hotspot)"};
  if (opt.traffic == "hotspot" && opt.hotspot.empty())
    throw BadInput{
        "the hotspot pattern needs --hotspot NODE[:WEIGHT],... (e.g. --hotspot 27 or "
        "--hotspot 27:16,*:1)"};
  p.hotspot = opt.hotspot;
  const bool gpu_options =
      !opt.gpu_read_fraction.empty() || !opt.gpu_hotspot.empty() || !opt.gpu_hotspot_node.empty();
  if (gpu_options && !gpu)
    throw BadInput{"--gpu-read-fraction, --gpu-hotspot and --gpu-hotspot-node apply to the gpu pattern only"};
  if (!opt.gpu_read_fraction.empty())
    p.gpu.read_fraction = fraction("--gpu-read-fraction", opt.gpu_read_fraction);
  if (!opt.gpu_hotspot.empty()) p.gpu.hotspot_fraction = fraction("--gpu-hotspot", opt.gpu_hotspot);
  if (!opt.gpu_hotspot_node.empty())
    p.gpu.hotspot_node = whole<uint32_t>("--gpu-hotspot-node", opt.gpu_hotspot_node, 0, UINT32_MAX);
  return p;
}

MeasurementConfig measurement(const NocRunOptions& opt) {
  MeasurementConfig m;
  m.warmup_periods = whole<uint32_t>("--warmup-periods", opt.warmup_periods, 0, 1000);
  m.sample_period = whole<uint64_t>("--sample-period", opt.sample_period, 1, uint64_t(1) << 40);
  m.max_samples = whole<uint32_t>("--max-samples", opt.max_samples, 1, 100000);
  m.latency_threshold = real("--latency-threshold", opt.latency_threshold);
  if (const std::string why = check_measurement_config(m); !why.empty()) throw BadInput{why};
  return m;
}

// "735", "12.3k", "4.56M": flit-hops per second.
std::string si(double v) {
  if (v >= 1e9) return fmt::format("{:.2f}G", v / 1e9);
  if (v >= 1e6) return fmt::format("{:.2f}M", v / 1e6);
  if (v >= 1e3) return fmt::format("{:.1f}k", v / 1e3);
  return fmt::format("{:.0f}", v);
}

std::string status(const SweepResult& s, size_t i) {
  const PointResult& p = s.points[i];
  if (!p.stable) return "UNSTABLE: " + p.unstable_reason;
  if (s.saturated[i]) return fmt::format("> {:g}x zero-load", kSaturationFactor);
  return "stable";
}

void print_table(const SweepResult& s, bool closed_loop) {
  fmt::print("{:>10} {:>9} {:>9} {:>9} {:>9} {:>6} {:>9}{} {:>10} {:>11}  {}\n", "rate", "offered", "pkt lat",
             "net lat", "accepted", "hops", "packets",
             closed_loop ? fmt::format(" {:>10}", "round trip") : "", "cycles", "flit-hops/s", "status");
  bool any_unstable = false;
  for (size_t i = 0; i < s.points.size(); ++i) {
    const PointResult& p = s.points[i];
    const char* mark = p.stable ? " " : "*";
    any_unstable = any_unstable || !p.stable;
    fmt::print("{:>10.6g} {:>9.4f} {:>8.2f}{} {:>8.2f}{} {:>8.4f}{} {:>6.2f} {:>9}{} {:>10} {:>11}  {}\n",
               p.rate, p.offered, p.packet_latency, mark, p.network_latency, mark, p.accepted, mark, p.hops,
               p.packets, closed_loop ? fmt::format(" {:>9.2f}{}", p.round_trip, mark) : "", p.cycles,
               si(p.flit_hops_per_second()), status(s, i));
  }
  if (any_unstable)
    fmt::print(
        "* last values of an unstable point, not converged: its packet latency counts the packets "
        "still in flight\n");
}

void print_summary(const SweepResult& s) {
  if (s.points.size() < 2) return;
  if (!s.zero_load_latency) {
    fmt::print("zero-load latency: none (the lowest rate, {:g}, is unstable)\n", s.points.front().rate);
    return;
  }
  fmt::print("zero-load latency: {:.2f} cycles (at rate {:g})\n", *s.zero_load_latency,
             s.points.front().rate);
  if (s.knee) {
    const PointResult& last = s.points[*s.knee];
    const size_t first_bad = *s.knee + 1;
    fmt::print(
        "saturation throughput: {:.4f} flits/node/cycle (at rate {:g}; rate {:g} is {})\n", last.accepted,
        last.rate, s.points[first_bad].rate,
        s.points[first_bad].stable ? fmt::format("over {:g}x zero-load", kSaturationFactor) : "unstable");
  } else if (s.saturated.size() > 1 && s.saturated[1]) {
    fmt::print("saturation throughput: below the second rate ({:g})\n", s.points[1].rate);
  } else {
    fmt::print("saturation throughput: not reached (every rate up to {:g} is within {:g}x zero-load)\n",
               s.points.back().rate, kSaturationFactor);
  }
}

nlohmann::json to_json(const SweepResult& s, const NetworkConfig& net, std::span<const NodeRole> roles,
                       const NocRunOptions& opt, const TrafficPattern& pattern, const TrafficParams& params,
                       uint64_t seed, const MeasurementConfig& m) {
  using nlohmann::json;
  uint64_t cores = 0;
  for (NodeRole r : roles) cores += r == NodeRole::Core;
  json points = json::array();
  for (size_t i = 0; i < s.points.size(); ++i) {
    const PointResult& p = s.points[i];
    points.push_back({{"rate", p.rate},
                      {"offered", p.offered},
                      {"stable", p.stable},
                      {"unstable_reason", p.unstable_reason},
                      {"saturated", bool(s.saturated[i])},
                      {"packet_latency", p.packet_latency},
                      {"network_latency", p.network_latency},
                      {"accepted", p.accepted},
                      {"hops", p.hops},
                      {"round_trip", pattern.closed_loop() ? json(p.round_trip) : json(nullptr)},
                      {"max_latency", p.max_latency},
                      {"packets", p.packets},
                      {"periods", p.periods},
                      {"cycles", p.cycles},
                      {"flit_hops", p.flit_hops},
                      {"wall_seconds", p.wall_seconds},
                      {"flit_hops_per_second", p.flit_hops_per_second()}});
  }
  json out = {
      {"network",
       {{"topology", net.topology},
        {"nodes", roles.size()},
        {"core_nodes", cores},
        {"memory_nodes", roles.size() - cores},
        {"flit_bytes", net.flit_bytes}}},
      {"traffic",
       {{"pattern", opt.traffic},
        {"packet_flits", opt.traffic == "gpu" ? json(nullptr) : json(params.sizes.describe())},
        {"mean_flits", pattern.mean_flits()},
        {"sources", pattern.sources().size()},
        {"hotspot", params.hotspot},
        {"seed", seed}}},
      {"method",
       {{"warmup_periods", m.warmup_periods},
        {"sample_period", m.sample_period},
        {"max_samples", m.max_samples},
        {"latency_threshold", m.latency_threshold},
        {"stopping_threshold", m.stopping_threshold},
        {"converge_periods", m.converge_periods}}},
      {"points", points},
      {"zero_load_latency", s.zero_load_latency ? json(*s.zero_load_latency) : json(nullptr)},
      {"saturation_throughput", s.knee ? json(s.saturation_throughput()) : json(nullptr)},
      {"saturation_rate", s.knee ? json(s.points[*s.knee].rate) : json(nullptr)},
  };
  if (opt.traffic == "gpu")
    out["traffic"]["gpu"] = {{"read_fraction", params.gpu.read_fraction},
                             {"hotspot_fraction", params.gpu.hotspot_fraction}};
  return out;
}

int run(const NocRunOptions& opt) {
  DiagnosticEngine diags;
  // With --nodes the network is checked against those nodes below.
  auto config = load_sim_config(opt.config, opt.overrides, config_search_path(), diags, opt.nodes.empty());
  if (!config) {
    std::fputs(diags.format_all().c_str(), stderr);
    return 2;
  }
  const NetworkConfig& net = config->timing.network;
  std::vector<NodeRole> roles;
  std::vector<double> rates;
  TrafficParams params;
  MeasurementConfig method;
  uint64_t seed = 0;
  std::unique_ptr<TrafficPattern> pattern;
  try {
    if (const std::string why = traffic_patterns().check(opt.traffic); !why.empty()) throw BadInput{why};
    if (opt.rate.empty() == !opt.sweep_given)
      throw BadInput{opt.rate.empty() ? "give --rate R or --sweep [R1,R2,...] (packets per node per cycle)"
                                      : "give either --rate or --sweep, not both"};
    if (!opt.rate.empty()) rates.push_back(rate("--rate", opt.rate));
    if (opt.sweep_given && !opt.sweep.empty()) rates = rate_list(opt.sweep);
    roles = node_roles(opt, *config);
    params = traffic_params(opt);
    method = measurement(opt);
    seed = whole<uint64_t>("--seed", opt.seed, 0, UINT64_MAX);
    std::string error;
    pattern = make_traffic_pattern(opt.traffic, params, roles, error);
    if (!pattern) throw BadInput{error};
    if (const std::string why = interconnect::validate_network(net, roles); !why.empty()) throw BadInput{why};
  } catch (const BadInput& e) {
    fmt::print(stderr, "warpsim noc run: {}\n", e.message);
    return 2;
  }

  uint64_t cores = 0;
  for (NodeRole r : roles) cores += r == NodeRole::Core;
  fmt::print("network: {}, {} nodes ({} Core, {} Memory), {}-byte flits\n", net.topology, roles.size(), cores,
             roles.size() - cores, net.flit_bytes);
  fmt::print("traffic: {}, {}, {} sources, seed {}\n", opt.traffic,
             opt.traffic == "gpu" ? fmt::format("{:g}% reads", 100 * params.gpu.read_fraction)
                                  : params.sizes.describe(),
             pattern->sources().size(), seed);
  fmt::print(
      "method: warm-up {} x {} cycles; sample periods of {} cycles until {} in a row change latency and "
      "throughput by < {:g}% (at most {} periods in all); drain of the measured packets; unstable above "
      "{:g} cycles\n\n",
      method.warmup_periods, method.sample_period, method.sample_period, method.converge_periods,
      100 * method.stopping_threshold, method.max_samples, method.latency_threshold);
  std::fflush(stdout);

  const bool progress = ::isatty(2);
  const MeasurePoint measure = [&](double r) {
    if (progress) fmt::print(stderr, "  rate {:g} ...\r", r);
    PointResult p = measure_point(net, roles, *pattern, r, seed, method);
    if (progress) fmt::print(stderr, "\33[2K");
    return p;
  };
  const SweepResult sweep =
      opt.sweep_given && opt.sweep.empty()
          ? sweep_automatic(automatic_start_rate(uint32_t(roles.size()), pattern->mean_flits()),
                            kSweepRefinements, measure)
          : sweep_rates(rates, measure);
  print_table(sweep, pattern->closed_loop());
  print_summary(sweep);

  if (!opt.json.empty()) {
    std::ofstream out(opt.json);
    out << to_json(sweep, net, roles, opt, *pattern, params, seed, method).dump(2) << "\n";
    if (!out) {
      fmt::print(stderr, "warpsim noc run: cannot write {}\n", opt.json);
      return 2;
    }
  }
  return 0;
}

void register_noc_run_command(CLI::App& noc) {
  auto opt = std::make_shared<NocRunOptions>();
  CLI::App* run_cmd = noc.add_subcommand(
      "run",
      "Drive the network with synthetic traffic and print latency and throughput per injection rate "
      "(BookSim-style measurement; docs/noc-traffic.md)");
  run_cmd
      ->add_option("--config", opt->config,
                   "GPU configuration: a name from configs/ or a TOML file; default: the built-in GPU")
      ->type_name("NAME|FILE");
  run_cmd
      ->add_option("--set", opt->overrides, "Override a configuration value: section.key=value (repeatable)")
      ->type_name("SECTION.KEY=VALUE")
      ->allow_extra_args(false);
  run_cmd
      ->add_option("--traffic", opt->traffic,
                   "Traffic pattern: " + traffic_patterns().joined() + " (default uniform)")
      ->type_name("PATTERN");
  run_cmd->add_option("--rate", opt->rate, "One injection rate: packets per source node per cycle, in (0, 1]")
      ->type_name("R");
  CLI::Option* sweep =
      run_cmd
          ->add_option(
              "--sweep", opt->sweep,
              "Several rates: R1,R2,... or, with no list, from light load up to the first saturated rate")
          ->type_name("R1,R2,...")
          ->expected(0, 1);
  run_cmd
      ->add_option("--packet-flits", opt->packet_flits,
                   "Packet size in flits, or 'mixed' (1 or 5 flits, equally likely); default 1")
      ->type_name("N|mixed");
  run_cmd
      ->add_option("--nodes", opt->nodes,
                   "Build N nodes, all Core, instead of the GPU's (clusters, then L2 slices)")
      ->type_name("N");
  run_cmd->add_option("--seed", opt->seed, "Random seed (default 0)")->type_name("S");
  run_cmd
      ->add_option("--hotspot", opt->hotspot,
                   "hotspot pattern: destinations NODE[:WEIGHT],... with * for every other node "
                   "(27: all to node 27; 27:16,*:1: node 27 weight 16, the others 1)")
      ->type_name("LIST");
  run_cmd
      ->add_option("--gpu-read-fraction", opt->gpu_read_fraction,
                   "gpu pattern: fraction of reads (default 0.9)")
      ->type_name("F");
  run_cmd
      ->add_option("--gpu-hotspot", opt->gpu_hotspot,
                   "gpu pattern: fraction of requests sent to one memory node (default 0)")
      ->type_name("F");
  run_cmd
      ->add_option("--gpu-hotspot-node", opt->gpu_hotspot_node,
                   "gpu pattern: that memory node (default: the first Memory node)")
      ->type_name("NODE");
  run_cmd->add_option("--warmup-periods", opt->warmup_periods, "Warm-up sample periods (default 3)")
      ->type_name("N");
  run_cmd->add_option("--sample-period", opt->sample_period, "Cycles per sample period (default 5000)")
      ->type_name("CYCLES");
  run_cmd
      ->add_option("--max-samples", opt->max_samples,
                   "Most sample periods in all, warm-up included (default 20)")
      ->type_name("N");
  run_cmd
      ->add_option("--latency-threshold", opt->latency_threshold,
                   "Unstable above this average latency in cycles (default 500)")
      ->type_name("CYCLES");
  run_cmd->add_option("--json", opt->json, "Also write the results as JSON to this file")->type_name("FILE");
  run_cmd->callback([opt, sweep] {
    opt->sweep_given = sweep->count() > 0;
    set_exit_code(run(*opt));
  });
}

}  // namespace

void register_noc_command(CLI::App& app) {
  CLI::App* noc = app.add_subcommand("noc", "On-chip network studies: run (synthetic traffic), area (area model)");
  noc->require_subcommand(1);
  register_noc_run_command(*noc);
  register_noc_area_command(*noc);
}

}  // namespace warpsim::tools
