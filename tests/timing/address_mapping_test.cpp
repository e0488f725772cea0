// Address mapping: hand-decoded addresses for the default string, a D-bit
// string and a padded GPGPU-Sim-style string; interleaving over counts that
// are not powers of two; the xor and ipoly hashes against hand-computed
// values and against a bit-serial reference; (partition, local) uniqueness;
// the spread of strided streams; sub-partitions; validation messages.
#include "timing/memory/address_mapping.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace warpsim::timing {
namespace {

AddressMappingConfig make(uint32_t partitions, PartitionHash hash = PartitionHash::None,
                          std::string mapping = "RRRRRRRR.RRRRRRRR.BBBBCCCC.CCCSSSSS",
                          uint32_t sub_partitions = 2, uint32_t interleave_bytes = 256) {
  AddressMappingConfig c;
  c.partitions = partitions;
  c.sub_partitions = sub_partitions;
  c.interleave_bytes = interleave_bytes;
  c.hash = hash;
  c.mapping = std::move(mapping);
  return c;
}

AddressMapping mapping_of(const AddressMappingConfig& c) {
  EXPECT_EQ(validate_address_mapping(c), "");
  return AddressMapping(c);
}

// The brief's GPGPU-Sim-like string with three D bits (bits 7..5).
constexpr const char* kDString = "RRRRRRRR.RRRRRRRR.RBBBCCCC.BCCDDDSS.SSS";
// GTX480-style: padded to 64 characters with leading zeros.
constexpr const char* kPadded =
    "00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCC.BCCSSSSS";
// D bits split in two places (bits 17 and 6..5), with B and C split too.
constexpr const char* kSplitD = "RRRRRRRR.RRRRRRRR.DBBBCCCC.BCCDDSSS.SS";

TEST(AddressMapping, DefaultStringHandDecoded) {
  // Bits 31..16 R, 15..12 B, 11..5 C, 4..0 S. 8 partitions, 256-B interleave.
  // 0x12345678: slot = 0x123456, partition = slot % 8 = 6, upper = slot / 8
  // = 0x2468A, local = 0x2468A * 256 + 0x78 = 0x2468A78.
  // local bits 31..16 = 0x0246 -> row 582; bits 15..12 = 0x8 -> bank 8;
  // bits 11..0 = 0xA78 -> column 2680 (C = 1010011 = 83, S = 11000 = 24,
  // 83 * 32 + 24 = 2680). sub_partition = 6 * 2 + 8 % 2 = 12.
  const AddressMapping m = mapping_of(make(8));
  const DecodedAddress d = m.decode(0x12345678);
  EXPECT_EQ(d.partition, 6u);
  EXPECT_EQ(d.local, 0x2468A78u);
  EXPECT_EQ(d.row, 582u);
  EXPECT_EQ(d.bank, 8u);
  EXPECT_EQ(d.column, 2680u);
  EXPECT_EQ(d.sub_partition, 12u);
  EXPECT_EQ(m.banks(), 16u);
  EXPECT_EQ(m.row_bytes(), 4096u);  // 2^(7 C + 5 S)
}

TEST(AddressMapping, DBitStringHandDecoded) {
  // kDString, 35 bits: R 34..18, B 17..15, C 14..11, B 10, C 9..8,
  // D 7..5, S 4..0. Without D (32 bits): R 31..15, B 14..12, C 11..8, B 7,
  // C 6..5, S 4..0.
  // 0x9_9ABC_DEF1: low byte 0xF1 = 1111 0001, D = bits 7..5 = 111 -> 7.
  // local = (A >> 8) << 5 | (A & 31) = 0x99ABCDE << 5 | 0x11 = 0x1_3357_9BD1.
  // local >> 32 = 1 lies above the string: row = 0x33579BD1 >> 15 (0x66AF)
  // | 1 << 17 = 0x266AF = 157359. Low 16 bits 0x9BD1 = 1001 1011 1101 0001:
  // B = bits 14..12 (001), bit 7 (1) -> 0011 = 3; C = bits 11..8 (1011),
  // bits 6..5 (10) -> 101110 = 46; S = 10001 = 17; column = 46 * 32 + 17 =
  // 1489. sub_partition = 7 * 4 + 3 % 4 = 31.
  const AddressMapping m = mapping_of(make(8, PartitionHash::None, kDString, 4));
  const DecodedAddress d = m.decode(0x99ABCDEF1);
  EXPECT_EQ(d.partition, 7u);
  EXPECT_EQ(d.local, 0x133579BD1u);
  EXPECT_EQ(d.row, 157359u);
  EXPECT_EQ(d.bank, 3u);
  EXPECT_EQ(d.column, 1489u);
  EXPECT_EQ(d.sub_partition, 31u);
  EXPECT_EQ(m.banks(), 16u);
  EXPECT_EQ(m.row_bytes(), 2048u);  // 2^(6 C + 5 S)
  // The D bits alone change only the partition: 0xF1 -> 0x11 clears them.
  const DecodedAddress e = m.decode(0x99ABCDE11);
  EXPECT_EQ(e.partition, 0u);
  EXPECT_EQ(e.local, d.local);
}

TEST(AddressMapping, PaddedStringGivesLeadingZerosToTheRow) {
  // kPadded: 0 63..28 (padding), R 27..15, B 14..12, C 11..8, B 7, C 6..5,
  // S 4..0; 6 partitions, 256-B interleave.
  // 0x3_0000_1A2B: slot = 0x300001A = 50331674 = 6 * 8388612 + 2 ->
  // partition 2, upper 8388612 = 0x800004, local = 0x800004 * 256 + 0x2B =
  // 0x8000042B. Padding and R are adjacent: row = local >> 15 = 0x10000.
  // Low 15 bits 0x042B = 000 0100 0010 1011: B = 000 and bit 7 = 0 -> 0;
  // C = 0100 and bits 6..5 = 01 -> 010001 = 17; S = 01011 = 11; column =
  // 17 * 32 + 11 = 555. sub_partition = 2 * 2 + 0 = 4.
  const AddressMapping m = mapping_of(make(6, PartitionHash::None, kPadded));
  const DecodedAddress d = m.decode(0x300001A2B);
  EXPECT_EQ(d.partition, 2u);
  EXPECT_EQ(d.local, 0x8000042Bu);
  EXPECT_EQ(d.row, 0x10000u);
  EXPECT_EQ(d.bank, 0u);
  EXPECT_EQ(d.column, 555u);
  EXPECT_EQ(d.sub_partition, 4u);
  EXPECT_EQ(m.banks(), 16u);
  EXPECT_EQ(m.row_bytes(), 2048u);  // 2^(6 C + 5 S): the 36 zeros are not bytes of a row
}

TEST(AddressMapping, NonPowerOfTwoCountsInterleaveConsecutiveChunks) {
  for (uint32_t p : {6u, 12u}) {
    const AddressMapping m = mapping_of(make(p));
    // Chunk k (256 B) goes to partition k % p at local (k / p) * 256; the
    // byte offset 0x45 is kept.
    for (uint64_t k = 0; k < 3 * p; ++k) {
      const DecodedAddress d = m.decode(k * 256 + 0x45);
      EXPECT_EQ(d.partition, k % p) << "p " << p << " chunk " << k;
      EXPECT_EQ(d.local, (k / p) * 256 + 0x45) << "p " << p << " chunk " << k;
    }
  }
}

TEST(AddressMapping, XorFoldsUpperBitsIntoTheIndex) {
  const AddressMapping m = mapping_of(make(8, PartitionHash::Xor));
  // slot 0b101'110'011 (371): index 011; upper 101110 folds to 110 ^ 101 =
  // 011; partition 011 ^ 011 = 0. local = upper * 256 = 46 * 256.
  DecodedAddress d = m.decode(371 * 256 + 7);
  EXPECT_EQ(d.partition, 0u);
  EXPECT_EQ(d.local, 46u * 256 + 7);
  // slot 0b001'000'010 (66): index 010; fold of 001000 = 000 ^ 001 = 001;
  // partition 011 = 3.
  d = m.decode(66 * 256);
  EXPECT_EQ(d.partition, 3u);
  EXPECT_EQ(d.local, 8u * 256);
}

TEST(AddressMapping, XorForNonPowerOfTwoCountAddsTheFoldModuloTheCount) {
  const AddressMapping m = mapping_of(make(6, PartitionHash::Xor));
  // 3-bit chunks (ceil(log2 6)). slot 100: index 100 % 6 = 4, upper 16 =
  // 010'000 folds to 000 ^ 010 = 2; partition (4 + 2) % 6 = 0.
  EXPECT_EQ(m.decode(100 * 256).partition, 0u);
  // slot 101: index 5, same upper: (5 + 2) % 6 = 1.
  EXPECT_EQ(m.decode(101 * 256).partition, 1u);
  // slot 5: upper 0, no fold: partition 5.
  EXPECT_EQ(m.decode(5 * 256).partition, 5u);
}

TEST(AddressMapping, IpolyIsTheLineAddressModuloThePolynomial) {
  // 8 partitions: g = x^3 + x + 1, so x^3 = x + 1 (3), x^4 = x^2 + x (6),
  // x^5 = x^3 + x^2 = x^2 + x + 1 (7), x^6 = x^3 + x^2 + x = x^2 + 1 (5),
  // x^7 = x^3 + x = 1 (g is primitive: x has order 7). Line = address / 256.
  const AddressMapping m = mapping_of(make(8, PartitionHash::Ipoly));
  const uint32_t expected[] = {1, 2, 4, 3, 6, 7, 5, 1};  // x^0 .. x^7
  for (uint32_t i = 0; i < 8; ++i)
    EXPECT_EQ(m.decode((uint64_t{1} << i) * 256).partition, expected[i]) << "x^" << i;
  // Linear: x^7 + x^3 + 1 = 1 + 3 + 1 = 3 (XOR of the residues).
  EXPECT_EQ(m.decode(((1u << 7) | (1u << 3) | 1u) * 256).partition, 3u);
  // 2 partitions: g = x + 1, the remainder is the parity of the line.
  const AddressMapping two = mapping_of(make(2, PartitionHash::Ipoly));
  EXPECT_EQ(two.decode(0b1011 * 256).partition, 1u);
  EXPECT_EQ(two.decode(0b1001 * 256).partition, 0u);
}

// --- A bit-serial reference, written from the rules, not from the code ----

uint64_t poly_mod(uint64_t value, uint32_t g, uint32_t degree) {
  // Long division over GF(2), most significant bit first.
  uint64_t r = 0;
  for (int i = 63; i >= 0; --i) {
    r = (r << 1) | ((value >> i) & 1);
    if ((r >> degree) & 1) r ^= g;
  }
  return r;
}

DecodedAddress reference_decode(const AddressMappingConfig& c, uint64_t a) {
  std::string bits;
  for (char ch : c.mapping)
    if (ch != '.') bits += ch;
  const int n = static_cast<int>(bits.size());
  uint32_t k = 0;
  while ((1u << k) < c.partitions) ++k;  // ceil(log2 p)
  uint64_t index = 0, upper = 0, local = 0;
  int highest_d = -1;
  for (int i = 0; i < n; ++i)
    if (bits[i] == 'D') {
      index = index * 2 + ((a >> (n - 1 - i)) & 1);
      highest_d = std::max(highest_d, n - 1 - i);
    }
  std::string local_bits;
  if (highest_d >= 0) {
    int out = 0;
    for (int pos = 0; pos < 64; ++pos)
      if (pos >= n || bits[n - 1 - pos] != 'D') local |= ((a >> pos) & 1) << out++;
    upper = highest_d == 63 ? 0 : a >> (highest_d + 1);
    for (char ch : bits)
      if (ch != 'D') local_bits += ch;
  } else {
    const uint64_t slot = a / c.interleave_bytes;
    index = slot % c.partitions;
    upper = slot / c.partitions;
    local = upper * c.interleave_bytes + a % c.interleave_bytes;
    local_bits = bits;
  }
  if (c.hash == PartitionHash::Xor) {
    uint64_t fold = 0;
    for (uint64_t u = upper; k > 0 && u != 0; u >>= k) fold ^= u & ((1u << k) - 1);
    index = (c.partitions & (c.partitions - 1)) == 0 ? index ^ fold : (index + fold) % c.partitions;
  } else if (c.hash == PartitionHash::Ipoly) {
    const uint32_t g[] = {0, 0b11, 0b111, 0b1011, 0b10011, 0b100101, 0b1000011};
    if (highest_d < 0)  // the rule itself: the whole line address mod g
      index = poly_mod(a / c.interleave_bytes, g[k], k);
    else  // D form: D value XOR upper * x^k mod g (upper << k fits)
      index ^= poly_mod(upper << k, g[k], k);
  }
  DecodedAddress d;
  d.partition = static_cast<uint32_t>(index);
  d.local = local;
  const int ln = static_cast<int>(local_bits.size());
  const size_t first = local_bits.find_first_of("RBC");
  uint64_t row = 0, bank = 0, col_c = 0, col_s = 0;
  int s_bits = 0, r_bits = 0;
  for (int i = 0; i < ln; ++i) {
    const uint64_t bit = (local >> (ln - 1 - i)) & 1;
    const char ch = local_bits[i];
    if (ch == 'R' ||
        ((ch == 'S' || ch == '0') && first != std::string::npos && size_t(i) < first)) {
      row = row * 2 + bit;
      ++r_bits;
    } else if (ch == 'B') {
      bank = bank * 2 + bit;
    } else if (ch == 'C') {
      col_c = col_c * 2 + bit;
    } else {
      col_s = col_s * 2 + bit;
      ++s_bits;
    }
  }
  if (ln < 64) row |= (local >> ln) << r_bits;
  d.row = static_cast<uint32_t>(row);
  d.bank = static_cast<uint32_t>(bank);
  d.column = static_cast<uint32_t>((col_c << s_bits) | col_s);
  d.sub_partition = d.partition * c.sub_partitions + d.bank % c.sub_partitions;
  return d;
}

std::vector<AddressMappingConfig> varied_configs() {
  std::vector<AddressMappingConfig> v;
  for (PartitionHash h : {PartitionHash::None, PartitionHash::Xor, PartitionHash::Ipoly}) {
    for (uint32_t p : {1u, 2u, 8u, 16u, 64u, 6u, 12u, 80u}) {
      if (h == PartitionHash::Ipoly && (p == 1 || (p & (p - 1)) != 0)) continue;
      v.push_back(make(p, h));
      v.push_back(make(p, h, kPadded, 4, 512));
    }
    v.push_back(make(8, h, kDString, 4));
    v.push_back(make(8, h, kSplitD, 1));
  }
  return v;
}

void expect_same(const DecodedAddress& got, const DecodedAddress& want, const std::string& what) {
  EXPECT_EQ(got.partition, want.partition) << what;
  EXPECT_EQ(got.sub_partition, want.sub_partition) << what;
  EXPECT_EQ(got.bank, want.bank) << what;
  EXPECT_EQ(got.row, want.row) << what;
  EXPECT_EQ(got.column, want.column) << what;
  EXPECT_EQ(got.local, want.local) << what;
}

TEST(AddressMapping, MatchesBitSerialReferenceOnRandomAddresses) {
  std::mt19937_64 rng(12345);
  for (const AddressMappingConfig& c : varied_configs()) {
    const AddressMapping m = mapping_of(c);
    for (int i = 0; i < 200; ++i) {
      uint64_t a = rng();
      if (i % 2) a >>= 24;  // also realistic (40-bit) addresses
      const std::string what = c.mapping + " p=" + std::to_string(c.partitions) +
                               " hash=" + std::to_string(int(c.hash)) + " a=" + std::to_string(a);
      expect_same(m.decode(a), reference_decode(c, a), what);
      if (HasFailure()) return;
    }
  }
}

TEST(AddressMapping, DBitsAtTheInterleavePositionMatchInterleaving) {
  // D at bits 10..8 is interleaving by 256 B over 8 partitions; the hashes
  // see the same `upper` (the bits above bit 10), so every field agrees.
  for (PartitionHash h : {PartitionHash::None, PartitionHash::Xor, PartitionHash::Ipoly}) {
    const AddressMapping d_form = mapping_of(make(8, h, "RRRRRRRRRRRRRRRRBBBBCCDDDCCCSSSSS"));
    const AddressMapping slots = mapping_of(make(8, h, "RRRRRRRRRRRRRRRRBBBBCCCCCSSSSS"));
    std::mt19937_64 rng(7);
    for (int i = 0; i < 500; ++i) {
      const uint64_t a = rng() >> (i % 3 == 0 ? 0 : 20);
      expect_same(d_form.decode(a), slots.decode(a), "hash " + std::to_string(int(h)));
    }
  }
}

// Distinct addresses must give distinct (partition, local); bank, row and
// column must depend only on the local address (re-decoding `local` with a
// one-partition mapping of the same string without D bits gives them again).
void expect_unique_and_consistent(const AddressMappingConfig& c,
                                  const std::vector<uint64_t>& addresses) {
  const AddressMapping m = mapping_of(c);
  AddressMappingConfig one = c;
  one.partitions = 1;
  one.hash = PartitionHash::None;
  one.mapping.erase(std::remove(one.mapping.begin(), one.mapping.end(), 'D'), one.mapping.end());
  const AddressMapping local_only = mapping_of(one);
  std::vector<std::pair<uint32_t, uint64_t>> pairs;
  pairs.reserve(addresses.size());
  for (uint64_t a : addresses) {
    const DecodedAddress d = m.decode(a);
    ASSERT_LT(d.partition, c.partitions);
    pairs.emplace_back(d.partition, d.local);
    const DecodedAddress again = local_only.decode(d.local);
    ASSERT_EQ(again.local, d.local);
    ASSERT_EQ(again.bank, d.bank);
    ASSERT_EQ(again.row, d.row);
    ASSERT_EQ(again.column, d.column);
  }
  std::sort(pairs.begin(), pairs.end());
  EXPECT_EQ(std::adjacent_find(pairs.begin(), pairs.end()), pairs.end())
      << c.mapping << " p=" << c.partitions << " hash=" << int(c.hash);
}

TEST(AddressMapping, DistinctAddressesGiveDistinctPartitionLocalPairs) {
  // Dense: every 32-B sector of the first 1 MB (many rows of slots, where a
  // hash that is not a permutation would collide). Sparse: random 64-bit and
  // 40-bit addresses, fixed seed.
  std::vector<uint64_t> dense;
  for (uint64_t a = 0; a < (uint64_t{1} << 20); a += 32) dense.push_back(a);
  std::vector<uint64_t> sparse;
  std::mt19937_64 rng(99);
  for (int i = 0; i < 4000; ++i) sparse.push_back(rng() >> (i % 2 ? 24 : 0));
  std::sort(sparse.begin(), sparse.end());
  sparse.erase(std::unique(sparse.begin(), sparse.end()), sparse.end());
  for (const AddressMappingConfig& c : varied_configs()) {
    expect_unique_and_consistent(c, dense);
    expect_unique_and_consistent(c, sparse);
  }
}

std::vector<uint32_t> partition_counts(const AddressMapping& m, uint64_t stride, int accesses) {
  std::vector<uint32_t> counts(m.config().partitions, 0);
  for (int i = 0; i < accesses; ++i) ++counts[m.decode(uint64_t(i) * stride).partition];
  return counts;
}

constexpr uint64_t kStrides[] = {256, 512, 1024, 2048, 4096, 64 * 1024};

TEST(AddressMapping, HashesSpreadPowerOfTwoStridesExactlyEvenly) {
  // 4096 accesses at stride 2^s * 256 walk the line addresses n * 2^s for
  // all 12-bit n. Both hashes are GF(2)-linear in n and, for these strides,
  // onto the k partition bits (xor: n's bits cover every fold position mod
  // k; ipoly: multiplying by x^s is invertible modulo an irreducible g), so
  // every partition gets exactly 4096 / p accesses: max/min = 1.
  for (PartitionHash h : {PartitionHash::Xor, PartitionHash::Ipoly})
    for (uint32_t p : {8u, 16u}) {
      const AddressMapping m = mapping_of(make(p, h));
      for (uint64_t stride : kStrides)
        EXPECT_EQ(partition_counts(m, stride, 4096), std::vector<uint32_t>(p, 4096 / p))
            << "hash " << int(h) << " p " << p << " stride " << stride;
    }
}

TEST(AddressMapping, NoHashConcentratesLargePowerOfTwoStrides) {
  // Without a hash, partition = (n * stride / 256) % p: stride 256 is even,
  // a stride of 256 * p or more lands every access on partition 0, and
  // 2 KB over 16 partitions uses only 0 and 8.
  for (uint32_t p : {8u, 16u}) {
    const AddressMapping m = mapping_of(make(p));
    EXPECT_EQ(partition_counts(m, 256, 4096), std::vector<uint32_t>(p, 4096 / p));
    for (uint64_t stride : {uint64_t{4096}, uint64_t{64 * 1024}}) {
      std::vector<uint32_t> all_on_zero(p, 0);
      all_on_zero[0] = 4096;
      EXPECT_EQ(partition_counts(m, stride, 4096), all_on_zero) << "p " << p << " " << stride;
    }
  }
  std::vector<uint32_t> two(16, 0);
  two[0] = two[8] = 2048;
  EXPECT_EQ(partition_counts(mapping_of(make(16)), 2048, 4096), two);
}

TEST(AddressMapping, XorOverNonPowerOfTwoCountsSpreadEveryStride) {
  // (index + fold) % p is not GF(2)-linear, so there is no exact evenness to
  // prove. These fixed streams are deterministic: every partition is reached
  // and max/min stays within the brief's 1.5 (measured: at most 54/49 for 80
  // partitions at 64 KB, 1.01 for 6 and 12). Without a hash most partitions
  // stay idle: 64 KB = 256 slots, 256 % 6 = 4, so only 0, 4 and 2 are hit.
  for (uint32_t p : {6u, 12u, 80u}) {
    const AddressMapping m = mapping_of(make(p, PartitionHash::Xor));
    for (uint64_t stride : kStrides) {
      const std::vector<uint32_t> counts = partition_counts(m, stride, 4096);
      const uint32_t lo = *std::min_element(counts.begin(), counts.end());
      const uint32_t hi = *std::max_element(counts.begin(), counts.end());
      EXPECT_GT(lo, 0u) << "p " << p << " stride " << stride;
      EXPECT_LE(2 * hi, 3 * lo) << "p " << p << " stride " << stride;
    }
  }
  const std::vector<uint32_t> plain = partition_counts(mapping_of(make(6)), 64 * 1024, 4096);
  EXPECT_EQ(std::count(plain.begin(), plain.end(), 0u), 3);
}

TEST(AddressMapping, SubPartitionIsTheBankModuloTheSlices) {
  // Default string: bank = bits 15..12 of the local address. With 8
  // partitions and no hash, address (b << 12) * 8 + 3 * 256 has slot
  // b * 128 + 3: partition 3, local b << 12, bank b.
  for (uint32_t slices : {1u, 2u, 4u, 16u}) {
    const AddressMapping m =
        mapping_of(make(8, PartitionHash::None, "RRRRRRRR.RRRRRRRR.BBBBCCCC.CCCSSSSS", slices));
    for (uint32_t b = 0; b < 16; ++b) {
      const DecodedAddress d = m.decode((uint64_t{b} << 12) * 8 + 3 * 256);
      ASSERT_EQ(d.partition, 3u);
      ASSERT_EQ(d.bank, b);
      EXPECT_EQ(d.sub_partition, 3 * slices + b % slices) << slices << " slices, bank " << b;
    }
  }
}

// --- validation -------------------------------------------------------------

void expect_error(const AddressMappingConfig& c, const std::vector<std::string>& parts) {
  const std::string err = validate_address_mapping(c);
  EXPECT_FALSE(err.empty()) << c.mapping;
  for (const std::string& part : parts)
    EXPECT_NE(err.find(part), std::string::npos) << "'" << part << "' not in: " << err;
}

TEST(AddressMappingValidate, AcceptsConsistentConfigs) {
  EXPECT_EQ(validate_address_mapping(AddressMappingConfig{}), "");
  EXPECT_EQ(validate_address_mapping(
                make(80, PartitionHash::Xor, "RRRRRRRR.RRRRRRRR.BBBBCCCC.CCCSSSSS", 1)),
            "");
  EXPECT_EQ(validate_address_mapping(make(8, PartitionHash::Ipoly, kDString, 16)), "");
  EXPECT_EQ(validate_address_mapping(make(6, PartitionHash::None, kPadded)), "");
  EXPECT_EQ(validate_address_mapping(make(1, PartitionHash::Xor)), "");
}

TEST(AddressMappingValidate, DBitCountMustBeLog2OfPartitions) {
  expect_error(make(16, PartitionHash::None, kDString),
               {"mapping", "3 D bits", "partitions = 16", "needs 4"});
  expect_error(make(1, PartitionHash::None, kDString), {"3 D bits", "partitions = 1", "needs 0"});
  expect_error(make(6, PartitionHash::None, kDString), {"partitions = 6", "not a power of two"});
}

TEST(AddressMappingValidate, RejectsBadCharacters) {
  expect_error(make(8, PartitionHash::None, "RRRR.RBBX.CCSS"), {"mapping", "'X'", "index 8"});
  expect_error(make(8, PartitionHash::None, "rrrrBBBBCCCCSSSS"), {"mapping", "'r'", "index 0"});
  expect_error(make(8, PartitionHash::None, "..."), {"mapping", "at least one bit"});
}

TEST(AddressMappingValidate, IpolyNeedsPowerOfTwoFrom2To64) {
  expect_error(make(12, PartitionHash::Ipoly), {"hash = ipoly", "partitions", "got 12"});
  expect_error(make(128, PartitionHash::Ipoly), {"hash = ipoly", "got 128"});
  expect_error(make(1, PartitionHash::Ipoly), {"hash = ipoly", "got 1"});
  EXPECT_EQ(validate_address_mapping(make(64, PartitionHash::Ipoly)), "");
  EXPECT_EQ(validate_address_mapping(make(2, PartitionHash::Ipoly)), "");
}

TEST(AddressMappingValidate, RejectsMoreThan64Bits) {
  expect_error(make(8, PartitionHash::None, std::string(56, 'R') + ".BBBBCSSSS"),
               {"mapping", "has 65 bits", "at most 64"});
  EXPECT_EQ(
      validate_address_mapping(make(8, PartitionHash::None, std::string(55, 'R') + ".BBBBCSSSS")),
      "");
}

TEST(AddressMappingValidate, SubPartitionsMustDivideTheBanks) {
  // kDString has 4 B bits: 16 banks. The default string too.
  expect_error(make(8, PartitionHash::None, kDString, 32),
               {"sub_partitions = 32", "bank count 16"});
  expect_error(make(8, PartitionHash::None, "RRRRRRRR.BBCCCSSSSS", 3),
               {"sub_partitions = 3", "bank count 4"});
  expect_error(make(8, PartitionHash::None, "RRRRRRRR.BBCCCSSSSS", 0),
               {"sub_partitions", "at least 1"});
  EXPECT_EQ(validate_address_mapping(make(8, PartitionHash::None, "RRRRRRRR.BBCCCSSSSS", 4)), "");
}

TEST(AddressMappingValidate, RejectsBadPartitionsAndInterleave) {
  expect_error(make(0), {"partitions", "at least 1"});
  expect_error(make(8, PartitionHash::None, "RRRRBBCCSSSSS", 2, 48),
               {"interleave_bytes", "got 48"});
  expect_error(make(8, PartitionHash::None, "RRRRBBCCSSSSS", 2, 16),
               {"interleave_bytes", "got 16"});
}

TEST(AddressMappingValidate, RejectsFieldsTooWideFor32Bits) {
  expect_error(make(8, PartitionHash::None, "RR" + std::string(32, 'B') + "CCSS", 1),
               {"32 B bits", "at most 31"});
  expect_error(make(8, PartitionHash::None, "RRBB" + std::string(28, 'C') + "SSSS"),
               {"32 C and byte-offset", "at most 31"});
}

}  // namespace
}  // namespace warpsim::timing
