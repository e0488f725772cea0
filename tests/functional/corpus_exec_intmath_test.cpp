// Corpus execution: tests/ptx/src/intmath.cu.
#include <bit>
#include <climits>

#include "tests/functional/corpus_exec_util.h"

namespace warpsim::functional::corpus {
namespace {

CORPUS_EXEC_SUITE(IntmathExec, "intmath");

// Integers with interesting bit patterns: random, small, extremes, powers of two.
uint32_t interesting_u32(Rng& rng) {
  switch (rng.range(0, 5)) {
    case 0: return rng.u32();
    case 1: return static_cast<uint32_t>(rng.i32(-100, 100));
    case 2: return 1u << rng.range(0, 31);
    case 3: return rng.chance(0.5) ? 0u : 0xffffffffu;
    case 4: return rng.chance(0.5) ? 0x80000000u : 0x7fffffffu;
    default: return rng.u32() >> rng.range(0, 31);
  }
}

TEST_P(IntmathExec, IntDivrem) {
  const int n = 500;
  Rng rng(60);
  std::vector<int> a(n), b(n);
  for (int i = 0; i < n; ++i) {
    a[i] = static_cast<int>(interesting_u32(rng));
    do b[i] = static_cast<int>(rng.chance(0.5) ? interesting_u32(rng) : rng.i32(-9, 9));
    while (b[i] == 0 || (a[i] == INT_MIN && b[i] == -1));
  }
  uint64_t da = upload(a), db = upload(b), dout = zeros<int>(4 * n);
  ASSERT_LAUNCH(launch("int_divrem", {blocks_for(n, 128)}, {128}, {da, db, dout, n}));
  std::vector<int> want(4 * n);
  for (int i = 0; i < n; ++i) {
    const int x = a[i], y = b[i];
    want[4 * i + 0] = x / y;
    want[4 * i + 1] = x % y;
    want[4 * i + 2] = static_cast<int>(static_cast<unsigned>(x) / static_cast<unsigned>(y));
    want[4 * i + 3] = static_cast<int>(static_cast<unsigned>(x) % static_cast<unsigned>(y));
  }
  EXPECT_TRUE(exact(download<int>(dout, 4 * n), want));
}

TEST_P(IntmathExec, IntDivrem64) {
  const int n = 300;
  Rng rng(61);
  std::vector<long long> a(n), b(n);
  for (int i = 0; i < n; ++i) {
    a[i] = rng.chance(0.1) ? LLONG_MIN : static_cast<long long>(rng.next() >> rng.range(0, 63));
    if (a[i] != LLONG_MIN && rng.chance(0.5)) a[i] = -a[i];
    do
      b[i] = rng.chance(0.5) ? rng.range(-20, 20)
                             : static_cast<long long>(rng.next() >> rng.range(1, 63));
    while (b[i] == 0 || (a[i] == LLONG_MIN && b[i] == -1));
  }
  uint64_t da = upload(a), db = upload(b), dout = zeros<long long>(4 * n);
  ASSERT_LAUNCH(launch("int_divrem64", {blocks_for(n, 64)}, {64}, {da, db, dout, n}));
  std::vector<long long> want(4 * n);
  for (int i = 0; i < n; ++i) {
    const long long x = a[i], y = b[i];
    const auto ux = static_cast<unsigned long long>(x), uy = static_cast<unsigned long long>(y);
    want[4 * i + 0] = x / y;
    want[4 * i + 1] = x % y;
    want[4 * i + 2] = static_cast<long long>(ux / uy);
    want[4 * i + 3] = static_cast<long long>(ux % uy);
  }
  EXPECT_TRUE(exact(download<long long>(dout, 4 * n), want));
}

TEST_P(IntmathExec, IntMulhi) {
  const int n = 400;
  Rng rng(62);
  auto a = rng.vec<int>(n, [&] { return static_cast<int>(interesting_u32(rng)); });
  auto b = rng.vec<int>(n, [&] { return static_cast<int>(interesting_u32(rng)); });
  uint64_t da = upload(a), db = upload(b), dout = zeros<int>(6 * n);
  ASSERT_LAUNCH(launch("int_mulhi", {blocks_for(n, 96)}, {96}, {da, db, dout, n}));
  std::vector<int> want(6 * n);
  auto low24s = [](int v) {
    return static_cast<int64_t>(static_cast<uint32_t>(v) << 8) << 32 >> 40;
  };
  for (int i = 0; i < n; ++i) {
    const int x = a[i], y = b[i];
    const int64_t X = static_cast<int64_t>(static_cast<uint64_t>(static_cast<int64_t>(x)) << 20);
    const int64_t Y = static_cast<int64_t>(y) * 977;
    const __int128 sp = static_cast<__int128>(X) * Y;
    const unsigned __int128 up =
        static_cast<unsigned __int128>(static_cast<uint64_t>(X)) * static_cast<uint64_t>(Y);
    want[6 * i + 0] = static_cast<int>((static_cast<int64_t>(x) * y) >> 32);
    want[6 * i + 1] =
        static_cast<int>((uint64_t{static_cast<uint32_t>(x)} * static_cast<uint32_t>(y)) >> 32);
    want[6 * i + 2] = static_cast<int>(static_cast<int64_t>(sp >> 64) >> 7);
    want[6 * i + 3] = static_cast<int>(static_cast<uint64_t>(up >> 64));
    want[6 * i + 4] = static_cast<int>(low24s(x) * low24s(y));
    want[6 * i + 5] = static_cast<int>(uint64_t{static_cast<uint32_t>(x) & 0xffffff} *
                                       (static_cast<uint32_t>(y) & 0xffffff));
  }
  EXPECT_TRUE(exact(download<int>(dout, 6 * n), want));
}

uint32_t funnel_l(uint32_t lo, uint32_t hi, uint32_t s) {
  return static_cast<uint32_t>(((uint64_t{hi} << 32 | lo) << s) >> 32);
}
uint32_t funnel_r(uint32_t lo, uint32_t hi, uint32_t s) {
  return static_cast<uint32_t>((uint64_t{hi} << 32 | lo) >> s);
}

TEST_P(IntmathExec, IntBits) {
  const int n = 400;
  Rng rng(63);
  auto a = rng.vec<uint32_t>(n, [&] { return interesting_u32(rng); });
  auto b = rng.vec<uint32_t>(n, [&] { return interesting_u32(rng); });
  uint64_t da = upload(a), db = upload(b), dout = zeros<uint32_t>(12 * n);
  ASSERT_LAUNCH(launch("int_bits", {blocks_for(n, 128)}, {128}, {da, db, dout, n}));
  std::vector<uint32_t> want(12 * n);
  for (int i = 0; i < n; ++i) {
    const uint32_t x = a[i], y = b[i];
    uint32_t* o = &want[12 * i];
    uint32_t rev = 0;
    for (int k = 0; k < 32; ++k) rev |= ((x >> k) & 1u) << (31 - k);
    o[0] = rev;
    o[1] = static_cast<uint32_t>(std::countl_zero(x));
    o[2] = x == 0 ? 0 : static_cast<uint32_t>(std::countr_zero(x)) + 1;
    o[3] = static_cast<uint32_t>(std::popcount(x));
    o[4] = static_cast<uint32_t>(std::popcount(uint64_t{x} << 32 | y));
    // __byte_perm(x, y, 0x5140): bytes {y:x}, selectors 0, 4, 1, 5 (low byte first).
    const uint64_t bytes = uint64_t{y} << 32 | x;
    auto byte = [&](int k) { return static_cast<uint32_t>((bytes >> (8 * k)) & 0xff); };
    o[5] = byte(0) | byte(4) << 8 | byte(1) << 16 | byte(5) << 24;
    o[6] = funnel_l(x, y, (y & 63) & 31);  // the wrapping forms use shift & 31
    o[7] = funnel_r(x, y, (y & 63) & 31);
    o[8] = funnel_l(x, y, std::min(y, 32u));  // the clamping forms use min(shift, 32)
    o[9] = funnel_r(x, y, std::min(y, 32u));
    const int64_t d = static_cast<int64_t>(static_cast<int32_t>(x)) - static_cast<int32_t>(y);
    o[10] = static_cast<uint32_t>(d < 0 ? -d : d) + 7u;
    o[11] = (x > y ? x - y : y - x) + 3u;
  }
  EXPECT_TRUE(exact(download<uint32_t>(dout, 12 * n), want));
}

TEST_P(IntmathExec, IntMinmax) {
  const int n = 400;
  Rng rng(64);
  // abs(INT_MIN) is undefined in C++: left out.
  auto gen = [&] {
    int v;
    do v = static_cast<int>(interesting_u32(rng));
    while (v == INT_MIN);
    return v;
  };
  auto a = rng.vec<int>(n, gen);
  auto b = rng.vec<int>(n, gen);
  uint64_t da = upload(a), db = upload(b), dout = zeros<int>(6 * n);
  ASSERT_LAUNCH(launch("int_minmax", {blocks_for(n, 64)}, {64}, {da, db, dout, n}));
  std::vector<int> want(6 * n);
  for (int i = 0; i < n; ++i) {
    const int x = a[i], y = b[i];
    const auto ux = static_cast<unsigned>(x), uy = static_cast<unsigned>(y);
    const long long p = static_cast<long long>(x) * y;
    want[6 * i + 0] = std::min(x, y);
    want[6 * i + 1] = std::max(x, y);
    want[6 * i + 2] = static_cast<int>(std::min(ux, uy));
    want[6 * i + 3] = static_cast<int>(std::max(ux, uy));
    want[6 * i + 4] = std::abs(x);
    want[6 * i + 5] = static_cast<int>(p < 0 ? -p : p);
  }
  EXPECT_TRUE(exact(download<int>(dout, 6 * n), want));
}

TEST_P(IntmathExec, IntBitfield) {
  const int n = 300;
  Rng rng(65);
  auto x = rng.vec<uint32_t>(n, [&] { return interesting_u32(rng); });
  uint64_t dx = upload(x), dout = zeros<uint32_t>(4 * n);
  ASSERT_LAUNCH(launch("int_bitfield", {blocks_for(n, 128)}, {128}, {dx, dout, n}));
  std::vector<uint32_t> want(4 * n);
  for (int i = 0; i < n; ++i) {
    const uint32_t v = x[i];
    want[4 * i + 0] = (v >> 5) & 0x3ffu;
    want[4 * i + 1] = (v & ~(0x3fu << 12)) | (((v >> 20) & 0x3fu) << 12);
    const uint32_t field = (v >> 3) & 0x7f;  // 7 bits at bit 3, sign-extended
    want[4 * i + 2] = (field & 0x40) ? field | 0xffffff80u : field;
    want[4 * i + 3] = (v << 13) | (v >> 19);
  }
  EXPECT_TRUE(exact(download<uint32_t>(dout, 4 * n), want));
}

TEST_P(IntmathExec, IntClz64) {
  const int n = 300;
  Rng rng(66);
  auto x = rng.vec<uint64_t>(n, [&] {
    const uint64_t v = rng.next();
    return rng.chance(0.1) ? 0 : v >> rng.range(0, 63);
  });
  uint64_t dx = upload(x), dout = zeros<int>(3 * n);
  ASSERT_LAUNCH(launch("int_clz64", {blocks_for(n, 96)}, {96}, {dx, dout, n}));
  std::vector<int> want(3 * n);
  std::vector<uint64_t> wx(n);
  for (int i = 0; i < n; ++i) {
    const uint64_t v = x[i];
    want[3 * i + 0] = std::countl_zero(v);
    want[3 * i + 1] = v == 0 ? 0 : std::countr_zero(v) + 1;
    want[3 * i + 2] = std::popcount(v);
    uint64_t rev = 0;
    for (int k = 0; k < 64; ++k) rev |= ((v >> k) & 1u) << (63 - k);
    wx[i] = rev;
  }
  EXPECT_TRUE(exact(download<int>(dout, 3 * n), want));
  EXPECT_TRUE(exact(download<uint64_t>(dx, n), wx));
}

}  // namespace
}  // namespace warpsim::functional::corpus
