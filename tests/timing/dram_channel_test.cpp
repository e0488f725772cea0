// The DRAM channel: command timing (tRCD, tCL, tRAS, tRP, tRC, tRRD, tCCD vs
// tCCDL, tWTR vs tCDLR, tRTW, tWR, multi-burst bus time), the FIFO and
// FR-FCFS schedulers, the queue limit, exact statistics on a small sequence,
// skipping idle cycles, the presets and the [timing.dram] table.
// Expectations are hand-computed from the model in dram_channel.cpp; each
// test's comment shows the arithmetic.
#include "timing/dram/dram_channel.h"
#include "timing/dram/dram_scheduler.h"

#include <gtest/gtest.h>

#include "tests/plugin_test_util.h"

#include <map>
#include <random>
#include <string>
#include <vector>

#include "common/config.h"
#include "common/diagnostics.h"

namespace warpsim::timing {
namespace {

// A small explicit channel: banks 0, 1 in group 0 and 2, 3 in group 1; a
// burst is 4 beats x 4 B = 16 B and takes 4 / 2 = 2 cycles.
DramConfig small(const std::string& scheduler = "fr-fcfs", uint32_t queue = 8) {
  DramConfig c;
  c.clock_mhz = 1000;
  c.banks = 4;
  c.bank_groups = 2;
  c.bus_width = 4;
  c.burst_length = 4;
  c.data_rate = 2;
  c.tCL = 5;
  c.tWL = 3;
  c.tRCD = 4;
  c.tRP = 3;
  c.tRAS = 8;
  c.tRC = 12;
  c.tRRD = 3;
  c.tCCD = 2;
  c.tCCDL = 3;
  c.tWR = 4;
  c.tWTR = 3;
  c.tRTW = 6;
  c.tRTP = 2;
  c.tCDLR = 2;
  c.scheduler = scheduler;
  c.queue = queue;
  return c;
}

DramRequest rd(uint32_t id, uint32_t bank, uint32_t row, uint32_t bytes = 16) {
  DramRequest r;
  r.id = id;
  r.bank = bank;
  r.row = row;
  r.bytes = bytes;
  return r;
}

DramRequest wr(uint32_t id, uint32_t bank, uint32_t row, uint32_t bytes = 16) {
  DramRequest r = rd(id, bank, row, bytes);
  r.write = true;
  return r;
}

// Ticks a channel every cycle and records when each read is popped (reads
// are popped in the cycle they complete).
struct Harness {
  explicit Harness(const DramConfig& config) : channel(config) {}
  void push(const DramRequest& r) { channel.push(r, now); }
  // Ticks cycles now .. end-1.
  void run_until(uint64_t end) {
    for (; now < end; ++now) step();
  }
  void drain(uint64_t limit = 10000) {
    while (!channel.idle() && now < limit) {
      step();
      if (!channel.idle()) ++now;
    }
    ASSERT_TRUE(channel.idle()) << "not drained by cycle " << limit;
  }
  void step() {
    channel.tick(now);
    DramRequest r;
    while (channel.pop_completed(now, r)) done[r.id] = now;
  }
  DramChannel channel;
  uint64_t now = 0;
  std::map<uint32_t, uint64_t> done;
};

class EveryScheduler : public testing::TestWithParam<std::string_view> {};
INSTANTIATE_TEST_SUITE_P(Registered, EveryScheduler, testing::ValuesIn(dram_schedulers().names()),
                         warpsim::plugin_test_name<std::string_view>);

TEST_P(EveryScheduler, ReadToClosedBankActivatesThenReads) {
  // ACT at 0; RD at tRCD = 4; data on the bus 4 + tCL = 9 .. 11: done at 11.
  Harness h(small(std::string(GetParam())));
  h.push(rd(1, 0, 1));
  h.run_until(11);
  EXPECT_TRUE(h.done.empty());
  h.drain();
  EXPECT_EQ(h.done.at(1), 11u);
  EXPECT_EQ(h.channel.stats().activates, 1u);
  EXPECT_EQ(h.channel.stats().row_misses, 1u);
  EXPECT_EQ(h.channel.stats().row_hits, 0u);
  EXPECT_EQ(h.channel.stats().read_latency, 11u);
  EXPECT_EQ(h.channel.stats().data_bus_busy, 2u);
}

TEST(DramChannel, NextEventNamesTheNextCommandAndTheCompletion) {
  DramChannel ch(small());
  EXPECT_EQ(ch.next_event(0), UINT64_MAX);  // empty
  ch.push(rd(1, 0, 1), 0);
  EXPECT_EQ(ch.next_event(0), 1u);  // the ACT could issue now; the next cycle is 1
  ch.tick(0);                       // ACT
  EXPECT_EQ(ch.next_event(0), 4u);  // RD at tRCD
  ch.tick(4);                       // RD: data 9 .. 11
  EXPECT_EQ(ch.next_event(4), 11u);
  DramRequest r;
  EXPECT_FALSE(ch.pop_completed(10, r));
  EXPECT_EQ(ch.next_event(11), 12u);  // complete, not yet popped: keep ticking
  EXPECT_TRUE(ch.pop_completed(11, r));
  EXPECT_EQ(r.id, 1u);
  EXPECT_TRUE(ch.idle());
  EXPECT_EQ(ch.next_event(11), UINT64_MAX);
}

TEST_P(EveryScheduler, TwoReadsToTheOpenRowAreSpacedByTccdl) {
  // ACT 0; RD 1 at 4 (done 4 + 5 + 2 = 11); RD 2 in the same bank group at
  // 4 + max(tCCDL 3, 2) = 7 (bus: 7 + 5 = 12 >= 11): done 14.
  Harness h(small(std::string(GetParam())));
  h.push(rd(1, 0, 1));
  h.push(rd(2, 0, 1));
  h.drain();
  EXPECT_EQ(h.done.at(1), 11u);
  EXPECT_EQ(h.done.at(2), 14u);
  EXPECT_EQ(h.channel.stats().activates, 1u);
  EXPECT_EQ(h.channel.stats().row_hits, 1u);
  EXPECT_EQ(h.channel.stats().row_misses, 1u);
}

TEST_P(EveryScheduler, TwoRowsOfOneBankNeedPrechargeAndActivate) {
  // ACT r1 at 0; RD 1 at 4, done 11. PRE >= max(0 + tRAS 8, 4 + tRTP 2) = 8;
  // ACT >= max(0 + tRC 12, 8 + tRP 3 = 11) = 12; RD 2 at 12 + tRCD = 16;
  // done 16 + 5 + 2 = 23.
  Harness h(small(std::string(GetParam())));
  h.push(rd(1, 0, 1));
  h.push(rd(2, 0, 2));
  h.drain();
  EXPECT_EQ(h.done.at(1), 11u);
  EXPECT_EQ(h.done.at(2), 23u);
  const DramStats& s = h.channel.stats();
  EXPECT_EQ(s.activates, 2u);
  EXPECT_EQ(s.precharges, 1u);
  EXPECT_EQ(s.row_misses, 2u);
  EXPECT_EQ(s.row_conflicts, 1u);
  EXPECT_EQ(s.row_hits, 0u);
}

TEST_P(EveryScheduler, ReadsToTwoBanksOverlapButRespectTrrd) {
  // ACT b0 at 0; ACT b2 at 0 + tRRD = 3; RD b0 at 4 (done 11); RD b2 at
  // max(3 + tRCD = 7, other group 4 + tCCD 2 = 6, bus 11 - tCL = 6) = 7: done 14.
  // (Without tRRD the second ACT would be at 1 and the read done at 13.)
  Harness h(small(std::string(GetParam())));
  h.push(rd(1, 0, 1));
  h.push(rd(2, 2, 1));
  h.drain();
  EXPECT_EQ(h.done.at(1), 11u);
  EXPECT_EQ(h.done.at(2), 14u);
}

// Opens row 1 in banks `a` and `b` with one read each (done by cycle 14) and
// goes to cycle 20.
void warm(Harness& h, uint32_t a, uint32_t b) {
  h.push(rd(100, a, 1));
  h.push(rd(101, b, 1));
  h.run_until(20);
  ASSERT_EQ(h.done.size(), 2u);
}

TEST(DramChannel, SameBankGroupUsesTccdlOtherGroupTccd) {
  // At 20 both rows are open. RD b0 at 20: data 25 .. 27, done 27.
  // Same group (b1): next RD at 20 + tCCDL 3 = 23: done 30.
  // Other group (b2): next RD at 20 + tCCD 2 = 22 (bus 27 - 5 = 22): done 29.
  Harness same(small());
  warm(same, 0, 1);
  same.push(rd(1, 0, 1));
  same.push(rd(2, 1, 1));
  same.drain();
  EXPECT_EQ(same.done.at(1), 27u);
  EXPECT_EQ(same.done.at(2), 30u);

  Harness other(small());
  warm(other, 0, 2);
  other.push(rd(1, 0, 1));
  other.push(rd(2, 2, 1));
  other.drain();
  EXPECT_EQ(other.done.at(1), 27u);
  EXPECT_EQ(other.done.at(2), 29u);
}

TEST(DramChannel, ReadAfterWriteWaitsTwtrInTheGroupTcdlrElsewhere) {
  // WR b0 at 20: data 23 .. 25 (tWL 3), end d = 25.
  // RD b1 (same group): >= d + tWTR 3 = 28: done 28 + 5 + 2 = 35.
  // RD b2 (other group): >= d + tCDLR 2 = 27: done 34.
  Harness same(small());
  warm(same, 0, 1);
  same.push(wr(1, 0, 1));
  same.push(rd(2, 1, 1));
  same.drain();
  EXPECT_EQ(same.done.at(2), 35u);

  Harness other(small());
  warm(other, 0, 2);
  other.push(wr(1, 0, 1));
  other.push(rd(2, 2, 1));
  other.drain();
  EXPECT_EQ(other.done.at(2), 34u);
}

TEST(DramChannel, WriteAfterReadWaitsTrtw) {
  // RD b0 at 20 (data 25 .. 27); WR at max(20 + tCCDL 3 = 23,
  // bus 27 - tWL 3 = 24, 20 + tRTW 6 = 26) = 26: write latency 26 - 20 = 6.
  Harness h(small());
  warm(h, 0, 2);
  h.push(rd(1, 0, 1));
  h.push(wr(2, 0, 1));
  h.drain();
  EXPECT_EQ(h.done.at(1), 27u);
  EXPECT_EQ(h.channel.stats().writes, 1u);
  EXPECT_EQ(h.channel.stats().write_latency, 6u);
}

TEST(DramChannel, PrechargeAfterWriteWaitsTwr) {
  // WR b0 r1 at 20: data end 25; PRE >= 25 + tWR 4 = 29; ACT r2 at
  // 29 + tRP 3 = 32; RD at 32 + tRCD 4 = 36: done 36 + 5 + 2 = 43.
  // (Without tWR: PRE at 21, ACT 24, RD at 28 = write end + tWTR: done 35.)
  Harness h(small());
  warm(h, 0, 2);
  h.push(wr(1, 0, 1));
  h.push(rd(2, 0, 2));
  h.drain();
  EXPECT_EQ(h.done.at(2), 43u);
}

TEST(DramChannel, MultiBurstRequestHoldsTheBusForEveryBurst) {
  // 40 B = ceil(40 / 16) = 3 bursts = 6 bus cycles: RD at 4, data 9 .. 15,
  // done 15. The next RD (same bank) waits 4 + max(tCCDL 3, 6) = 10
  // (bus 15 - 5 = 10): done 10 + 5 + 2 = 17. Bus busy 6 + 2 = 8 cycles.
  Harness h(small());
  h.push(rd(1, 0, 1, 40));
  h.push(rd(2, 0, 1, 16));
  h.drain();
  EXPECT_EQ(h.done.at(1), 15u);
  EXPECT_EQ(h.done.at(2), 17u);
  EXPECT_EQ(h.channel.stats().data_bus_busy, 8u);
  EXPECT_EQ(h.channel.stats().read_bytes, 56u);
}

TEST(DramChannel, FrFcfsServesYoungerRowHitBeforeOlderConflict) {
  // Row 1 of b0 open; at 20: A (row 2, older), B (row 1, younger).
  // FR-FCFS: B hits at 20, done 27; PRE for A >= 20 + tRTP 2 = 22, ACT at
  // 22 + tRP 3 = 25, RD at 29: done 36.
  Harness h(small("fr-fcfs"));
  warm(h, 0, 2);
  h.push(rd(1, 0, 2));
  h.push(rd(2, 0, 1));
  h.drain();
  EXPECT_EQ(h.done.at(2), 27u);
  EXPECT_EQ(h.done.at(1), 36u);
  // Warm-up: 2 misses. A: conflict; B: hit.
  EXPECT_EQ(h.channel.stats().row_hits, 1u);
  EXPECT_EQ(h.channel.stats().row_misses, 3u);
  EXPECT_EQ(h.channel.stats().row_conflicts, 1u);
}

TEST(DramChannel, FifoServesTheBankInArrivalOrder) {
  // Same requests. FIFO: PRE for A at 20 (tRAS, tRTP long past), ACT at
  // 23, RD at 27: done 34. B now conflicts: PRE >= 23 + tRAS 8 = 31, ACT >=
  // max(23 + tRC 12, 31 + tRP 3) = 35, RD at 39: done 46.
  Harness h(small("fifo"));
  warm(h, 0, 2);
  h.push(rd(1, 0, 2));
  h.push(rd(2, 0, 1));
  h.drain();
  EXPECT_EQ(h.done.at(1), 34u);
  EXPECT_EQ(h.done.at(2), 46u);
  EXPECT_EQ(h.channel.stats().row_hits, 0u);
  EXPECT_EQ(h.channel.stats().row_misses, 4u);
  EXPECT_EQ(h.channel.stats().row_conflicts, 2u);
  EXPECT_EQ(h.channel.stats().precharges, 2u);
}

TEST(DramChannel, FifoKeepsAYoungerHitBehindAnOlderRequestThatMustWait) {
  // R1 b0 r1 at 0: ACT 0, RD 4 (done 11). At 5: A (r2, older), B (r1, hit).
  // A's PRE must wait for max(0 + tRAS 8, 4 + tRTP 2) = 8; B's RD could go
  // at max(4 + tCCDL 3, bus 11 - 5) = 7.
  // FR-FCFS: B at 7, done 14; A: PRE at 7 + tRTP = 9, ACT at max(0 + tRC,
  //   9 + tRP) = 12, RD 16, done 23.
  // FIFO: A: PRE 8, ACT at max(12, 8 + 3) = 12, RD 16, done 23; then B:
  //   PRE >= max(12 + tRAS = 20, 16 + tRTP) = 20, ACT >= max(12 + tRC = 24,
  //   20 + tRP) = 24, RD 28, done 35.
  for (const char* policy : {"fr-fcfs", "fifo"}) {
    SCOPED_TRACE(policy);
    Harness h(small(policy));
    h.push(rd(1, 0, 1));
    h.run_until(5);
    h.push(rd(2, 0, 2));
    h.push(rd(3, 0, 1));
    h.drain();
    EXPECT_EQ(h.done.at(1), 11u);
    EXPECT_EQ(h.done.at(2), 23u);
    EXPECT_EQ(h.done.at(3), std::string(policy) == "fifo" ? 35u : 14u);
  }
}

TEST(DramChannel, FifoLetsOtherBanksGoFirst) {
  // FIFO orders within a bank only: b0's second row waits for tRC, while a
  // younger read to b2 issues its ACT at 3 (tRRD) and reads at 7: done 14,
  // long before the b0 conflict (ACT 12, RD 16, done 23).
  Harness h(small("fifo"));
  h.push(rd(1, 0, 1));
  h.push(rd(2, 0, 2));
  h.push(rd(3, 2, 1));
  h.drain();
  EXPECT_EQ(h.done.at(1), 11u);
  EXPECT_EQ(h.done.at(3), 14u);
  EXPECT_EQ(h.done.at(2), 23u);
}

TEST(DramChannel, QueueRefusesWhenFullUntilAColumnCommandIssues) {
  Harness h(small("fr-fcfs", 2));
  h.push(rd(1, 0, 1));
  h.push(rd(2, 0, 1));
  EXPECT_FALSE(h.channel.can_accept());
  h.channel.count_full();
  h.run_until(4);  // ACT at 0; the RD waits for tRCD
  EXPECT_FALSE(h.channel.can_accept());
  h.run_until(5);  // RD 1 at 4 leaves the queue
  EXPECT_TRUE(h.channel.can_accept());
  EXPECT_EQ(h.channel.stats().queue_full_cycles, 1u);
}

TEST(DramChannel, StatisticsOfASmallSequenceAreExact) {
  // At 0: R1 b0 r1, W2 b0 r1 (32 B), R3 b2 r5, R4 b0 r7. FR-FCFS:
  //   0 ACT b0 r1 (R1)      3 ACT b2 r5 (tRRD)    4 RD R1: data 9..11, done 11
  //   7 RD R3 (tRCD): data 12..14, done 14
  //   13 WR W2 (tRTW: 7 + 6): 2 bursts, data 16..20; PRE b0 >= 20 + tWR = 24
  //   24 PRE b0             27 ACT b0 r7 (tRP)     31 RD R4: data 36..38, done 38
  // Rows: W2 hit; R1, R3 misses; R4 miss and conflict.
  // Busy banks: b0 queued at the start of cycles 0..31, then in service to 38:
  // 38 cycles; b2 queued 0..7, in service to 14: 14 cycles. Any busy: 0..37.
  Harness h(small());
  h.push(rd(1, 0, 1));
  h.push(wr(2, 0, 1, 32));
  h.push(rd(3, 2, 5));
  h.push(rd(4, 0, 7));
  h.drain();
  EXPECT_EQ(h.done.at(1), 11u);
  EXPECT_EQ(h.done.at(3), 14u);
  EXPECT_EQ(h.done.at(4), 38u);
  EXPECT_EQ(h.now, 38u);  // the last tick
  const DramStats& s = h.channel.stats();
  EXPECT_EQ(s.reads, 3u);
  EXPECT_EQ(s.writes, 1u);
  EXPECT_EQ(s.read_bytes, 48u);
  EXPECT_EQ(s.write_bytes, 32u);
  EXPECT_EQ(s.activates, 3u);
  EXPECT_EQ(s.precharges, 1u);
  EXPECT_EQ(s.row_hits, 1u);
  EXPECT_EQ(s.row_misses, 3u);
  EXPECT_EQ(s.row_conflicts, 1u);
  EXPECT_EQ(s.read_latency, 11u + 14u + 38u);
  EXPECT_EQ(s.write_latency, 13u);
  EXPECT_EQ(s.max_read_latency, 38u);
  EXPECT_EQ(s.data_bus_busy, 2u + 2u + 4u + 2u);
  EXPECT_EQ(s.cycles, 39u);  // cycles 0 .. 38
  EXPECT_EQ(s.busy_bank_cycles, 38u + 14u);
  EXPECT_EQ(s.busy_cycles, 38u);
  EXPECT_EQ(s.queue_full_cycles, 0u);
}

// Random requests, arriving over time, driven two ways: ticking every cycle,
// and ticking only at next_event() or an arrival.
struct Trace {
  std::vector<DramRequest> requests;  // `arrival`: when the caller first offers it
};

Trace random_trace(uint32_t seed, size_t n) {
  std::mt19937 rng(seed);
  Trace t;
  uint64_t when = 0;
  for (uint32_t i = 0; i < n; ++i) {
    when += rng() % 7;
    DramRequest r = rng() % 10 < 3 ? wr(i, rng() % 4, rng() % 4) : rd(i, rng() % 4, rng() % 4);
    static constexpr uint32_t kBytes[] = {16, 32, 40, 64};
    r.bytes = kBytes[rng() % 4];
    r.arrival = when;
    t.requests.push_back(r);
  }
  return t;
}

struct Outcome {
  std::map<uint32_t, uint64_t> done;
  DramStats stats;
  uint64_t ticks = 0;
};

Outcome drive(const DramConfig& config, const Trace& trace, bool skip) {
  DramChannel ch(config);
  Outcome out;
  size_t next = 0;
  for (uint64_t t = 0;;) {
    bool blocked = false;
    while (next < trace.requests.size() && trace.requests[next].arrival <= t) {
      if (!ch.can_accept()) {
        ch.count_full();
        blocked = true;
        break;
      }
      ch.push(trace.requests[next++], t);
    }
    ch.tick(t);
    ++out.ticks;
    DramRequest r;
    while (ch.pop_completed(t, r)) out.done[r.id] = t;
    if (next == trace.requests.size() && ch.idle()) break;
    uint64_t following = t + 1;
    if (skip) {
      following = ch.next_event(t);
      if (next < trace.requests.size())
        following = std::min(following, blocked ? t + 1 : trace.requests[next].arrival);
    }
    EXPECT_GT(following, t);
    EXPECT_LT(following, 1000000u) << "no progress";
    if (following >= 1000000u) break;
    t = following;
  }
  out.stats = ch.stats();
  return out;
}

void expect_same_stats(const DramStats& a, const DramStats& b) {
  EXPECT_EQ(a.reads, b.reads);
  EXPECT_EQ(a.writes, b.writes);
  EXPECT_EQ(a.read_bytes, b.read_bytes);
  EXPECT_EQ(a.write_bytes, b.write_bytes);
  EXPECT_EQ(a.activates, b.activates);
  EXPECT_EQ(a.precharges, b.precharges);
  EXPECT_EQ(a.row_hits, b.row_hits);
  EXPECT_EQ(a.row_misses, b.row_misses);
  EXPECT_EQ(a.row_conflicts, b.row_conflicts);
  EXPECT_EQ(a.read_latency, b.read_latency);
  EXPECT_EQ(a.write_latency, b.write_latency);
  EXPECT_EQ(a.max_read_latency, b.max_read_latency);
  EXPECT_EQ(a.data_bus_busy, b.data_bus_busy);
  EXPECT_EQ(a.cycles, b.cycles);
  EXPECT_EQ(a.busy_bank_cycles, b.busy_bank_cycles);
  EXPECT_EQ(a.busy_cycles, b.busy_cycles);
  EXPECT_EQ(a.queue_full_cycles, b.queue_full_cycles);
}

TEST_P(EveryScheduler, SkippingToNextEventChangesNothing) {
  const Trace trace = random_trace(12345, 400);
  const DramConfig config = small(std::string(GetParam()), 6);
  const Outcome every = drive(config, trace, false);
  const Outcome skipped = drive(config, trace, true);
  size_t reads = 0;
  for (const DramRequest& r : trace.requests) reads += r.write ? 0 : 1;
  EXPECT_EQ(every.done.size(), reads);  // everything finished
  EXPECT_EQ(skipped.done, every.done);
  expect_same_stats(skipped.stats, every.stats);
  EXPECT_EQ(every.stats.reads + every.stats.writes, trace.requests.size());
  EXPECT_GT(every.stats.queue_full_cycles, 0u);  // the small queue did fill
  EXPECT_LT(skipped.ticks, every.ticks);          // and cycles were skipped
}

TEST(DramChannel, FrFcfsHasMoreRowHitsThanFifoOnTheSameTrace) {
  const Trace trace = random_trace(777, 400);
  const Outcome fifo = drive(small("fifo", 16), trace, true);
  const Outcome frfcfs = drive(small("fr-fcfs", 16), trace, true);
  EXPECT_EQ(fifo.done.size(), frfcfs.done.size());
  EXPECT_GT(frfcfs.stats.row_hits, fifo.stats.row_hits);
}

// ---------------------------------------------------------------------------
// Presets and configuration.

TEST(DramConfig, ZerosComeFromThePresetExplicitValuesStay) {
  DramConfig c;
  c.type = "gddr5";
  c.tCL = 99;
  c.banks = 8;
  EXPECT_EQ(resolve_dram_config(c), "");
  EXPECT_EQ(c.tCL, 99u);      // explicit
  EXPECT_EQ(c.banks, 8u);     // explicit (8 % 4 groups == 0)
  EXPECT_EQ(c.tRCD, 12u);     // preset
  EXPECT_EQ(c.bank_groups, 4u);
  EXPECT_EQ(c.clock_mhz, 924.0);
  EXPECT_EQ(c.tRTW, 12u);     // 12 + 8/4 + 2 - 4
  EXPECT_EQ(c.burst_bytes(), 64u);
  EXPECT_EQ(c.burst_cycles(), 2u);
}

TEST(DramConfig, PresetConversionsFromNanoseconds) {
  // hbm2 at 877 MHz: 14 ns -> ceil(12.28) = 13; 33 ns -> ceil(28.94) = 29;
  // 47 ns -> ceil(41.22) = 42; tRTW = 13 + 4/2 + 2 - 2 = 15.
  DramConfig h2;
  h2.type = "hbm2";
  ASSERT_EQ(resolve_dram_config(h2), "");
  EXPECT_EQ(h2.tRCD, 13u);
  EXPECT_EQ(h2.tRAS, 29u);
  EXPECT_EQ(h2.tRC, 42u);
  EXPECT_EQ(h2.tRTW, 15u);
  // hbm3 at 2619 MHz: 14 ns -> ceil(36.67) = 37; 47 ns -> ceil(123.09) = 124.
  DramConfig h3;
  h3.type = "hbm3";
  ASSERT_EQ(resolve_dram_config(h3), "");
  EXPECT_EQ(h3.tRCD, 37u);
  EXPECT_EQ(h3.tRC, 124u);
  // gddr6 at 3500 MHz: 26 x 0.570 = 14.82 ns -> ceil(51.87) = 52;
  // tCL 24 x 0.570 = 13.68 ns -> 48, tWL 6 x 0.570 -> 12, tRTW = 48 + 4 + 2 - 12.
  DramConfig g6;
  g6.type = "gddr6";
  ASSERT_EQ(resolve_dram_config(g6), "");
  EXPECT_EQ(g6.tRCD, 52u);
  EXPECT_EQ(g6.tCL, 48u);
  EXPECT_EQ(g6.tRTW, 42u);
}

TEST(DramConfig, EveryPresetResolvesToAUsableChannelWithItsPeakBandwidth) {
  // clock x data_rate x bus_width, in MB/s:
  //   gddr5 924 x 4 x 8 = 29568; gddr6 3500 x 4 x 4 = 56000;
  //   hbm2 877 x 2 x 16 = 28064; hbm3 2619 x 2 x 8 = 41904.
  const std::map<std::string, double> peak = {
      {"gddr5", 29568}, {"gddr6", 56000}, {"hbm2", 28064}, {"hbm3", 41904}};
  ASSERT_EQ(dram_presets().names().size(), peak.size());
  for (std::string_view name : dram_presets().names()) {
    SCOPED_TRACE(std::string(name));
    DramConfig c;
    c.type = std::string(name);
    ASSERT_EQ(resolve_dram_config(c), "");
    for (uint32_t v : {c.banks, c.bank_groups, c.bus_width, c.burst_length, c.data_rate, c.tCL,
                       c.tWL, c.tRCD, c.tRP, c.tRAS, c.tRC, c.tRRD, c.tCCD, c.tCCDL, c.tWR,
                       c.tWTR, c.tRTW, c.tRTP, c.tCDLR})
      EXPECT_GT(v, 0u);
    EXPECT_GE(c.tRC, c.tRAS);
    EXPECT_GE(c.tCCD, c.burst_cycles());  // back-to-back bursts fill the bus
    EXPECT_EQ(c.clock_mhz * c.data_rate * c.bus_width, peak.at(std::string(name)));
    // One read to a closed bank: ACT, RD at tRCD, done tRCD + tCL + burst.
    Harness h(c);
    h.push(rd(1, 0, 1, c.burst_bytes()));
    h.drain();
    EXPECT_EQ(h.done.at(1), uint64_t{c.tRCD} + c.tCL + c.burst_cycles());
  }
}

TEST(DramConfig, ResolveRejectsUnknownTypeAndInconsistentGeometry) {
  DramConfig unknown;
  unknown.type = "ddr9";
  EXPECT_EQ(resolve_dram_config(unknown),
            "timing.dram: unknown DRAM type 'ddr9' (one of: " + dram_presets().joined() + ")");

  DramConfig groups;  // hbm2: 4 bank groups
  groups.banks = 6;
  EXPECT_EQ(resolve_dram_config(groups),
            "timing.dram: banks (6) must be a multiple of bank_groups (4)");

  DramConfig burst;  // hbm2: data_rate 2
  burst.burst_length = 5;
  EXPECT_EQ(resolve_dram_config(burst),
            "timing.dram: burst_length (5) must be a multiple of data_rate (2)");
}

TEST(DramConfig, TableValidatesSchedulerAndTypeNames) {
  DramConfig c;
  config::Schema schema;
  schema.add("timing.dram", dram_config_table(), c);
  {
    DiagnosticEngine d;
    config::Loader loader(schema, d, {});
    EXPECT_FALSE(loader.apply_override("timing.dram.scheduler=round-robin"));
    ASSERT_EQ(d.diagnostics().size(), 1u) << d.format_all();
    EXPECT_NE(d.diagnostics()[0].message.find("unknown DRAM scheduler 'round-robin' (one of: " +
                                              dram_schedulers().joined() + ")"),
              std::string::npos)
        << d.diagnostics()[0].message;
    EXPECT_EQ(c.scheduler, "fr-fcfs");  // not applied
  }
  {
    DiagnosticEngine d;
    config::Loader loader(schema, d, {});
    EXPECT_FALSE(loader.apply_override("timing.dram.type=ddr9"));
    EXPECT_EQ(d.error_count(), 1u);
  }
  {
    DiagnosticEngine d;
    config::Loader loader(schema, d, {});
    const std::string toml = "[timing.dram]\ntype = \"gddr6\"\nscheduler = \"fifo\"\ntCL = 30\n";
    EXPECT_TRUE(loader.load_text(toml, "x.toml"))
        << d.format_all();
    EXPECT_TRUE(loader.validate()) << d.format_all();
    EXPECT_EQ(c.type, "gddr6");
    EXPECT_EQ(c.scheduler, "fifo");
    EXPECT_EQ(c.tCL, 30u);
    EXPECT_EQ(resolve_dram_config(c), "");
    EXPECT_EQ(c.tCL, 30u);
    EXPECT_EQ(c.tRCD, 52u);
  }
}

}  // namespace
}  // namespace warpsim::timing
