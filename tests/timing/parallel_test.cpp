// Parallel timing simulation (timing.threads): the SMs of a cycle tick on
// several host threads, and nothing may depend on how many.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/stats.h"
#include "tests/timing/timing_test_util.h"
#include "timing/cycle_workers.h"
#include "timing/memory/memory_activity.h"
#include "timing/memory/memory_system.h"
#include "timing/memory/request_pool.h"

namespace warpsim::timing {
namespace {

using functional::param_bytes;
using testing::TimedDevice;

// Every thread loads 16 uncoalesced words and stores their sum; thread 0 of
// every 16th CTA prints its CTA and the sum. Plain accesses only: the kernel's
// CTAs cannot act on one another, so its SMs may tick on several threads.
constexpr const char* kSumAndPrint = R"(
.extern .func (.param .b32 rv) vprintf(.param .b64 fmt, .param .b64 args);
.global .align 1 .b8 fmt[9] = {99, 37, 117, 32, 37, 117, 10, 0, 0};
.visible .entry sum(.param .u64 in, .param .u64 out)
{
  .local .align 8 .b8 buf[8];
  .reg .pred %p<4>; .reg .b32 %r<12>; .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r4, %r2, %r3, %r1;
  mov.u32 %r6, 0;
  mov.u32 %r7, 0;
  mul.wide.u32 %rd3, %r4, 64;
  add.s64 %rd4, %rd1, %rd3;
LOOP:
  mul.wide.u32 %rd5, %r7, 4;
  add.s64 %rd6, %rd4, %rd5;
  ld.global.u32 %r8, [%rd6];
  add.u32 %r6, %r6, %r8;
  add.u32 %r7, %r7, 1;
  setp.lt.u32 %p1, %r7, 16;
  @%p1 bra LOOP;
  mul.wide.u32 %rd3, %r4, 4;
  add.s64 %rd7, %rd2, %rd3;
  st.global.u32 [%rd7], %r6;
  setp.ne.u32 %p2, %r1, 0;
  and.b32 %r9, %r2, 15;
  setp.ne.u32 %p3, %r9, 0;
  or.pred %p2, %p2, %p3;
  @%p2 bra DONE;
  mov.u64 %rd8, buf;
  cvta.local.u64 %rd9, %rd8;
  st.local.u32 [buf], %r2;
  st.local.u32 [buf+4], %r6;
  mov.u64 %rd10, fmt;
  cvta.global.u64 %rd11, %rd10;
  {
  .param .b64 p0; .param .b64 p1; .param .b32 rv;
  st.param.b64 [p0], %rd11;
  st.param.b64 [p1], %rd9;
  call.uni (rv), vprintf, (p0, p1);
  }
DONE:
  ret;
}
)";

struct Outcome {
  uint64_t cycles = 0;
  std::vector<uint32_t> out;
  std::string printed;
  std::string stats;  // the launch's statistics as JSON
};

Outcome run_sum(uint32_t threads, uint32_t sms_per_cluster) {
  SimConfig c;
  c.gpu.num_sms = 32;
  c.timing.gpu.sms_per_cluster = sms_per_cluster;
  c.timing.gpu.threads = threads;
  TimedDevice t(c, kSumAndPrint);
  const uint32_t ctas = 128, n = ctas * 128;
  std::vector<uint32_t> in(n * 16);
  for (uint32_t i = 0; i < in.size(); ++i) in[i] = (i * 2654435761u) >> 20;
  const uint64_t din = t.alloc(in.size() * 4), dout = t.alloc(n * 4);
  EXPECT_FALSE(t.device.memory().copy_from_host(din, in.data(), in.size() * 4));
  const functional::LaunchResult r = t.run("sum", {ctas}, {128}, {param_bytes(din), param_bytes(dout)});
  EXPECT_TRUE(r.ok()) << (r.fault ? r.fault->message : "");
  Outcome o;
  o.cycles = r.cycles;
  o.out = t.download<uint32_t>(dout, n);
  for (uint32_t i = 0; i < n; i += 997) {
    uint32_t want = 0;
    for (uint32_t j = 0; j < 16; ++j) want += in[i * 16 + j];
    EXPECT_EQ(o.out[i], want) << "thread " << i;
  }
  o.printed = t.device.printed();
  StatsRegistry stats;
  publish(stats, t.gpu->last());
  o.stats = stats.to_json().dump();
  return o;
}

TEST(ParallelTiming, CyclesStatisticsOutputAndPrintfAreTheSameAtEveryThreadCount) {
  for (uint32_t per_cluster : {1u, 2u}) {
    const Outcome one = run_sum(1, per_cluster);
    EXPECT_GT(one.cycles, 0u);
    // 128 CTAs, every 16th prints: 8 lines.
    EXPECT_EQ(std::count(one.printed.begin(), one.printed.end(), '\n'), 8) << one.printed;
    // 32 SMs: 16 or 32 clusters, enough for 4 threads to get a share each.
    for (uint32_t threads : {2u, 4u}) {
      const Outcome many = run_sum(threads, per_cluster);
      EXPECT_EQ(many.cycles, one.cycles) << threads << " threads, " << per_cluster << " SMs per cluster";
      EXPECT_EQ(many.out, one.out);
      EXPECT_EQ(many.printed, one.printed);
      EXPECT_EQ(many.stats, one.stats);
    }
  }
}

// The memory's edges that advance_ahead() runs early (while the SMs tick)
// are those nothing the SMs do can change: the same replies, at the same
// cycles, with the same statistics, whether it runs before the SMs' calls,
// after them, or not at all. Also with clocks that are not the core's.
enum class Ahead { Never, BeforeSms, AfterSms };

std::string drive_memory(Ahead ahead, double network_mhz, double l2_mhz) {
  SimConfig c = testing::small_gpu();
  c.gpu.num_sms = 8;
  c.timing.gpu.sms_per_cluster = 2;
  c.timing.network.clock_mhz = network_mhz;
  c.timing.partition.l2_clock_mhz = l2_mhz;
  MemorySystem m(c);
  std::string log;
  uint32_t seed = 12345, token = 0, outstanding = 0;
  const auto next_random = [&] { return seed = seed * 1664525u + 1013904223u; };
  uint64_t now = 0;
  for (; now < 20000 && (now < 3000 || outstanding != 0); ++now) {
    m.advance(now);
    if (ahead == Ahead::BeforeSms) m.advance_ahead(now);
    for (uint32_t sm = 0; sm < 8; ++sm) {
      MemRequest reply;
      while (m.receive(sm, now, reply)) {
        log += std::to_string(now) + ":" + std::to_string(reply.token) + " ";
        --outstanding;
      }
      if (now >= 3000 || next_random() % 4 != 0 || !m.can_accept(sm)) continue;
      MemRequest r;
      const uint32_t pick = next_random();
      r.address = uint64_t{pick % 4096} * 128;  // 512 KB of lines: hits, misses, DRAM rows
      r.sector_mask = 1u << (pick >> 28) % 4;
      r.kind = pick % 5 == 0 ? MemKind::Store : MemKind::Load;
      r.bytes = 32;
      r.sm = sm;
      r.token = token++;
      r.sent = now;
      m.send(r, now);
      ++outstanding;
    }
    if (ahead == Ahead::AfterSms) m.advance_ahead(now);
    m.end_sm_phase(now);
  }
  EXPECT_EQ(outstanding, 0u) << "every request got its reply by cycle " << now;
  EXPECT_GT(token, 1000u);
  StatsRegistry stats;
  publish(stats, m.activity(), now);
  return log + stats.to_json().dump();
}

TEST(ParallelTiming, TheMemoryEdgesRunAheadAreTheOnesTheSmsCannotChange) {
  for (const auto& [network, l2] : {std::pair{1980.0, 1980.0}, std::pair{2500.0, 1300.0}}) {
    const std::string never = drive_memory(Ahead::Never, network, l2);
    EXPECT_EQ(drive_memory(Ahead::BeforeSms, network, l2), never) << network << " / " << l2 << " MHz";
    EXPECT_EQ(drive_memory(Ahead::AfterSms, network, l2), never) << network << " / " << l2 << " MHz";
  }
}

// The pacer probes by alternating blocks of cycles on the threads and on
// one, times them (not a block's first cycles), runs kRun cycles the faster
// way, and probes again.
void probe(ThreadPacer& p, uint64_t parallel_wall, uint64_t serial_wall) {
  for (uint32_t b = 0; b < ThreadPacer::kBlocks; ++b)
    for (uint32_t i = 0; i < ThreadPacer::kBlock; ++i) {
      ASSERT_EQ(p.parallel(), b % 2 == 0) << "block " << b;
      ASSERT_EQ(p.timing(), i >= ThreadPacer::kWarm);
      // The untimed cycles are slow the other way: they must not count.
      p.cycle(!p.timing() ? 1000 : p.parallel() ? parallel_wall : serial_wall);
    }
}

TEST(ThreadPacer, RunsTheFasterWayBetweenProbes) {
  ThreadPacer p;
  probe(p, 60, 100);
  for (uint32_t i = 0; i < ThreadPacer::kRun; ++i) {
    ASSERT_TRUE(p.parallel()) << i;
    ASSERT_FALSE(p.timing());
    p.cycle(0);
  }
  probe(p, 110, 100);
  for (uint32_t i = 0; i < ThreadPacer::kRun; ++i) {
    ASSERT_FALSE(p.parallel()) << i;
    p.cycle(0);
  }
  probe(p, 10, 100);
  EXPECT_TRUE(p.parallel());
}

TEST(CycleWorkers, RunsEveryTaskExactlyOnceInEveryRun) {
  for (uint32_t threads : {2u, 3u, 8u}) {  // 8: more threads than this machine may have cores
    CycleWorkers workers(threads);
    EXPECT_EQ(workers.threads(), threads);
    for (uint32_t count : {1u, 2u, 7u, 64u, 1000u}) {
      std::vector<std::atomic<uint32_t>> calls(count);
      const auto task = [&](uint32_t i) { calls[i].fetch_add(1); };
      uint32_t leads = 0;
      const std::thread::id caller = std::this_thread::get_id();
      const auto lead = [&] {
        EXPECT_EQ(std::this_thread::get_id(), caller);
        ++leads;
      };
      for (int run = 0; run < 200; ++run) workers.run(count, task, lead);
      for (uint32_t i = 0; i < count; ++i) ASSERT_EQ(calls[i].load(), 200u) << "task " << i << " of " << count;
      EXPECT_EQ(leads, 200u);
    }
  }
}

TEST(CycleWorkers, RethrowsWhatATaskThrowsAndKeepsWorking) {
  CycleWorkers workers(3);
  const std::function<void(uint32_t)> failing = [](uint32_t i) {
    if (i == 5) throw std::runtime_error("task 5");
  };
  EXPECT_THROW(workers.run(16, failing), std::runtime_error);
  std::atomic<uint32_t> ran{0};
  EXPECT_THROW(workers.run(16, [&](uint32_t) { ran.fetch_add(1); }, [] { throw std::runtime_error("lead"); }),
               std::runtime_error);
  EXPECT_EQ(ran.load(), 16u) << "the tasks run even when lead() throws";
  std::atomic<uint32_t> sum{0};
  const std::function<void(uint32_t)> adding = [&](uint32_t i) { sum.fetch_add(i); };
  workers.run(16, adding);
  EXPECT_EQ(sum.load(), 120u);
}

TEST(RequestPool, PartsHandOutTheirOwnIds) {
  RequestPool pool(3);
  const uint32_t a = pool.acquire(0), b = pool.acquire(2), c = pool.acquire(2);
  EXPECT_NE(b, c);
  pool[a].cluster = 10;
  pool[b].cluster = 12;
  pool[c].cluster = 22;
  EXPECT_EQ(pool[a].cluster, 10u);
  EXPECT_EQ(pool[b].cluster, 12u);
  EXPECT_EQ(pool[c].cluster, 22u);
  EXPECT_EQ(pool.in_use(), 3u);
  pool.release(b);
  EXPECT_EQ(pool.in_use(), 2u);
  // A released id comes back from its own part, as a fresh record.
  EXPECT_EQ(pool.acquire(2), b);
  EXPECT_EQ(pool[b].cluster, 0u);
  EXPECT_NE(pool.acquire(1), b);
  EXPECT_EQ(pool.in_use(), 4u);
}

// A record stays where it is while its part grows: the L2 slices read the
// records of their requests while the SMs acquire new ones.
TEST(RequestPool, RecordsNeverMoveAsAPartGrows) {
  RequestPool pool(2);
  std::vector<uint32_t> ids;
  std::vector<const InFlight*> where;
  for (uint32_t i = 0; i < 20000; ++i) {
    ids.push_back(pool.acquire(i % 2));
    pool[ids.back()].cluster = i;
    where.push_back(&pool[ids.back()]);
  }
  for (uint32_t i = 0; i < ids.size(); ++i) {
    ASSERT_EQ(&pool[ids[i]], where[i]) << i;
    ASSERT_EQ(pool[ids[i]].cluster, i);
  }
  EXPECT_EQ(pool.in_use(), 20000u);
}

}  // namespace
}  // namespace warpsim::timing
