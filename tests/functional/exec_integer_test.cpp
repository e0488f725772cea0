// Integer, logic and bit-manipulation instructions (functional/exec_integer.cpp)
// and integer atom/red (functional/exec_memory.cpp) executed through the
// device. Every expected value comes from a host reference written here from
// the PTX ISA's semantics (explicit wrap, saturation, shift clamping, and
// division by zero as warpsim documents it), never from the handlers: each
// instruction runs on edge values (0, 1, -1, INT_MIN, INT_MAX, UINT_MAX,
// powers of two) and on values from fixed-seed generators.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "functional/device.h"
#include "tests/functional/exec_test_util.h"

namespace warpsim::functional {
namespace {

using namespace testing;  // load, upload, run, download, run_lanes

using u128 = unsigned __int128;
using i128 = __int128;

// ---- host reference helpers --------------------------------------------------------

// Two's-complement reinterpretation (well defined since C++20).
int16_t s16(uint64_t v) { return static_cast<int16_t>(static_cast<uint16_t>(v)); }
int32_t s32(uint64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(v)); }
int64_t s64(uint64_t v) { return static_cast<int64_t>(v); }

// The low n bits set (n <= 64).
uint64_t ones(uint32_t n) { return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1; }

int64_t clamp_s32(int64_t v) {
  return std::clamp<int64_t>(v, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
}

std::string hex(u128 v) {
  std::ostringstream s;
  s << "0x" << std::hex;
  if (v >> 64) s << static_cast<uint64_t>(v >> 64) << "_";
  s << static_cast<uint64_t>(v);
  return s.str();
}

// ---- operand sets ------------------------------------------------------------------

std::vector<uint32_t> edges32(uint32_t seed) {
  std::vector<uint32_t> v = {0,          1,          2,          3,          5,          0x10,
                             0x8000,     0xffff,     0x10000,    0x00ff00ff, 0x7ffffffe, 0x7fffffff,
                             0x80000000, 0x80000001, 0xfffffffe, 0xffffffff, 0xdeadbeef};
  std::mt19937 gen(seed);
  for (int i = 0; i < 5; ++i) v.push_back(static_cast<uint32_t>(gen()));
  return v;
}

std::vector<uint64_t> edges64(uint32_t seed) {
  std::vector<uint64_t> v = {0, 1, 2, 3, 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000,  // 32-bit edges
                             0x7ffffffffffffffe, 0x7fffffffffffffff, 0x8000000000000000, 0x8000000000000001,
                             0xfffffffffffffffe, 0xffffffffffffffff, 0xffffffff80000000, 0x0123456789abcdef};
  std::mt19937_64 gen(seed);
  for (int i = 0; i < 4; ++i) v.push_back(gen());
  return v;
}

// 16-bit values (held in 32-bit vectors; the 16-bit bodies truncate them).
std::vector<uint32_t> edges16(uint32_t seed) {
  std::vector<uint32_t> v = {0,      1,      2,      3,      0x7f,   0x80,   0xff,  0x100,
                             0x7ffe, 0x7fff, 0x8000, 0x8001, 0xfffe, 0xffff, 0x1234};
  std::mt19937 gen(seed);
  for (int i = 0; i < 5; ++i) v.push_back(static_cast<uint32_t>(gen()) & 0xffff);
  return v;
}

template <typename T>
struct Lanes {
  std::vector<T> a, b, c;
  void add(T x, T y, T z) {
    a.push_back(x);
    b.push_back(y);
    c.push_back(z);
  }
  size_t size() const { return a.size(); }
};

// Every (a, b) with a from x and b from y; c walks x at another stride so it
// varies independently of a and b.
template <typename T>
Lanes<T> cross(const std::vector<T>& x, const std::vector<T>& y) {
  Lanes<T> l;
  for (size_t i = 0; i < x.size(); ++i)
    for (size_t j = 0; j < y.size(); ++j) l.add(x[i], y[j], x[(i * 7 + j * 3 + 5) % x.size()]);
  return l;
}
template <typename T>
Lanes<T> pairs(const std::vector<T>& v) {
  return cross(v, v);
}

// ---- checking ----------------------------------------------------------------------

// A host reference: the expected result from the lane's a, b, c (zero-extended
// to 64 bits). REF(expr) spells one as a captureless lambda over a, b, c.
using Ref = uint64_t (*)(uint64_t a, uint64_t b, uint64_t c);
#define REF(expr) [](uint64_t a, uint64_t b, uint64_t c) -> uint64_t { return (expr); }

struct Case {
  std::string body;
  Ref ref;
};

// Runs `body` once per lane (run_lanes) and compares every result with
// ref(a, b, c), masked to `out_mask` (16-bit results come back zero-extended).
template <typename T>
void check(const std::string& body, const Lanes<T>& l, Ref ref, uint64_t out_mask = ~uint64_t{0}) {
  const std::vector<T> got = run_lanes<T>(body, l.a, l.b, l.c);
  ASSERT_EQ(got.size(), l.size());
  int failures = 0;
  for (size_t i = 0; i < l.size(); ++i) {
    const T want = static_cast<T>(ref(l.a[i], l.b[i], l.c[i]) & out_mask);
    if (got[i] != want && ++failures <= 6)
      ADD_FAILURE() << body << "\n  lane " << i << ": a=" << hex(l.a[i]) << " b=" << hex(l.b[i]) << " c=" << hex(l.c[i])
                    << " -> " << hex(got[i]) << ", want " << hex(want);
  }
  EXPECT_EQ(failures, 0) << body;
}
template <typename T>
void check_all(const std::vector<Case>& cases, const Lanes<T>& l, uint64_t out_mask = ~uint64_t{0}) {
  for (const Case& k : cases) check(k.body, l, k.ref, out_mask);
}

// 16-bit forms run on .b16 registers: %h1..%h3 hold the low halves of a, b, c
// and the .b16 result %h4 comes back zero-extended in %r4.
std::string in16(const std::string& op) {
  return "  cvt.u16.u32 %h1, %r1; cvt.u16.u32 %h2, %r2; cvt.u16.u32 %h3, %r3;\n" + op + "\n  cvt.u32.u16 %r4, %h4;";
}

// In 64-bit lanes: %r1..%r3 = the low halves of %rd1..%rd3, %r11..%r13 the high ones.
const std::string kSplit = "  mov.b64 {%r1, %r11}, %rd1; mov.b64 {%r2, %r12}, %rd2; mov.b64 {%r3, %r13}, %rd3;\n";

// Predicate results as a number: bit 0 = %p1, bit 1 = %p2.
const std::string kPQ = "\n  selp.u32 %r6, 1, 0, %p1; selp.u32 %r7, 2, 0, %p2; or.b32 %r4, %r6, %r7;";

// ---- add / sub ------------------------------------------------------------------------

TEST(ExecInteger, AddSubWrapAndSaturate) {
  check_all<uint32_t>(
      {
          {"  add.u32 %r4, %r1, %r2;", REF(uint32_t(a) + uint32_t(b))},
          {"  add.s32 %r4, %r1, %r2;", REF(uint32_t(int64_t{s32(a)} + s32(b)))},
          {"  sub.u32 %r4, %r1, %r2;", REF(uint32_t(a) - uint32_t(b))},
          {"  sub.s32 %r4, %r1, %r2;", REF(uint32_t(int64_t{s32(a)} - s32(b)))},
          // .sat clamps the exact result to [INT_MIN, INT_MAX] instead of wrapping.
          {"  add.sat.s32 %r4, %r1, %r2;", REF(uint32_t(clamp_s32(int64_t{s32(a)} + s32(b))))},
          {"  sub.sat.s32 %r4, %r1, %r2;", REF(uint32_t(clamp_s32(int64_t{s32(a)} - s32(b))))},
      },
      pairs(edges32(1)));
  check_all<uint32_t>(
      {
          {in16("  add.u16 %h4, %h1, %h2;"), REF(a + b)},
          {in16("  add.s16 %h4, %h1, %h2;"), REF(uint64_t(int64_t{s16(a)} + s16(b)))},
          {in16("  sub.u16 %h4, %h1, %h2;"), REF(a - b)},
          {in16("  sub.s16 %h4, %h1, %h2;"), REF(uint64_t(int64_t{s16(a)} - s16(b)))},
      },
      pairs(edges16(2)), 0xffff);
  check_all<uint64_t>(
      {
          {"  add.u64 %rd4, %rd1, %rd2;", REF(a + b)},
          {"  add.s64 %rd4, %rd1, %rd2;", REF(uint64_t(i128{s64(a)} + s64(b)))},
          {"  sub.u64 %rd4, %rd1, %rd2;", REF(a - b)},
          {"  sub.s64 %rd4, %rd1, %rd2;", REF(uint64_t(i128{s64(a)} - s64(b)))},
      },
      pairs(edges64(3)));
  // The saturation corners spelled out: INT_MAX + 1, INT_MIN + -1; INT_MIN - 1, 0 - INT_MIN.
  EXPECT_EQ(run_lanes("  add.sat.s32 %r4, %r1, %r2;", {0x7fffffffu, 0x80000000u}, {1, 0xffffffffu}, {0, 0}),
            (std::vector<uint32_t>{0x7fffffffu, 0x80000000u}));
  EXPECT_EQ(run_lanes("  sub.sat.s32 %r4, %r1, %r2;", {0x80000000u, 0}, {1, 0x80000000u}, {0, 0}),
            (std::vector<uint32_t>{0x80000000u, 0x7fffffffu}));
}

// ---- carry chains ------------------------------------------------------------------------

// Runs `body` once per element with the 32-bit limbs of x[i] in %r10..%r13 and
// of y[i] in %r20..%r23 (least significant first); returns the 128-bit values
// whose limbs the body leaves in %r30..%r33.
std::vector<u128> run_u128(const std::string& body, const std::vector<u128>& x, const std::vector<u128>& y) {
  const std::string text =
      ".visible .entry k(.param .u64 px, .param .u64 py, .param .u64 po)\n{\n"
      "  .reg .pred %p<4>; .reg .b32 %r<40>; .reg .b64 %rd<40>;\n"
      "  ld.param.u64 %rd1, [px]; ld.param.u64 %rd2, [py]; ld.param.u64 %rd3, [po];\n"
      "  mov.u32 %r1, %tid.x; mul.wide.u32 %rd4, %r1, 16;\n"
      "  add.s64 %rd1, %rd1, %rd4; add.s64 %rd2, %rd2, %rd4; add.s64 %rd3, %rd3, %rd4;\n"
      "  ld.global.v4.u32 {%r10, %r11, %r12, %r13}, [%rd1];\n"
      "  ld.global.v4.u32 {%r20, %r21, %r22, %r23}, [%rd2];\n" +
      body + "\n  st.global.v4.u32 [%rd3], {%r30, %r31, %r32, %r33};\n  ret;\n}\n";
  auto l = load(text);
  const uint32_t n = static_cast<uint32_t>(x.size());
  const uint64_t dx = upload(l->device, x), dy = upload(l->device, y);
  const uint64_t out = upload(l->device, std::vector<u128>(n));
  LaunchResult r = run(*l, "k", {1}, {n}, {param_bytes(dx), param_bytes(dy), param_bytes(out)});
  EXPECT_TRUE(r.ok()) << (r.fault ? r.fault->message : "") << "\n" << body;
  return download<u128>(l->device, out, n);
}

std::vector<u128> edges128() {
  const u128 one = 1, all = ~u128{0};
  std::vector<u128> v = {0, 1, 0xffffffff, one << 32, ones(64), one << 64, one << 96, (one << 96) - 1,  // limb edges
                         (one << 127) - 1, one << 127, all, all - 1, (u128{0xffffffff00000000} << 64) | 0xffffffff};
  std::mt19937_64 gen(4);
  for (int i = 0; i < 4; ++i) v.push_back((u128{gen()} << 64) | gen());
  return v;
}

void check_u128(const std::string& body, u128 (*ref)(u128, u128)) {
  const std::vector<u128> e = edges128();
  std::vector<u128> x, y;
  for (u128 a : e)
    for (u128 b : e) {
      x.push_back(a);
      y.push_back(b);
    }
  const std::vector<u128> got = run_u128(body, x, y);
  int failures = 0;
  for (size_t i = 0; i < x.size(); ++i)
    if (got[i] != ref(x[i], y[i]) && ++failures <= 6)
      ADD_FAILURE() << body << "\n  x=" << hex(x[i]) << " y=" << hex(y[i]) << " -> " << hex(got[i]) << ", want "
                    << hex(ref(x[i], y[i]));
  EXPECT_EQ(failures, 0) << body;
}

TEST(ExecInteger, CarryChainsBuild128BitArithmetic) {
  // 4 x 32-bit limbs; the middle limbs use the .s32 forms, whose carry is the same.
  check_u128(
      "  add.cc.u32 %r30, %r10, %r20; addc.cc.s32 %r31, %r11, %r21;\n"
      "  addc.cc.u32 %r32, %r12, %r22; addc.u32 %r33, %r13, %r23;",
      [](u128 x, u128 y) { return x + y; });
  // PTX's CC.CF after sub.cc/subc.cc is the borrow; subc subtracts it.
  check_u128(
      "  sub.cc.u32 %r30, %r10, %r20; subc.cc.s32 %r31, %r11, %r21;\n"
      "  subc.cc.u32 %r32, %r12, %r22; subc.u32 %r33, %r13, %r23;",
      [](u128 x, u128 y) { return x - y; });
  // 2 x 64-bit limbs, packed from and unpacked to the 32-bit ones.
  const std::string pack =
      "  mov.b64 %rd10, {%r10, %r11}; mov.b64 %rd11, {%r12, %r13};\n"
      "  mov.b64 %rd20, {%r20, %r21}; mov.b64 %rd21, {%r22, %r23};\n";
  const std::string unpack = "\n  mov.b64 {%r30, %r31}, %rd30; mov.b64 {%r32, %r33}, %rd31;";
  check_u128(pack + "  add.cc.u64 %rd30, %rd10, %rd20; addc.u64 %rd31, %rd11, %rd21;" + unpack,
             [](u128 x, u128 y) { return x + y; });
  check_u128(pack + "  sub.cc.s64 %rd30, %rd10, %rd20; subc.s64 %rd31, %rd11, %rd21;" + unpack,
             [](u128 x, u128 y) { return x - y; });
  // The carry/borrow out of the top limb: the carry-out of addc.cc/subc.cc
  // with a carry-in (y.hi = all ones with a carry in is the wrap-around case).
  const std::string zero_rest = "\n  mov.u32 %r31, 0; mov.u32 %r32, 0; mov.u32 %r33, 0;";
  check_u128(
      pack + "  add.cc.u64 %rd30, %rd10, %rd20; addc.cc.u64 %rd31, %rd11, %rd21; addc.u32 %r30, 0, 0;" + zero_rest,
      [](u128 x, u128 y) { return u128{x + y < x ? 1u : 0u}; });
  check_u128(
      pack + "  sub.cc.u64 %rd30, %rd10, %rd20; subc.cc.u64 %rd31, %rd11, %rd21; subc.u32 %r30, 0, 0;" + zero_rest,
      [](u128 x, u128 y) { return u128{x < y ? 0xffffffffu : 0u}; });
  check_u128(
      "  add.cc.u32 %r24, %r10, %r20; addc.cc.u32 %r25, %r11, %r21; addc.cc.u32 %r26, %r12, %r22;\n"
      "  addc.cc.u32 %r27, %r13, %r23; addc.u32 %r30, 0, 0;" +
          zero_rest,
      [](u128 x, u128 y) { return u128{x + y < x ? 1u : 0u}; });
  // 64 x 64 -> 128-bit product from 32-bit limbs with mad.lo.cc / madc.hi(.cc).
  check_u128(
      "  mul.lo.u32 %r30, %r10, %r20; mul.hi.u32 %r31, %r10, %r20;\n"
      "  mad.lo.cc.u32 %r31, %r10, %r21, %r31; madc.hi.u32 %r32, %r10, %r21, 0;\n"
      "  mad.lo.cc.u32 %r31, %r11, %r20, %r31; madc.hi.cc.u32 %r32, %r11, %r20, %r32;\n"
      "  madc.hi.u32 %r33, %r11, %r21, 0;\n"
      "  mad.lo.cc.u32 %r32, %r11, %r21, %r32; addc.u32 %r33, %r33, 0;",
      [](u128 x, u128 y) { return u128{static_cast<uint64_t>(x)} * static_cast<uint64_t>(y); });
  // x.lo * y.lo + z (z = y.hi:x.hi) with the 64-bit mad.lo.cc / madc.hi pair.
  check_u128(pack + "  mad.lo.cc.u64 %rd30, %rd10, %rd20, %rd11; madc.hi.u64 %rd31, %rd10, %rd20, %rd21;" + unpack,
             [](u128 x, u128 y) {
               const u128 z = (y >> 64 << 64) | (x >> 64);
               return u128{static_cast<uint64_t>(x)} * static_cast<uint64_t>(y) + z;
             });
  // madc.lo without .cc consumes the carry but leaves it: the second addc sees add.cc's.
  check_u128(
      "  add.cc.u32 %r30, %r10, %r20; madc.lo.u32 %r31, %r11, 1, %r21;\n"
      "  addc.u32 %r32, 0, 0; mov.u32 %r33, 0;",
      [](u128 x, u128 y) {
        const uint64_t lo = uint64_t{static_cast<uint32_t>(x)} + static_cast<uint32_t>(y);
        const uint64_t cf = lo >> 32;
        const uint32_t mid = static_cast<uint32_t>((x >> 32) + (y >> 32) + cf);
        return u128{static_cast<uint32_t>(lo)} | u128{mid} << 32 | u128{cf} << 64;
      });
}

// ---- mul / mad / mul24 / mad24 / sad ----------------------------------------------------------

// Signed products as their two's-complement 128-bit pattern.
u128 sprod(int64_t x, int64_t y) { return static_cast<u128>(i128{x} * y); }

TEST(ExecInteger, MulLoHiWide) {
  check_all<uint32_t>(
      {
          {"  mul.lo.u32 %r4, %r1, %r2;", REF(uint32_t(a) * uint32_t(b))},
          {"  mul.lo.s32 %r4, %r1, %r2;", REF(uint32_t(int64_t{s32(a)} * s32(b)))},
          {"  mul.hi.u32 %r4, %r1, %r2;", REF(uint32_t((uint64_t{uint32_t(a)} * uint32_t(b)) >> 32))},
          {"  mul.hi.s32 %r4, %r1, %r2;", REF(uint32_t(uint64_t(int64_t{s32(a)} * s32(b)) >> 32))},
      },
      pairs(edges32(5)));
  check_all<uint32_t>(
      {
          {in16("  mul.lo.u16 %h4, %h1, %h2;"), REF(uint32_t(a) * uint32_t(b))},
          {in16("  mul.lo.s16 %h4, %h1, %h2;"), REF(uint32_t(int32_t{s16(a)} * s16(b)))},
          {in16("  mul.hi.u16 %h4, %h1, %h2;"), REF((uint32_t(a) * uint32_t(b)) >> 16)},
          {in16("  mul.hi.s16 %h4, %h1, %h2;"), REF(uint32_t(int32_t{s16(a)} * s16(b)) >> 16)},
      },
      pairs(edges16(6)), 0xffff);
  const std::string cvt16 = "  cvt.u16.u32 %h1, %r1; cvt.u16.u32 %h2, %r2;\n";
  check_all<uint32_t>(
      {
          {cvt16 + "  mul.wide.u16 %r4, %h1, %h2;", REF(uint32_t(a) * uint32_t(b))},
          {cvt16 + "  mul.wide.s16 %r4, %h1, %h2;", REF(uint32_t(int32_t{s16(a)} * s16(b)))},
      },
      pairs(edges16(7)));
  // 32-bit operands, 64-bit products: run in 64-bit lanes.
  Lanes<uint64_t> w;
  {
    const Lanes<uint32_t> l = pairs(edges32(8));
    for (size_t i = 0; i < l.size(); ++i) w.add(l.a[i] | 0xabcd000000000000, l.b[i], l.c[i]);
  }
  check_all<uint64_t>(
      {
          {kSplit + "  mul.wide.u32 %rd4, %r1, %r2;", REF(uint64_t{uint32_t(a)} * uint32_t(b))},
          {kSplit + "  mul.wide.s32 %rd4, %r1, %r2;", REF(uint64_t(int64_t{s32(a)} * s32(b)))},
      },
      w);
  check_all<uint64_t>(
      {
          {"  mul.lo.u64 %rd4, %rd1, %rd2;", REF(a * b)},
          {"  mul.lo.s64 %rd4, %rd1, %rd2;", REF(uint64_t(sprod(s64(a), s64(b))))},
          {"  mul.hi.u64 %rd4, %rd1, %rd2;", REF(uint64_t((u128{a} * b) >> 64))},
          {"  mul.hi.s64 %rd4, %rd1, %rd2;", REF(uint64_t(sprod(s64(a), s64(b)) >> 64))},
      },
      pairs(edges64(9)));
  // INT64_MIN squared is 2^126: high word 2^62.
  EXPECT_EQ(run_lanes<uint64_t>("  mul.hi.s64 %rd4, %rd1, %rd2;", {0x8000000000000000}, {0x8000000000000000}, {0})[0],
            uint64_t{1} << 62);
}

TEST(ExecInteger, MadLoHiWideAndSaturation) {
  Lanes<uint32_t> l = pairs(edges32(10));
  // mad.hi.sat.s32 saturates hi(a*b) + c; hi(a*b) reaches +-2^30, so c near the limits overflows.
  l.add(0x80000000u, 0x80000000u, 0x7fffffffu);  // 2^30 + INT_MAX -> INT_MAX
  l.add(0x80000000u, 0x7fffffffu, 0x80000000u);  // -2^30 + INT_MIN -> INT_MIN
  l.add(0x7fffffffu, 0x7fffffffu, 0x40000001u);  // (2^30 - 1) + 2^30 + 1 -> INT_MAX (exactly 2^31)
  check_all<uint32_t>(
      {
          {"  mad.lo.u32 %r4, %r1, %r2, %r3;", REF(uint32_t(a) * uint32_t(b) + uint32_t(c))},
          {"  mad.lo.s32 %r4, %r1, %r2, %r3;", REF(uint32_t(int64_t{s32(a)} * s32(b) + s32(c)))},
          {"  mad.hi.u32 %r4, %r1, %r2, %r3;",
           REF(uint32_t((uint64_t{uint32_t(a)} * uint32_t(b)) >> 32) + uint32_t(c))},
          {"  mad.hi.s32 %r4, %r1, %r2, %r3;", REF(uint32_t(uint64_t(int64_t{s32(a)} * s32(b)) >> 32) + uint32_t(c))},
          {"  mad.hi.sat.s32 %r4, %r1, %r2, %r3;",
           REF(uint32_t(clamp_s32(int64_t{s32(uint64_t(int64_t{s32(a)} * s32(b)) >> 32)} + s32(c))))},
      },
      l);
  check(in16("  mad.lo.u16 %h4, %h1, %h2, %h3;"), pairs(edges16(11)), REF(uint32_t(a) * uint32_t(b) + c), 0xffff);
  check(in16("  mad.hi.s16 %h4, %h1, %h2, %h3;"), pairs(edges16(11)),
        REF((uint32_t(int32_t{s16(a)} * s16(b)) >> 16) + c), 0xffff);
  // mad.wide: 32-bit a, b and a 64-bit c.
  Lanes<uint64_t> w;
  {
    const std::vector<uint32_t> e = edges32(12);
    const std::vector<uint64_t> c = edges64(13);
    for (size_t i = 0; i < e.size(); ++i)
      for (size_t j = 0; j < e.size(); ++j) w.add(e[i], e[j], c[(i * 5 + j) % c.size()]);
  }
  check_all<uint64_t>(
      {
          {kSplit + "  mad.wide.u32 %rd4, %r1, %r2, %rd3;", REF(uint64_t{uint32_t(a)} * uint32_t(b) + c)},
          {kSplit + "  mad.wide.s32 %rd4, %r1, %r2, %rd3;", REF(uint64_t(int64_t{s32(a)} * s32(b)) + c)},
      },
      w);
  check_all<uint64_t>(
      {
          {"  mad.lo.u64 %rd4, %rd1, %rd2, %rd3;", REF(a * b + c)},
          {"  mad.lo.s64 %rd4, %rd1, %rd2, %rd3;", REF(uint64_t(sprod(s64(a), s64(b))) + c)},
          {"  mad.hi.u64 %rd4, %rd1, %rd2, %rd3;", REF(uint64_t((u128{a} * b) >> 64) + c)},
          {"  mad.hi.s64 %rd4, %rd1, %rd2, %rd3;", REF(uint64_t(sprod(s64(a), s64(b)) >> 64) + c)},
      },
      pairs(edges64(14)));
}

// mul24/mad24 operands: the low 24 bits, sign-extended for .s32.
int64_t op24(uint64_t v, bool sgn) {
  const int64_t x = static_cast<int64_t>(v & 0xffffff);
  return sgn && x >= 0x800000 ? x - 0x1000000 : x;
}
// The 48-bit product as a 64-bit two's-complement pattern.
uint64_t p48(uint64_t a, uint64_t b, bool sgn) { return static_cast<uint64_t>(op24(a, sgn) * op24(b, sgn)); }

TEST(ExecInteger, Mul24Mad24AndSad) {
  std::vector<uint32_t> e = edges32(15);
  for (uint32_t v : {0x7fffffu, 0x800000u, 0x800001u, 0xffffffu, 0x1000000u, 0xff800000u}) e.push_back(v);
  Lanes<uint32_t> l = pairs(e);
  // mad24.hi.sat.s32: t<47..16> reaches 2^30 for (-2^23)^2.
  l.add(0x800000u, 0x800000u, 0x7fffffffu);  // 2^30 + INT_MAX -> INT_MAX
  l.add(0x800000u, 0x7fffffu, 0x80000000u);  // -(2^30 - 2^7) + INT_MIN -> INT_MIN
  l.add(0xffffffu, 0xffffffu, 0x7fffffffu);  // (-1)(-1) = 1: hi 0, no saturation
  check_all<uint32_t>(
      {
          {"  mul24.lo.u32 %r4, %r1, %r2;", REF(uint32_t(p48(a, b, false)))},
          {"  mul24.lo.s32 %r4, %r1, %r2;", REF(uint32_t(p48(a, b, true)))},
          {"  mul24.hi.u32 %r4, %r1, %r2;", REF(uint32_t(p48(a, b, false) >> 16))},
          {"  mul24.hi.s32 %r4, %r1, %r2;", REF(uint32_t(p48(a, b, true) >> 16))},
          {"  mad24.lo.u32 %r4, %r1, %r2, %r3;", REF(uint32_t(p48(a, b, false)) + uint32_t(c))},
          {"  mad24.lo.s32 %r4, %r1, %r2, %r3;", REF(uint32_t(p48(a, b, true)) + uint32_t(c))},
          {"  mad24.hi.u32 %r4, %r1, %r2, %r3;", REF(uint32_t(p48(a, b, false) >> 16) + uint32_t(c))},
          {"  mad24.hi.s32 %r4, %r1, %r2, %r3;", REF(uint32_t(p48(a, b, true) >> 16) + uint32_t(c))},
          {"  mad24.hi.sat.s32 %r4, %r1, %r2, %r3;",
           REF(uint32_t(clamp_s32(int64_t{s32(p48(a, b, true) >> 16)} + s32(c))))},
      },
      l);
  // sad: c + |a - b|, the difference taken exactly (no overflow), the sum wrapping.
  check_all<uint32_t>(
      {
          {"  sad.u32 %r4, %r1, %r2, %r3;",
           REF(uint32_t(c) + (uint32_t(a) > uint32_t(b) ? uint32_t(a) - uint32_t(b) : uint32_t(b) - uint32_t(a)))},
          {"  sad.s32 %r4, %r1, %r2, %r3;",
           REF(uint32_t(c) + uint32_t(s32(a) > s32(b) ? int64_t{s32(a)} - s32(b) : int64_t{s32(b)} - s32(a)))},
      },
      pairs(edges32(16)));
  check_all<uint32_t>(
      {
          {in16("  sad.u16 %h4, %h1, %h2, %h3;"), REF(c + (a > b ? a - b : b - a))},
          {in16("  sad.s16 %h4, %h1, %h2, %h3;"),
           REF(c + uint64_t(s16(a) > s16(b) ? int64_t{s16(a)} - s16(b) : int64_t{s16(b)} - s16(a)))},
      },
      pairs(edges16(17)), 0xffff);
  check_all<uint64_t>(
      {
          {"  sad.u64 %rd4, %rd1, %rd2, %rd3;", REF(c + (a > b ? a - b : b - a))},
          // |INT64_MAX - INT64_MIN| = 2^64 - 1 does not fit an int64: unsigned difference.
          {"  sad.s64 %rd4, %rd1, %rd2, %rd3;", REF(c + (s64(a) > s64(b) ? a - b : b - a))},
      },
      pairs(edges64(18)));
}

// ---- div / rem --------------------------------------------------------------------------------

// Division as exec_integer.cpp documents it: by zero the quotient is all ones
// and the remainder the dividend (the PTX ISA leaves both unspecified);
// INT_MIN / -1 wraps to INT_MIN with remainder 0; otherwise C++'s truncation
// toward zero, as in PTX.
template <typename U>
uint64_t div_ref(uint64_t a64, uint64_t b64, bool sgn, bool rem) {
  using S = std::make_signed_t<U>;
  const U a = static_cast<U>(a64), b = static_cast<U>(b64);
  if (b == 0) return rem ? a : static_cast<U>(~U{0});
  if (!sgn) return static_cast<U>(rem ? a % b : a / b);
  const S x = static_cast<S>(a), y = static_cast<S>(b);
  if (x == std::numeric_limits<S>::min() && y == -1) return rem ? 0 : a;
  return static_cast<U>(rem ? x % y : x / y);
}

TEST(ExecInteger, DivRemByZeroOverflowAndTruncation) {
  check_all<uint32_t>(
      {
          {"  div.u32 %r4, %r1, %r2;", REF(div_ref<uint32_t>(a, b, false, false))},
          {"  rem.u32 %r4, %r1, %r2;", REF(div_ref<uint32_t>(a, b, false, true))},
          {"  div.s32 %r4, %r1, %r2;", REF(div_ref<uint32_t>(a, b, true, false))},
          {"  rem.s32 %r4, %r1, %r2;", REF(div_ref<uint32_t>(a, b, true, true))},
      },
      pairs(edges32(19)));
  check_all<uint32_t>(
      {
          {in16("  div.u16 %h4, %h1, %h2;"), REF(div_ref<uint16_t>(a, b, false, false))},
          {in16("  rem.u16 %h4, %h1, %h2;"), REF(div_ref<uint16_t>(a, b, false, true))},
          {in16("  div.s16 %h4, %h1, %h2;"), REF(div_ref<uint16_t>(a, b, true, false))},
          {in16("  rem.s16 %h4, %h1, %h2;"), REF(div_ref<uint16_t>(a, b, true, true))},
      },
      pairs(edges16(20)), 0xffff);
  check_all<uint64_t>(
      {
          {"  div.u64 %rd4, %rd1, %rd2;", REF(div_ref<uint64_t>(a, b, false, false))},
          {"  rem.u64 %rd4, %rd1, %rd2;", REF(div_ref<uint64_t>(a, b, false, true))},
          {"  div.s64 %rd4, %rd1, %rd2;", REF(div_ref<uint64_t>(a, b, true, false))},
          {"  rem.s64 %rd4, %rd1, %rd2;", REF(div_ref<uint64_t>(a, b, true, true))},
      },
      pairs(edges64(21)));
  // The documented corners and the signs of truncated results, spelled out:
  // 7/0, -7/0, INT_MIN/-1, -7/2, 7/-2, -7/-2.
  const std::vector<uint32_t> a = {7, 0xfffffff9u, 0x80000000u, 0xfffffff9u, 7, 0xfffffff9u};
  const std::vector<uint32_t> b = {0, 0, 0xffffffffu, 2, 0xfffffffeu, 0xfffffffeu}, z(6, 0);
  EXPECT_EQ(run_lanes("  div.s32 %r4, %r1, %r2;", a, b, z),
            (std::vector<uint32_t>{0xffffffffu, 0xffffffffu, 0x80000000u, 0xfffffffdu, 0xfffffffdu, 3}));
  EXPECT_EQ(run_lanes("  rem.s32 %r4, %r1, %r2;", a, b, z),
            (std::vector<uint32_t>{7, 0xfffffff9u, 0, 0xffffffffu, 1, 0xffffffffu}));
  EXPECT_EQ(run_lanes("  div.u32 %r4, %r1, %r2;", {7}, {0}, {0})[0], 0xffffffffu);
  EXPECT_EQ(run_lanes("  rem.u32 %r4, %r1, %r2;", {7}, {0}, {0})[0], 7u);
  EXPECT_EQ(run_lanes<uint64_t>("  div.s64 %rd4, %rd1, %rd2;", {0x8000000000000000}, {~uint64_t{0}}, {0})[0],
            0x8000000000000000u);
  EXPECT_EQ(run_lanes<uint64_t>("  rem.s64 %rd4, %rd1, %rd2;", {0x8000000000000000}, {~uint64_t{0}}, {0})[0], 0u);
}

// ---- min / max / abs / neg --------------------------------------------------------------------

TEST(ExecInteger, MinMaxAbsNeg) {
  check_all<uint32_t>(
      {
          {"  min.u32 %r4, %r1, %r2;", REF(std::min(uint32_t(a), uint32_t(b)))},
          {"  max.u32 %r4, %r1, %r2;", REF(std::max(uint32_t(a), uint32_t(b)))},
          {"  min.s32 %r4, %r1, %r2;", REF(uint32_t(std::min(s32(a), s32(b))))},
          {"  max.s32 %r4, %r1, %r2;", REF(uint32_t(std::max(s32(a), s32(b))))},
          // .relu clamps a negative result to 0.
          {"  min.relu.s32 %r4, %r1, %r2;", REF(uint32_t(std::max(0, std::min(s32(a), s32(b)))))},
          {"  max.relu.s32 %r4, %r1, %r2;", REF(uint32_t(std::max(0, std::max(s32(a), s32(b)))))},
          // abs(INT_MIN) and neg(INT_MIN) wrap to INT_MIN.
          {"  abs.s32 %r4, %r1;", REF(s32(a) < 0 ? 0u - uint32_t(a) : uint32_t(a))},
          {"  neg.s32 %r4, %r1;", REF(0u - uint32_t(a))},
      },
      pairs(edges32(22)));
  check_all<uint32_t>(
      {
          {in16("  min.u16 %h4, %h1, %h2;"), REF(std::min(a, b))},
          {in16("  max.u16 %h4, %h1, %h2;"), REF(std::max(a, b))},
          {in16("  min.s16 %h4, %h1, %h2;"), REF(uint64_t(std::min(s16(a), s16(b))))},
          {in16("  max.s16 %h4, %h1, %h2;"), REF(uint64_t(std::max(s16(a), s16(b))))},
          {in16("  abs.s16 %h4, %h1;"), REF(s16(a) < 0 ? 0 - a : a)},
          {in16("  neg.s16 %h4, %h1;"), REF(0 - a)},
      },
      pairs(edges16(23)), 0xffff);
  check_all<uint64_t>(
      {
          {"  min.u64 %rd4, %rd1, %rd2;", REF(std::min(a, b))},
          {"  max.u64 %rd4, %rd1, %rd2;", REF(std::max(a, b))},
          {"  min.s64 %rd4, %rd1, %rd2;", REF(uint64_t(std::min(s64(a), s64(b))))},
          {"  max.s64 %rd4, %rd1, %rd2;", REF(uint64_t(std::max(s64(a), s64(b))))},
          {"  abs.s64 %rd4, %rd1;", REF(s64(a) < 0 ? 0 - a : a)},
          {"  neg.s64 %rd4, %rd1;", REF(0 - a)},
      },
      pairs(edges64(24)));
  EXPECT_EQ(run_lanes("  abs.s32 %r4, %r1;", {0x80000000u}, {0}, {0})[0], 0x80000000u);
  EXPECT_EQ(run_lanes("  neg.s32 %r4, %r1;", {0x80000000u}, {0}, {0})[0], 0x80000000u);
}

// ---- shifts -----------------------------------------------------------------------------------

// Amounts around each width: PTX clamps shifts of the width or more.
const std::vector<uint32_t> kShiftAmounts = {0,  1,  7,  15, 16,  17,  31,          32,
                                             33, 63, 64, 65, 255, 256, 0x80000001u, 0xffffffffu};

uint64_t shl_ref(uint64_t a, uint64_t n, uint32_t w) { return n >= w ? 0 : (a << n) & ones(w); }
uint64_t shr_u_ref(uint64_t a, uint64_t n, uint32_t w) { return n >= w ? 0 : (a & ones(w)) >> n; }
uint64_t shr_s_ref(uint64_t a, uint64_t n, uint32_t w) {
  const bool neg = (a >> (w - 1)) & 1;
  if (n >= w) return neg ? ones(w) : 0;
  // Logical shift, then the vacated top n bits take the sign.
  const uint64_t r = (a & ones(w)) >> n;
  return neg ? r | (ones(w) & ~ones(w - static_cast<uint32_t>(n))) : r;
}

TEST(ExecInteger, ShiftsClampAtTheWidth) {
  const Lanes<uint32_t> l32 = cross(edges32(25), kShiftAmounts);
  check_all<uint32_t>(
      {
          {"  shl.b32 %r4, %r1, %r2;", REF(shl_ref(a, uint32_t(b), 32))},
          {"  shr.b32 %r4, %r1, %r2;", REF(shr_u_ref(a, uint32_t(b), 32))},
          {"  shr.u32 %r4, %r1, %r2;", REF(shr_u_ref(a, uint32_t(b), 32))},
          {"  shr.s32 %r4, %r1, %r2;", REF(shr_s_ref(a, uint32_t(b), 32))},
      },
      l32);
  const std::string cvt16 = "  cvt.u16.u32 %h1, %r1;\n";
  const Lanes<uint32_t> l16 = cross(edges16(26), kShiftAmounts);
  check_all<uint32_t>(
      {
          {cvt16 + "  shl.b16 %h4, %h1, %r2; cvt.u32.u16 %r4, %h4;", REF(shl_ref(a, uint32_t(b), 16))},
          {cvt16 + "  shr.u16 %h4, %h1, %r2; cvt.u32.u16 %r4, %h4;", REF(shr_u_ref(a, uint32_t(b), 16))},
          {cvt16 + "  shr.s16 %h4, %h1, %r2; cvt.u32.u16 %r4, %h4;", REF(shr_s_ref(a, uint32_t(b), 16))},
      },
      l16);
  Lanes<uint64_t> l64;
  for (uint64_t v : edges64(27))
    for (uint32_t n : kShiftAmounts) l64.add(v, n | 0x1234567800000000u, 0);  // high half of %rd2 unused
  check_all<uint64_t>(
      {
          {kSplit + "  shl.b64 %rd4, %rd1, %r2;", REF(shl_ref(a, uint32_t(b), 64))},
          {kSplit + "  shr.b64 %rd4, %rd1, %r2;", REF(shr_u_ref(a, uint32_t(b), 64))},
          {kSplit + "  shr.s64 %rd4, %rd1, %r2;", REF(shr_s_ref(a, uint32_t(b), 64))},
      },
      l64);
  // Immediate amounts.
  EXPECT_EQ(run_lanes("  shr.s32 %r4, %r1, 31;", {0x80000000u, 0x7fffffffu}, {0, 0}, {0, 0}),
            (std::vector<uint32_t>{0xffffffffu, 0}));
  EXPECT_EQ(run_lanes("  shl.b32 %r4, %r1, 32;", {1}, {0}, {0})[0], 0u);
}

// ---- logic ------------------------------------------------------------------------------------

TEST(ExecInteger, BitwiseAndPredicateLogic) {
  check_all<uint32_t>(
      {
          {"  and.b32 %r4, %r1, %r2;", REF(uint32_t(a & b))},
          {"  or.b32 %r4, %r1, %r2;", REF(uint32_t(a | b))},
          {"  xor.b32 %r4, %r1, %r2;", REF(uint32_t(a ^ b))},
          {"  not.b32 %r4, %r1;", REF(uint32_t(~a))},
          {"  cnot.b32 %r4, %r1;", REF(uint32_t(a) == 0 ? 1 : 0)},
      },
      pairs(edges32(28)));
  check_all<uint32_t>(
      {
          {in16("  and.b16 %h4, %h1, %h2;"), REF(a & b)},
          {in16("  or.b16 %h4, %h1, %h2;"), REF(a | b)},
          {in16("  xor.b16 %h4, %h1, %h2;"), REF(a ^ b)},
          {in16("  not.b16 %h4, %h1;"), REF(~a)},
          {in16("  cnot.b16 %h4, %h1;"), REF((a & 0xffff) == 0 ? 1 : 0)},
      },
      pairs(edges16(29)), 0xffff);
  check_all<uint64_t>(
      {
          {"  and.b64 %rd4, %rd1, %rd2;", REF(a & b)},
          {"  or.b64 %rd4, %rd1, %rd2;", REF(a | b)},
          {"  xor.b64 %rd4, %rd1, %rd2;", REF(a ^ b)},
          {"  not.b64 %rd4, %rd1;", REF(~a)},
          // cnot looks at all 64 bits: 0x1_00000000 is not zero.
          {"  cnot.b64 %rd4, %rd1;", REF(a == 0 ? 1 : 0)},
      },
      pairs(edges64(30)));
  // .pred forms on p1 = a & 1, p2 = b & 1; result bits: and, or, xor, not p1.
  const std::vector<uint32_t> bits = {0, 1, 2, 3};
  check(
      "  and.b32 %r6, %r1, 1; setp.ne.u32 %p1, %r6, 0; and.b32 %r6, %r2, 1; setp.ne.u32 %p2, %r6, 0;\n"
      "  and.pred %p3, %p1, %p2; or.pred %p4, %p1, %p2; xor.pred %p5, %p1, %p2; not.pred %p6, %p1;\n"
      "  selp.u32 %r4, 1, 0, %p3; selp.u32 %r6, 2, 0, %p4; or.b32 %r4, %r4, %r6;\n"
      "  selp.u32 %r6, 4, 0, %p5; or.b32 %r4, %r4, %r6; selp.u32 %r6, 8, 0, %p6; or.b32 %r4, %r4, %r6;",
      cross(bits, bits), REF(((a & b & 1) | ((a | b) & 1) << 1 | ((a ^ b) & 1) << 2 | (~a & 1) << 3)));
}

// lop3 immLut index: bit (a << 2 | b << 1 | c) of the table (ta = 0xf0, tb = 0xcc, tc = 0xaa).
uint32_t lop3_ref(uint32_t a, uint32_t b, uint32_t c, uint32_t lut) {
  uint32_t r = 0;
  for (uint32_t m = 0; m < 8; ++m)
    if (lut >> m & 1) r |= ((m & 4) ? a : ~a) & ((m & 2) ? b : ~b) & ((m & 1) ? c : ~c);  // minterm m
  return r;
}

TEST(ExecInteger, Lop3EveryKindOfTable) {
  const Lanes<uint32_t> l = pairs(edges32(31));
  for (uint32_t lut : {0x00u, 0xffu, 0x96u, 0xe8u, 0xf0u, 0xccu, 0xaau, 0xcau, 0x80u, 0xfeu, 0x1eu, 0x6au, 0x01u}) {
    const std::vector<uint32_t> got =
        run_lanes("  lop3.b32 %r4, %r1, %r2, %r3, " + std::to_string(lut) + ";", l.a, l.b, l.c);
    int failures = 0;
    for (size_t i = 0; i < l.size(); ++i)
      if (got[i] != lop3_ref(l.a[i], l.b[i], l.c[i], lut) && ++failures <= 4)
        ADD_FAILURE() << "lop3 0x" << std::hex << lut << " a=" << l.a[i] << " b=" << l.b[i] << " c=" << l.c[i] << " -> "
                      << got[i];
    EXPECT_EQ(failures, 0) << "lut " << lut;
  }
  // The named functions: xor3, majority, a, (a ? b : c).
  const uint32_t a = 0xff00ff00u, b = 0xf0f0f0f0u, c = 0xccccccccu;
  auto one = [&](uint32_t lut) {
    return run_lanes("  lop3.b32 %r4, %r1, %r2, %r3, " + std::to_string(lut) + ";", {a}, {b}, {c})[0];
  };
  EXPECT_EQ(one(0x96), a ^ b ^ c);
  EXPECT_EQ(one(0xe8), (a & b) | (a & c) | (b & c));
  EXPECT_EQ(one(0xf0), a);
  EXPECT_EQ(one(0xca), (a & b) | (~a & c));
}

// ---- bit counting -----------------------------------------------------------------------------

uint64_t popc_ref(uint64_t a, uint32_t w) {
  uint64_t n = 0;
  for (uint32_t i = 0; i < w; ++i) n += (a >> i) & 1;
  return n;
}
uint64_t clz_ref(uint64_t a, uint32_t w) {
  uint64_t n = 0;
  for (uint64_t bit = uint64_t{1} << (w - 1); bit != 0 && !(a & bit); bit >>= 1) ++n;
  return n;
}
uint64_t brev_ref(uint64_t a, uint32_t w) {
  uint64_t r = 0;
  for (uint32_t i = 0; i < w; ++i, a >>= 1) r = (r << 1) | (a & 1);
  return r;
}
// bfind: the bit position of the most significant bit that differs from the
// sign (signed types) or is set (unsigned); 0xffffffff when there is none,
// also with .shiftamt, which otherwise returns the left-shift amount w-1-pos.
uint64_t bfind_ref(uint64_t a, uint32_t w, bool sgn, bool shiftamt) {
  a &= ones(w);
  if (sgn && (a >> (w - 1)) & 1) a = ~a & ones(w);
  for (int i = static_cast<int>(w) - 1; i >= 0; --i)
    if ((a >> i) & 1) return shiftamt ? w - 1 - static_cast<uint32_t>(i) : static_cast<uint32_t>(i);
  return 0xffffffffu;
}

TEST(ExecInteger, PopcClzBrevBfind) {
  std::vector<uint32_t> v32 = edges32(32);
  std::vector<uint64_t> v64 = edges64(33);
  for (uint32_t i = 0; i < 32; ++i) {
    v32.push_back(1u << i);
    v32.push_back(~(1u << i));
  }
  for (uint32_t i = 0; i < 64; i += 3) {
    v64.push_back(uint64_t{1} << i);
    v64.push_back(~(uint64_t{1} << i));
  }
  const std::vector<uint32_t> z32(v32.size(), 0);
  const std::vector<uint64_t> z64(v64.size(), 0);
  const Lanes<uint32_t> l32{v32, z32, z32};
  const Lanes<uint64_t> l64{v64, z64, z64};
  check_all<uint32_t>(
      {
          {"  popc.b32 %r4, %r1;", REF(popc_ref(a, 32))},
          {"  clz.b32 %r4, %r1;", REF(clz_ref(a, 32))},
          {"  brev.b32 %r4, %r1;", REF(brev_ref(a, 32))},
          {"  bfind.u32 %r4, %r1;", REF(bfind_ref(a, 32, false, false))},
          {"  bfind.s32 %r4, %r1;", REF(bfind_ref(a, 32, true, false))},
          {"  bfind.shiftamt.u32 %r4, %r1;", REF(bfind_ref(a, 32, false, true))},
          {"  bfind.shiftamt.s32 %r4, %r1;", REF(bfind_ref(a, 32, true, true))},
      },
      l32);
  // The 64-bit forms other than brev write a 32-bit result; it comes back widened by a pack.
  check_all<uint64_t>(
      {
          {"  mov.u32 %r9, 0; popc.b64 %r4, %rd1; mov.b64 %rd4, {%r4, %r9};", REF(popc_ref(a, 64))},
          {"  mov.u32 %r9, 0; clz.b64 %r4, %rd1; mov.b64 %rd4, {%r4, %r9};", REF(clz_ref(a, 64))},
          {"  brev.b64 %rd4, %rd1;", REF(brev_ref(a, 64))},
          {"  mov.u32 %r9, 0; bfind.u64 %r4, %rd1; mov.b64 %rd4, {%r4, %r9};", REF(bfind_ref(a, 64, false, false))},
          {"  mov.u32 %r9, 0; bfind.s64 %r4, %rd1; mov.b64 %rd4, {%r4, %r9};", REF(bfind_ref(a, 64, true, false))},
          {"  mov.u32 %r9, 0; bfind.shiftamt.u64 %r4, %rd1; mov.b64 %rd4, {%r4, %r9};",
           REF(bfind_ref(a, 64, false, true))},
          {"  mov.u32 %r9, 0; bfind.shiftamt.s64 %r4, %rd1; mov.b64 %rd4, {%r4, %r9};",
           REF(bfind_ref(a, 64, true, true))},
      },
      l64);
  // Spelled out: no bit found (0 unsigned, 0 and -1 signed) gives 0xffffffff.
  EXPECT_EQ(run_lanes("  bfind.u32 %r4, %r1;", {0}, {0}, {0})[0], 0xffffffffu);
  EXPECT_EQ(run_lanes("  bfind.shiftamt.s32 %r4, %r1;", {0xffffffffu}, {0}, {0})[0], 0xffffffffu);
  EXPECT_EQ(run_lanes("  bfind.s32 %r4, %r1;", {0x80000000u}, {0}, {0})[0], 30u);
  EXPECT_EQ(run_lanes("  clz.b32 %r4, %r1;", {0}, {0}, {0})[0], 32u);
}

// ---- bfe / bfi --------------------------------------------------------------------------------

// bfe from the ISA on whole words: the field of k = min(len, w - pos) bits at
// pos, filled above with sbit = a[min(pos + len - 1, msb)] for signed types
// (0 for unsigned); len 0 gives 0. pos and len use their low 8 bits.
uint64_t bfe_ref(uint64_t a, uint64_t b, uint64_t c, uint32_t w, bool sgn) {
  const uint32_t pos = b & 0xff, len = c & 0xff;
  a &= ones(w);
  if (len == 0) return 0;
  const uint32_t k = pos >= w ? 0 : std::min(len, w - pos);
  uint64_t r = k == 0 ? 0 : (a >> pos) & ones(k);
  if (sgn && ((a >> std::min(pos + len - 1, w - 1)) & 1)) r |= ones(w) & ~ones(k);
  return r;
}
// bfi: the low min(len, w - pos) bits of f replace those of b at pos.
uint64_t bfi_ref(uint64_t f, uint64_t b, uint64_t pos64, uint64_t len64, uint32_t w) {
  const uint32_t pos = pos64 & 0xff, len = len64 & 0xff;
  const uint32_t k = pos >= w ? 0 : std::min(len, w - pos);
  if (k == 0) return b & ones(w);
  const uint64_t m = ones(k) << pos;
  return ((b & ~m) | ((f << pos) & m)) & ones(w);
}

const std::vector<uint32_t> kPositions = {0, 1, 4, 8, 15, 16, 24, 31, 32, 33, 48, 63, 64, 100, 255, 0x103, 0x1ff};
const std::vector<uint32_t> kLengths = {0, 1, 4, 8, 16, 17, 31, 32, 33, 64, 255, 0x101, 0x120};

TEST(ExecInteger, BfeExtractsWithSignFill) {
  Lanes<uint32_t> l32;
  for (uint32_t v : {0xdeadbeefu, 0x80000000u, 0x7fffffffu, 0x0f0f0f0fu})
    for (uint32_t p : kPositions)
      for (uint32_t n : kLengths) l32.add(v, p, n);
  check_all<uint32_t>(
      {
          {"  bfe.u32 %r4, %r1, %r2, %r3;", REF(bfe_ref(a, b, c, 32, false))},
          {"  bfe.s32 %r4, %r1, %r2, %r3;", REF(bfe_ref(a, b, c, 32, true))},
      },
      l32);
  Lanes<uint64_t> l64;
  for (uint64_t v : {0xdeadbeefcafef00dull, 0x8000000000000000ull, 0x7fffffffffffffffull, 0x00000000ffffffffull})
    for (uint32_t p : kPositions)
      for (uint32_t n : kLengths) l64.add(v, p, n);
  check_all<uint64_t>(
      {
          {kSplit + "  bfe.u64 %rd4, %rd1, %r2, %r3;", REF(bfe_ref(a, b, c, 64, false))},
          {kSplit + "  bfe.s64 %rd4, %rd1, %r2, %r3;", REF(bfe_ref(a, b, c, 64, true))},
      },
      l64);
  // Spelled out: the top nibble of 0x80000000 sign-extends; past the msb the sign bit fills.
  EXPECT_EQ(run_lanes("  bfe.s32 %r4, %r1, 28, 4;", {0x80000000u}, {0}, {0})[0], 0xfffffff8u);
  EXPECT_EQ(run_lanes("  bfe.s32 %r4, %r1, 40, 4;", {0x80000000u}, {0}, {0})[0], 0xffffffffu);
  EXPECT_EQ(run_lanes("  bfe.u32 %r4, %r1, 28, 8;", {0xf0000000u}, {0}, {0})[0], 0xfu);
}

TEST(ExecInteger, BfiInsertsClippedFields) {
  // c packs pos (low half) and len (high half).
  Lanes<uint32_t> l32;
  const std::pair<uint32_t, uint32_t> fb32[] = {
      {0xffffffffu, 0u}, {0u, 0xffffffffu}, {0x12345678u, 0x9abcdef0u}, {0xdeadbeefu, 0x55555555u}};
  for (auto [f, b] : fb32)
    for (uint32_t p : kPositions)
      for (uint32_t n : kLengths) l32.add(f, b, p | n << 16);
  check("  and.b32 %r6, %r3, 0xffff; shr.b32 %r7, %r3, 16; bfi.b32 %r4, %r1, %r2, %r6, %r7;", l32,
        REF(bfi_ref(a, b, c & 0xffff, c >> 16, 32)));
  Lanes<uint64_t> l64;
  const std::pair<uint64_t, uint64_t> fb64[] = {
      {~uint64_t{0}, 0}, {0, ~uint64_t{0}}, {0x0123456789abcdefull, 0xfedcba9876543210ull}};
  for (auto [f, b] : fb64)
    for (uint32_t p : kPositions)
      for (uint32_t n : kLengths) l64.add(f, b, p | uint64_t{n} << 32);
  check(kSplit + "  bfi.b64 %rd4, %rd1, %rd2, %r3, %r13;", l64, REF(bfi_ref(a, b, c & 0xffffffff, c >> 32, 64)));
  EXPECT_EQ(run_lanes("  bfi.b32 %r4, %r1, %r2, 28, 8;", {0xffu}, {0}, {0})[0], 0xf0000000u);
}

// ---- prmt / shf / dp4a / dp2a -----------------------------------------------------------------

// The mode tables of the ISA, rows by c[1:0], each as the ISA prints it: d.b3 d.b2 d.b1 d.b0.
struct PrmtMode {
  const char* name;
  uint8_t rows[4][4];
};
const PrmtMode kPrmtModes[] = {
    {"f4e", {{3, 2, 1, 0}, {4, 3, 2, 1}, {5, 4, 3, 2}, {6, 5, 4, 3}}},
    {"b4e", {{5, 6, 7, 0}, {6, 7, 0, 1}, {7, 0, 1, 2}, {0, 1, 2, 3}}},
    {"rc8", {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}}},
    {"ecl", {{3, 2, 1, 0}, {3, 2, 1, 1}, {3, 2, 2, 2}, {3, 3, 3, 3}}},
    {"ecr", {{0, 0, 0, 0}, {1, 1, 1, 0}, {2, 2, 1, 0}, {3, 2, 1, 0}}},
    {"rc16", {{1, 0, 1, 0}, {3, 2, 3, 2}, {1, 0, 1, 0}, {3, 2, 3, 2}}},
};

uint8_t byte_of(uint32_t a, uint32_t b, uint32_t i) { return static_cast<uint8_t>((i < 4 ? a : b) >> (8 * (i % 4))); }

// Default mode: nibble i of c picks result byte i from {b, a}; its msb replicates that byte's sign.
uint32_t prmt_ref(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t r = 0;
  for (uint32_t i = 0; i < 4; ++i) {
    const uint32_t sel = (c >> (4 * i)) & 0xf;
    uint8_t v = byte_of(a, b, sel & 7);
    if (sel & 8) v = (v & 0x80) ? 0xff : 0x00;
    r |= uint32_t{v} << (8 * i);
  }
  return r;
}

// {a, b} pairs with distinct bytes, and bytes whose sign bits differ.
const std::pair<uint32_t, uint32_t> kPrmtSources[] = {
    {0x44332211u, 0x88776655u}, {0x80ff7f01u, 0x01807fffu}, {0xdeadbeefu, 0x12345678u}};

TEST(ExecInteger, PrmtDefaultAndModes) {
  std::vector<uint32_t> sel = {0x3210, 0x7654, 0x0123, 0x4567,     0x8888,     0xba98,
                               0xfedc, 0xffff, 0x0000, 0x76543210, 0xffff3210u};
  std::mt19937 gen(34);
  for (int i = 0; i < 20; ++i) sel.push_back(static_cast<uint32_t>(gen()));
  Lanes<uint32_t> l;
  for (uint32_t c : sel)
    for (auto [a, b] : kPrmtSources) l.add(a, b, c);
  check("  prmt.b32 %r4, %r1, %r2, %r3;", l, REF(prmt_ref(uint32_t(a), uint32_t(b), uint32_t(c))));
  // Modes use c[1:0] only.
  Lanes<uint32_t> lm;
  for (uint32_t c : {0u, 1u, 2u, 3u, 4u, 7u, 0xfffffffcu, 0xffffffffu, 0x12345679u})
    for (auto [a, b] : kPrmtSources) lm.add(a, b, c);
  for (const PrmtMode& m : kPrmtModes) {
    const std::vector<uint32_t> got =
        run_lanes(std::string("  prmt.b32.") + m.name + " %r4, %r1, %r2, %r3;", lm.a, lm.b, lm.c);
    for (size_t i = 0; i < lm.size(); ++i) {
      uint32_t want = 0;
      for (uint32_t k = 0; k < 4; ++k)  // result byte k is column 3 - k of the row
        want |= uint32_t{byte_of(lm.a[i], lm.b[i], m.rows[lm.c[i] & 3][3 - k])} << (8 * k);
      EXPECT_EQ(got[i], want) << m.name << " c=" << std::hex << lm.c[i] << " a=" << lm.a[i] << " b=" << lm.b[i];
    }
  }
  // Spelled out: identity, b, a byte-swapped, the sign of byte 1 of a replicated.
  const std::vector<uint32_t> a = {0x11223344u, 0x11223344u, 0x11223344u, 0x0000ff00u}, b(4, 0x55667788u);
  EXPECT_EQ(run_lanes("  prmt.b32 %r4, %r1, %r2, %r3;", a, b, {0x3210, 0x7654, 0x0123, 0x9999}),
            (std::vector<uint32_t>{0x11223344u, 0x55667788u, 0x44332211u, 0xffffffffu}));
}

// shf from the ISA: n = clamp ? min(c, 32) : c & 31 on the 64-bit {b, a};
// shifts by 32 or more of a 32-bit term give 0.
uint32_t shl32(uint32_t x, uint32_t n) { return n >= 32 ? 0 : x << n; }
uint32_t shr32(uint32_t x, uint32_t n) { return n >= 32 ? 0 : x >> n; }
uint32_t shf_ref(uint32_t a, uint32_t b, uint32_t c, bool left, bool clamp) {
  const uint32_t n = clamp ? std::min(c, 32u) : c & 31;
  return left ? shl32(b, n) | shr32(a, 32 - n) : shl32(b, 32 - n) | shr32(a, n);
}

TEST(ExecInteger, FunnelShiftWrapAndClamp) {
  Lanes<uint32_t> l;
  const std::vector<uint32_t> e = edges32(35);
  std::vector<uint32_t> amounts = kShiftAmounts;
  amounts.push_back(0x20);
  amounts.push_back(0x21);
  for (uint32_t n : amounts)
    for (size_t i = 0; i + 1 < e.size(); i += 2) l.add(e[i], e[i + 1], n);
  check_all<uint32_t>(
      {
          {"  shf.l.wrap.b32 %r4, %r1, %r2, %r3;", REF(shf_ref(a, b, c, true, false))},
          {"  shf.l.clamp.b32 %r4, %r1, %r2, %r3;", REF(shf_ref(a, b, c, true, true))},
          {"  shf.r.wrap.b32 %r4, %r1, %r2, %r3;", REF(shf_ref(a, b, c, false, false))},
          {"  shf.r.clamp.b32 %r4, %r1, %r2, %r3;", REF(shf_ref(a, b, c, false, true))},
      },
      l);
  // Spelled out: 33 wraps to 1 or clamps to 32 (the whole other word).
  const std::vector<uint32_t> a = {0x80000001u}, b = {0x40000002u}, c = {33};
  EXPECT_EQ(run_lanes("  shf.l.wrap.b32 %r4, %r1, %r2, %r3;", a, b, c)[0], 0x80000005u);
  EXPECT_EQ(run_lanes("  shf.l.clamp.b32 %r4, %r1, %r2, %r3;", a, b, c)[0], 0x80000001u);
  EXPECT_EQ(run_lanes("  shf.r.wrap.b32 %r4, %r1, %r2, %r3;", a, b, c)[0], 0x40000000u);
  EXPECT_EQ(run_lanes("  shf.r.clamp.b32 %r4, %r1, %r2, %r3;", a, b, c)[0], 0x40000002u);
}

// dp4a: c + sum of the four byte products; dp2a: c + the two products of a's
// 16-bit halves with bytes 0-1 (.lo) or 2-3 (.hi) of b. Each element is
// sign- or zero-extended by its own type; the sum wraps at 32 bits.
int64_t elem(uint32_t v, uint32_t bits, uint32_t index, bool sgn) {
  const uint32_t x = (v >> (bits * index)) & static_cast<uint32_t>(ones(bits));
  if (!sgn) return x;
  return bits == 8 ? int64_t{static_cast<int8_t>(x)} : int64_t{static_cast<int16_t>(x)};
}
uint32_t dp_ref(uint32_t a, uint32_t b, uint32_t c, bool sa, bool sb, bool four, bool hi) {
  int64_t sum = 0;
  for (uint32_t i = 0; i < (four ? 4u : 2u); ++i)
    sum += elem(a, four ? 8 : 16, i, sa) * elem(b, 8, four ? i : (hi ? 2 + i : i), sb);
  return c + static_cast<uint32_t>(sum);
}

TEST(ExecInteger, Dp4aDp2aSignedUnsignedMixes) {
  std::vector<uint32_t> e = edges32(36);
  for (uint32_t v : {0x80808080u, 0x7f7f7f7fu, 0x80007fffu, 0xff01ff01u}) e.push_back(v);
  const Lanes<uint32_t> l = pairs(e);
  for (bool sa : {false, true})
    for (bool sb : {false, true}) {
      const std::string types = std::string(sa ? ".s32" : ".u32") + (sb ? ".s32" : ".u32");
      const std::string bodies[3] = {"  dp4a" + types + " %r4, %r1, %r2, %r3;",
                                     "  dp2a.lo" + types + " %r4, %r1, %r2, %r3;",
                                     "  dp2a.hi" + types + " %r4, %r1, %r2, %r3;"};
      for (int form = 0; form < 3; ++form) {
        const std::vector<uint32_t> got = run_lanes(bodies[form], l.a, l.b, l.c);
        int failures = 0;
        for (size_t i = 0; i < l.size(); ++i)
          if (got[i] != dp_ref(l.a[i], l.b[i], l.c[i], sa, sb, form == 0, form == 2) && ++failures <= 4)
            ADD_FAILURE() << bodies[form] << std::hex << " a=" << l.a[i] << " b=" << l.b[i] << " c=" << l.c[i] << " -> "
                          << got[i];
        EXPECT_EQ(failures, 0) << bodies[form];
      }
    }
  // Spelled out: four (-128)(-128) = 65536; u8 x s8: 128 * -128 * 4 = -65536.
  EXPECT_EQ(run_lanes("  dp4a.s32.s32 %r4, %r1, %r2, %r3;", {0x80808080u}, {0x80808080u}, {0})[0], 65536u);
  EXPECT_EQ(run_lanes("  dp4a.u32.s32 %r4, %r1, %r2, %r3;", {0x80808080u}, {0x80808080u}, {0})[0],
            static_cast<uint32_t>(-65536));
  // dp2a.hi.s32.s32: (-32768)(-128) + (32767)(127) with bytes 2-3 of b.
  EXPECT_EQ(run_lanes("  dp2a.hi.s32.s32 %r4, %r1, %r2, %r3;", {0x7fff8000u}, {0x7f800000u}, {5})[0],
            static_cast<uint32_t>(-32768 * -128 + 32767 * 127 + 5));
}

// ---- setp / selp / mov ------------------------------------------------------------------------

struct CmpCase {
  const char* op;
  bool (*holds)(int64_t sa, int64_t sb, uint64_t ua, uint64_t ub, bool sgn);
};
const CmpCase kCmps[] = {
    {"eq", [](int64_t, int64_t, uint64_t ua, uint64_t ub, bool) { return ua == ub; }},
    {"ne", [](int64_t, int64_t, uint64_t ua, uint64_t ub, bool) { return ua != ub; }},
    {"lt", [](int64_t sa, int64_t sb, uint64_t ua, uint64_t ub, bool s) { return s ? sa < sb : ua < ub; }},
    {"le", [](int64_t sa, int64_t sb, uint64_t ua, uint64_t ub, bool s) { return s ? sa <= sb : ua <= ub; }},
    {"gt", [](int64_t sa, int64_t sb, uint64_t ua, uint64_t ub, bool s) { return s ? sa > sb : ua > ub; }},
    {"ge", [](int64_t sa, int64_t sb, uint64_t ua, uint64_t ub, bool s) { return s ? sa >= sb : ua >= ub; }},
    // lo/ls/hi/hs are unsigned whatever the type.
    {"lo", [](int64_t, int64_t, uint64_t ua, uint64_t ub, bool) { return ua < ub; }},
    {"ls", [](int64_t, int64_t, uint64_t ua, uint64_t ub, bool) { return ua <= ub; }},
    {"hi", [](int64_t, int64_t, uint64_t ua, uint64_t ub, bool) { return ua > ub; }},
    {"hs", [](int64_t, int64_t, uint64_t ua, uint64_t ub, bool) { return ua >= ub; }},
};

// setp.<op>.<type> p|q, <operands> over the lanes; the result is bit 0 = p,
// bit 1 = q (`post` moves it to %rd4 in 64-bit lanes).
template <typename T>
void check_setp(const std::string& type, uint32_t w, bool sgn, const std::string& pre, const std::string& operands,
                const Lanes<T>& l, const std::string& post = "") {
  for (const CmpCase& k : kCmps) {
    const std::string body = pre + "  setp." + k.op + "." + type + " %p1|%p2, " + operands + ";" + kPQ + post;
    const std::vector<T> got = run_lanes<T>(body, l.a, l.b, l.c);
    int failures = 0;
    for (size_t i = 0; i < l.size(); ++i) {
      const uint64_t ua = l.a[i] & ones(w), ub = l.b[i] & ones(w);
      const int64_t sa = w == 64 ? s64(ua) : w == 32 ? s32(ua) : s16(ua);
      const int64_t sb = w == 64 ? s64(ub) : w == 32 ? s32(ub) : s16(ub);
      const T want = k.holds(sa, sb, ua, ub, sgn) ? 1 : 2;
      if (got[i] != want && ++failures <= 4) ADD_FAILURE() << body << " a=" << hex(l.a[i]) << " b=" << hex(l.b[i]);
    }
    EXPECT_EQ(failures, 0) << body;
  }
}

TEST(ExecInteger, SetpEveryComparisonSignedAndUnsigned) {
  const Lanes<uint32_t> l32 = pairs(edges32(37));
  check_setp("s32", 32, true, "", "%r1, %r2", l32);
  check_setp("u32", 32, false, "", "%r1, %r2", l32);
  check_setp("b32", 32, false, "", "%r1, %r2", l32);
  const Lanes<uint32_t> l16 = pairs(edges16(38));
  const std::string cvt16 = "  cvt.u16.u32 %h1, %r1; cvt.u16.u32 %h2, %r2;\n";
  check_setp("s16", 16, true, cvt16, "%h1, %h2", l16);
  check_setp("u16", 16, false, cvt16, "%h1, %h2", l16);
  const Lanes<uint64_t> l64 = pairs(edges64(39));
  const std::string widen = "\n  mov.u32 %r9, 0; mov.b64 %rd4, {%r4, %r9};";
  check_setp("s64", 64, true, "", "%rd1, %rd2", l64, widen);
  check_setp("u64", 64, false, "", "%rd1, %rd2", l64, widen);
  // The INT_MIN/INT_MAX boundary spelled out: signed INT_MIN < INT_MAX, unsigned the opposite.
  EXPECT_EQ(run_lanes("  setp.lt.s32 %p1|%p2, %r1, %r2;" + kPQ, {0x80000000u}, {0x7fffffffu}, {0})[0], 1u);
  EXPECT_EQ(run_lanes("  setp.lt.u32 %p1|%p2, %r1, %r2;" + kPQ, {0x80000000u}, {0x7fffffffu}, {0})[0], 2u);
}

TEST(ExecInteger, SetpBooleanOpsWithNegatedC) {
  // p = cmp OP !c, q = !cmp OP !c, with c = (c & 1).
  const Lanes<uint32_t> l = pairs(edges32(40));
  struct BoolOp {
    const char* name;
    bool (*f)(bool, bool);
  };
  const BoolOp ops[] = {{"and", [](bool x, bool y) { return x && y; }},
                        {"or", [](bool x, bool y) { return x || y; }},
                        {"xor", [](bool x, bool y) { return x != y; }}};
  for (const BoolOp& op : ops)
    for (bool negate : {false, true}) {
      const std::string body = std::string("  and.b32 %r6, %r3, 1; setp.ne.u32 %p3, %r6, 0;\n  setp.lt.") + op.name +
                               ".s32 %p1|%p2, %r1, %r2, " + (negate ? "!%p3;" : "%p3;") + kPQ;
      const std::vector<uint32_t> got = run_lanes(body, l.a, l.b, l.c);
      int failures = 0;
      for (size_t i = 0; i < l.size(); ++i) {
        const bool cmp = s32(l.a[i]) < s32(l.b[i]), c = ((l.c[i] & 1) != 0) != negate;
        const uint32_t want = (op.f(cmp, c) ? 1u : 0u) | (op.f(!cmp, c) ? 2u : 0u);
        if (got[i] != want && ++failures <= 4)
          ADD_FAILURE() << body << std::hex << " a=" << l.a[i] << " b=" << l.b[i] << " c=" << l.c[i];
      }
      EXPECT_EQ(failures, 0) << body;
    }
}

TEST(ExecInteger, SelpAndMovPackUnpack) {
  const std::string pc = "  and.b32 %r6, %r3, 1; setp.ne.u32 %p1, %r6, 0;\n";
  check_all<uint32_t>(
      {
          {pc + "  selp.b32 %r4, %r1, %r2, %p1;", REF((c & 1) ? a : b)},
          {pc + "  selp.s32 %r4, -1, %r2, %p1;", REF((c & 1) ? 0xffffffffu : b)},
          {pc + "  cvt.u16.u32 %h1, %r1; cvt.u16.u32 %h2, %r2; selp.b16 %h4, %h1, %h2, %p1; cvt.u32.u16 %r4, %h4;",
           REF(((c & 1) ? a : b) & 0xffff)},
          // The .b16 halves of a 32-bit register: swap them.
          {"  mov.b32 {%h1, %h2}, %r1; mov.b32 %r4, {%h2, %h1};", REF(uint32_t(a << 16 | a >> 16))},
          {"  mov.b32 {%h1, %h2}, %r1; mov.b32 {%h3, %h4}, %r2; mov.b32 %r4, {%h1, %h4};",
           REF((a & 0xffff) | (b & 0xffff0000))},
          {"  mov.u32 %r4, %r1;", REF(a)},
          {"  mov.u32 %r4, 0xfedcba98;", REF(0xfedcba98u)},
      },
      pairs(edges32(41)));
  check_all<uint64_t>(
      {
          {kSplit + "  and.b32 %r6, %r3, 1; setp.ne.u32 %p1, %r6, 0; selp.b64 %rd4, %rd1, %rd2, %p1;",
           REF((c & 1) ? a : b)},
          // {%r1, %r2} into .b64 and back: low word first.
          {kSplit + "  mov.b64 %rd4, {%r1, %r2};", REF((a & 0xffffffff) | b << 32)},
          {kSplit + "  mov.b64 %rd4, {%r11, %r1};", REF(a >> 32 | a << 32)},
          {"  mov.b64 {%r6, %r7}, %rd1; mov.b64 %rd4, {%r7, %r6};", REF(a >> 32 | a << 32)},
          // Four .b16 quarters reversed.
          {"  mov.b64 {%h1, %h2, %h3, %h4}, %rd1; mov.b64 %rd4, {%h4, %h3, %h2, %h1};",
           REF((a >> 48) | ((a >> 16) & 0xffff0000) | ((a << 16) & 0xffff00000000) | (a << 48))},
          {"  mov.b64 %rd4, %rd2;", REF(b)},
      },
      pairs(edges64(42)));
  // mov.pred and a predicate through selp.
  EXPECT_EQ(run_lanes("  setp.ne.u32 %p3, %r1, 0; mov.pred %p1, %p3; not.pred %p2, %p3;" + kPQ, {0, 5}, {0, 0}, {0, 0}),
            (std::vector<uint32_t>{2, 1}));
}

// ---- atom / red -------------------------------------------------------------------------------

// Host reference for one integer atomic: the new memory value.
uint64_t atom_ref(const std::string& op, uint32_t w, bool sgn, uint64_t old, uint64_t b, uint64_t c) {
  const uint64_t m = ones(w);
  old &= m;
  b &= m;
  c &= m;
  const int64_t so = w == 64 ? s64(old) : s32(old), sb = w == 64 ? s64(b) : s32(b);
  if (op == "add") return (old + b) & m;
  if (op == "min") return sgn ? (sb < so ? b : old) : std::min(old, b);
  if (op == "max") return sgn ? (sb > so ? b : old) : std::max(old, b);
  if (op == "inc") return old >= b ? 0 : old + 1;
  if (op == "dec") return (old == 0 || old > b) ? b : old - 1;
  if (op == "and") return old & b;
  if (op == "or") return old | b;
  if (op == "xor") return old ^ b;
  if (op == "exch") return b;
  if (op == "cas") return old == b ? c : old;
  ADD_FAILURE() << "no reference for " << op;
  return old;
}

struct AtomOutcome {
  std::vector<uint64_t> old;  // per lane (atom only)
  uint64_t memory;            // the 8-byte word afterwards
};

// One warp: every lane applies `atom.<space>.<op>.<type>` (or red) with its own
// b[l] (and c[l] for cas) to the one 8-byte word that starts as `init`.
AtomOutcome run_atom(bool shared, bool is_red, const std::string& op, const std::string& type, uint64_t init,
                     const std::vector<uint64_t>& b, const std::vector<uint64_t>& c) {
  const bool wide = type.back() == '4';  // .u64 / .s64 / .b64
  const std::string space = shared ? "shared" : "global";
  const std::string addr = shared ? "[smem]" : "[%rd14]";
  const std::string bv = wide ? "%rd2" : "%r2", cv = wide ? "%rd3" : "%r3", dv = wide ? "%rd4" : "%r4";
  std::string instr = (is_red ? "red." : "atom.") + space + "." + op + "." + type + " ";
  instr += is_red ? addr + ", " + bv : dv + ", " + addr + ", " + bv;
  if (op == "cas") instr += ", " + cv;
  const std::string text =
      ".visible .entry k(.param .u64 pb, .param .u64 pc, .param .u64 pold, .param .u64 pmem)\n{\n"
      "  .reg .pred %p<4>; .reg .b32 %r<16>; .reg .b64 %rd<24>;\n"
      "  .shared .align 8 .b64 smem;\n"
      "  ld.param.u64 %rd11, [pb]; ld.param.u64 %rd12, [pc]; ld.param.u64 %rd13, [pold];\n"
      "  ld.param.u64 %rd14, [pmem];\n"
      "  mov.u32 %r5, %tid.x; mul.wide.u32 %rd15, %r5, 8; setp.eq.u32 %p1, %r5, 0;\n"
      "  add.s64 %rd16, %rd11, %rd15; add.s64 %rd17, %rd12, %rd15; add.s64 %rd18, %rd13, %rd15;\n"
      "  ld.global.u64 %rd2, [%rd16]; ld.global.u64 %rd3, [%rd17];\n"
      "  mov.b64 {%r2, %r12}, %rd2; mov.b64 {%r3, %r13}, %rd3;\n"
      "  mov.u32 %r4, 0; mov.u32 %r9, 0; mov.u64 %rd4, 0;\n" +
      std::string(shared ? "  @%p1 ld.global.u64 %rd6, [%rd14]; @%p1 st.shared.u64 [smem], %rd6; bar.sync 0;\n" : "") +
      "  " + instr + ";\n" +
      (shared ? "  bar.sync 0; @%p1 ld.shared.u64 %rd6, [smem]; @%p1 st.global.u64 [%rd14], %rd6;\n" : "") +
      (wide ? "" : "  mov.b64 %rd4, {%r4, %r9};\n") + "  st.global.u64 [%rd18], %rd4;\n  ret;\n}\n";
  auto l = load(text);
  const uint64_t db = upload(l->device, b), dc = upload(l->device, c);
  const uint64_t dold = upload(l->device, std::vector<uint64_t>(32)),
                 mem = upload(l->device, std::vector<uint64_t>{init});
  LaunchResult r = run(*l, "k", {1}, {32}, {param_bytes(db), param_bytes(dc), param_bytes(dold), param_bytes(mem)});
  EXPECT_TRUE(r.ok()) << (r.fault ? r.fault->message : "") << "\n" << text;
  return {download<uint64_t>(l->device, dold, 32), download<uint64_t>(l->device, mem, 1)[0]};
}

// Lanes apply in lane order: check every returned old value and the final word
// (a 32-bit atomic must leave the upper half of the word alone).
void check_atom(const std::string& op, const std::string& type, uint64_t init, const std::vector<uint64_t>& b,
                const std::vector<uint64_t>& c) {
  const uint32_t w = type.back() == '4' ? 64 : 32;
  const bool sgn = type[0] == 's';
  std::vector<uint64_t> want_old;
  uint64_t mem = init & ones(w);
  for (size_t l = 0; l < 32; ++l) {
    want_old.push_back(mem);
    mem = atom_ref(op, w, sgn, mem, b[l], c[l]);
  }
  const uint64_t want_mem = w == 64 ? mem : (init & ~ones(32)) | mem;
  for (bool shared : {false, true})
    for (bool is_red : {false, true}) {
      const AtomOutcome got = run_atom(shared, is_red, op, type, init, b, c);
      const std::string what =
          std::string(is_red ? "red." : "atom.") + (shared ? "shared." : "global.") + op + "." + type;
      EXPECT_EQ(got.memory, want_mem) << what;
      if (!is_red) {
        EXPECT_EQ(got.old, want_old) << what;
      }
    }
}

TEST(ExecInteger, AtomicsSerialiseInLaneOrder) {
  std::vector<uint64_t> ones32(32, 1), lane(32), rnd(32), rnd64(32), small(32), zero(32, 0);
  std::mt19937_64 gen(43);
  for (uint64_t l = 0; l < 32; ++l) {
    lane[l] = l;
    rnd[l] = gen() & 0xffffffff;
    rnd64[l] = gen();
    small[l] = l % 7;  // inc/dec bounds, 0 included
  }
  const uint64_t hi_guard = 0xa5a5a5a500000000;  // upper half of the word around 32-bit atomics
  // atom.add returns 0, 1, 2, ...; and wraps at the width.
  check_atom("add", "u32", hi_guard, ones32, zero);
  check_atom("add", "u32", hi_guard | 0xfffffff0, rnd, zero);
  check_atom("add", "s32", hi_guard | 0x7ffffff0, ones32, zero);
  check_atom("add", "u64", 0xfffffff0, ones32, zero);  // carries into the high word
  check_atom("add", "u64", ~uint64_t{0} - 5, rnd64, zero);
  for (const char* op : {"min", "max"}) {
    check_atom(op, "u32", hi_guard | 0x80000000, rnd, zero);
    check_atom(op, "s32", hi_guard, rnd, zero);  // negatives: signed order differs
    check_atom(op, "u64", 0x8000000000000000, rnd64, zero);
    check_atom(op, "s64", 0, rnd64, zero);
  }
  // inc: old >= b ? 0 : old + 1; dec: old == 0 || old > b ? b : old - 1.
  for (const char* op : {"inc", "dec"}) {
    check_atom(op, "u32", hi_guard, std::vector<uint64_t>(32, 5), zero);
    check_atom(op, "u32", hi_guard | 100, std::vector<uint64_t>(32, 5), zero);  // starts above the bound
    check_atom(op, "u32", hi_guard | 3, small, zero);
    check_atom(op, "u32", hi_guard | 0xffffffff, std::vector<uint64_t>(32, 0xffffffff), zero);
  }
  for (const char* op : {"and", "or", "xor", "exch"}) {
    std::vector<uint64_t> masks(32);
    for (size_t l = 0; l < 32; ++l) masks[l] = std::string(op) == "and" ? ~(uint64_t{1} << l) | rnd64[l] : rnd64[l];
    check_atom(op, "b32", hi_guard | 0xffffffff, masks, zero);
    check_atom(op, "b64", 0xffffffffffffffff, masks, zero);
  }
  // cas: lane l expects l % 5 and stores (l + 1) % 5; every 6th lane expects a
  // value never present (for .b64: the right low half with a wrong high half).
  std::vector<uint64_t> expect(32), store(32);
  for (uint64_t l = 0; l < 32; ++l) {
    expect[l] = l % 6 == 5 ? (uint64_t{1} << 32) | (l % 5) : l % 5;
    store[l] = (l + 1) % 5;
  }
  check_atom("cas", "b32", hi_guard, expect, store);
  check_atom("cas", "b64", 0, expect, store);
  // Spelled out: atom.add of 1 from every lane returns 0, 1, 2, ... in lane order.
  const AtomOutcome add = run_atom(false, false, "add", "u32", 0, ones32, zero);
  for (uint64_t l = 0; l < 32; ++l) EXPECT_EQ(add.old[l], l);
  EXPECT_EQ(add.memory, 32u);
}

// With several host threads running CTAs at once, global atomics go through
// host compare-and-swap: the lane order across CTAs is not fixed, but no
// update may be lost and atom.add hands out every old value exactly once.
TEST(ExecInteger, GlobalAtomicsUnderTheParallelExecutor) {
  auto l = load(R"(
.visible .entry k(.param .u64 out, .param .u64 olds)
{
  .reg .b32 %r<12>; .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [out]; ld.param.u64 %rd2, [olds];
  mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mov.u32 %r3, %tid.x;
  mad.lo.s32 %r4, %r1, %r2, %r3;
  atom.global.add.u32 %r5, [%rd1], 1;
  mul.wide.u32 %rd3, %r4, 4; add.s64 %rd4, %rd2, %rd3; st.global.u32 [%rd4], %r5;
  xor.b32 %r6, %r4, 0x5a5;
  red.global.min.s32 [%rd1+4], %r6;
  red.global.max.u32 [%rd1+8], %r6;
  mov.u32 %r7, 1; shl.b32 %r7, %r7, %r3;
  red.global.or.b32 [%rd1+12], %r7;
  red.global.xor.b32 [%rd1+16], %r4;
  mul.wide.u32 %rd5, %r4, 0x10001;
  red.global.add.u64 [%rd1+24], %rd5;
  ret;
}
)");
  ExecutorOptions opt;
  opt.threads = 2;
  l->device.set_executor_options(opt);
  const uint32_t ctas = 16, threads = 32, n = ctas * threads;
  const uint64_t out = upload(l->device, std::vector<uint32_t>{0, 0x7fffffff, 0, 0, 0, 0, 0xfffff000u, 0});
  const uint64_t olds = upload(l->device, std::vector<uint32_t>(n));
  ASSERT_TRUE(run(*l, "k", {ctas}, {threads}, {param_bytes(out), param_bytes(olds)}).ok());
  const std::vector<uint32_t> v = download(l->device, out, 8);
  std::vector<uint32_t> got_old = download(l->device, olds, n);
  std::sort(got_old.begin(), got_old.end());
  int32_t mn = 0x7fffffff;
  uint32_t mx = 0, x = 0;
  uint64_t sum = 0xfffff000u;
  for (uint32_t i = 0; i < n; ++i) {
    mn = std::min(mn, s32(i ^ 0x5a5));
    mx = std::max(mx, i ^ 0x5a5);
    x ^= i;
    sum += uint64_t{i} * 0x10001;
  }
  EXPECT_EQ(v[0], n);
  std::vector<uint32_t> all(n);
  for (uint32_t i = 0; i < n; ++i) all[i] = i;
  EXPECT_EQ(got_old, all);
  EXPECT_EQ(s32(v[1]), mn);
  EXPECT_EQ(v[2], mx);
  EXPECT_EQ(v[3], 0xffffffffu);
  EXPECT_EQ(v[4], x);
  EXPECT_EQ(v[6] | uint64_t{v[7]} << 32, sum);
}


// bmsk (found in CUB's radix sort): the ISA's example and every (position,
// width) pair around the wrap/clamp boundaries, against a reference built
// bit by bit from the ISA's description.
uint64_t bmsk_reference(uint64_t a, uint64_t b, bool clamp) {
  const uint64_t pos = clamp ? std::min<uint64_t>(a & 0xffffffffu, 32) : a & 31;
  const uint64_t width = clamp ? std::min<uint64_t>(b & 0xffffffffu, 32) : b & 31;
  uint64_t r = 0;
  for (uint64_t i = pos; i < pos + width && i < 32; ++i) r |= uint64_t{1} << i;
  return r;
}

TEST(ExecInteger, BmskClampAndWrap) {
  EXPECT_EQ(run_lanes("  bmsk.wrap.b32 %r4, 1, 2;", {0}, {0}, {0})[0], 0x6u);
  EXPECT_EQ(run_lanes("  bmsk.clamp.b32 %r4, %r1, %r2;", {4}, {40}, {0})[0], 0xfffffff0u);
  EXPECT_EQ(run_lanes("  bmsk.wrap.b32 %r4, %r1, %r2;", {4}, {40}, {0})[0], 0xff0u);
  EXPECT_EQ(run_lanes("  bmsk.clamp.b32 %r4, %r1, %r2;", {33}, {3}, {0})[0], 0u);
  EXPECT_EQ(run_lanes("  bmsk.wrap.b32 %r4, %r1, %r2;", {33}, {3}, {0})[0], 0xeu);
  const std::vector<uint32_t> values = {0, 1, 2, 5, 16, 30, 31, 32, 33, 40, 63, 64, 0x80000001u, 0xffffffffu};
  const Lanes<uint32_t> l = pairs(values);
  for (bool clamp : {true, false}) {
    const std::vector<uint32_t> got =
        run_lanes<uint32_t>(clamp ? "  bmsk.clamp.b32 %r4, %r1, %r2;" : "  bmsk.wrap.b32 %r4, %r1, %r2;",
                            l.a, l.b, l.c);
    ASSERT_EQ(got.size(), l.size());
    for (size_t i = 0; i < l.size(); ++i)
      EXPECT_EQ(got[i], bmsk_reference(l.a[i], l.b[i], clamp))
          << (clamp ? "clamp" : "wrap") << " a=" << l.a[i] << " b=" << l.b[i];
  }
}

#undef REF

}  // namespace
}  // namespace warpsim::functional
