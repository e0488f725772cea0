// The [interconnect] configuration table: topology and allocator are checked
// by name against the registries (network_registry.def, crossbar.h), so a
// new topology needs no change here.
#include "interconnect/network_config.h"

#include <span>
#include <string_view>

#include "interconnect/crossbar.h"
#include "interconnect/network.h"

namespace warpsim::interconnect {
namespace {

std::string join(std::span<const std::string_view> names) {
  std::string all;
  for (std::string_view n : names) all += (all.empty() ? "" : ", ") + std::string(n);
  return all;
}

// A .check for a string field that must be one of `names`.
std::string check_name(const config::Value& v, std::span<const std::string_view> names,
                       std::string_view what) {
  const auto& name = std::get<std::string>(v);
  for (std::string_view n : names)
    if (n == name) return "";
  return "unknown " + std::string(what) + " '" + name + "' (one of: " + join(names) + ")";
}

}  // namespace

const config::Table<NetworkConfig>& network_config_table() {
  static const config::Table<NetworkConfig> table = [] {
    using N = NetworkConfig;
    config::Table<N> t("Interconnect between the clusters' ports and the memory partitions");
    t.string(
         "topology", &N::topology,
         "ideal: fixed latency, unlimited bandwidth; crossbar: buffered switch with an allocator")
        .check("one of " + join(network_names()), [](const config::Value& v) {
          return check_name(v, network_names(), "network topology");
        });
    t.clock_mhz("clock_mhz", &N::clock_mhz, "network clock").range(1.0, 100000.0);
    t.bytes("flit_bytes", &N::flit_bytes, "bytes per flit (channel width); packets are whole flits")
        .range(1, 1024);
    t.bytes("header_bytes", &N::header_bytes,
            "size of a control packet (read request, write acknowledgement) and of a data "
            "packet's header")
        .range(1, 1024);
    t.integer("latency", &N::latency, "cycles",
              "ideal: injection to ejection; crossbar: switch pipeline, tail flit to ejectable")
        .range(0, 10000);
    t.integer("input_buffer_flits", &N::input_buffer_flits, "flits",
              "crossbar: input buffer per node and subnet (whole packets; full: back-pressure)")
        .range(1, 65536);
    t.integer("output_buffer_flits", &N::output_buffer_flits, "flits",
              "crossbar: output (ejection) buffer per node and subnet, freed at ejection")
        .range(1, 65536);
    t.string("allocator", &N::allocator,
             "crossbar switch allocator: islip (McKeown) or round-robin")
        .check("one of " + join(kCrossbarAllocators), [](const config::Value& v) {
          return check_name(v, kCrossbarAllocators, "crossbar allocator");
        });
    t.integer("islip_iterations", &N::islip_iterations, "",
              "crossbar, islip: request-grant-accept iterations per cycle")
        .range(1, 16);
    t.integer("output_speedup", &N::output_speedup, "flits/cycle",
              "crossbar: flits an output accepts per cycle")
        .range(1, 16);
    t.check("ideal: latency >= 1", [](const N& c, config::Checker& r) {
      if (c.topology == "ideal" && c.latency == 0)
        r.error({"latency", "topology"}, "the ideal network needs a latency of at least 1 cycle");
    });
    return t;
  }();
  return table;
}

}  // namespace warpsim::interconnect
