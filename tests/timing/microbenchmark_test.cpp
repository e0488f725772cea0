// Microbenchmarks of the cycle-level SM model: hand-written PTX kernels time
// their own instruction sequences with %clock64 (the launch's core cycle at
// issue) and each test asserts the exact cycle count the configuration and
// the model's rules give.
//
// The model rules the expectations rest on (timing/sm/sm.cpp, sm_memory.cpp):
//  - one instruction per scheduler per cycle, in order per warp, executed at
//    issue; a register written by an ALU instruction issued at t is ready at
//    t + latency of its class, and a reader may issue in that cycle;
//  - a unit of a class accepts the next instruction `interval` cycles later;
//  - the front end is made free in the test config: 8-entry instruction
//    buffers (a whole 128-byte L1I line of 16-byte instructions), no decode
//    or L1I hit latency, and the L1I warmed by a first launch of the same
//    kernel (the L1I is not invalidated between kernels); a buffer that runs
//    out is refilled by the fetch stage in the next cycle, which is the
//    earliest the next instruction could issue anyway;
//  - reading %clock64 is an integer-class move without source registers: it
//    waits for no earlier result, only for its issue slot and integer unit.
//
// Timed sections have the shape
//     pre; t0 = %clock64; <link> x N; post; t1 = %clock64
// where `pre` consumes the chain's inputs (so they are ready when the chain
// starts) and `post` consumes its output (so t1 waits for the last result).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "tests/timing/micro_rig.h"

namespace warpsim::timing {
namespace {

using namespace testing;

// Distinct latencies per class, so that an instruction timed with the wrong
// class shows.
constexpr uint32_t kSp = 7, kInt = 5, kDp = 11, kSfu = 23;
constexpr uint32_t kL1Hit = 29, kMemory = 200, kShared = 19;

// One SM with a front end that adds no cycles once the L1I is warm.
SimConfig micro_config() {
  SimConfig c;
  c.gpu.num_sms = 1;
  c.timing.gpu.sms_per_cluster = 1;
  c.timing.sm.ibuffer_entries = 8;
  c.timing.sm.decode_latency = 0;
  c.timing.l1i.hit_latency = 0;
  c.timing.units.sp_latency = kSp;
  c.timing.units.int_latency = kInt;
  c.timing.units.dp_latency = kDp;
  c.timing.units.sfu_latency = kSfu;
  c.timing.l1d.hit_latency = kL1Hit;
  // The SM's own rules, against a fixed-latency memory below L1
  // (memory_microbenchmark_test.cpp times the memory system).
  c.timing.memory.model = MemoryModel::FixedLatency;
  c.timing.memory.latency = kMemory;
  c.timing.shared.latency = kShared;
  return c;
}

// ---- 1. dependent fp32 chain ---------------------------------------------------

// pre `add f1 = f1 + f0` issues at P and its result feeds the first link;
// t0 = P + 1; link k issues at P + k * sp (k = 1..N); t1 issues the cycle
// after link N: t1 - t0 = N * sp exactly (no post needed, no overhead).
TEST(Microbenchmark, DependentFp32ChainSlopeIsSpLatency) {
  KernelText k("chain", "");
  k.add("  mov.f32 %f0, 0f3F800000; mov.f32 %f1, 0f00000000;");
  const std::string link = "  add.f32 %f1, %f1, %f0;";
  k.section(link, link, 16);
  k.section(link, link, 32);
  k.add("  st.global.f32 [%rd15+16], %f1;");
  Rig rig(micro_config(), k.text());
  const auto t = time_kernel(rig, "chain", 3);
  EXPECT_EQ(t[0], 16 * kSp);
  EXPECT_EQ(t[1], 32 * kSp);
  EXPECT_EQ(t[1] - t[0], 16 * kSp);  // slope: sp_latency per link
  float sum;
  std::memcpy(&sum, &t[2], 4);
  EXPECT_EQ(sum, 50.0f);  // 1 + 16 + 1 + 32 additions of 1.0: the chain really ran
}

// ---- 2. independent integer stream -------------------------------------------

// N independent adds into distinct registers, all reading %r1. pre consumes
// %r1 and issues at P; every later instruction (t0, the N adds, t1) is an
// integer-class instruction without a hazard, so they issue one per
// int_interval: t0 = P + ii, add k at t0 + k * ii, t1 = t0 + (N + 1) * ii.
std::vector<uint64_t> int_stream(uint32_t int_interval, uint32_t issue_interval = 1) {
  KernelText k("stream", "  .reg .b32 %s<32>;\n");
  k.add("  mov.u32 %r1, %tid.x;");
  for (uint32_t n : {16u, 32u}) k.section("  add.u32 %r2, %r1, 1;", "  add.u32 %s{k}, %r1, {k};", n);
  SimConfig c = micro_config();
  c.timing.units.int_interval = int_interval;
  c.timing.sm.issue_interval = issue_interval;
  Rig rig(c, k.text());
  return time_kernel(rig, "stream", 2);
}

TEST(Microbenchmark, IndependentIntStreamIsIssueBound) {
  const auto t = int_stream(1);
  EXPECT_EQ(t[0], 16u + 1);
  EXPECT_EQ(t[1], 32u + 1);
  EXPECT_EQ(t[1] - t[0], 16u);  // slope: one instruction per cycle, not int_latency
}

TEST(Microbenchmark, IndependentIntStreamFollowsInitiationInterval) {
  const auto t = int_stream(2);
  EXPECT_EQ(t[0], 2 * (16u + 1));
  EXPECT_EQ(t[1], 2 * (32u + 1));
  EXPECT_EQ(t[1] - t[0], 16u * 2);  // slope: int_interval
}

// A scheduler that issues every other cycle (Fermi's 16-lane groups at the
// shader clock) paces the same stream as an initiation interval of 2 does.
TEST(Microbenchmark, IndependentIntStreamFollowsIssueInterval) {
  const auto t = int_stream(1, 2);
  EXPECT_EQ(t[0], 2 * (16u + 1));
  EXPECT_EQ(t[1], 2 * (32u + 1));
  EXPECT_EQ(t[1] - t[0], 16u * 2);
  // The two limits do not add up: a unit free again when the scheduler is.
  EXPECT_EQ(int_stream(2, 2), t);
}

// ---- 3. fp64 and SFU classes ---------------------------------------------------

// Same shape as the fp32 chain: t1 - t0 = N * latency of the class.
std::vector<uint64_t> chain(const std::string& init, const std::string& link) {
  KernelText k("chain", "");
  k.add(init);
  k.section(link, link, 8);
  k.section(link, link, 16);
  Rig rig(micro_config(), k.text());
  return time_kernel(rig, "chain", 2);
}

TEST(Microbenchmark, DependentFp64ChainSlopeIsDpLatency) {
  const auto t = chain("  mov.f64 %fd0, 0d3FF0000000000000; mov.f64 %fd1, 0d0000000000000000;",
                       "  add.f64 %fd1, %fd1, %fd0;");
  EXPECT_EQ(t[0], 8 * kDp);
  EXPECT_EQ(t[1], 16 * kDp);
  EXPECT_EQ(t[1] - t[0], 8 * kDp);  // slope: dp_latency
}

TEST(Microbenchmark, DependentSfuChainSlopeIsSfuLatency) {
  const auto t = chain("  mov.f32 %f1, 0f3F000000;", "  sin.approx.f32 %f1, %f1;");
  EXPECT_EQ(t[0], 8 * kSfu);
  EXPECT_EQ(t[1], 16 * kSfu);
  EXPECT_EQ(t[1] - t[0], 8 * kSfu);  // slope: sfu_latency
}

// Integer division runs on the SFU (timing/sm/unit_class.cpp), not the integer
// pipeline.
TEST(Microbenchmark, IntegerDivisionChainUsesSfuLatency) {
  const auto t = chain("  mov.u32 %r1, 1000000; mov.u32 %r2, 1;", "  div.u32 %r1, %r1, %r2;");
  EXPECT_EQ(t[0], 8 * kSfu);
  EXPECT_EQ(t[1], 16 * kSfu);
}

// ---- 4. pointer chase through L1 ----------------------------------------------

// A cyclic list of N nodes, one per 128-byte line (so every node is its own
// L1 line and set), visited in the order 0, 7, 14, ... (mod N); each node
// holds the byte offset of the next. A link is
//     add.s64 addr = base + offset   (integer: ready int_latency later)
//     ld.global.u64 offset = [addr]
// The load issued at t enters the L1 in the LD/ST unit's step of cycle t + 1
// (the unit runs before issue in a cycle and takes one request per cycle):
//   hit:  completion at t + 1 + l1d.hit_latency, and the dependent add
//         issues in that cycle: load-to-use = l1d.hit_latency + 1;
//   miss: the request leaves for memory in the same cycle t + 1, takes
//         ceil(32 bytes / bytes_per_cycle) = 1 cycle on the port and
//         memory.latency more: load-to-use = memory.latency + 2.
// slope = int_latency + load-to-use. pre consumes the inputs (t0 = pre + 1,
// the first add at t0 + 1) and post consumes the last offset (issues when it
// is ready; t1 one cycle later): t1 - t0 = N * slope + 2.
std::string chase_kernel(const std::string& name, uint32_t n) {
  KernelText k(name, "");
  k.add("  mov.u64 %rd4, 0;");
  const std::string pre = "  add.s64 %rd6, %rd4, %rd14;";
  const std::string link = "  add.s64 %rd5, %rd14, %rd4;\n  ld.global.u64 %rd4, [%rd5];";
  const std::string post = "  add.s64 %rd6, %rd4, 0;";
  k.section(pre, link, n, post);  // first pass: every node misses
  k.section(pre, link, n, post);  // second pass: every node hits
  return k.text();
}

std::vector<uint64_t> chase_list(uint32_t n) {
  std::vector<uint64_t> words(n * 16, 0);  // 16 words per 128-byte line
  for (uint32_t i = 0; i < n; ++i) words[(i * 7 % n) * 16] = uint64_t{(i + 1) * 7 % n} * 128;
  return words;
}

TEST(Microbenchmark, PointerChaseMissesThenHitsInL1) {
  Rig rig(micro_config(), chase_kernel("chase16", 16) + chase_kernel("chase32", 32));
  constexpr uint64_t kMiss = kInt + kMemory + 2, kHit = kInt + kL1Hit + 1;
  std::vector<uint64_t> cycles[2];
  for (uint32_t n : {16u, 32u}) {
    const uint64_t list = ft::upload(rig.device(), chase_list(n));
    ASSERT_EQ(list % 128, 0u);
    const auto t = time_kernel(rig, "chase" + std::to_string(n), 2, 1, list);
    EXPECT_EQ(t[0], n * kMiss + 2) << n << " nodes, first pass";
    EXPECT_EQ(t[1], n * kHit + 2) << n << " nodes, second pass";
    // Exactly one miss per node, then one hit per node (the kernel's only
    // global loads).
    const LaunchActivity& last = rig.gpu->last();
    EXPECT_EQ(last.l1d.read_misses, n);
    EXPECT_EQ(last.l1d.read_hits, n);
    EXPECT_EQ(last.l1d.read_hit_reserved, 0u);
    EXPECT_EQ(last.sm.global_load_requests, 2 * n);
    cycles[n / 32] = t;
  }
  // Slopes over 16 more nodes.
  EXPECT_EQ(cycles[1][0] - cycles[0][0], 16 * kMiss);
  EXPECT_EQ(cycles[1][1] - cycles[0][1], 16 * kHit);
}

// ---- 5. shared-memory bank conflicts -----------------------------------------

// One warp; lane l works on the word l * s of a shared array, which holds its
// own byte offset in the array, so each lane's chain of loads stays on its
// word and each load depends on the previous one. With 32 banks of 4 bytes
// the word l * s is in bank (l * s) % 32: s lanes share each bank used, with
// distinct words, so an access takes cycles(s) = s passes (s <= 32).
// A shared access issued at t completes at t + shared.latency + cycles - 1,
// when its reader may issue; the LD/ST unit is free again at t + cycles,
// earlier. Every shared instruction of the kernel (the store, a first untimed
// load that waits out the store's conflict cycles, and the timed loads) adds
// cycles - 1 to shared_bank_conflict_cycles.
constexpr uint32_t kFirstChain = 8, kSecondChain = 16;
constexpr uint32_t kSharedInstructions = 2 + kFirstChain + kSecondChain;

// `generic`: the accesses use generic addresses (cvta.shared, then ld/st
// without a state space) and a link is
//     mad.wide.u32 addr = offset * 1 + smem_generic   (integer)
//     ld.u32 offset = [addr]
// so t1 - t0 = N * (int_latency + shared.latency + cycles - 1) + 2, as for
// the pointer chase (pre and post consume the chain's input and output).
// Otherwise the accesses are ld.shared/st.shared on the word's shared
// address itself (`ld.shared.u32 a, [a]`, no address forming):
// t1 - t0 = N * (shared.latency + cycles - 1) + 2.
std::string bank_kernel(bool generic) {
  KernelText k("banks", "  .shared .align 4 .b32 smem[1024];\n");
  k.add("  mov.u32 %r1, %tid.x; ld.param.u32 %r2, [arg]; mul.lo.u32 %r3, %r1, %r2; shl.b32 %r3, %r3, 2;");
  if (generic) {
    k.add("  cvta.shared.u64 %rd7, smem; mad.wide.u32 %rd5, %r3, 1, %rd7;");
    k.add("  st.u32 [%rd5], %r3;");
    k.add("  ld.u32 %r5, [%rd5];");
    const std::string pre = "  add.s64 %rd6, %rd7, 0; add.u32 %r6, %r5, 0;";
    const std::string link = "  mad.wide.u32 %rd5, %r5, 1, %rd7;\n  ld.u32 %r5, [%rd5];";
    k.section(pre, link, kFirstChain, "  add.u32 %r6, %r5, 0;");
    k.section(pre, link, kSecondChain, "  add.u32 %r6, %r5, 0;");
  } else {
    k.add("  mov.u32 %r4, smem; add.u32 %r5, %r4, %r3;");
    k.add("  st.shared.u32 [%r5], %r5;");
    k.add("  ld.shared.u32 %r5, [%r5];");
    const std::string pre = "  add.u32 %r6, %r5, 0;";
    const std::string link = "  ld.shared.u32 %r5, [%r5];";
    k.section(pre, link, kFirstChain, pre);
    k.section(pre, link, kSecondChain, pre);
    k.add("  sub.u32 %r5, %r5, %r4;");  // back to the offset in the array
  }
  k.add("  shl.b32 %r7, %r1, 2; cvt.u64.u32 %rd2, %r7; add.s64 %rd1, %rd14, %rd2;");
  k.add("  st.global.u32 [%rd1], %r5;");
  return k.text();
}

// Runs the sweep; returns false (after checking nothing) when the kernel's
// shared accesses did not reach the LD/ST unit at all.
bool bank_sweep(bool generic) {
  Rig rig(micro_config(), bank_kernel(generic));
  const uint64_t back = ft::upload(rig.device(), std::vector<uint32_t>(32, 0));
  const uint64_t link_extra = generic ? kInt : 0;
  for (uint32_t s : {1u, 2u, 4u, 8u, 16u, 32u}) {
    const auto t = time_kernel(rig, "banks", 2, 32, back, s);
    const LaunchActivity& last = rig.gpu->last();
    if (last.sm.shared_accesses == 0) return false;
    const uint64_t slope = kShared + s - 1 + link_extra;
    EXPECT_EQ(t[0], kFirstChain * slope + 2) << "stride " << s;
    EXPECT_EQ(t[1], kSecondChain * slope + 2) << "stride " << s;
    EXPECT_EQ(t[1] - t[0], (kSecondChain - kFirstChain) * slope) << "stride " << s;
    EXPECT_EQ(last.sm.shared_accesses, kSharedInstructions) << "stride " << s;
    EXPECT_EQ(last.sm.shared_bank_conflict_cycles, kSharedInstructions * (s - 1)) << "stride " << s;
    // The chains really ran on every lane's own word.
    const auto offset = ft::download<uint32_t>(rig.device(), back, 32);
    for (uint32_t l = 0; l < 32; ++l) EXPECT_EQ(offset[l], 4 * l * s) << "stride " << s << " lane " << l;
  }
  return true;
}

TEST(Microbenchmark, SharedMemoryBankConflictSweepGenericAddresses) {
  EXPECT_TRUE(bank_sweep(true)) << "generic accesses to shared memory reached no shared-memory bank";
}

// Regression: scalar ld.shared/st.shared once took an inline fast path in
// functional/exec_memory.cpp that bypassed Warp::translate, so the timing
// model saw no shared access (no latency, no bank conflicts).
TEST(Microbenchmark, SharedMemoryBankConflictSweepSharedSpace) {
  EXPECT_TRUE(bank_sweep(false)) << "ld.shared/st.shared reached no shared-memory bank";
}

// ---- 6. issue throughput -------------------------------------------------------

// 32 warps (8 per scheduler) of 512 independent fp32 adds: every scheduler
// issues one instruction per cycle, so the SM's IPC is the scheduler count
// up to the start and the tail of the launch. (With the warm L1I the fetch
// stage serves warps 0-3, one per scheduler, in cycle 0 and keeps ahead
// after that: the model gives exactly 16480 instructions in 4120 cycles.)
//
// With issue_interval = 2 the same warps issue at half the rate, and the slot
// after each issue counts as issued too (the scheduler is busy with that
// instruction), so the issue-slot breakdown still shows a saturated SM.
void expect_issue_rate(uint32_t issue_interval) {
  constexpr uint32_t kAdds = 512, kThreads = 1024;
  std::string ptx = ".visible .entry adds()\n{\n  .reg .f32 %f<10>;\n"
                    "  mov.f32 %f8, 0f3F800000; mov.f32 %f9, 0f40000000;\n";
  // Eight destinations in turn: a register is rewritten every 8 instructions,
  // after sp_latency = 7, so a warp alone would not stall either.
  for (uint32_t i = 0; i < kAdds; ++i) ptx += "  add.f32 %f" + std::to_string(i % 8) + ", %f8, %f9;\n";
  ptx += "  ret;\n}\n";
  SimConfig c = micro_config();
  c.timing.sm.issue_interval = issue_interval;
  Rig rig(c, ptx);
  rig.launch_warm("adds", {1}, {kThreads}, {});
  const LaunchActivity& last = rig.gpu->last();
  const uint64_t instructions = last.sm.warp_instructions;
  ASSERT_EQ(instructions, kThreads / 32 * (kAdds + 3));
  const uint64_t schedulers = c.timing.sm.schedulers;
  // No schedule can beat one instruction per scheduler per interval.
  EXPECT_GE(last.cycles * schedulers, issue_interval * instructions);
  const double ipc = static_cast<double>(instructions) / static_cast<double>(last.cycles);
  const double best = static_cast<double>(schedulers) / issue_interval;
  EXPECT_NEAR(ipc, best, 0.01 * best);
  // Each issue and the slots until the next: the last issues' gaps may fall
  // after the end.
  const uint64_t issued = last.sm.issue_slots[static_cast<int>(IssueSlot::Issued)];
  EXPECT_LE(issued, issue_interval * instructions);
  EXPECT_GE(issued, issue_interval * instructions - (issue_interval - 1) * schedulers);
  uint64_t slots = 0;
  for (uint64_t n : last.sm.issue_slots) slots += n;
  EXPECT_EQ(slots, last.cycles * schedulers);
}

TEST(Microbenchmark, ManyWarpsIssueOnePerSchedulerPerCycle) { expect_issue_rate(1); }

TEST(Microbenchmark, IssueIntervalHalvesTheIssueRate) { expect_issue_rate(2); }

// ---- 7. determinism ------------------------------------------------------------

// Every figure of two launches: what they publish (every counter of every
// component's statistics table, per SM, partition and node too, so counters
// added later are compared without changing this test), and the CTA trace.
void expect_same(const LaunchActivity& a, const LaunchActivity& b, size_t min_values = 100) {
  EXPECT_EQ(a.cycles, b.cycles);
  EXPECT_EQ(a.ctas_per_sm, b.ctas_per_sm);
  EXPECT_EQ(a.occupancy_limit, b.occupancy_limit);
  EXPECT_EQ(a.cta_trace, b.cta_trace);
  StatsRegistry sa, sb;
  publish(sa, a);
  publish(sb, b);
  EXPECT_GT(sa.values().size(), min_values);
  for (const auto& [name, value] : sa.values()) {
    const auto it = sb.values().find(name);
    ASSERT_NE(it, sb.values().end()) << name;
    EXPECT_EQ(value, it->second) << name;
  }
  EXPECT_EQ(sa.values().size(), sb.values().size());
}

constexpr const char* kVectorAdd = R"(
.visible .entry vadd(.param .u64 a, .param .u64 b, .param .u64 c)
{
  .reg .b32 %r<8>; .reg .b64 %rd<12>; .reg .f32 %f<4>;
  ld.param.u64 %rd1, [a]; ld.param.u64 %rd2, [b]; ld.param.u64 %rd3, [c];
  mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mov.u32 %r3, %tid.x;
  mad.lo.u32 %r4, %r1, %r2, %r3;
  mul.wide.u32 %rd4, %r4, 4;
  add.s64 %rd5, %rd1, %rd4; add.s64 %rd6, %rd2, %rd4; add.s64 %rd7, %rd3, %rd4;
  ld.global.f32 %f1, [%rd5]; ld.global.f32 %f2, [%rd6];
  add.f32 %f3, %f1, %f2;
  st.global.f32 [%rd7], %f3;
  ret;
}
)";

// The default timing model on 4 SMs in clusters of 2 (cold caches, misses,
// memory queues): the statistics of a 64-CTA vector add.
LaunchActivity vector_add(bool skip_idle_cycles, uint32_t issue_interval = 1) {
  SimConfig c;
  c.timing.sm.issue_interval = issue_interval;
  c.gpu.num_sms = 4;
  c.timing.gpu.sms_per_cluster = 2;
  c.timing.gpu.cta_trace = true;
  c.timing.gpu.skip_idle_cycles = skip_idle_cycles;
  Rig rig(c, kVectorAdd);
  constexpr uint32_t n = 64 * 128;
  std::vector<float> a(n), b(n);
  for (uint32_t i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i);
    b[i] = static_cast<float>(2 * i);
  }
  const uint64_t da = ft::upload(rig.device(), a), db = ft::upload(rig.device(), b);
  const uint64_t dc = ft::upload(rig.device(), std::vector<float>(n, 0));
  const LaunchResult r = rig.launch("vadd", {64}, {128}, {param_bytes(da), param_bytes(db), param_bytes(dc)});
  EXPECT_EQ(r.cycles, rig.gpu->last().cycles);
  const auto out = ft::download<float>(rig.device(), dc, n);
  for (uint32_t i = 0; i < n; ++i) EXPECT_EQ(out[i], static_cast<float>(3 * i)) << i;
  return rig.gpu->last();
}

TEST(Microbenchmark, TwoInstancesGiveIdenticalStatistics) {
  const LaunchActivity first = vector_add(true);
  const LaunchActivity second = vector_add(true);
  // The launch did real work through every path compared.
  EXPECT_EQ(first.sm.ctas, 64u);
  EXPECT_GT(first.l1d.read_misses, 0u);
  EXPECT_GT(first.l1i.read_misses, 0u);
  EXPECT_GT(first.sm.memory_requests, 0u);
  EXPECT_EQ(first.cta_trace.size(), 64u);
  // ... and through the memory system (the default model).
  EXPECT_GT(first.memory.dram.reads, 0u);
  EXPECT_GT(first.memory.l2.read_misses, 0u);
  EXPECT_GT(first.memory.net[0].packets_injected, 0u);
  EXPECT_GT(first.memory.net[1].flits_ejected, 0u);
  expect_same(first, second);
}

TEST(Microbenchmark, SkippingIdleCyclesChangesNoStatistic) {
  expect_same(vector_add(true), vector_add(false));
}

// Also while schedulers wait out an issue interval: one warp's dependent
// chain leaves its SM asleep between links, and the sleeping SM must wake
// when its scheduler may issue again, or the slots until the next link would
// count as issued.
LaunchActivity dependent_chain(bool skip_idle_cycles) {
  KernelText k("chain", "");
  k.add("  mov.f32 %f0, 0f3F800000; mov.f32 %f1, 0f3F800000;");
  k.section("  add.f32 %f1, %f1, %f0;", "  add.f32 %f1, %f1, %f0;", 16);
  SimConfig c = micro_config();
  c.timing.sm.issue_interval = 2;
  c.timing.gpu.skip_idle_cycles = skip_idle_cycles;
  Rig rig(c, k.text());
  time_kernel(rig, "chain", 1);
  return rig.gpu->last();
}

TEST(Microbenchmark, SkippingIdleCyclesChangesNoStatisticWithIssueInterval) {
  const LaunchActivity skipped = dependent_chain(true);
  expect_same(skipped, dependent_chain(false), 50);  // a fixed-latency memory publishes fewer
  EXPECT_GT(skipped.sm.issue_slots[static_cast<int>(IssueSlot::Scoreboard)], 16u * (kSp - 2));
}

// ---- 8. CTA placement through the Gpu -------------------------------------------

// 4 SMs in 2 clusters of 2, at most 2 CTAs per SM, 10 CTAs. Each CTA writes
// the %smid it ran on, which must agree with the trace.
std::vector<std::pair<uint64_t, uint32_t>> placement(const std::string& policy) {
  SimConfig c = micro_config();
  c.gpu.num_sms = 4;
  c.gpu.max_ctas_per_sm = 2;
  c.timing.gpu.sms_per_cluster = 2;
  c.timing.gpu.cta_policy = policy;
  c.timing.gpu.cta_trace = true;
  Rig rig(c, R"(
.visible .entry where(.param .u64 out)
{
  .reg .b32 %r<4>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %ctaid.x; mov.u32 %r2, %smid;
  mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
)");
  const uint64_t out = ft::upload(rig.device(), std::vector<uint32_t>(10, 99));
  rig.launch("where", {10}, {64}, {param_bytes(out)});
  const LaunchActivity& last = rig.gpu->last();
  EXPECT_EQ(last.ctas_per_sm, 2u);
  EXPECT_EQ(last.occupancy_limit, functional::OccupancyLimit::CtaSlots);
  const auto smid = ft::download<uint32_t>(rig.device(), out, 10);
  std::vector<bool> seen(10, false);
  for (const auto& [cta, sm] : last.cta_trace) {
    EXPECT_LT(cta, 10u);
    if (cta >= 10) continue;
    EXPECT_FALSE(seen[cta]) << "CTA " << cta << " placed twice";
    seen[cta] = true;
    EXPECT_EQ(smid[cta], sm) << "CTA " << cta;
  }
  EXPECT_EQ(last.cta_trace.size(), 10u);
  return last.cta_trace;
}

// two-level-rr with one CTA per cluster per cycle: cycle 0 gives CTA 0 to
// cluster 0 (SM 0) and CTA 1 to cluster 1 (SM 2); cycle 1 the clusters'
// other SMs (1, 3); cycles 2 and 3 repeat, filling the second slots. The
// CTAs run hundreds of cycles (cold L1I), so nothing frees up meanwhile.
TEST(Microbenchmark, TwoLevelRoundRobinPlacement) {
  const auto trace = placement("two-level-rr");
  const std::vector<std::pair<uint64_t, uint32_t>> expected = {{0, 0}, {1, 2}, {2, 1}, {3, 3},
                                                               {4, 0}, {5, 2}, {6, 1}, {7, 3}};
  ASSERT_GE(trace.size(), 8u);
  EXPECT_EQ(std::vector(trace.begin(), trace.begin() + 8), expected);
}

// distributed-block (blocks of 2): pools CTAs 0-4 (cluster 0) and 5-9
// (cluster 1); each cycle every cluster hands one pair to its next SM with 2
// free slots: cycle 0 {0,1} -> SM 0, {5,6} -> SM 2; cycle 1 {2,3} -> SM 1,
// {7,8} -> SM 3. The single CTAs left (4 and 9) wait for an SM of their own
// cluster with 2 free slots.
TEST(Microbenchmark, DistributedBlockPlacement) {
  const auto trace = placement("distributed-block");
  const std::vector<std::pair<uint64_t, uint32_t>> expected = {{0, 0}, {1, 0}, {5, 2}, {6, 2},
                                                               {2, 1}, {3, 1}, {7, 3}, {8, 3}};
  ASSERT_EQ(trace.size(), 10u);
  EXPECT_EQ(std::vector(trace.begin(), trace.begin() + 8), expected);
  for (size_t i = 8; i < 10; ++i) {
    const uint32_t cluster = trace[i].first < 5 ? 0 : 1;
    EXPECT_EQ(trace[i].second / 2, cluster) << "CTA " << trace[i].first << " left its cluster's pool";
  }
}

}  // namespace
}  // namespace warpsim::timing
