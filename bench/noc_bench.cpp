// Network speed under synthetic traffic: flit-hops per wall-clock second
// (flits x routers visited of every delivered packet) and network cycles per
// second, open-loop for a fixed number of cycles: 64 nodes (an 8x8 mesh's),
// uniform traffic, 1-flit packets at 0.1 and 5-flit packets at 0.04
// packets/node/cycle, 60,000 cycles - loads at which BookSim 2 (Jiang et
// al., ISPASS 2013) can be timed on the same network for comparison. The
// network comes from the built-in configuration with kNetworkOverrides
// applied (`--set`-style strings): the 8x8 mesh BookSim was timed on.
//   noc_bench --benchmark_filter='uniform/P1/'
#include <benchmark/benchmark.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "interconnect/network_registry.h"
#include "interconnect/traffic/traffic_driver.h"
#include "interconnect/traffic/traffic_pattern.h"
#include "timing/sim_config.h"

namespace {

using namespace warpsim;
using namespace warpsim::interconnect;

// The network under test: the crossbar with its default section, over
// 64 Core nodes (every node a source). For the 8x8 mesh:
//   {"interconnect.topology=mesh", "interconnect.mesh.columns=8", "interconnect.mesh.rows=8"}
// BookSim 2's speed runs (docs/interconnect.md): an 8x8 mesh, XY, 2 VCs x 4
// flits, iSLIP, the default 4-stage routers, one network.
const std::vector<std::string> kNetworkOverrides = {
    "interconnect.topology=mesh",         "interconnect.mesh.columns=8",
    "interconnect.mesh.rows=8",           "interconnect.router.vcs=2",
    "interconnect.router.vc_buffer_flits=4", "interconnect.router.subnets=physical"};
constexpr uint32_t kNodes = 64;
constexpr uint64_t kCycles = 60'000;
constexpr uint64_t kSeed = 0;

std::optional<NetworkConfig> network_config() {
  DiagnosticEngine diags;
  // The network is built over kNodes nodes, not the GPU's: checked below.
  auto config = load_sim_config("", kNetworkOverrides, config_search_path(), diags, false);
  if (!config) {
    std::fputs(diags.format_all().c_str(), stderr);
    return std::nullopt;
  }
  if (const std::string why = validate_network(config->timing.network, std::vector<NodeRole>(kNodes, NodeRole::Core));
      !why.empty()) {
    std::fprintf(stderr, "%s\n", why.c_str());
    return std::nullopt;
  }
  return config->timing.network;
}

// Runs `pattern` with packets of `sizes` at `rate` for kCycles per iteration,
// each iteration on a fresh network.
void run_traffic(benchmark::State& state, const char* pattern_name, PacketSizes sizes, double rate) {
  static const std::optional<NetworkConfig> config = network_config();
  if (!config) {
    state.SkipWithError("the network configuration does not load");
    return;
  }
  const std::vector<NodeRole> roles(kNodes, NodeRole::Core);
  TrafficParams params;
  params.sizes = sizes;
  std::string error;
  auto pattern = make_traffic_pattern(pattern_name, params, roles, error);
  if (!pattern) {
    state.SkipWithError(error.c_str());
    return;
  }
  uint64_t flit_hops = 0, cycles = 0, packets = 0, latency = 0;
  double hops = 0;
  for (auto _ : state) {
    auto network = make_network(*config, roles);
    TrafficDriver driver(*network, *pattern, rate, kSeed);
    driver.run(kCycles);
    flit_hops += driver.flit_hops();
    cycles += driver.cycle();
    packets += driver.window().packets;
    latency += driver.window().latency;
    hops = driver.window().average_hops();
  }
  state.counters["flit_hops_per_s"] = benchmark::Counter(double(flit_hops), benchmark::Counter::kIsRate);
  state.counters["cycles_per_s"] = benchmark::Counter(double(cycles), benchmark::Counter::kIsRate);
  state.counters["avg_latency"] = packets ? double(latency) / double(packets) : 0;
  state.counters["avg_hops"] = hops;
}

void BM_UniformP1(benchmark::State& state) { run_traffic(state, "uniform", PacketSizes::fixed(1), 0.1); }
void BM_UniformP5(benchmark::State& state) { run_traffic(state, "uniform", PacketSizes::fixed(5), 0.04); }

BENCHMARK(BM_UniformP1)->Name("noc/uniform/P1/rate:0.1")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_UniformP5)->Name("noc/uniform/P5/rate:0.04")->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
