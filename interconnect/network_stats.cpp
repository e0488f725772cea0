// The network's statistics tables.
#include "interconnect/network_stats.h"

namespace warpsim::interconnect {
namespace {

double ratio(uint64_t a, uint64_t b) { return b ? static_cast<double>(a) / b : 0.0; }

}  // namespace

const stats::StatTable<NodeStats, SubnetScope>& node_stats_table() {
  static const stats::StatTable<NodeStats, SubnetScope> table = [] {
    using N = NodeStats;
    using V = stats::FormulaValue;
    stats::StatTable<N, SubnetScope> t(
        "One subnet of the network (summed over its nodes: injection counts at the source, ejection "
        "counts and latencies at the destination)");
    t.counter("packets_injected", &N::packets_injected, "packets", "packets injected");
    t.counter("flits_injected", &N::flits_injected, "flits", "flits injected").per_instance();
    t.counter("packets_ejected", &N::packets_ejected, "packets", "packets ejected");
    t.counter("flits_ejected", &N::flits_ejected, "flits", "flits ejected").per_instance();
    t.counter("queue_latency", &N::queue_latency, "network cycles",
              "summed over ejected packets: from the moment a packet could first leave (a request: the SM's "
              "send, so the cluster port's queues and bus count; a reply: the L2's reply time) to its injection");
    t.counter("network_latency", &N::network_latency, "network cycles",
              "summed over ejected packets: from injection to the tail's arrival at the destination");
    t.counter("ejection_latency", &N::ejection_latency, "network cycles",
              "summed over ejected packets: from the tail's arrival to ejection by the receiver");
    t.counter("hops", &N::hops, "routers", "summed over ejected packets: routers passed");
    t.counter("flit_hops", &N::flit_hops, "flit-routers",
              "summed over ejected packets: flits x routers passed (the flit-weighted hop count)");
    t.maximum("max_latency", &N::max_latency, "network cycles", "the largest creation-to-ejection time");
    t.counter("blocked_cycles", &N::blocked_cycles, "network cycles",
              "cycles a source had a packet ready but the subnet refused it")
        .per_instance();
    t.counter("injection_stalled_cycles", &N::injection_stalled_cycles, "network cycles",
              "flit-level networks: cycles the node's network interface held packets of this subnet and "
              "sent no flit (no credit or free virtual channel); a memory node's reply injection blocked")
        .per_instance();
    t.formula("avg_queue_latency", "network cycles", "queue_latency / packets_ejected",
              [](const N& n, const SubnetScope&) -> V { return ratio(n.queue_latency, n.packets_ejected); });
    t.formula("avg_network_latency", "network cycles", "network_latency / packets_ejected",
              [](const N& n, const SubnetScope&) -> V { return ratio(n.network_latency, n.packets_ejected); });
    t.formula("avg_ejection_latency", "network cycles", "ejection_latency / packets_ejected",
              [](const N& n, const SubnetScope&) -> V { return ratio(n.ejection_latency, n.packets_ejected); });
    t.formula("avg_hops", "routers", "hops / packets_ejected",
              [](const N& n, const SubnetScope&) -> V { return ratio(n.hops, n.packets_ejected); });
    t.formula("accepted_rate", "flits/node/cycle",
              "flits ejected per node of the network per network cycle of the launch (accepted throughput)",
              [](const N& n, const SubnetScope& s) -> V {
                return ratio(n.flits_ejected, s.network_cycles * s.nodes);
              });
    t.formula("injection_rate", "flits/node/cycle",
              "flits injected per injecting node per network cycle of the launch",
              [](const N& n, const SubnetScope& s) -> V {
                return ratio(n.flits_injected, s.network_cycles * s.injecting_nodes);
              });
    return t;
  }();
  return table;
}

const stats::StatTable<NetworkActivity>& network_activity_table() {
  static const stats::StatTable<NetworkActivity> table = [] {
    using A = NetworkActivity;
    stats::StatTable<A> t("The hardware of one subnet (switch and router buffers, allocators, links)");
    t.counter("buffer_writes", &A::buffer_writes, "flits",
              "flits written into a buffer (input, virtual-channel or output buffers)")
        .per_instance();
    t.counter("buffer_reads", &A::buffer_reads, "flits", "flits read out of a buffer").per_instance();
    t.counter("switch_allocations", &A::switch_allocations, "connections",
              "connections granted by a switch allocator");
    t.counter("switch_traversals", &A::switch_traversals, "flits", "flits through a switch").per_instance();
    t.counter("link_traversals", &A::link_traversals, "flits", "flits over a link between routers (flit-hops)")
        .per_instance();
    t.counter("stalled_cycles", &A::stalled_cycles, "cycles",
              "cycles a granted connection moved no flit (downstream full)");
    t.counter("vc_allocations", &A::vc_allocations, "grants",
              "flit-level routers: output virtual channels granted to head flits")
        .per_instance();
    t.counter("link_flit_um", &A::link_flit_um, "flit-um",
              "flit-level networks: flits x the length of the link they crossed, in micrometres (the links' "
              "wire energy; a grid's links are tile_mm long)");
    return t;
  }();
  return table;
}

}  // namespace warpsim::interconnect
