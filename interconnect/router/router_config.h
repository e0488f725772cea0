#pragma once
// [interconnect.router]: the routers of every flit-level topology (mesh,
// torus, concentrated mesh, checkerboard, butterfly, ...): virtual
// channels, buffers, the pipeline's stage delays, the allocators, and the
// network interfaces at the nodes. One table (router_config.cpp) gives
// units, ranges and descriptions.
//
// The pipeline follows BookSim 2's input-queued router (Jiang et al.,
// ISPASS 2013): route computation, virtual-channel allocation, switch
// allocation and switch traversal, each its own delay, then the link.
// docs/interconnect.md has the timing diagram and the zero-load formula.
#include <cstdint>
#include <string>

#include "common/config.h"

namespace warpsim::interconnect {

// How request and reply traffic share the network.
enum class SubnetMode : uint8_t {
  Physical,  // two physical networks, one per subnet (no protocol virtual channels)
  Virtual,   // one network; the virtual channels are split between requests and replies
};

// How a node with several injection ports on a plane (a multi-port memory
// router) picks a port for each packet (Bakhoda, PhD thesis, UBC 2014,
// sec. 5.3).
enum class PortPolicy : uint8_t {
  RoundRobin,  // the ports in turn
  Smart,       // from a random port: an empty one, or one whose last packet left in the same direction
};

struct RouterConfig {
  uint32_t vcs = 4;                 // virtual channels per port (all classes together)
  uint32_t vc_buffer_flits = 4;     // buffer per virtual channel
  uint32_t routing_delay = 1;       // route computation, cycles (0: lookahead routing)
  uint32_t vc_alloc_delay = 1;      // virtual-channel allocation, cycles
  uint32_t sw_alloc_delay = 1;      // switch allocation, cycles
  uint32_t st_delay = 1;            // switch (crossbar) traversal, cycles
  uint32_t link_latency = 1;        // router-to-router channel, cycles
  uint32_t terminal_latency = 1;    // injection and ejection channels, cycles
  uint32_t credit_delay = 0;        // extra cycles before a returned credit is usable
  bool speculative = false;         // switch allocation in parallel with VC allocation for head flits
  std::string vc_allocator = "islip";
  std::string sw_allocator = "islip";
  uint32_t alloc_iterations = 1;    // islip: request-grant-accept iterations
  SubnetMode subnets = SubnetMode::Physical;
  uint32_t injection_queue_flits = 64;   // per node and subnet: the source queue of the network interface
  uint32_t ejection_queue_packets = 16;  // per node and subnet: delivered packets waiting for the receiver
  uint32_t deadlock_cycles = 100000;     // no flit moved for this long with flits in routers: report a deadlock
  PortPolicy port_policy = PortPolicy::RoundRobin;
};

const config::Table<RouterConfig>& router_config_table();

}  // namespace warpsim::interconnect
