// cvt end to end: real PTX through functional::Device, one small kernel per
// conversion shape (load per-lane inputs, convert, store), checked against an
// independent host reference written here (exact values in long double,
// rounding by search over each format's grid of representable values,
// explicit clamping, std::nearbyint/trunc/floor/ceil) rather than against
// functional/fp. Covers every (dst, src) pair of u8-u64/s8-s64/f16/bf16/f32/
// f64, every rounding modifier, .sat, .ftz, .relu, .satfinite, tf32, the
// packed f16x2/bf16x2/e4m3x2/e5m2x2 forms' element order, wider registers,
// immediates, guards, cvt.pack.sat, and the forms that must fault as
// unsupported.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tests/functional/exec_test_util.h"

namespace warpsim::functional {
namespace {

using namespace testing;  // load, upload, run, download, run_lanes

constexpr uint32_t kLanes = 60;  // two warps, the second partial
constexpr uint64_t kSentinel = 0xa5a5a5a5a5a5a5a5ull;

// ---- types -------------------------------------------------------------------

// A binary float format: exponent and mantissa widths, whether it has
// infinities, and its largest finite magnitude pattern.
struct Fmt {
  int ebits, mbits;
  bool has_inf;
  uint64_t maxpat;
};
constexpr Fmt kFmtF16{5, 10, true, 0x7bff};
constexpr Fmt kFmtBF16{8, 7, true, 0x7f7f};
constexpr Fmt kFmtF32{8, 23, true, 0x7f7fffff};
constexpr Fmt kFmtF64{11, 52, true, 0x7fefffffffffffff};
constexpr Fmt kFmtTF32{8, 10, true, 0x3fbff};  // 19-bit, stored << 13
constexpr Fmt kFmtE4M3{4, 3, false, 0x7e};
constexpr Fmt kFmtE5M2{5, 2, true, 0x7b};

enum class Kind { U, S, F };
struct Ty {
  const char* name;
  Kind kind;
  int bits;
  const Fmt* fmt;  // floats
};
const Ty U8{"u8", Kind::U, 8, nullptr}, U16{"u16", Kind::U, 16, nullptr}, U32{"u32", Kind::U, 32, nullptr},
    U64{"u64", Kind::U, 64, nullptr}, S8{"s8", Kind::S, 8, nullptr}, S16{"s16", Kind::S, 16, nullptr},
    S32{"s32", Kind::S, 32, nullptr}, S64{"s64", Kind::S, 64, nullptr}, F16{"f16", Kind::F, 16, &kFmtF16},
    BF16{"bf16", Kind::F, 16, &kFmtBF16}, F32{"f32", Kind::F, 32, &kFmtF32},
    F64{"f64", Kind::F, 64, &kFmtF64}, TF32{"tf32", Kind::F, 32, &kFmtTF32};
const Ty* const kInts[] = {&U8, &U16, &U32, &U64, &S8, &S16, &S32, &S64};
const Ty* const kFloats[] = {&F16, &BF16, &F32, &F64};
const Ty* const kAll[] = {&U8, &U16, &U32, &U64, &S8, &S16, &S32, &S64, &F16, &BF16, &F32, &F64};

enum class Rnd { None, Rn, Rz, Rm, Rp, Rna, Rni, Rzi, Rmi, Rpi };
const char* rnd_text(Rnd r) {
  static const char* const k[] = {"", ".rn", ".rz", ".rm", ".rp", ".rna", ".rni", ".rzi", ".rmi", ".rpi"};
  return k[static_cast<int>(r)];
}
bool is_int_rnd(Rnd r) { return r >= Rnd::Rni; }

struct Mods {
  bool ftz = false, sat = false, relu = false, satfinite = false;
};

std::string cvt_op(const Ty& d, const Ty& s, Rnd r, Mods m = {}) {
  std::string op = std::string("cvt") + rnd_text(r);
  if (m.relu) op += ".relu";
  if (m.satfinite) op += ".satfinite";
  if (m.ftz) op += ".ftz";
  if (m.sat) op += ".sat";
  return op + "." + d.name + "." + s.name;
}

uint64_t mask_of(int bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }
int64_t sext(uint64_t v, int bits) {
  if (bits >= 64) return static_cast<int64_t>(v);
  const uint64_t m = 1ull << (bits - 1);
  return static_cast<int64_t>(((v & mask_of(bits)) ^ m) - m);
}
__int128 int_min(const Ty& t) { return t.kind == Kind::S ? -(__int128{1} << (t.bits - 1)) : 0; }
__int128 int_max(const Ty& t) {
  return t.kind == Kind::S ? (__int128{1} << (t.bits - 1)) - 1 : (__int128{1} << t.bits) - 1;
}
// An integer result as a register holds it: sign-extended for signed types.
uint64_t int_result(const Ty& t, __int128 v) {
  const uint64_t low = static_cast<uint64_t>(v) & mask_of(t.bits);
  return t.kind == Kind::S ? static_cast<uint64_t>(sext(low, t.bits)) : low;
}

// ---- reference rounding -------------------------------------------------------

enum class Mode { RN, RZ, RM, RP, RNA };
Mode mode_of(Rnd r) {
  switch (r) {
    case Rnd::Rz: return Mode::RZ;
    case Rnd::Rm: return Mode::RM;
    case Rnd::Rp: return Mode::RP;
    case Rnd::Rna: return Mode::RNA;
    default: return Mode::RN;
  }
}

// The value of a finite magnitude pattern (maxpat + 1 gives the next power of
// two, the "value" of the infinity encoding, which IEEE overflow rounds toward).
long double decode(const Fmt& f, uint64_t p) {
  const int bias = (1 << (f.ebits - 1)) - 1;
  const uint64_t e = p >> f.mbits, m = p & mask_of(f.mbits);
  if (e == 0) return std::ldexp(static_cast<long double>(m), 1 - bias - f.mbits);
  return std::ldexp(static_cast<long double>(m + (1ull << f.mbits)), static_cast<int>(e) - bias - f.mbits);
}

// x (exact, not NaN) rounded to f: the pattern with the sign at bit ebits + mbits.
uint64_t round_ref(const Fmt& f, long double x, Mode mode, bool satfinite) {
  const bool neg = std::signbit(x);
  const uint64_t sign = neg ? 1ull << (f.ebits + f.mbits) : 0;
  const uint64_t inf = ((1ull << f.ebits) - 1) << f.mbits;
  const long double a = std::fabs(x);
  auto overflow = [&] {
    const bool to_max = satfinite || !f.has_inf || mode == Mode::RZ || (mode == Mode::RM && !neg) ||
                        (mode == Mode::RP && neg);
    return sign | (to_max ? f.maxpat : inf);
  };
  if (std::isinf(a)) return sign | (satfinite || !f.has_inf ? f.maxpat : inf);  // exact: no rounding
  // Largest p in [0, maxpat + 1] with decode(p) <= a.
  uint64_t lo = 0, hi = f.maxpat + 1;
  if (decode(f, hi) <= a) {
    lo = hi;
  } else {
    while (hi - lo > 1) {
      const uint64_t mid = lo + (hi - lo) / 2;
      (decode(f, mid) <= a ? lo : hi) = mid;
    }
  }
  uint64_t q = lo;
  if (decode(f, lo) != a) {
    const uint64_t up = lo + 1;
    switch (mode) {
      case Mode::RZ: break;
      case Mode::RM: q = neg ? up : lo; break;
      case Mode::RP: q = neg ? lo : up; break;
      default: {
        const long double mid = (decode(f, lo) + decode(f, up)) / 2;
        if (a > mid || (a == mid && (mode == Mode::RNA || (lo & 1)))) q = up;
      }
    }
  }
  return q > f.maxpat ? overflow() : sign | q;
}

bool subnormal32(uint64_t b) { return (b & 0x7f800000u) == 0 && (b & 0x7fffffu) != 0; }

// The exact value of a float register pattern; `nan` reports NaN.
long double float_value(const Ty& t, uint64_t raw, bool& nan) {
  nan = false;
  if (&t == &F32) {
    const float f = std::bit_cast<float>(static_cast<uint32_t>(raw));
    nan = std::isnan(f);
    return f;
  }
  if (&t == &F64) {
    const double d = std::bit_cast<double>(raw);
    nan = std::isnan(d);
    return d;
  }
  if (&t == &BF16) {
    const float f = std::bit_cast<float>(static_cast<uint32_t>(raw & 0xffff) << 16);
    nan = std::isnan(f);
    return f;
  }
  // f16
  const bool neg = raw & 0x8000;
  if (((raw >> 10) & 0x1f) == 0x1f) {
    nan = (raw & 0x3ff) != 0;
    return neg ? -INFINITY : INFINITY;
  }
  const long double v = decode(kFmtF16, raw & 0x7fff);
  return neg ? -v : v;
}

// An expected register value; `any_nan` accepts any NaN of the destination
// type (f64 NaN payloads, and cvt.f32.bf16, whose NaN the ISA leaves unspecified).
struct Want {
  uint64_t bits = 0;
  bool any_nan = false;
};

uint64_t sat_ref(const Ty& d, uint64_t v) {
  const uint64_t sign = 1ull << (d.bits - 1);
  const uint64_t one = &d == &F16 ? 0x3c00 : &d == &F32 ? 0x3f800000 : 0x3ff0000000000000;
  if (v & sign) return 0;
  return v > one ? one : v;
}

long double round_integral(long double x, Rnd r) {
  switch (r) {
    case Rnd::Rni: return std::nearbyint(x);  // host default mode: ties to even
    case Rnd::Rmi: return std::floor(x);
    case Rnd::Rpi: return std::ceil(x);
    default: return std::trunc(x);  // .rzi, and no modifier
  }
}

// cvt<r><m>.d.s of one register value.
Want ref_cvt(const Ty& d, const Ty& s, Rnd r, Mods m, uint64_t raw) {
  raw &= mask_of(s.bits);
  if (s.kind != Kind::F) {
    const __int128 v = s.kind == Kind::S ? __int128{sext(raw, s.bits)} : __int128{raw};
    if (d.kind != Kind::F) {
      const __int128 c = m.sat ? std::min(std::max(v, int_min(d)), int_max(d)) : v;
      return {int_result(d, c)};
    }
    uint64_t out = round_ref(*d.fmt, static_cast<long double>(v), mode_of(r), false);
    if (m.sat) out = sat_ref(d, out);
    return {out};
  }
  if (m.ftz && &s == &F32 && subnormal32(raw)) raw &= 0x80000000u;
  bool nan;
  long double x = float_value(s, raw, nan);
  if (d.kind != Kind::F) {
    // NaN: 0, except 1 << (width - 1) from .f64 or into 64-bit integers.
    if (nan) return {&s == &F64 || d.bits == 64 ? int_result(d, __int128{1} << (d.bits - 1)) : 0};
    const long double y = round_integral(x, r);
    if (y <= static_cast<long double>(int_min(d))) return {int_result(d, int_min(d))};
    if (y >= static_cast<long double>(int_max(d))) return {int_result(d, int_max(d))};
    return {int_result(d, static_cast<__int128>(y))};
  }
  if (nan) {
    if (m.sat) return {0};
    if (&d == &F64 || (&d == &F32 && &s == &BF16)) return {0, true};
    return {&d == &F32 || &d == &TF32 ? 0x7fffffffu : 0x7fffu};
  }
  Mode mode = mode_of(r);
  if (is_int_rnd(r)) {
    x = round_integral(x, r);
    mode = Mode::RN;  // exact
  }
  uint64_t out = round_ref(*d.fmt, x, mode, m.satfinite);
  if (&d == &TF32) out <<= 13;
  if (m.ftz && &d == &F32 && subnormal32(out)) out &= 0x80000000u;
  if (m.relu && (out >> (d.bits - 1))) out = 0;
  if (m.sat) out = sat_ref(d, out);
  return {out};
}

// ---- fp8 references -------------------------------------------------------------

// cvt.rn.satfinite{.relu} of an exact value (or NaN) to e4m3/e5m2.
uint64_t ref_f8(const Fmt& f, long double x, bool nan, bool relu) {
  if (nan) return 0x7f;
  const uint64_t v = round_ref(f, x, Mode::RN, true);
  return relu && (v & 0x80) ? 0 : v;
}
// cvt.rn{.relu}.f16 of an e4m3/e5m2 byte (exact).
uint64_t ref_from_f8(const Fmt& f, uint64_t byte, bool relu) {
  const bool neg = byte & 0x80;
  const uint64_t mag = byte & 0x7f;
  uint64_t h;
  if (&f == &kFmtE4M3 ? mag == 0x7f : mag > 0x7c) return 0x7fff;
  if (&f == &kFmtE5M2 && mag == 0x7c) {
    h = 0x7c00;
  } else {
    h = round_ref(kFmtF16, decode(f, mag), Mode::RN, false);
  }
  if (neg) h |= 0x8000;
  return relu && neg ? 0 : h;
}

// ---- inputs -------------------------------------------------------------------------

uint32_t F(float f) { return std::bit_cast<uint32_t>(f); }
uint64_t D(double d) { return std::bit_cast<uint64_t>(d); }

std::vector<uint64_t> fill(std::vector<uint64_t> v, uint64_t seed, uint64_t (*gen)(std::mt19937_64&)) {
  std::mt19937_64 g(seed);
  while (v.size() < kLanes) v.push_back(gen(g));
  v.resize(kLanes);
  return v;
}

std::vector<uint64_t> int_inputs() {
  return fill({0x0, 0x1, 0x2, 0x7f, 0x80, 0xff, 0x100, 0x17f, 0x1ff80, 0x7fff, 0x8000, 0xffff, 0x10000,
               0x7fffffff, 0x80000000, 0xffffffff, 0x100000000, 0x7fffffffffffffff, 0x8000000000000000,
               0xffffffffffffffff, 0xfffffffffffffffe, 0x1000001, 0x1000003, 0xff000001, 0x801, 0x803, 0xffe0,
               0xfff0, 0xffef, 0x20000000000001, 0x8000000000000400, 0xffffff7f, 0xffffff80, 0xffff8000,
               0x80000001, 0x7fffff80, 0x00ff00ff00ff00ff, 0xfffffffffffff800, 0x7ffffffffffffdff, 0x101, 0x103,
               0xfffffffffffffeff},
              1, [](std::mt19937_64& g) { return g() >> (g() % 64); });
}

std::vector<uint64_t> f32_inputs() {
  return fill(
      {0,           0x80000000,  F(1),         F(-1),      F(0.5f),     F(-0.5f),     F(1.5f),    F(2.5f),
       F(-2.5f),    F(3.5f),     F(-3.7f),     F(0.3f),    F(INFINITY), F(-INFINITY), 0x7fc00000, 0xffc00000,
       0x7f800001,  0x00000001,  0x007fffff,   0x80000001, 0x00800000,  0x7f7fffff,   0xff7fffff, F(65504),
       0x477fefff,  F(65520),    F(65536),     F(0x1p31f), F(-0x1p31f), 0x4effffff,   0x4f7fffff, F(0x1p32f),
       F(0x1p63f),  F(-0x1p63f), F(0x1p64f),   F(255.5f),  F(256),      F(-128.5f),   F(-129),    F(127.5f),
       F(32767.5f), F(65535.5f), F(-32768.5f), 0x33000000, 0x33000001,  0x387fc000,   0x38800000, 0x3f808000,
       0x3f818000,  0x3f808001,  0x7f7f8000,   0x3f800001, 0x3f801000,  0x3f803000,   F(448),     F(464),
       F(480),      F(57344),    F(61440),     F(-1e-3f)},
      2, [](std::mt19937_64& g) -> uint64_t { return (g() & 0x807fffffu) | ((100 + g() % 60) << 23); });
}

std::vector<uint64_t> f64_inputs() {
  return fill({0,
               1ull << 63,
               D(1),
               D(-1),
               D(0.5),
               D(-0.5),
               D(1.5),
               D(2.5),
               D(-2.5),
               D(-3.7),
               D(0.1),
               D(INFINITY),
               D(-INFINITY),
               0x7ff8000000000000,
               0xfff8000000000000,
               0x7ff0000000000001,
               0x7ff8000012345678,
               1,
               0x000fffffffffffff,
               0x8000000000000001,
               D(0x1p-1022),
               D(1.7976931348623157e308),
               D(-1e300),
               D(3.4028234663852886e38),
               0x47efffffe0000000,
               0x47efffffdfffffff,
               D(0x1p-149),
               D(0x1p-150),
               D(0x1.8p-150),
               D(1 + 0x1p-24),
               D(1 + 0x3p-24),
               D(1 + 0x1p-30),
               D(-1 - 0x1p-30),
               D(2147483647.5),
               D(-2147483648.5),
               D(2147483648.0),
               D(4294967295.5),
               D(4294967296.0),
               D(0x1p63),
               D(-0x1p63),
               0x43dfffffffffffff,
               D(0x1p64),
               0x43efffffffffffff,
               D(65504),
               D(65520),
               D(65519.99),
               D(0x1p-24),
               D(0x1p-25),
               D(0x3p-26),
               D(1e10),
               D(-1e10),
               D(4503599627370495.5),
               D(255.5),
               D(-0.5000000001),
               D(0.49999999999999994),
               D(1 + 0x1p-8),
               D(1 + 0x3p-8),
               D(-32768.5),
               D(65535.5)},
              3, [](std::mt19937_64& g) -> uint64_t {
                return (g() & 0x800fffffffffffffull) | ((993 + g() % 100) << 52);
              });
}

std::vector<uint64_t> f16_inputs() {
  return fill(
      {0,      0x8000, 0x3c00, 0xbc00, 0x3800, 0xb800, 0x3e00, 0x4100, 0xc100, 0x4300, 0x7bff, 0xfbff, 0x7c00,
       0xfc00, 0x7e00, 0xfe00, 0x7c01, 0x0001, 0x03ff, 0x8001, 0x0400, 0x5bf8, 0x5bfc, 0x5c00, 0xd808, 0xd804,
       0x7800, 0x77ff, 0xf800, 0x3555, 0x6400, 0x6401, 0x63ff, 0x5801, 0x5ffe, 0x5fff, 0x3c01, 0x3c03},
      4, [](std::mt19937_64& g) -> uint64_t { return g() & 0xffff; });
}

std::vector<uint64_t> bf16_inputs() {
  return fill(
      {0,      0x8000, 0x3f80, 0xbf80, 0x3f00, 0x3fc0, 0x4020, 0xc020, 0x7f7f, 0xff7f, 0x7f80, 0xff80, 0x7fc0,
       0xffc0, 0x7f81, 0x0001, 0x007f, 0x8001, 0x0080, 0x4f00, 0xcf00, 0x5f00, 0xdf00, 0x5f80, 0x437f, 0x4380,
       0x477f, 0x4780, 0x4b00, 0x3f81, 0x3f7f, 0x42ff, 0x4300, 0xc300, 0xc301, 0x43ff, 0x3a00, 0x3a01},
      5, [](std::mt19937_64& g) -> uint64_t { return (g() & 0x807f) | ((100 + g() % 60) << 7); });
}

std::vector<uint64_t> inputs_for(const Ty& t) {
  if (t.kind != Kind::F) return int_inputs();
  if (&t == &F16) return f16_inputs();
  if (&t == &BF16) return bf16_inputs();
  if (&t == &F32) return f32_inputs();
  return f64_inputs();
}

// 8/16-bit values live in .b16 registers (8-bit types see the upper byte of
// the input too, which they must ignore), the others in registers of their size.
int reg_bits(const Ty& t) { return t.bits < 16 ? 16 : t.bits; }

// ---- the harness -----------------------------------------------------------------------

// One kernel: OP %d<dbits>, %a<bits>[, %b<bits>[, %c<bits>]] over kLanes-or-more lanes.
struct Case {
  std::string op;
  int dst_bits = 32;
  std::vector<int> src_bits;                  // register width per source
  std::vector<std::vector<uint64_t>> inputs;  // per source, per lane
  std::vector<Want> want;                     // per lane
  int nan_bits = 0;                           // width of the float type for any_nan checks
};

Case scalar_case(const Ty& d, const Ty& s, Rnd r, Mods m = {}) {
  Case c;
  c.op = cvt_op(d, s, r, m);
  c.dst_bits = reg_bits(d);
  c.src_bits = {reg_bits(s)};
  c.inputs = {inputs_for(s)};
  c.nan_bits = d.bits;
  for (uint64_t v : c.inputs[0]) c.want.push_back(ref_cvt(d, s, r, m, v));
  return c;
}

std::string kernel_text(const Case& c, size_t index) {
  std::string k =
      ".visible .entry k" + std::to_string(index) +
      "(.param .u64 p0, .param .u64 p1, .param .u64 p2, .param .u64 po)\n{\n"
      "  .reg .b16 %a16, %b16, %c16, %d16;\n  .reg .b32 %a32, %b32, %c32, %d32, %t;\n"
      "  .reg .b64 %a64, %b64, %c64, %d64, %q0, %q1, %q2, %qo, %off;\n"
      "  ld.param.u64 %q0, [p0]; ld.param.u64 %q1, [p1]; ld.param.u64 %q2, [p2]; ld.param.u64 %qo, [po];\n"
      "  mov.u32 %t, %tid.x;\n  mul.wide.u32 %off, %t, 8;\n  add.s64 %qo, %qo, %off;\n";
  const char* names = "abc";
  std::string operands = "%d" + std::to_string(c.dst_bits);
  for (size_t i = 0; i < c.src_bits.size(); ++i) {
    const std::string q = "%q" + std::to_string(i),
                      reg = std::string("%") + names[i] + std::to_string(c.src_bits[i]);
    k += "  add.s64 " + q + ", " + q + ", %off;\n  ld.global.b" + std::to_string(c.src_bits[i]) + " " + reg +
         ", [" + q + "];\n";
    operands += ", " + reg;
  }
  k += "  " + c.op + " " + operands + ";\n";
  k += "  st.global.b" + std::to_string(c.dst_bits) + " [%qo], %d" + std::to_string(c.dst_bits) +
       ";\n  ret;\n}\n";
  return k;
}

bool is_nan_bits(uint64_t v, int bits) {
  return bits == 64 ? (v & ~(1ull << 63)) > 0x7ff0000000000000ull : (v & 0x7fffffffu) > 0x7f800000u;
}

// Builds one module from all cases, runs each, and compares every lane.
void run_cases(const std::vector<Case>& cases) {
  std::string module;
  for (size_t i = 0; i < cases.size(); ++i) module += kernel_text(cases[i], i);
  auto l = load(module);
  ASSERT_TRUE(l->program);
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    const uint32_t lanes = static_cast<uint32_t>(c.want.size());
    std::vector<uint64_t> buf[3];
    for (size_t s = 0; s < 3; ++s) buf[s] = s < c.inputs.size() ? c.inputs[s] : std::vector<uint64_t>(lanes);
    const uint64_t out = upload(l->device, std::vector<uint64_t>(lanes, kSentinel));
    auto r = run(*l, "k" + std::to_string(i), {1}, {lanes},
                 {param_bytes(upload(l->device, buf[0])), param_bytes(upload(l->device, buf[1])),
                  param_bytes(upload(l->device, buf[2])), param_bytes(out)});
    ASSERT_TRUE(r.ok()) << c.op << ": " << (r.fault ? r.fault->message : "");
    const auto got = download<uint64_t>(l->device, out, lanes);
    const uint64_t mask = mask_of(c.dst_bits);
    int failures = 0;
    for (uint32_t lane = 0; lane < lanes && failures < 4; ++lane) {
      const Want& w = c.want[lane];
      const bool upper_ok = (got[lane] & ~mask) == (kSentinel & ~mask);
      const bool ok = upper_ok && (w.any_nan ? is_nan_bits(got[lane] & mask, c.nan_bits)
                                             : (got[lane] & mask) == (w.bits & mask));
      if (!ok) {
        ++failures;
        ADD_FAILURE() << c.op << " lane " << lane << " input 0x" << std::hex << c.inputs[0][lane] << " (0x"
                      << (c.inputs.size() > 1 ? c.inputs[1][lane] : 0) << "): got 0x" << got[lane]
                      << ", want 0x" << (w.bits & mask) << (w.any_nan ? " (any NaN)" : "");
      }
    }
  }
}

// ---- scalar conversions ------------------------------------------------------------------

// The rounding nvcc writes for each pair: .rzi float -> int, .rn int -> float
// and narrowing, none otherwise.
Rnd default_rnd(const Ty& d, const Ty& s) {
  const bool fd = d.kind == Kind::F, fs = s.kind == Kind::F;
  if (fs && !fd) return Rnd::Rzi;
  if (!fs && fd) return Rnd::Rn;
  if (fs && fd && (d.bits < s.bits || (d.bits == s.bits && &d != &s))) return Rnd::Rn;
  return Rnd::None;
}

TEST(ExecConvert, EveryTypePair) {
  std::vector<Case> cases;
  for (const Ty* d : kAll)
    for (const Ty* s : kAll) cases.push_back(scalar_case(*d, *s, default_rnd(*d, *s)));
  run_cases(cases);
}

TEST(ExecConvert, FloatToIntEveryRounding) {
  std::vector<Case> cases;
  for (const Ty* s : kFloats)
    for (const Ty* d : kInts)
      for (Rnd r : {Rnd::Rni, Rnd::Rzi, Rnd::Rmi, Rnd::Rpi}) cases.push_back(scalar_case(*d, *s, r));
  // No modifier (mandatory in PTX, but written in the ISA's own examples): truncation.
  cases.push_back(scalar_case(S32, F64, Rnd::None));
  cases.push_back(scalar_case(U64, F32, Rnd::None));
  // .sat is redundant for float -> int.
  cases.push_back(scalar_case(S8, F32, Rnd::Rni, {.sat = true}));
  cases.push_back(scalar_case(U32, F64, Rnd::Rzi, {.sat = true}));
  run_cases(cases);
}

TEST(ExecConvert, IntToFloatEveryRounding) {
  std::vector<Case> cases;
  for (const Ty* s : kInts)
    for (const Ty* d : kFloats)
      for (Rnd r : {Rnd::Rn, Rnd::Rz, Rnd::Rm, Rnd::Rp}) cases.push_back(scalar_case(*d, *s, r));
  cases.push_back(scalar_case(F32, S32, Rnd::None));  // default .rn
  cases.push_back(scalar_case(F16, U64, Rnd::None));
  run_cases(cases);
}

TEST(ExecConvert, FloatToFloatRounding) {
  std::vector<Case> cases;
  const std::pair<const Ty*, const Ty*> narrowing[] = {
      {&F32, &F64}, {&F16, &F64}, {&BF16, &F64}, {&F16, &F32}, {&BF16, &F32}, {&BF16, &F16}, {&F16, &BF16}};
  for (auto [d, s] : narrowing)
    for (Rnd r : {Rnd::Rn, Rnd::Rz, Rnd::Rm, Rnd::Rp}) cases.push_back(scalar_case(*d, *s, r));
  // Same type with integer rounding: an integral value in the same format.
  for (const Ty* t : kFloats)
    for (Rnd r : {Rnd::Rni, Rnd::Rzi, Rnd::Rmi, Rnd::Rpi}) cases.push_back(scalar_case(*t, *t, r));
  cases.push_back(scalar_case(F32, F64, Rnd::None));  // default .rn
  cases.push_back(scalar_case(F64, F32, Rnd::Rn));    // widening: rounding has no effect
  run_cases(cases);
}

TEST(ExecConvert, Saturate) {
  std::vector<Case> cases;
  for (const Ty* d : kInts)
    for (const Ty* s : kInts) cases.push_back(scalar_case(*d, *s, Rnd::None, {.sat = true}));
  const Mods sat{.sat = true};
  cases.push_back(scalar_case(F32, F32, Rnd::None, sat));
  cases.push_back(scalar_case(F32, F32, Rnd::Rni, sat));
  cases.push_back(scalar_case(F32, F64, Rnd::Rn, sat));
  cases.push_back(scalar_case(F64, F64, Rnd::None, sat));
  cases.push_back(scalar_case(F64, F32, Rnd::None, sat));
  cases.push_back(scalar_case(F16, F32, Rnd::Rn, sat));
  cases.push_back(scalar_case(F16, F16, Rnd::Rpi, sat));
  cases.push_back(scalar_case(F32, F16, Rnd::None, sat));
  cases.push_back(scalar_case(F32, BF16, Rnd::None, sat));
  cases.push_back(scalar_case(F32, S32, Rnd::Rz, sat));
  cases.push_back(scalar_case(F16, S16, Rnd::Rn, sat));
  cases.push_back(scalar_case(F64, U64, Rnd::Rn, sat));
  run_cases(cases);
}

TEST(ExecConvert, FlushToZero) {
  const Mods ftz{.ftz = true};
  run_cases({scalar_case(F32, F32, Rnd::None, ftz), scalar_case(F32, F32, Rnd::Rni, ftz),
             scalar_case(F32, F32, Rnd::Rpi, ftz), scalar_case(F32, F64, Rnd::Rn, ftz),
             scalar_case(F32, F64, Rnd::Rp, ftz), scalar_case(F64, F32, Rnd::None, ftz),
             scalar_case(S32, F32, Rnd::Rzi, ftz), scalar_case(S32, F32, Rnd::Rpi, ftz),
             scalar_case(S64, F32, Rnd::Rmi, ftz), scalar_case(F16, F32, Rnd::Rn, ftz),
             scalar_case(BF16, F32, Rnd::Rz, ftz), scalar_case(F32, BF16, Rnd::None, ftz),
             scalar_case(F32, F16, Rnd::None, ftz), scalar_case(F32, S32, Rnd::Rn, ftz),
             scalar_case(F32, F32, Rnd::None, {.ftz = true, .sat = true})});
}

TEST(ExecConvert, ReluAndSatfinite) {
  run_cases(
      {scalar_case(F16, F32, Rnd::Rn, {.relu = true}), scalar_case(F16, F32, Rnd::Rz, {.satfinite = true}),
       scalar_case(F16, F32, Rnd::Rn, {.relu = true, .satfinite = true}),
       scalar_case(BF16, F32, Rnd::Rn, {.relu = true, .satfinite = true}),
       scalar_case(BF16, F32, Rnd::Rz, {.relu = true}), scalar_case(BF16, F32, Rnd::Rn, {.satfinite = true}),
       scalar_case(F16, F64, Rnd::Rn, {.satfinite = true}), scalar_case(BF16, F16, Rnd::Rn, {.relu = true})});
}

TEST(ExecConvert, Tf32) {
  auto tf = [](Rnd r, Mods m) {
    Case c = scalar_case(TF32, F32, r, m);
    c.dst_bits = 32;
    return c;
  };
  run_cases({tf(Rnd::Rna, {}), tf(Rnd::Rna, {.satfinite = true}), tf(Rnd::Rn, {}),
             tf(Rnd::Rz, {.relu = true}), tf(Rnd::Rn, {.relu = true, .satfinite = true})});
}

// Integer sources read only their low bits from a wider register; results are
// sign-extended (signed) or zero-extended into a wider destination register.
TEST(ExecConvert, WiderRegisters) {
  auto wide = [](const Ty& d, const Ty& s, Rnd r, int dbits, int sbits) {
    Case c;
    c.op = cvt_op(d, s, r);
    c.dst_bits = dbits;
    c.src_bits = {sbits};
    c.inputs = {fill({0x12348000, 0xffff7fff, 0xabcdef80, 0x0000007f, 0xffffffff}, 9,
                     [](std::mt19937_64& g) -> uint64_t { return g(); })};
    if (s.kind == Kind::F) c.inputs[0] = inputs_for(s);
    c.nan_bits = d.bits;
    for (uint64_t v : c.inputs[0]) c.want.push_back(ref_cvt(d, s, r, {}, v));
    return c;
  };
  run_cases({wide(S64, S16, Rnd::None, 64, 32), wide(U32, U8, Rnd::None, 32, 32),
             wide(S32, S8, Rnd::None, 32, 64), wide(S8, S32, Rnd::None, 32, 32),
             wide(S16, F32, Rnd::Rzi, 32, 32), wide(U16, U32, Rnd::None, 64, 32),
             wide(S32, S64, Rnd::None, 64, 64), wide(F16, F32, Rnd::Rn, 32, 32),
             wide(U8, F64, Rnd::Rni, 64, 64), wide(F32, S16, Rnd::Rn, 64, 32)});
}

// .b types (not in the ISA's cvt type list) convert as the unsigned type of their size.
TEST(ExecConvert, BitTypesAsUnsigned) {
  const Ty B16{"b16", Kind::U, 16, nullptr}, B32{"b32", Kind::U, 32, nullptr},
      B64{"b64", Kind::U, 64, nullptr};
  run_cases({scalar_case(U64, B32, Rnd::None), scalar_case(B16, S32, Rnd::None),
             scalar_case(S64, B16, Rnd::None), scalar_case(F32, B64, Rnd::Rm),
             scalar_case(B32, F32, Rnd::Rni), scalar_case(B16, S64, Rnd::None, {.sat = true})});
}

// ---- packed forms ------------------------------------------------------------------------

// Two-source packs: element 0 of `a` and `b` differ per lane, so swapped
// operands or halves show.
Case pair_case(const std::string& op, int dst_bits, const std::vector<uint64_t>& a,
               const std::vector<uint64_t>& b, uint64_t (*elem)(uint64_t), int shift) {
  Case c;
  c.op = op;
  c.dst_bits = dst_bits;
  c.src_bits = {32, 32};
  c.inputs = {a, b};
  for (uint32_t l = 0; l < a.size(); ++l) c.want.push_back({elem(a[l]) << shift | elem(b[l])});
  return c;
}

std::vector<uint64_t> rotated(std::vector<uint64_t> v, size_t by) {
  std::rotate(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(by), v.end());
  return v;
}

TEST(ExecConvert, PackedHalfPairs) {
  const auto a = f32_inputs(), b = rotated(f32_inputs(), 17);
  std::vector<Case> cases;
#define HALF_PAIR(op, D, R, ...) \
  cases.push_back(pair_case(     \
      op, 32, a, b, [](uint64_t v) { return ref_cvt(D, F32, R, Mods{__VA_ARGS__}, v).bits; }, 16))
  HALF_PAIR("cvt.rn.f16x2.f32", F16, Rnd::Rn);
  HALF_PAIR("cvt.rz.f16x2.f32", F16, Rnd::Rz);
  HALF_PAIR("cvt.rn.relu.satfinite.f16x2.f32", F16, Rnd::Rn, .relu = true, .satfinite = true);
  HALF_PAIR("cvt.rn.bf16x2.f32", BF16, Rnd::Rn);
  HALF_PAIR("cvt.rz.relu.bf16x2.f32", BF16, Rnd::Rz, .relu = true);
  HALF_PAIR("cvt.rn.satfinite.bf16x2.f32", BF16, Rnd::Rn, .satfinite = true);
#undef HALF_PAIR
  run_cases(cases);
  // A hand-checked lane: a = 1.0 -> 0x3c00 in the upper half, b = -2.0 -> 0xc000 in the lower.
  auto l = load(R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r1, %r2; .reg .b64 %rd1;
  ld.param.u64 %rd1, [out];
  cvt.rn.f16x2.f32 %r1, 0f3F800000, 0fC0000000;
  cvt.rn.bf16x2.f32 %r2, 0f3F800000, 0fC0000000;
  st.global.v2.b32 [%rd1], {%r1, %r2};
  ret;
})");
  const uint64_t out = upload(l->device, std::vector<uint32_t>(2));
  ASSERT_TRUE(run(*l, "k", {1}, {1}, {param_bytes(out)}).ok());
  EXPECT_EQ(download(l->device, out, 2), (std::vector<uint32_t>{0x3c00c000u, 0x3f80c000u}));
}

uint64_t f8_of_f32(const Fmt& f, uint64_t v, bool relu) {
  bool nan;
  const long double x = float_value(F32, v, nan);
  return ref_f8(f, x, nan, relu);
}

TEST(ExecConvert, Fp8) {
  const auto a = f32_inputs(), b = rotated(f32_inputs(), 23);
  std::vector<Case> cases;
  cases.push_back(pair_case(
      "cvt.rn.satfinite.e4m3x2.f32", 16, a, b, [](uint64_t v) { return f8_of_f32(kFmtE4M3, v, false); }, 8));
  cases.push_back(pair_case(
      "cvt.rn.satfinite.e5m2x2.f32", 16, a, b, [](uint64_t v) { return f8_of_f32(kFmtE5M2, v, false); }, 8));
  cases.push_back(pair_case(
      "cvt.rn.satfinite.relu.e4m3x2.f32", 16, a, b, [](uint64_t v) { return f8_of_f32(kFmtE4M3, v, true); },
      8));
  cases.push_back(pair_case(
      "cvt.rn.satfinite.relu.e5m2x2.f32", 16, a, b, [](uint64_t v) { return f8_of_f32(kFmtE5M2, v, true); },
      8));

  // From f16x2 / bf16x2: the upper half goes to the upper byte.
  const auto h = f16_inputs(), h2 = rotated(f16_inputs(), 11), bf = bf16_inputs(),
             bf2 = rotated(bf16_inputs(), 13);
  auto from_x2 = [](const std::string& op, const Ty& src, const std::vector<uint64_t>& hi,
                    const std::vector<uint64_t>& lo, const Fmt& f, bool relu) {
    Case c;
    c.op = op;
    c.dst_bits = 16;
    c.src_bits = {32};
    std::vector<uint64_t> in;
    for (uint32_t l = 0; l < kLanes; ++l) {
      in.push_back(hi[l] << 16 | lo[l]);
      bool nh, nl;
      const long double xh = float_value(src, hi[l], nh), xl = float_value(src, lo[l], nl);
      c.want.push_back({ref_f8(f, xh, nh, relu) << 8 | ref_f8(f, xl, nl, relu)});
    }
    c.inputs = {in};
    return c;
  };
  cases.push_back(from_x2("cvt.rn.satfinite.e4m3x2.f16x2", F16, h, h2, kFmtE4M3, false));
  cases.push_back(from_x2("cvt.rn.satfinite.e5m2x2.f16x2", F16, h, h2, kFmtE5M2, false));
  cases.push_back(from_x2("cvt.rn.satfinite.relu.e4m3x2.f16x2", F16, h2, h, kFmtE4M3, true));
  cases.push_back(from_x2("cvt.rn.satfinite.e4m3x2.bf16x2", BF16, bf, bf2, kFmtE4M3, false));
  cases.push_back(from_x2("cvt.rn.satfinite.relu.e5m2x2.bf16x2", BF16, bf2, bf, kFmtE5M2, true));

  // To f16x2: every byte value, two per lane (upper byte -> upper half).
  auto to_f16x2 = [](const std::string& op, const Fmt& f, bool relu) {
    Case c;
    c.op = op;
    c.dst_bits = 32;
    c.src_bits = {16};
    std::vector<uint64_t> in;
    for (uint64_t l = 0; l < 128; ++l) {
      const uint64_t hi = 255 - l, lo = l;
      in.push_back(hi << 8 | lo);
      c.want.push_back({ref_from_f8(f, hi, relu) << 16 | ref_from_f8(f, lo, relu)});
    }
    c.inputs = {in};
    return c;
  };
  cases.push_back(to_f16x2("cvt.rn.f16x2.e4m3x2", kFmtE4M3, false));
  cases.push_back(to_f16x2("cvt.rn.f16x2.e5m2x2", kFmtE5M2, false));
  cases.push_back(to_f16x2("cvt.rn.relu.f16x2.e4m3x2", kFmtE4M3, true));
  cases.push_back(to_f16x2("cvt.rn.relu.f16x2.e5m2x2", kFmtE5M2, true));
  run_cases(cases);
}

// ---- cvt.pack.sat -----------------------------------------------------------------------

TEST(ExecConvert, PackSaturate) {
  auto pack = [](const std::string& type, int bits, bool sgn, bool with_c) {
    Case c;
    c.op = "cvt.pack.sat." + type + ".s32" + (with_c ? ".b32" : "");
    c.src_bits = with_c ? std::vector<int>{32, 32, 32} : std::vector<int>{32, 32};
    const std::vector<uint64_t> a =
        fill({0,          1,          0xffffffff, 0x7fffffff, 0x80000000, 7,          8,
              0xfffffff8, 0xfffffff7, 127,        128,        0xffffff80, 0xffffff7f, 255,
              256,        32767,      32768,      0xffff8000, 0xffff7fff, 65535,      65536},
             6, [](std::mt19937_64& g) -> uint64_t { return g() >> (32 + g() % 32); });
    const auto b = rotated(a, 7), cc = rotated(a, 29);
    c.inputs = {a, b};
    if (with_c) c.inputs.push_back(cc);
    const int64_t lo = sgn ? -(int64_t{1} << (bits - 1)) : 0,
                  hi = sgn ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
    auto sat = [&](uint64_t v) {
      const int64_t x = static_cast<int32_t>(static_cast<uint32_t>(v));
      return static_cast<uint64_t>(x < lo ? lo : x > hi ? hi : x) & mask_of(bits);
    };
    for (uint32_t l = 0; l < kLanes; ++l) {
      uint64_t d = sat(b[l]) | sat(a[l]) << bits;
      if (with_c) d |= cc[l] << (2 * bits);
      c.want.push_back({d & 0xffffffffu});
    }
    return c;
  };
  run_cases({pack("u16", 16, false, false), pack("s16", 16, true, false), pack("u8", 8, false, true),
             pack("s8", 8, true, true), pack("u4", 4, false, true), pack("s4", 4, true, true)});
}

// ---- operands, guards, unsupported forms -------------------------------------------------

TEST(ExecConvert, ImmediateSourcesAndGuards) {
  auto l = load(R"(
.visible .entry k(.param .u64 out)
{
  .reg .pred %p; .reg .b16 %h1; .reg .b32 %r<8>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r7, %tid.x;
  mul.wide.u32 %rd2, %r7, 32;
  add.s64 %rd1, %rd1, %rd2;
  cvt.rn.f32.s32 %r1, -7;
  cvt.rzi.s32.f32 %r2, 0fC0200000;
  cvt.rni.s32.f64 %r3, 0d4004000000000000;
  cvt.s64.s8 %rd3, 0x1ff;
  cvt.rn.f16.f32 %h1, 0f3FC00000;
  mov.b32 %r4, 0xdeadbeef;
  and.b32 %r5, %r7, 1;
  setp.eq.u32 %p, %r5, 1;
  @%p cvt.rzi.u32.f32 %r4, 0f40F00000;
  st.global.v4.b32 [%rd1], {%r1, %r2, %r3, %r4};
  st.global.b64 [%rd1+16], %rd3;
  st.global.b16 [%rd1+24], %h1;
  ret;
})");
  const uint32_t n = 4;
  const uint64_t out = upload(l->device, std::vector<uint64_t>(4 * n));
  auto r = run(*l, "k", {1}, {n}, {param_bytes(out)});
  ASSERT_TRUE(r.ok()) << (r.fault ? r.fault->message : "");
  const auto got = download<uint64_t>(l->device, out, 4 * n);
  for (uint32_t t = 0; t < n; ++t) {
    EXPECT_EQ(got[4 * t], uint64_t{F(-7.0f)} | uint64_t{static_cast<uint32_t>(-2)} << 32) << t;
    EXPECT_EQ(static_cast<uint32_t>(got[4 * t + 1]), 2u) << t;       // 2.5 .rni -> 2 (ties to even)
    EXPECT_EQ(got[4 * t + 1] >> 32, t % 2 ? 7u : 0xdeadbeefu) << t;  // guarded
    EXPECT_EQ(got[4 * t + 2], ~0ull) << t;                           // 0xff as s8 = -1, sign-extended
    EXPECT_EQ(got[4 * t + 3] & 0xffff, 0x3e00u) << t;                // 1.5 as f16
  }
}

TEST(ExecConvert, UnsupportedFormsFault) {
  const char* const forms[] = {
      "cvt.rs.f16x2.f32 %r1, %r2, %r3, %r4",         // stochastic rounding
      "cvt.rn.satfinite.e2m1x2.f32 %h1, %r2, %r3",   // fp4
      "cvt.rn.satfinite.e3m2x2.f32 %h1, %r2, %r3",   // fp6
      "cvt.rn.f16x2.e2m3x2 %r1, %h1",                // fp6
      "cvt.rz.satfinite.ue8m0x2.f32 %h1, %r2, %r3",  // ue8m0
      "cvt.rni.f32.f64 %r1, %rd1",                   // integer rounding across sizes
      "cvt.rni.f32.s32 %r1, %r2",                    // integer rounding from an integer
      "cvt.rn.s32.f32 %r1, %r2",                     // float rounding to an integer
      "cvt.rzi.s32.s16 %r1, %h1",                    // rounding between integers
      "cvt.rn.relu.s32.f32 %r1, %r2",                // .relu on an integer result
      "cvt.rn.sat.bf16.f32 %h1, %r2",                // .sat on bf16
      "cvt.rn.satfinite.f32.f64 %r1, %rd1",          // .satfinite on f32
      "cvt.rn.relu.f16.s32 %h1, %r2",                // .relu from an integer
      "cvt.ftz.f64.f16 %rd1, %h1",                   // .ftz without f32
      "cvt.rna.f16.f32 %h1, %r2",                    // .rna outside tf32
      "cvt.rm.tf32.f32 %r1, %r2",                    // tf32 rounds .rna/.rn/.rz
      "cvt.rz.satfinite.e4m3x2.f32 %h1, %r2, %r3",   // fp8 rounds .rn only
      "cvt.rn.f16x2.f32 %r1, %r2",                   // missing operand
  };
  for (const char* form : forms) {
    auto l = load(
        std::string(".visible .entry k()\n{\n  .reg .b16 %h<2>; .reg .b32 %r<5>; .reg .b64 %rd<2>;\n  ") +
        form + ";\n  ret;\n}\n");
    ASSERT_TRUE(l->program) << form;
    auto r = run(*l, "k", {1}, {32}, {});
    ASSERT_TRUE(r.fault) << form;
    EXPECT_NE(r.fault->message.find("unsupported instruction"), std::string::npos) << form << "\n"
                                                                                   << r.fault->message;
  }
}

}  // namespace
}  // namespace warpsim::functional
