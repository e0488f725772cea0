// The [interconnect.router] table.
#include "interconnect/router/router_config.h"

#include <string>

#include "interconnect/allocators/allocator.h"

namespace warpsim::interconnect {
const config::Table<RouterConfig>& router_config_table() {
  static const config::Table<RouterConfig> table = [] {
    using R = RouterConfig;
    config::Table<R> t(
        "Routers of the flit-level topologies (mesh, torus, cmesh, checkerboard, dci, butterfly): "
        "virtual channels, buffers, pipeline delays, allocators and the nodes' network interfaces");
    t.integer("vcs", &R::vcs, "VCs",
              "virtual channels per router port, all classes together (split evenly between request "
              "and reply traffic when subnets = \"virtual\", then between the routing function's classes)")
        .range(1, 64);
    t.integer("vc_buffer_flits", &R::vc_buffer_flits, "flits", "buffer per virtual channel (credits)")
        .range(1, 4096);
    t.integer("routing_delay", &R::routing_delay, "cycles", "route computation (0: lookahead routing)")
        .range(0, 16);
    t.integer("vc_alloc_delay", &R::vc_alloc_delay, "cycles", "virtual-channel allocation").range(1, 16);
    t.integer("sw_alloc_delay", &R::sw_alloc_delay, "cycles", "switch allocation").range(1, 16);
    t.integer("st_delay", &R::st_delay, "cycles", "switch traversal").range(1, 16);
    t.integer("link_latency", &R::link_latency, "cycles", "router-to-router channel").range(1, 64);
    t.integer("terminal_latency", &R::terminal_latency, "cycles", "injection and ejection channels")
        .range(1, 64);
    t.integer("credit_delay", &R::credit_delay, "cycles",
              "extra delay before a returned credit can be used (the credit channel itself takes a cycle)")
        .range(0, 64);
    t.boolean("speculative", &R::speculative,
              "head flits bid for the switch in the same cycle as for a virtual channel (a router stage "
              "of max(vc_alloc_delay, sw_alloc_delay) instead of their sum)");
    t.string("vc_allocator", &R::vc_allocator, "virtual-channel allocator (" + allocators().described() + ")")
        .one_of(allocators());
    t.string("sw_allocator", &R::sw_allocator, "switch allocator (" + allocators().described() + ")")
        .one_of(allocators());
    t.integer("alloc_iterations", &R::alloc_iterations, "", "islip: request-grant-accept iterations")
        .range(1, 16);
    t.enumeration("subnets", &R::subnets,
                  {{"physical", SubnetMode::Physical}, {"virtual", SubnetMode::Virtual}},
                  "physical: requests and replies on two separate networks; virtual: one network whose "
                  "virtual channels are split between them");
    t.integer("injection_queue_flits", &R::injection_queue_flits, "flits",
              "per node and subnet: packets accepted from the node and not yet sent into the router "
              "(a larger packet is accepted into an empty queue)")
        .range(1, 1 << 20);
    t.integer("ejection_queue_packets", &R::ejection_queue_packets, "packets",
              "per node and subnet: delivered packets the receiver has not taken; a packet enters the "
              "ejection channel only with a place reserved here")
        .range(1, 1 << 20);
    t.enumeration("port_policy", &R::port_policy,
                  {{"round-robin", PortPolicy::RoundRobin}, {"smart", PortPolicy::Smart}},
                  "nodes with several injection ports (memory_ports > 1): round-robin gives each packet the next "
                  "port; smart starts at a random port and takes the first that is empty or whose last packet "
                  "left toward the same output, else the last one tried (Bakhoda 2014, sec. 5.3.1)");
    t.integer("deadlock_cycles", &R::deadlock_cycles, "cycles",
              "flits in the routers and none moved for this long: stop with a deadlock report")
        .range(16, 1u << 31);
    return t;
  }();
  return table;
}

}  // namespace warpsim::interconnect
