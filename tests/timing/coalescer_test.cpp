// The coalescer (strided, vector, misaligned, line-crossing and random warp
// accesses against a byte-by-byte reference), shared-memory bank conflicts
// and distinct-word counting.
#include "timing/sm/coalescer.h"

#include <gtest/gtest.h>

#include <bit>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <vector>

namespace warpsim::timing {
namespace {

constexpr CoalescerConfig kVolta{128, 32};
constexpr CoalescerConfig kFermi{128, 128};

// 32 lanes: lane i accesses `size` bytes at base + i * stride.
std::vector<LaneAccess> strided(uint64_t base, uint64_t stride, uint32_t size,
                                uint32_t lanes = 32) {
  std::vector<LaneAccess> v;
  for (uint32_t i = 0; i < lanes; ++i) v.push_back({base + i * stride, size, i});
  return v;
}

std::vector<CoalescedRequest> run(const std::vector<LaneAccess>& a,
                                  const CoalescerConfig& c = kVolta) {
  std::vector<CoalescedRequest> out;
  coalesce(a, c, out);
  return out;
}

void expect_request(const CoalescedRequest& r, uint64_t line, uint32_t sectors, uint32_t lanes,
                    uint32_t bytes) {
  EXPECT_EQ(r.line, line);
  EXPECT_EQ(r.sector_mask, sectors);
  EXPECT_EQ(r.lane_mask, lanes);
  EXPECT_EQ(r.bytes, bytes);
}

TEST(Coalescer, Stride4IsOneLineFourSectors) {
  auto out = run(strided(0x1000, 4, 4));
  ASSERT_EQ(out.size(), 1u);
  expect_request(out[0], 0x1000, 0xF, 0xFFFFFFFF, 128);
}

TEST(Coalescer, Stride8IsTwoLines) {
  auto out = run(strided(0x1000, 8, 4));
  ASSERT_EQ(out.size(), 2u);
  expect_request(out[0], 0x1000, 0xF, 0x0000FFFF, 128);
  expect_request(out[1], 0x1080, 0xF, 0xFFFF0000, 128);
}

TEST(Coalescer, Stride128IsOneRequestPerLane) {
  auto out = run(strided(0x2000, 128, 4));
  ASSERT_EQ(out.size(), 32u);
  for (uint32_t i = 0; i < 32; ++i) expect_request(out[i], 0x2000 + 128 * i, 0x1, 1u << i, 32);
}

TEST(Coalescer, Float4IsFourLines) {
  auto out = run(strided(0x4000, 16, 16));
  ASSERT_EQ(out.size(), 4u);
  for (uint32_t k = 0; k < 4; ++k)
    expect_request(out[k], 0x4000 + 128 * k, 0xF, 0xFFu << (8 * k), 128);
}

TEST(Coalescer, MisalignedBaseSpansTwoLines) {
  // 0x1064..0x10E3: line 0x1000 sector 3 (lanes 0-6), line 0x1080 sectors 0-3.
  auto out = run(strided(0x1064, 4, 4));
  ASSERT_EQ(out.size(), 2u);
  expect_request(out[0], 0x1000, 0x8, 0x0000007F, 32);
  expect_request(out[1], 0x1080, 0xF, 0xFFFFFF80, 128);
}

TEST(Coalescer, SameAddressIsOneSector) {
  auto out = run(strided(0x3044, 0, 4));
  ASSERT_EQ(out.size(), 1u);
  expect_request(out[0], 0x3000, 0x4, 0xFFFFFFFF, 32);
}

TEST(Coalescer, FermiLinesHaveOneSectorBit) {
  auto out = run(strided(0x1064, 4, 4), kFermi);
  ASSERT_EQ(out.size(), 2u);
  expect_request(out[0], 0x1000, 0x1, 0x0000007F, 128);
  expect_request(out[1], 0x1080, 0x1, 0xFFFFFF80, 128);
}

TEST(Coalescer, AccessCrossingALineIsSplit) {
  // 8 bytes at 0x7C: last sector of line 0 and first of line 0x80.
  auto out = run({{0x7C, 8, 5}});
  ASSERT_EQ(out.size(), 2u);
  expect_request(out[0], 0x00, 0x8, 1u << 5, 32);
  expect_request(out[1], 0x80, 0x1, 1u << 5, 32);
}

TEST(Coalescer, OrderIsFirstTouchAndOutIsCleared) {
  // Lanes 0 and 2 touch line 0x200, lane 1 line 0x100: 0x200 comes first.
  std::vector<CoalescedRequest> out(5);
  coalesce(std::vector<LaneAccess>{{0x200, 4, 0}, {0x120, 4, 1}, {0x260, 4, 2}}, kVolta, out);
  ASSERT_EQ(out.size(), 2u);
  expect_request(out[0], 0x200, 0x9, 0x5, 64);
  expect_request(out[1], 0x100, 0x2, 0x2, 32);
  coalesce({}, kVolta, out);
  EXPECT_TRUE(out.empty());
}

// Byte by byte: the lines in first-touch order, with their sectors and lanes.
std::vector<CoalescedRequest> reference(const std::vector<LaneAccess>& a,
                                        const CoalescerConfig& c) {
  std::vector<CoalescedRequest> out;
  std::map<uint64_t, size_t> index;
  for (const LaneAccess& l : a) {
    for (uint64_t b = l.address; b < l.address + l.size; ++b) {
      const uint64_t line = b / c.line_bytes * c.line_bytes;
      auto [it, fresh] = index.try_emplace(line, out.size());
      if (fresh) out.push_back({line, 0, 0, 0});
      CoalescedRequest& r = out[it->second];
      r.sector_mask |= 1u << ((b - line) / c.sector_bytes);
      r.lane_mask |= 1u << l.lane;
    }
  }
  for (auto& r : out)
    r.bytes = static_cast<uint32_t>(std::popcount(r.sector_mask)) * c.sector_bytes;
  return out;
}

TEST(Coalescer, RandomAccessesMatchByteReference) {
  std::mt19937_64 rng(12345);
  const CoalescerConfig configs[] = {kVolta, kFermi, {64, 8}, {128, 4}};
  const uint32_t sizes[] = {1, 2, 4, 8, 16};
  std::vector<CoalescedRequest> out;
  for (int round = 0; round < 2000; ++round) {
    const CoalescerConfig& c = configs[round % 4];
    // A window small enough that lanes share lines; some lanes inactive;
    // every third round unaligned so some accesses cross lines.
    const uint64_t window = 64u << (rng() % 6);
    std::vector<LaneAccess> a;
    for (uint32_t lane = 0; lane < 32; ++lane) {
      if (rng() % 4 == 0) continue;
      const uint32_t size = sizes[rng() % 5];
      uint64_t addr = 0x10000 + rng() % window;
      if (round % 3 != 0) addr -= addr % size;
      a.push_back({addr, size, lane});
    }
    coalesce(a, c, out);
    const auto expected = reference(a, c);
    ASSERT_EQ(out.size(), expected.size()) << "round " << round;
    for (size_t i = 0; i < out.size(); ++i) {
      EXPECT_EQ(out[i].line, expected[i].line) << "round " << round;
      EXPECT_EQ(out[i].sector_mask, expected[i].sector_mask) << "round " << round;
      EXPECT_EQ(out[i].lane_mask, expected[i].lane_mask) << "round " << round;
      EXPECT_EQ(out[i].bytes, expected[i].bytes) << "round " << round;
    }
  }
}

// --- shared memory banks ---

uint32_t shared32(const std::vector<LaneAccess>& a) { return shared_access_cycles(a, 32, 4); }

TEST(SharedBanks, KnownPatterns) {
  EXPECT_EQ(shared32(strided(0, 4, 4)), 1u);         // stride 1 word
  EXPECT_EQ(shared32(strided(0, 8, 4)), 2u);         // stride 2 words
  EXPECT_EQ(shared32(strided(0, 128, 4)), 32u);      // stride 32 words: one bank
  EXPECT_EQ(shared32(strided(0x40, 0, 4)), 1u);      // broadcast
  EXPECT_EQ(shared32(strided(0, 8, 8)), 2u);         // 64 words, 2 per bank
  EXPECT_EQ(shared32(strided(0, 16, 16)), 4u);       // float4: 128 words, 4 per bank
  EXPECT_EQ(shared32({}), 0u);
  // Half the lanes on word 0, half on word 32 (both bank 0): two words.
  std::vector<LaneAccess> two;
  for (uint32_t i = 0; i < 32; ++i) two.push_back({i < 16 ? 0u : 128u, 4, i});
  EXPECT_EQ(shared32(two), 2u);
  // 16 banks of 8 bytes: 4-byte stride 2 words -> 64-bit words 0,1,..,31 -> 2 per bank.
  EXPECT_EQ(shared_access_cycles(strided(0, 8, 4), 16, 8), 2u);
}

// Brute force: distinct words per bank, the largest count.
uint32_t brute_cycles(const std::vector<LaneAccess>& a, uint32_t banks, uint32_t width) {
  std::map<uint64_t, std::set<uint64_t>> per_bank;
  for (const LaneAccess& l : a)
    for (uint64_t b = l.address; b < l.address + l.size; ++b)
      per_bank[(b / width) % banks].insert(b / width);
  size_t worst = 0;
  for (const auto& [bank, words] : per_bank) worst = std::max(worst, words.size());
  return static_cast<uint32_t>(worst);
}

TEST(SharedBanks, StrideSweepMatchesGcdAndBruteForce) {
  for (uint32_t s = 1; s <= 32; ++s) {
    const auto a = strided(0x100, 4ull * s, 4);
    const uint32_t gcd_expect = 32 / (32 / std::gcd(s, 32u));
    EXPECT_EQ(shared32(a), gcd_expect) << "stride " << s;
    EXPECT_EQ(shared32(a), brute_cycles(a, 32, 4)) << "stride " << s;
  }
}

TEST(SharedBanks, RandomMatchesBruteForce) {
  std::mt19937 rng(7);
  const uint32_t sizes[] = {1, 4, 8, 16};
  for (int round = 0; round < 500; ++round) {
    std::vector<LaneAccess> a;
    for (uint32_t lane = 0; lane < 32; ++lane) {
      const uint32_t size = sizes[rng() % 4];
      a.push_back({(rng() % 2048) / size * size, size, lane});
    }
    EXPECT_EQ(shared32(a), brute_cycles(a, 32, 4)) << "round " << round;
  }
}

TEST(DistinctWords, Counts) {
  EXPECT_EQ(distinct_words(strided(0x40, 0, 4), 4), 1u);
  EXPECT_EQ(distinct_words(strided(0, 4, 4), 4), 32u);
  EXPECT_EQ(distinct_words(strided(0, 4, 4), 8), 16u);
  EXPECT_EQ(distinct_words(strided(0, 8, 8), 4), 64u);
  EXPECT_EQ(distinct_words(std::vector<LaneAccess>{{0, 4, 0}, {2, 4, 1}, {64, 4, 2}}, 4), 3u);
  EXPECT_EQ(distinct_words({}, 4), 0u);
}

}  // namespace
}  // namespace warpsim::timing
