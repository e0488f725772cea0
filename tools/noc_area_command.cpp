// `warpsim noc area`: the silicon area of the configured network (the model
// of interconnect/area/noc_area.h, after Bakhoda, PhD thesis, UBC 2014,
// sec. 6.8): each router kind's crossbar, buffers and allocators, the links,
// and the network's share of the chip.
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "common/diagnostics.h"
#include "interconnect/area/noc_area.h"
#include "interconnect/router/routed_layout.h"
#include "timing/sim_config.h"
#include "tools/commands.h"

namespace warpsim::tools {

namespace {

using interconnect::NocArea;

struct NocAreaOptions {
  std::string config;
  std::vector<std::string> overrides;
};

std::string format_area(const std::string& topology, const interconnect::RoutedLayout& layout,
                        const NocArea& a, const interconnect::ChipParts& parts,
                        const interconnect::AreaConfig& c) {
  std::string out = fmt::format(
      "NoC area of topology {} (Bakhoda, PhD thesis, UBC 2014, sec. 6.8; 65 nm)\n"
      "{} plane{}, {} B flits ({} b channels), {} VCs x {} flits per input port\n\n",
      topology, a.planes, a.planes == 1 ? "" : "s", layout.flit_bytes, a.width_bits,
      layout.router.vcs, layout.router.vc_buffer_flits);

  out += fmt::format("{:<16} {:>7} {:>6} {:>9} {:>9} {:>10} {:>9} {:>10}\n", "router kind", "ports",
                     "count", "crossbar", "buffers", "allocators", "router", "total");
  out += fmt::format("{:<16} {:>7} {:>6} {:>9} {:>9} {:>10} {:>9} {:>10}\n", "", "in x out", "",
                     "mm^2", "mm^2", "mm^2", "mm^2", "mm^2");
  uint32_t routers = 0;
  for (const auto& k : a.routers) {
    out += fmt::format("{:<16} {:>7} {:>6} {:>9.4f} {:>9.4f} {:>10.5f} {:>9.4f} {:>10.3f}\n",
                       k.shape.name(), fmt::format("{}x{}", k.shape.inputs, k.shape.outputs),
                       k.count, k.each.crossbar_mm2, k.each.buffer_mm2, k.each.allocator_mm2,
                       k.each.total_mm2(), k.count * k.each.total_mm2());
    routers += k.count;
  }
  out += fmt::format("{:<16} {:>7} {:>6} {:>9} {:>9} {:>10} {:>9} {:>10.3f}\n\n", "routers", "",
                     routers, "", "", "", "", a.routers_mm2);

  out +=
      fmt::format("{:<20} {:>6} {:>9} {:>9} {:>10}\n", "link", "count", "length", "each", "total");
  out += fmt::format("{:<20} {:>6} {:>9} {:>9} {:>10}\n", "", "", "mm", "mm^2", "mm^2");
  uint32_t links = 0;
  for (const auto& l : a.links) {
    out += fmt::format("{:<20} {:>6} {:>9.3f} {:>9.4f} {:>10.3f}\n",
                       l.terminal ? "injection/ejection" : "router to router", l.count, l.length_mm,
                       l.each_mm2, l.count * l.each_mm2);
    links += l.count;
  }
  out += fmt::format("{:<20} {:>6} {:>9} {:>9} {:>10.3f}\n\n", "links", links, "", "", a.links_mm2);

  const double rest = interconnect::non_noc_area_mm2(parts, c);
  const double chip = rest + a.total_mm2();
  out += fmt::format("{:<13} {:>9.2f} mm^2\n", "NoC", a.total_mm2());
  out += fmt::format(
      "{:<13} {:>9.2f} mm^2  ({} SMs x {} + {} memory controllers x {} + {:g} MiB of L2 x {})\n",
      "rest of chip", rest, parts.cores, c.core_mm2, parts.memory_controllers,
      c.memory_controller_mm2, parts.l2_mib, c.l2_mm2_per_mib);
  out += fmt::format("{:<13} {:>9.2f} mm^2, of which the NoC {:.2f}%\n", "chip", chip,
                     chip > 0 ? 100 * a.total_mm2() / chip : 0.0);
  return out;
}

int run_noc_area(const NocAreaOptions& opt) {
  DiagnosticEngine diags;
  auto config = load_sim_config(opt.config, opt.overrides, diags);
  const std::string messages = diags.format_all();
  if (!messages.empty()) std::fputs(messages.c_str(), stderr);
  if (!config) return 2;
  const timing::TimingConfig& t = config->timing;
  // The nodes as the memory system numbers them: the clusters' ports, then
  // the L2 slices.
  const uint32_t clusters = config->gpu.num_sms / t.gpu.sms_per_cluster;
  const uint32_t slices = t.partition.partitions * t.partition.sub_partitions;
  std::vector<interconnect::NodeRole> roles(clusters, interconnect::NodeRole::Core);
  roles.resize(clusters + slices, interconnect::NodeRole::Memory);

  std::string error;
  const auto layout = interconnect::routed_layout(t.network, roles, error);
  if (!layout) {
    std::fputs(fmt::format("warpsim noc area: no router network to price for topology {}: {}\n",
                           t.network.topology, error)
                   .c_str(),
               stderr);
    return 2;
  }
  const NocArea area = interconnect::noc_area(*layout, t.network.area);
  const interconnect::ChipParts parts{
      config->gpu.num_sms, t.partition.partitions,
      static_cast<double>(slices) * static_cast<double>(t.l2.size) / (1024.0 * 1024.0)};
  std::fputs(format_area(t.network.topology, *layout, area, parts, t.network.area).c_str(), stdout);
  return 0;
}

}  // namespace

void register_noc_area_command(CLI::App& noc) {
  auto opt = std::make_shared<NocAreaOptions>();
  CLI::App* area = noc.add_subcommand(
      "area",
      "Silicon area of the configured router network: per router kind, links, and the NoC's share "
      "of the chip ([interconnect.area]; exit 2 for a topology without routers)");
  area->add_option("--config", opt->config,
                   "Named config (NAME.toml on the search path) or a TOML file; default: built-in");
  area->add_option("--set", opt->overrides, "Override one value: section.key=value (repeatable)")
      ->allow_extra_args(false);
  area->callback([opt] { set_exit_code(run_noc_area(*opt)); });
}

}  // namespace warpsim::tools
