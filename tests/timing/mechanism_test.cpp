// The seams mechanisms plug into (timing/mechanisms.h), each checked with a
// mechanism defined here: the cluster port (merge with broadcast, serve at
// the port), the L2 slice (serve without the cache, per-line metadata), the
// DRAM channel (observers) and the warp policies' view of each warp (next
// instruction, its annotations from a compile pass, why it stalled).
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "interconnect/ideal_network.h"
#include "interconnect/network.h"
#include "ptx/compile.h"
#include "tests/timing/memory_test_util.h"
#include "tests/timing/port_rig.h"
#include "tests/timing/timing_test_util.h"
#include "timing/memory/cluster_port.h"
#include "timing/memory/l2_slice.h"

namespace warpsim::timing {
namespace {

using functional::param_bytes;
using testing::TimedDevice;

using testing::kP;
using testing::PortRig;
using testing::small_l2;

// A merge table in miniature: a load of a line already in flight from this
// port (for at least the same sectors) waits for that request's reply.
class MergeLoads final : public ClusterPortMechanism {
 public:
  PortDecision on_request(uint32_t id, const InFlight& r, uint64_t) override {
    ++seen;
    if (r.request.kind != MemKind::Load) return PortDecision::forward();
    const auto it = in_flight_.find(r.l2_line);
    if (it != in_flight_.end() && (it->second.sectors & r.l2_sectors) == r.l2_sectors)
      return PortDecision::merge(it->second.id);
    if (it == in_flight_.end()) in_flight_[r.l2_line] = {id, r.l2_sectors};
    return PortDecision::forward();
  }
  void on_reply(uint32_t id, const InFlight& r, uint64_t) override {
    ++replies;
    const auto it = in_flight_.find(r.l2_line);
    if (it != in_flight_.end() && it->second.id == id) in_flight_.erase(it);
  }
  uint32_t seen = 0, replies = 0;

 private:
  struct Entry {
    uint32_t id;
    uint32_t sectors;
  };
  std::map<uint64_t, Entry> in_flight_;
};

// Answers every load of one line at the port, `latency_ps` after it arrives.
class ServeLine final : public ClusterPortMechanism {
 public:
  ServeLine(uint64_t line, uint64_t latency_ps) : line_(line), latency_ps_(latency_ps) {}
  PortDecision on_request(uint32_t, const InFlight& r, uint64_t now_ps) override {
    if (r.request.kind == MemKind::Load && r.l2_line == line_) return PortDecision::serve(now_ps + latency_ps_);
    return PortDecision::forward();
  }

 private:
  uint64_t line_, latency_ps_;
};

// Three SMs of a cluster load one line: the first goes to the network, the
// others merge into it; its one reply reaches all three SMs in the same core
// cycle, and the cluster's next reply waits for the next cycle.
TEST(ClusterPortMechanism, MergedRequestsGetTheReplyInOneBroadcast) {
  PortRig r;
  auto merge = std::make_unique<MergeLoads>();
  MergeLoads* m = merge.get();
  r.port.add_mechanism(std::move(merge));
  const uint32_t a = r.load(0, 0x1000, 0), b = r.load(1, 0x1000, 0), c = r.load(2, 0x1000, 0);
  const uint32_t other = r.load(0, 0x2000, 0);
  const std::vector<uint32_t> arrived = r.run(0, 12);
  EXPECT_EQ(arrived, (std::vector<uint32_t>{a, other})) << "b and c merged into a";
  EXPECT_EQ(m->seen, 4u);
  EXPECT_EQ(r.port.stats().merged, 2u);
  EXPECT_EQ(r.port.stats().requests, 2u);
  r.reply(a);
  r.reply(other);
  r.run(12, 16);
  ASSERT_TRUE(r.port.reply_waiting());
  EXPECT_EQ(m->replies, 2u);
  uint32_t id = 0;
  // Core cycle 100: SM 2 and SM 1 take their copies, then SM 0 its own; SM
  // 0's reply for the other line waits for the next cycle.
  EXPECT_TRUE(r.port.receive(2, 100, 16 * kP, id));
  EXPECT_EQ(id, c);
  EXPECT_TRUE(r.port.receive(1, 100, 16 * kP, id));
  EXPECT_EQ(id, b);
  EXPECT_TRUE(r.port.receive(0, 100, 16 * kP, id));
  EXPECT_EQ(id, a);
  EXPECT_FALSE(r.port.receive(0, 100, 16 * kP, id)) << "one reply per core cycle besides a broadcast";
  EXPECT_TRUE(r.port.receive(0, 101, 16 * kP, id));
  EXPECT_EQ(id, other);
  EXPECT_EQ(r.port.stats().replies, 4u);
  EXPECT_TRUE(r.port.idle());
}

// A request the mechanism serves never reaches the network; its reply is in
// the response FIFO at the time the mechanism said.
TEST(ClusterPortMechanism, ServedRequestsAreAnsweredAtThePort) {
  PortRig r;
  r.port.add_mechanism(std::make_unique<ServeLine>(0x3000, 7 * kP));
  const uint32_t a = r.load(1, 0x3000, 0);
  EXPECT_EQ(r.port.next_work(0, *r.net), 0u);
  EXPECT_TRUE(r.run(0, 1).empty());
  EXPECT_EQ(r.port.stats().served, 1u);
  EXPECT_EQ(r.port.next_work(kP, *r.net), 7 * kP) << "the port sleeps until the reply is due";
  EXPECT_TRUE(r.run(1, 7).empty());
  EXPECT_FALSE(r.port.reply_waiting());
  r.run(7, 8);
  uint32_t id = 0;
  ASSERT_TRUE(r.port.receive(1, 9, 8 * kP, id));
  EXPECT_EQ(id, a);
  EXPECT_EQ(r.port.stats().requests, 0u);
  EXPECT_TRUE(r.port.idle());
}

// The same through the whole memory system: four SMs of one cluster read
// the same data; merged requests cost no network packet, and every SM
// request still gets exactly one reply.
TEST(ClusterPortMechanism, MergingInTheMemorySystemKeepsResultsAndConservesRequests) {
  SimConfig c = testing::small_gpu();
  c.timing.gpu.sms_per_cluster = 4;
  c.timing.ldst.cache_global_loads = false;  // every warp's load goes below L1
  Mechanisms mechanisms;
  mechanisms.cluster_port.push_back([](uint32_t) { return std::make_unique<MergeLoads>(); });
  TimedDevice t(c, testing::kSharedReadKernel, std::move(mechanisms));
  const uint64_t in = t.alloc(256 * 4), out = t.alloc(4 * 256 * 4);
  std::vector<uint32_t> values(256);
  for (uint32_t i = 0; i < 256; ++i) values[i] = i * 7 + 1;
  ASSERT_FALSE(t.device.memory().copy_from_host(in, values.data(), 256 * 4));
  auto r = t.run("twice", {4}, {256}, {param_bytes(out), param_bytes(in)});
  ASSERT_TRUE(r.ok()) << (r.fault ? r.fault->message : "");
  const auto got = t.download<uint32_t>(out, 4 * 256);
  for (uint32_t i = 0; i < 4 * 256; ++i) ASSERT_EQ(got[i], 2 * values[i % 256]) << i;
  const LaunchActivity& a = t.gpu->last();
  EXPECT_GT(a.memory.ports.merged, 0u);
  EXPECT_EQ(a.memory.ports.requests + a.memory.ports.merged + a.memory.ports.served, a.sm.memory_requests);
  EXPECT_EQ(a.memory.net[0].packets_injected, a.memory.ports.requests);
  EXPECT_EQ(a.memory.ports.replies, a.sm.memory_requests);
  EXPECT_EQ(a.memory.system.replies, a.sm.memory_requests);
}

// ---- the L2 slice ------------------------------------------------------------

struct SliceRig {
  ClockDomains clocks;
  RequestPool pool;
  PartitionConfig partition = [] {
    PartitionConfig p;
    p.rop_latency = 5;
    return p;
  }();
  L2Slice slice{partition, small_l2(), clocks, pool};

  uint32_t request(MemKind kind, uint64_t line, uint32_t sm) {
    const uint32_t id = pool.acquire();
    pool[id].request.kind = kind;
    pool[id].request.sm = sm;
    pool[id].l2_line = line;
    pool[id].l2_sectors = 0b0001;
    return id;
  }
};

// Stores are answered by the mechanism without the cache; every other access
// keeps its line's last reader in the line's metadata word.
class LastReader final : public L2SliceMechanism {
 public:
  explicit LastReader(uint64_t latency_ps) : latency_ps_(latency_ps) {}
  SliceDecision on_request(uint32_t, const InFlight& r, uint64_t) override {
    ++asked;
    return r.request.kind == MemKind::Store ? SliceDecision::reply(latency_ps_) : SliceDecision::access();
  }
  void on_access(uint32_t, const InFlight& r, bool hit, uint32_t* metadata) override {
    ASSERT_NE(metadata, nullptr) << "an allocate-on-miss cache places every read";
    previous.push_back({hit, *metadata});
    *metadata = r.request.sm + 1;
  }
  struct Seen {
    bool hit;
    uint32_t metadata;
  };
  std::vector<Seen> previous;
  uint32_t asked = 0;

 private:
  uint64_t latency_ps_;
};

TEST(L2SliceMechanism, ServedRequestsSkipTheCacheAndMetadataStaysWithTheLine) {
  SliceRig r;
  auto m = std::make_unique<LastReader>(2 * kP);
  LastReader* mech = m.get();
  r.slice.add_mechanism(std::move(m));
  // SM 3 misses on line 0; the fill answers it; SM 5 then hits it.
  const uint32_t a = r.request(MemKind::Load, 0, 3);
  r.slice.accept(a, 0);
  r.slice.tick(5 * kP);
  ASSERT_TRUE(r.slice.dram_op_ready(5 * kP));
  r.slice.dram_op_pop();
  r.slice.fill_arrives(0, 0b0001, 10 * kP);
  r.slice.tick(10 * kP);
  ASSERT_TRUE(r.slice.reply_ready(11 * kP));
  r.slice.reply_pop();
  const uint32_t b = r.request(MemKind::Load, 0, 5);
  r.slice.accept(b, 20 * kP);
  r.slice.tick(25 * kP);
  // A store: served by the mechanism 2 cycles later, the cache untouched.
  const uint32_t s = r.request(MemKind::Store, 0, 1);
  r.slice.accept(s, 30 * kP);
  r.slice.tick(35 * kP);
  EXPECT_FALSE(r.slice.reply_ready(36 * kP) && r.slice.reply_front() == s);
  r.slice.tick(36 * kP);
  ASSERT_TRUE(r.slice.reply_ready(28 * kP));
  EXPECT_EQ(r.slice.reply_front(), b);
  r.slice.reply_pop();
  ASSERT_TRUE(r.slice.reply_ready(37 * kP));
  EXPECT_EQ(r.slice.reply_front(), s);
  ASSERT_EQ(mech->previous.size(), 2u);
  EXPECT_FALSE(mech->previous[0].hit);
  EXPECT_EQ(mech->previous[0].metadata, 0u) << "a new line's word is zero";
  EXPECT_TRUE(mech->previous[1].hit);
  EXPECT_EQ(mech->previous[1].metadata, 3u + 1) << "SM 3 read the line last";
  EXPECT_EQ(mech->asked, 3u) << "each request is asked once";
  EXPECT_EQ(r.slice.cache().counters().write_accesses, 0u);
  EXPECT_EQ(r.slice.stats().served, 1u);
  EXPECT_EQ(r.slice.stats().requests, 2u);
}

// ---- DRAM and the warp policies' view ---------------------------------------

class CountCommands final : public DramObserver {
 public:
  explicit CountCommands(std::map<DramCommand, uint64_t>& counts, uint64_t& arrivals)
      : counts_(counts), arrivals_(arrivals) {}
  void on_arrival(const DramRequest&, uint64_t) override { ++arrivals_; }
  void on_command(DramCommand c, const DramRequest&, uint64_t) override { ++counts_[c]; }

 private:
  std::map<DramCommand, uint64_t>& counts_;
  uint64_t& arrivals_;
};

// Annotates every global load (flag 1, group = its PTX index + 1).
class TagGlobalLoads final : public ptx::ModulePass {
 public:
  std::string_view name() const override { return "tag-global-loads"; }
  void run(ptx::Module& module, DiagnosticEngine&) override {
    for (ptx::Function& f : module.functions)
      for (size_t i = 0; i < f.instructions.size(); ++i) {
        ptx::Instruction& inst = f.instructions[i];
        if (inst.opcode == ptx::Opcode::Ld && inst.mods.space(0) == ptx::StateSpace::Global)
          inst.annotation = {1, static_cast<uint32_t>(i + 1)};
      }
  }
};

// Oldest first, but warps whose next instruction is an annotated load go
// first (what an offload-aware policy does with a pass's tags); checks what
// it is shown.
class PreferTagged final : public WarpSchedulerPolicy {
 public:
  explicit PreferTagged(const functional::Program*& program) : program_(program) {}
  void order(std::span<const uint32_t> warps, const WarpViews& views, std::vector<uint32_t>& order) override {
    order.clear();
    for (int pass = 0; pass < 2; ++pass)
      for (uint32_t w : warps) {
        const WarpView v = views.view(w);
        if (pass == 0) check(v);
        const bool tagged = v.annotation != nullptr && (v.annotation->flags & 1) != 0;
        if (tagged == (pass == 0)) order.push_back(w);
      }
  }
  static inline uint64_t views = 0, tagged = 0, stalled = 0;

 private:
  void check(const WarpView& v) {
    ++views;
    if (v.stall != IssueSlot::Issued && v.stall != IssueSlot::Fetch) ++stalled;
    if (v.next == nullptr) {
      EXPECT_EQ(v.annotation, nullptr);
      return;
    }
    const functional::Program& p = *program_;
    ASSERT_GE(v.next, p.code.data());
    ASSERT_LT(v.next, p.code.data() + p.code.size());
    const size_t pc = static_cast<size_t>(v.next - p.code.data());
    ASSERT_EQ(v.annotation, &p.annotations[pc]) << "the annotation of the next instruction";
    const bool global_load = v.next->opcode == ptx::Opcode::Ld && v.next->addr.window == functional::Window::Global;
    EXPECT_EQ((v.annotation->flags & 1) != 0, global_load) << pc;
    tagged += (v.annotation->flags & 1) != 0;
  }
  const functional::Program*& program_;
};

TEST(Mechanisms, DramObserversSeeEveryCommandAndWarpPoliciesSeeAnnotations) {
  std::map<DramCommand, uint64_t> commands;
  uint64_t arrivals = 0;
  const functional::Program* program = nullptr;
  Mechanisms mechanisms;
  mechanisms.dram.push_back([&](uint32_t) { return std::make_unique<CountCommands>(commands, arrivals); });
  mechanisms.warp_policy = [&](const SmConfig&, uint32_t) { return std::make_unique<PreferTagged>(program); };
  TagGlobalLoads pass;
  ptx::CompileOptions options;
  options.passes.push_back(&pass);
  options.check_after_each_pass = true;
  SimConfig c = testing::small_gpu();
  c.timing.ldst.cache_global_loads = false;
  TimedDevice t(c, R"(
.visible .entry sum(.param .u64 out, .param .u64 in)
{
  .reg .b32 %r<8>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out]; ld.param.u64 %rd2, [in];
  mov.u32 %r1, %ctaid.x; mov.u32 %r2, %tid.x;
  mad.lo.u32 %r3, %r1, 128, %r2;
  mul.wide.u32 %rd3, %r3, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.u32 %r4, [%rd4];
  ld.global.u32 %r5, [%rd4+65536];
  add.u32 %r6, %r4, %r5;
  add.s64 %rd5, %rd1, %rd3;
  st.global.u32 [%rd5], %r6;
  ret;
}
)",
                 std::move(mechanisms), options);
  program = t.program.get();
  PreferTagged::views = PreferTagged::tagged = PreferTagged::stalled = 0;
  const uint64_t in = t.alloc(2 * 65536), out = t.alloc(16 * 128 * 4);
  std::vector<uint32_t> values(2 * 16384);
  for (uint32_t i = 0; i < values.size(); ++i) values[i] = i;
  ASSERT_FALSE(t.device.memory().copy_from_host(in, values.data(), values.size() * 4));
  auto r = t.run("sum", {16}, {128}, {param_bytes(out), param_bytes(in)});
  ASSERT_TRUE(r.ok()) << (r.fault ? r.fault->message : "");
  const auto got = t.download<uint32_t>(out, 16 * 128);
  for (uint32_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], 2 * i + 16384) << i;
  // The pass's tags reached the policy, and the policy saw stalls too.
  EXPECT_GT(PreferTagged::tagged, 0u);
  EXPECT_GT(PreferTagged::stalled, 0u);
  EXPECT_GT(PreferTagged::views, PreferTagged::tagged);
  // The observers saw what the DRAM statistics count.
  const DramStats& d = t.gpu->last().memory.dram;
  EXPECT_GT(d.reads, 0u);
  EXPECT_EQ(commands[DramCommand::Activate], d.activates);
  EXPECT_EQ(commands[DramCommand::Precharge], d.precharges);
  EXPECT_EQ(commands[DramCommand::Read], d.reads);
  EXPECT_EQ(commands[DramCommand::Write], d.writes);
  EXPECT_EQ(arrivals, d.reads + d.writes);
}

}  // namespace
}  // namespace warpsim::timing
