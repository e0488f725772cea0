#pragma once
// A cluster's port (network node 0, three SMs) and an L2 slice node (1) over
// an ideal one-cycle network, every clock at 1 GHz: the rig of the
// cluster-port mechanism tests, which drive the port cycle by cycle and play
// the slice's part by hand.
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "interconnect/ideal_network.h"
#include "interconnect/network.h"
#include "tests/timing/memory_test_util.h"
#include "timing/memory/cluster_port.h"

namespace warpsim::timing::testing {

inline interconnect::NetworkConfig ideal_network() {
  interconnect::NetworkConfig c;
  c.topology = "ideal";
  c.topologies.get<interconnect::IdealConfig>("ideal").latency = 1;
  return c;
}

// A cluster's port (node 0) and an L2 slice (node 1).
inline constexpr interconnect::NodeRole kTwoNodes[] = {interconnect::NodeRole::Core, interconnect::NodeRole::Memory};

struct PortRig {
  RequestPool pool;
  ClusterPort port{0, 0, 3, ClusterPortConfig{}, pool, kP};
  std::unique_ptr<interconnect::Network> net = interconnect::make_network(ideal_network(), kTwoNodes);
  std::map<uint32_t, uint64_t> arrival_cycle;  // request id -> network cycle it reached the slice

  uint32_t load(uint32_t sm, uint64_t line, uint64_t now_ps, MemKind kind = MemKind::Load) {
    const uint32_t id = pool.acquire();
    pool[id].request.sm = sm;
    pool[id].request.kind = kind;
    pool[id].request.address = line;
    pool[id].l2_line = line;
    pool[id].l2_sectors = 0b1111;
    pool[id].slice_node = 1;
    pool[id].request_bytes = 8;
    pool[id].reply_bytes = 136;
    port.send(sm, id, now_ps);
    return id;
  }
  // Network cycles [from, to): the port ticks; requests reaching the slice
  // node are collected.
  std::vector<uint32_t> run(uint64_t from, uint64_t to) {
    std::vector<uint32_t> arrived;
    for (uint64_t c = from; c < to; ++c) {
      interconnect::Packet p;
      while (net->eject(interconnect::Subnet::Request, 1, p)) {
        arrived.push_back(uint32_t(p.payload));
        arrival_cycle[uint32_t(p.payload)] = c;
      }
      port.tick(c * kP, *net);
      net->tick();
    }
    return arrived;
  }
  void reply(uint32_t id) {
    interconnect::Packet p;
    p.src = 1;
    p.dst = 0;
    p.bytes = pool[id].reply_bytes;
    p.payload = id;
    p.created = net->cycle();
    net->inject(interconnect::Subnet::Reply, 1, p);
  }
};

// A kernel whose CTAs all read the same 1 KB (256 words) and write twice
// each word to their own part of `out`: run on the SMs of one cluster, their
// loads of each line meet at the port.
inline constexpr const char* kSharedReadKernel = R"(
.visible .entry twice(.param .u64 out, .param .u64 in)
{
  .reg .b32 %r<5>; .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out]; ld.param.u64 %rd2, [in];
  mov.u32 %r1, %ctaid.x; mov.u32 %r2, %tid.x;
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.u32 %r3, [%rd4];
  add.u32 %r3, %r3, %r3;
  mad.lo.u32 %r4, %r1, 256, %r2;
  mul.wide.u32 %rd3, %r4, 4;
  add.s64 %rd5, %rd1, %rd3;
  st.global.u32 [%rd5], %r3;
  ret;
}
)";

}  // namespace warpsim::timing::testing
