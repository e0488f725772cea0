// The sectored cache: hits, sector misses, replacement, MSHR merging and
// limits, the miss queue, fills, the three write policies, allocate-on-miss
// versus allocate-on-fill, and the counters. Expectations are hand-computed.
#include "timing/cache/sectored_cache.h"

#include <gtest/gtest.h>

#include <vector>

namespace warpsim::timing {
namespace {

// 128-byte lines of four 32-byte sectors. Lines 0x000, 0x100, 0x200... share
// set 0 of a two-set cache; every line is in the one set of a one-set cache.
constexpr uint64_t A = 0x000, B = 0x100, C = 0x200, D = 0x300, E = 0x400;

CacheConfig config(uint32_t sets, uint32_t ways) {
  CacheConfig c;
  c.line_bytes = 128;
  c.sector_bytes = 32;
  c.ways = ways;
  c.size = uint64_t{sets} * ways * 128;
  c.miss_queue = 0;  // unlimited unless a test says otherwise
  return c;
}

// Reads `line` (a Miss), then fills it: the line holds `sectors`.
void load(SectoredCache& cache, uint64_t line, uint32_t sectors, uint32_t token = 0) {
  ASSERT_EQ(cache.read(line, sectors, token).outcome, ReadOutcome::Miss);
  std::vector<uint32_t> waiting;
  cache.fill(line, sectors, waiting);
  cache.miss_sent();
  ASSERT_EQ(waiting, std::vector<uint32_t>{token});
}

TEST(SectoredCache, HitAfterFill) {
  SectoredCache cache(config(2, 2));
  ReadResult r = cache.read(A, 0b0011, 7);
  EXPECT_EQ(r.outcome, ReadOutcome::Miss);
  EXPECT_EQ(r.fetch_sectors, 0b0011u);
  EXPECT_FALSE(r.writeback_line);
  EXPECT_FALSE(cache.probe(A, 0b0001));
  EXPECT_EQ(cache.mshrs_in_use(), 1u);

  std::vector<uint32_t> waiting;
  cache.fill(A, 0b0011, waiting);
  EXPECT_EQ(waiting, std::vector<uint32_t>{7});
  EXPECT_EQ(cache.mshrs_in_use(), 0u);
  EXPECT_TRUE(cache.probe(A, 0b0011));
  EXPECT_FALSE(cache.probe(A, 0b0100));

  r = cache.read(A, 0b0010, 8);
  EXPECT_EQ(r.outcome, ReadOutcome::Hit);
  EXPECT_EQ(r.fetch_sectors, 0u);
  const CacheCounters& k = cache.counters();
  EXPECT_EQ(k.read_accesses, 2u);
  EXPECT_EQ(k.read_hits, 1u);
  EXPECT_EQ(k.read_misses, 1u);
  EXPECT_EQ(k.sector_misses, 0u);
  EXPECT_EQ(k.evictions, 0u);
}

TEST(SectoredCache, SetIndexSeparatesLines) {
  // Two sets of one way: A (set 0) and 0x80 (set 1) coexist, B replaces A.
  SectoredCache cache(config(2, 1));
  load(cache, A, 0b1);
  load(cache, 0x80, 0b1);
  EXPECT_TRUE(cache.probe(A, 0b1));
  EXPECT_TRUE(cache.probe(0x80, 0b1));
  load(cache, B, 0b1);
  EXPECT_FALSE(cache.probe(A, 0b1));
  EXPECT_TRUE(cache.probe(0x80, 0b1));
  EXPECT_EQ(cache.counters().evictions, 1u);
}

// A warp whose lanes walk rows of a 4 KiB-wide matrix touches 32 lines 4 KiB
// apart. Indexed linearly they all fall into one set of a 32-set, 4-way
// cache, which keeps the last 4; Fermi's hash (Nugteren et al., HPCA 2014)
// spreads them over 8 sets (address bits 13-15 vary), 4 lines each, so all 32
// stay. Every line is loaded once, then probed.
uint32_t strided_lines_kept(SetIndex index, uint32_t sets) {
  CacheConfig c = config(sets, 4);
  c.set_index = index;
  SectoredCache cache(c);
  for (uint64_t lane = 0; lane < 32; ++lane) load(cache, 0x10000000 + lane * 4096, 0b1);
  uint32_t kept = 0;
  for (uint64_t lane = 0; lane < 32; ++lane) kept += cache.probe(0x10000000 + lane * 4096, 0b1) ? 1 : 0;
  return kept;
}

TEST(SectoredCache, FermiHashSpreadsAPowerOfTwoStrideOverTheSets) {
  EXPECT_EQ(strided_lines_kept(SetIndex::Linear, 32), 4u);
  EXPECT_EQ(strided_lines_kept(SetIndex::FermiHash, 32), 32u);
  // 64 sets (Fermi's 48 KB L1): bit 12 is the sixth index bit of both; the
  // linear index uses 2 sets (8 lines kept), the hash 16.
  EXPECT_EQ(strided_lines_kept(SetIndex::Linear, 64), 8u);
  EXPECT_EQ(strided_lines_kept(SetIndex::FermiHash, 64), 32u);
}

// The hash keeps consecutive lines in distinct sets, as the linear index does.
TEST(SectoredCache, FermiHashKeepsConsecutiveLinesApart) {
  CacheConfig c = config(32, 1);
  c.set_index = SetIndex::FermiHash;
  SectoredCache cache(c);
  for (uint64_t line = 0; line < 32; ++line) load(cache, 0x12345000 + line * 128, 0b1);
  for (uint64_t line = 0; line < 32; ++line) EXPECT_TRUE(cache.probe(0x12345000 + line * 128, 0b1)) << line;
  EXPECT_EQ(cache.counters().evictions, 0u);
}

// A and B fill a two-way set, A is read again, then C needs a way.
void replacement_scenario(Replacement policy, uint64_t expect_evicted, uint64_t expect_kept) {
  CacheConfig c = config(2, 2);
  c.replacement = policy;
  SectoredCache cache(c);
  load(cache, A, 0b1);
  load(cache, B, 0b1);
  EXPECT_EQ(cache.read(A, 0b1, 0).outcome, ReadOutcome::Hit);
  EXPECT_EQ(cache.read(C, 0b1, 0).outcome, ReadOutcome::Miss);  // allocates at miss time
  EXPECT_FALSE(cache.probe(expect_evicted, 0b1));
  EXPECT_TRUE(cache.probe(expect_kept, 0b1));
  EXPECT_EQ(cache.counters().evictions, 1u);
}

TEST(SectoredCache, LruEvictsLeastRecentlyUsed) { replacement_scenario(Replacement::Lru, B, A); }

TEST(SectoredCache, FifoEvictsOldestAllocation) { replacement_scenario(Replacement::Fifo, A, B); }

TEST(SectoredCache, SectorMiss) {
  SectoredCache cache(config(2, 2));
  load(cache, A, 0b0001);
  ReadResult r = cache.read(A, 0b0011, 1);
  EXPECT_EQ(r.outcome, ReadOutcome::Miss);
  EXPECT_EQ(r.fetch_sectors, 0b0010u);  // only the missing sector
  EXPECT_TRUE(cache.probe(A, 0b0001));  // still readable meanwhile
  EXPECT_EQ(cache.read(A, 0b0001, 2).outcome, ReadOutcome::Hit);
  std::vector<uint32_t> waiting;
  cache.fill(A, 0b0010, waiting);
  EXPECT_EQ(waiting, std::vector<uint32_t>{1});
  EXPECT_TRUE(cache.probe(A, 0b0011));
  const CacheCounters& k = cache.counters();
  EXPECT_EQ(k.read_accesses, 3u);
  EXPECT_EQ(k.read_misses, 2u);
  EXPECT_EQ(k.sector_misses, 1u);
  EXPECT_EQ(k.read_hits, 1u);
  EXPECT_EQ(k.evictions, 0u);
}

TEST(SectoredCache, MshrMergesUpToLimitThenFails) {
  CacheConfig c = config(2, 2);
  c.mshr_max_merge = 3;
  SectoredCache cache(c);
  EXPECT_EQ(cache.read(A, 0b0011, 1).outcome, ReadOutcome::Miss);
  ReadResult r = cache.read(A, 0b0001, 2);
  EXPECT_EQ(r.outcome, ReadOutcome::HitReserved);
  EXPECT_EQ(r.fetch_sectors, 0u);
  EXPECT_EQ(cache.read(A, 0b0011, 3).outcome, ReadOutcome::HitReserved);
  r = cache.read(A, 0b0001, 4);
  EXPECT_EQ(r.outcome, ReadOutcome::ReservationFail);
  EXPECT_EQ(r.fetch_sectors, 0u);
  EXPECT_EQ(cache.mshrs_in_use(), 1u);

  std::vector<uint32_t> waiting;
  cache.fill(A, 0b0011, waiting);
  EXPECT_EQ(waiting, (std::vector<uint32_t>{1, 2, 3}));
  EXPECT_EQ(cache.read(A, 0b0001, 4).outcome, ReadOutcome::Hit);  // the retry
  const CacheCounters& k = cache.counters();
  EXPECT_EQ(k.read_accesses, 4u);  // the failed attempt is not an access
  EXPECT_EQ(k.read_misses, 1u);
  EXPECT_EQ(k.read_hit_reserved, 2u);
  EXPECT_EQ(k.read_hits, 1u);
  EXPECT_EQ(k.reservation_fails, 1u);
}

TEST(SectoredCache, MshrEntriesExhausted) {
  CacheConfig c = config(4, 4);
  c.mshr_entries = 2;
  SectoredCache cache(c);
  EXPECT_EQ(cache.read(A, 0b1, 1).outcome, ReadOutcome::Miss);
  EXPECT_EQ(cache.read(B, 0b1, 2).outcome, ReadOutcome::Miss);
  EXPECT_EQ(cache.mshrs_in_use(), 2u);
  EXPECT_EQ(cache.read(C, 0b1, 3).outcome, ReadOutcome::ReservationFail);
  EXPECT_FALSE(cache.probe(C, 0));  // nothing allocated for C
  EXPECT_EQ(cache.read(A, 0b1, 4).outcome, ReadOutcome::HitReserved);  // merging still works
  std::vector<uint32_t> waiting;
  cache.fill(A, 0b1, waiting);
  EXPECT_EQ(waiting, (std::vector<uint32_t>{1, 4}));
  EXPECT_EQ(cache.mshrs_in_use(), 1u);
  EXPECT_EQ(cache.read(C, 0b1, 3).outcome, ReadOutcome::Miss);
  EXPECT_EQ(cache.counters().reservation_fails, 1u);
}

TEST(SectoredCache, MissQueueFullUntilMissSent) {
  CacheConfig c = config(4, 4);
  c.miss_queue = 2;
  SectoredCache cache(c);
  EXPECT_EQ(cache.read(A, 0b0001, 1).outcome, ReadOutcome::Miss);
  EXPECT_EQ(cache.read(B, 0b0001, 2).outcome, ReadOutcome::Miss);
  EXPECT_EQ(cache.read(C, 0b0001, 3).outcome, ReadOutcome::ReservationFail);
  // Growing A's entry is a new fetch and needs a queue place too...
  EXPECT_EQ(cache.read(A, 0b0010, 4).outcome, ReadOutcome::ReservationFail);
  // ...merging without a fetch does not.
  EXPECT_EQ(cache.read(A, 0b0001, 5).outcome, ReadOutcome::HitReserved);
  cache.miss_sent();
  EXPECT_EQ(cache.read(C, 0b0001, 3).outcome, ReadOutcome::Miss);
  EXPECT_EQ(cache.read(D, 0b0001, 6).outcome, ReadOutcome::ReservationFail);
  cache.miss_sent();
  ReadResult r = cache.read(A, 0b0010, 4);
  EXPECT_EQ(r.outcome, ReadOutcome::Miss);
  EXPECT_EQ(r.fetch_sectors, 0b0010u);
  EXPECT_EQ(cache.counters().reservation_fails, 3u);
  EXPECT_EQ(cache.counters().read_misses, 4u);
  EXPECT_EQ(cache.mshrs_in_use(), 3u);
}

TEST(SectoredCache, FillReleasesTokensOnlyWhenEverySectorArrived) {
  SectoredCache cache(config(2, 2));
  ReadResult r = cache.read(A, 0b0001, 10);
  EXPECT_EQ(r.fetch_sectors, 0b0001u);
  r = cache.read(A, 0b0011, 11);  // grows the entry by sector 1
  EXPECT_EQ(r.outcome, ReadOutcome::Miss);
  EXPECT_EQ(r.fetch_sectors, 0b0010u);
  EXPECT_EQ(cache.read(A, 0b0010, 12).outcome, ReadOutcome::HitReserved);
  EXPECT_EQ(cache.mshrs_in_use(), 1u);

  std::vector<uint32_t> waiting;
  cache.fill(A, 0b0001, waiting);
  EXPECT_TRUE(waiting.empty());
  EXPECT_EQ(cache.mshrs_in_use(), 1u);
  EXPECT_TRUE(cache.probe(A, 0b0001));
  EXPECT_FALSE(cache.probe(A, 0b0010));
  EXPECT_EQ(cache.read(A, 0b0001, 13).outcome, ReadOutcome::Hit);

  cache.fill(A, 0b0010, waiting);
  EXPECT_EQ(waiting, (std::vector<uint32_t>{10, 11, 12}));
  EXPECT_EQ(cache.mshrs_in_use(), 0u);
  EXPECT_TRUE(cache.probe(A, 0b0011));
  const CacheCounters& k = cache.counters();
  EXPECT_EQ(k.read_misses, 2u);
  EXPECT_EQ(k.sector_misses, 0u);  // nothing was valid yet at the second miss
  EXPECT_EQ(k.read_hit_reserved, 1u);
  EXPECT_EQ(k.read_hits, 1u);
  EXPECT_EQ(k.read_accesses, 4u);
}

TEST(SectoredCache, WriteEvictInvalidates) {
  SectoredCache cache(config(2, 2));  // WriteEvict is the default
  load(cache, A, 0b0011);
  WriteResult w = cache.write(A, 0b0001);
  EXPECT_TRUE(w.hit);
  EXPECT_TRUE(w.forward);
  EXPECT_FALSE(w.writeback_line);
  EXPECT_FALSE(cache.probe(A, 0b0010));  // the whole line goes
  w = cache.write(B, 0b0001);
  EXPECT_FALSE(w.hit);
  EXPECT_TRUE(w.forward);
  EXPECT_FALSE(cache.probe(B, 0));  // no allocation
  ReadResult r = cache.read(A, 0b0001, 1);
  EXPECT_EQ(r.outcome, ReadOutcome::Miss);
  const CacheCounters& k = cache.counters();
  EXPECT_EQ(k.write_accesses, 2u);
  EXPECT_EQ(k.write_hits, 1u);
  EXPECT_EQ(k.write_misses, 1u);
  EXPECT_EQ(k.sector_misses, 0u);
  EXPECT_EQ(k.evictions, 0u);
}

TEST(SectoredCache, WriteEvictKeepsReservationOfInFlightSectors) {
  SectoredCache cache(config(1, 1));
  load(cache, A, 0b0001);
  EXPECT_EQ(cache.read(A, 0b0010, 5).outcome, ReadOutcome::Miss);
  EXPECT_TRUE(cache.write(A, 0b0001).hit);
  EXPECT_FALSE(cache.probe(A, 0b0001));
  // The reserved line is no victim: another line cannot take the only way.
  EXPECT_EQ(cache.read(B, 0b0001, 6).outcome, ReadOutcome::ReservationFail);
  std::vector<uint32_t> waiting;
  cache.fill(A, 0b0010, waiting);  // the fill still lands
  EXPECT_EQ(waiting, std::vector<uint32_t>{5});
  EXPECT_TRUE(cache.probe(A, 0b0010));
  EXPECT_FALSE(cache.probe(A, 0b0001));
}

TEST(SectoredCache, FreedWayIsUsedBeforeEvicting) {
  // B (the newer line) is write-evicted; C takes its way rather than evict A.
  SectoredCache cache(config(1, 2));
  load(cache, A, 0b1);
  load(cache, B, 0b1);
  cache.write(B, 0b1);
  EXPECT_EQ(cache.read(C, 0b1, 0).outcome, ReadOutcome::Miss);
  EXPECT_TRUE(cache.probe(A, 0b1));
  EXPECT_EQ(cache.counters().evictions, 0u);
}

TEST(SectoredCache, WriteThroughKeepsLine) {
  CacheConfig c = config(2, 2);
  c.write_policy = WritePolicy::WriteThrough;
  SectoredCache cache(c);
  load(cache, A, 0b0011);
  WriteResult w = cache.write(A, 0b0001);
  EXPECT_TRUE(w.hit);
  EXPECT_TRUE(w.forward);
  EXPECT_TRUE(cache.probe(A, 0b0011));
  w = cache.write(A, 0b0100);  // an invalid sector of a present line: no allocation
  EXPECT_FALSE(w.hit);
  EXPECT_TRUE(w.forward);
  EXPECT_FALSE(cache.probe(A, 0b0100));
  EXPECT_TRUE(cache.probe(A, 0b0011));
  w = cache.write(B, 0b0001);
  EXPECT_FALSE(w.hit);
  EXPECT_TRUE(w.forward);
  EXPECT_FALSE(cache.probe(B, 0));
  EXPECT_EQ(cache.counters().write_hits, 1u);
  EXPECT_EQ(cache.counters().write_misses, 2u);
}

TEST(SectoredCache, WriteBackAllocatesAndWritesBackDirtySectors) {
  CacheConfig c = config(1, 2);
  c.write_policy = WritePolicy::WriteBack;
  SectoredCache cache(c);
  WriteResult w = cache.write(A, 0b0101);
  EXPECT_FALSE(w.hit);
  EXPECT_FALSE(w.forward);
  EXPECT_TRUE(cache.probe(A, 0b0101));   // written sectors valid without a fetch
  EXPECT_FALSE(cache.probe(A, 0b0010));
  EXPECT_FALSE(cache.write(B, 0b0010).forward);
  EXPECT_EQ(cache.read(A, 0b0001, 0).outcome, ReadOutcome::Hit);  // A is now MRU

  w = cache.write(C, 0b1000);  // evicts B
  EXPECT_FALSE(w.forward);
  ASSERT_TRUE(w.writeback_line);
  EXPECT_EQ(*w.writeback_line, B);
  EXPECT_EQ(w.writeback_sectors, 0b0010u);

  w = cache.write(A, 0b0011);  // sector 1 was not valid: a miss, but the line is here
  EXPECT_FALSE(w.hit);
  EXPECT_FALSE(w.writeback_line);
  EXPECT_TRUE(cache.probe(A, 0b0111));
  EXPECT_TRUE(cache.write(A, 0b0001).hit);

  ReadResult r = cache.read(D, 0b0001, 1);  // evicts C (A used since)
  EXPECT_EQ(r.outcome, ReadOutcome::Miss);
  ASSERT_TRUE(r.writeback_line);
  EXPECT_EQ(*r.writeback_line, C);
  EXPECT_EQ(r.writeback_sectors, 0b1000u);

  r = cache.read(E, 0b0001, 2);  // D is reserved: A goes, with all its dirty sectors
  EXPECT_EQ(r.outcome, ReadOutcome::Miss);
  ASSERT_TRUE(r.writeback_line);
  EXPECT_EQ(*r.writeback_line, A);
  EXPECT_EQ(r.writeback_sectors, 0b0111u);

  const CacheCounters& k = cache.counters();
  EXPECT_EQ(k.writebacks, 3u);
  EXPECT_EQ(k.evictions, 3u);
  EXPECT_EQ(k.write_accesses, 5u);
  EXPECT_EQ(k.write_hits, 1u);
  EXPECT_EQ(k.write_misses, 4u);
}

TEST(SectoredCache, WriteBackWritesBackOnlyDirtySectors) {
  CacheConfig c = config(1, 1);
  c.write_policy = WritePolicy::WriteBack;
  SectoredCache cache(c);
  load(cache, A, 0b0111);  // clean sectors 0-2
  EXPECT_TRUE(cache.write(A, 0b0010).hit);
  ReadResult r = cache.read(B, 0b0001, 1);
  ASSERT_TRUE(r.writeback_line);
  EXPECT_EQ(*r.writeback_line, A);
  EXPECT_EQ(r.writeback_sectors, 0b0010u);
}

TEST(SectoredCache, WriteBackCleanEvictionHasNoWriteBack) {
  CacheConfig c = config(1, 1);
  c.write_policy = WritePolicy::WriteBack;
  SectoredCache cache(c);
  load(cache, A, 0b0001);
  WriteResult w = cache.write(B, 0b0001);
  EXPECT_FALSE(w.writeback_line);
  EXPECT_EQ(w.writeback_sectors, 0u);
  EXPECT_EQ(cache.counters().evictions, 1u);
  EXPECT_EQ(cache.counters().writebacks, 0u);
}

TEST(SectoredCache, WriteBackWithEveryWayReservedForwards) {
  CacheConfig c = config(1, 1);
  c.write_policy = WritePolicy::WriteBack;
  SectoredCache cache(c);
  EXPECT_EQ(cache.read(A, 0b0001, 0).outcome, ReadOutcome::Miss);
  WriteResult w = cache.write(B, 0b0001);
  EXPECT_TRUE(w.forward);
  EXPECT_FALSE(cache.probe(B, 0b0001));
}

// A and B fill the one two-way set; then C misses.
TEST(SectoredCache, AllocateOnMissEvictsAtMissTime) {
  SectoredCache cache(config(1, 2));
  load(cache, A, 0b1);
  load(cache, B, 0b1);
  EXPECT_EQ(cache.read(C, 0b1, 3).outcome, ReadOutcome::Miss);
  EXPECT_FALSE(cache.probe(A, 0b1));  // A (LRU) already gone
  EXPECT_TRUE(cache.probe(B, 0b1));
  EXPECT_EQ(cache.counters().evictions, 1u);
}

TEST(SectoredCache, AllocateOnFillEvictsAtFillTime) {
  CacheConfig c = config(1, 2);
  c.allocate_on = AllocateOn::Fill;
  SectoredCache cache(c);
  load(cache, A, 0b1);
  load(cache, B, 0b1);
  EXPECT_EQ(cache.read(C, 0b1, 3).outcome, ReadOutcome::Miss);
  EXPECT_TRUE(cache.probe(A, 0b1));  // still readable while C is in flight
  EXPECT_TRUE(cache.probe(B, 0b1));
  EXPECT_EQ(cache.read(A, 0b1, 4).outcome, ReadOutcome::Hit);  // B becomes LRU
  EXPECT_EQ(cache.read(C, 0b1, 5).outcome, ReadOutcome::HitReserved);
  EXPECT_EQ(cache.counters().evictions, 0u);
  std::vector<uint32_t> waiting;
  cache.fill(C, 0b1, waiting);
  EXPECT_EQ(waiting, (std::vector<uint32_t>{3, 5}));
  EXPECT_TRUE(cache.probe(A, 0b1));
  EXPECT_FALSE(cache.probe(B, 0b1));
  EXPECT_TRUE(cache.probe(C, 0b1));
  EXPECT_EQ(cache.counters().evictions, 1u);
}

TEST(SectoredCache, AllocateOnFillNeverRunsOutOfWays) {
  // With nothing reserved, more misses than ways are all accepted.
  CacheConfig c = config(1, 2);
  c.allocate_on = AllocateOn::Fill;
  SectoredCache cache(c);
  for (uint64_t line : {A, B, C}) EXPECT_EQ(cache.read(line, 0b1, 0).outcome, ReadOutcome::Miss);
  std::vector<uint32_t> waiting;
  for (uint64_t line : {A, B, C}) cache.fill(line, 0b1, waiting);
  EXPECT_EQ(waiting.size(), 3u);
  EXPECT_FALSE(cache.probe(A, 0b1));  // the oldest fill made room for C
  EXPECT_TRUE(cache.probe(B, 0b1));
  EXPECT_TRUE(cache.probe(C, 0b1));
}

TEST(SectoredCache, AllocateOnFillReturnsDirtyVictimFromFill) {
  CacheConfig c = config(1, 1);
  c.allocate_on = AllocateOn::Fill;
  c.write_policy = WritePolicy::WriteBack;
  SectoredCache cache(c);
  cache.write(A, 0b0110);
  ReadResult r = cache.read(B, 0b0001, 1);
  EXPECT_EQ(r.outcome, ReadOutcome::Miss);
  EXPECT_FALSE(r.writeback_line);
  EXPECT_TRUE(cache.probe(A, 0b0110));
  std::vector<uint32_t> waiting;
  r = cache.fill(B, 0b0001, waiting);
  ASSERT_TRUE(r.writeback_line);
  EXPECT_EQ(*r.writeback_line, A);
  EXPECT_EQ(r.writeback_sectors, 0b0110u);
  EXPECT_EQ(cache.counters().writebacks, 1u);
}

TEST(SectoredCache, EveryWayReservedIsReservationFail) {
  SectoredCache cache(config(1, 2));
  EXPECT_EQ(cache.read(A, 0b1, 1).outcome, ReadOutcome::Miss);
  EXPECT_EQ(cache.read(B, 0b1, 2).outcome, ReadOutcome::Miss);
  ReadResult r = cache.read(C, 0b1, 3);
  EXPECT_EQ(r.outcome, ReadOutcome::ReservationFail);
  EXPECT_EQ(r.fetch_sectors, 0u);
  EXPECT_EQ(cache.mshrs_in_use(), 2u);
  std::vector<uint32_t> waiting;
  cache.fill(B, 0b1, waiting);
  EXPECT_EQ(cache.read(C, 0b1, 3).outcome, ReadOutcome::Miss);  // takes B's way
  EXPECT_FALSE(cache.probe(B, 0b1));
  cache.fill(A, 0b1, waiting);
  EXPECT_TRUE(cache.probe(A, 0b1));
  const CacheCounters& k = cache.counters();
  EXPECT_EQ(k.reservation_fails, 1u);
  EXPECT_EQ(k.read_misses, 3u);
  EXPECT_EQ(k.read_accesses, 3u);
  EXPECT_EQ(k.evictions, 1u);
}

TEST(SectoredCache, InvalidateAllKeepsInFlightFills) {
  SectoredCache cache(config(2, 2));
  load(cache, A, 0b0011);
  EXPECT_EQ(cache.read(B, 0b0001, 9).outcome, ReadOutcome::Miss);
  cache.invalidate_all();
  EXPECT_FALSE(cache.probe(A, 0b0001));
  EXPECT_EQ(cache.mshrs_in_use(), 1u);
  std::vector<uint32_t> waiting;
  cache.fill(B, 0b0001, waiting);
  EXPECT_EQ(waiting, std::vector<uint32_t>{9});
  EXPECT_TRUE(cache.probe(B, 0b0001));
  EXPECT_EQ(cache.read(A, 0b0001, 1).outcome, ReadOutcome::Miss);
  EXPECT_EQ(cache.counters().sector_misses, 0u);
}

TEST(SectoredCache, FermiLinesAreOneSector) {
  CacheConfig c = config(2, 2);
  c.sector_bytes = 128;
  SectoredCache cache(c);
  EXPECT_EQ(cache.read(A, 0b1, 0).fetch_sectors, 0b1u);
  std::vector<uint32_t> waiting;
  cache.fill(A, 0b1, waiting);
  EXPECT_EQ(cache.read(A, 0b1, 0).outcome, ReadOutcome::Hit);
}

TEST(SectoredCacheDeathTest, SizeMustBeWholeSets) {
  CacheConfig c = config(2, 2);
  c.size = 3 * 128;  // one and a half sets of 2 x 128 B
  EXPECT_DEATH(SectoredCache{c}, "whole number of sets");
}

// 48 KB, 128 B lines, 4 ways: 96 sets (the L1 of Wang et al., IEEE TC 2019,
// Table 2), indexed modulo 96.
TEST(SectoredCache, NonPowerOfTwoSetCount) {
  CacheConfig c = config(96, 4);
  SectoredCache cache(c);
  std::vector<uint32_t> waiting;
  // Lines 0, 96, 192, 288 and 384 (x 128 B) share set 0: the fifth evicts the first.
  for (uint64_t i = 0; i < 5; ++i) {
    const uint64_t line = i * 96 * 128;
    EXPECT_EQ(cache.read(line, 0b1111, 0).outcome, ReadOutcome::Miss);
    cache.miss_sent();
    cache.fill(line, 0b1111, waiting);
  }
  EXPECT_FALSE(cache.probe(0, 0b1111));
  EXPECT_TRUE(cache.probe(96 * 128, 0b1111));
  // Line 64 (x 128 B) is in set 64, not in set 0.
  EXPECT_EQ(cache.read(64 * 128, 0b1, 0).outcome, ReadOutcome::Miss);
  EXPECT_TRUE(cache.probe(4 * 96 * 128, 0b1111));
}

TEST(SectoredCacheDeathTest, FillWithoutMissIsABug) {
  SectoredCache cache(config(2, 2));
  std::vector<uint32_t> waiting;
  EXPECT_DEATH(cache.fill(A, 0b1, waiting), "without an outstanding miss");
}

TEST(SectoredCache, AGigabyteCacheCostsOnlyTheSetsUsed) {
  // 2M sets of 4 ways: allocated up front this would be hundreds of MB per
  // cache. Lines far apart land in different pages; all behave as usual.
  CacheConfig c = config(1u << 21, 4);
  c.mshr_entries = 4096;
  c.mshr_max_merge = 256;
  ASSERT_EQ(c.size, uint64_t{1} << 30);
  SectoredCache cache(c);
  const uint64_t far[] = {0x0, 0x3000'0000, 0x7fff'ff80, 0x1'2345'6780};
  for (uint64_t line : far) load(cache, line, 0b1111, 3);
  for (uint64_t line : far) EXPECT_TRUE(cache.probe(line, 0b1111)) << line;
  EXPECT_EQ(cache.read(far[2], 0b0001, 4).outcome, ReadOutcome::Hit);
  // A line 1 GiB away maps to the same set, a different tag: a miss.
  EXPECT_FALSE(cache.probe(far[0] + (uint64_t{1} << 30), 0b0001));
  cache.invalidate_all();
  for (uint64_t line : far) EXPECT_FALSE(cache.probe(line, 0b0001)) << line;
}

TEST(SectoredCache, MshrEntriesGrowOnDemandLowestFirst) {
  CacheConfig c = config(64, 4);
  c.mshr_entries = 3;
  SectoredCache cache(c);
  EXPECT_EQ(cache.read(A, 0b0001, 1).outcome, ReadOutcome::Miss);
  EXPECT_EQ(cache.read(B, 0b0001, 2).outcome, ReadOutcome::Miss);
  EXPECT_EQ(cache.read(C, 0b0001, 3).outcome, ReadOutcome::Miss);
  EXPECT_EQ(cache.read(D, 0b0001, 4).outcome, ReadOutcome::ReservationFail);
  std::vector<uint32_t> waiting;
  cache.fill(B, 0b0001, waiting);
  EXPECT_EQ(waiting, std::vector<uint32_t>{2});
  // The freed entry is reused; merges still go to their own entry.
  EXPECT_EQ(cache.read(D, 0b0001, 4).outcome, ReadOutcome::Miss);
  EXPECT_EQ(cache.read(A, 0b0001, 5).outcome, ReadOutcome::HitReserved);
  EXPECT_EQ(cache.mshrs_in_use(), 3u);
  waiting.clear();
  cache.fill(A, 0b0001, waiting);
  EXPECT_EQ(waiting, (std::vector<uint32_t>{1, 5}));
}

TEST(SectoredCache, CountsTheLinesInUseAndEveryAllocation) {
  // One set of two ways: A and B fill it, C replaces the older, and
  // invalidate_all frees every line.
  SectoredCache cache(config(1, 2));
  EXPECT_EQ(cache.lines(), 2u);
  EXPECT_EQ(cache.lines_in_use(), 0u);
  load(cache, A, 0b0001);
  load(cache, B, 0b0001);
  EXPECT_EQ(cache.lines_in_use(), 2u);
  EXPECT_EQ(cache.allocations(), 2u);
  load(cache, C, 0b0001);
  EXPECT_EQ(cache.lines_in_use(), 2u);
  EXPECT_EQ(cache.allocations(), 3u);
  EXPECT_EQ(cache.counters().evictions, 1u);
  load(cache, C, 0b0010);  // a sector miss of a present line allocates nothing
  EXPECT_EQ(cache.allocations(), 3u);
  cache.invalidate_all();
  EXPECT_EQ(cache.lines_in_use(), 0u);
  EXPECT_EQ(cache.allocations(), 3u);
  load(cache, D, 0b0001);
  EXPECT_EQ(cache.lines_in_use(), 1u);
  EXPECT_EQ(cache.allocations(), 4u);
}

}  // namespace
}  // namespace warpsim::timing
