#pragma once
// Shared harness of the corpus execution tests (corpus_exec_*_test.cpp): every
// kernel of tests/ptx/src/*.cu is run from its generated PTX variants through
// functional::Device with deterministic inputs and compared with a host
// reference written from the .cu source (not from the PTX).
//
// One fixture class per source file (CORPUS_EXEC_SUITE), value-parameterised
// over the PTX variants that exist for it; one TEST_P per kernel. A test loads
// the variant into a fresh Device, uploads its inputs, launches, downloads and
// compares. Sources whose kernels take a different path per architecture
// (a fallback below sm_80 / sm_90) use CORPUS_EXEC_SUITE_WHERE to split the
// variants into suites.
//
// A kernel that needs a feature warpsim does not implement yet is tested for
// the clear failure instead (corpus::unsupported: the launch returns an
// error, the report names the instruction), in a test named ...Unsupported...
// that fails visibly once the feature lands and is then replaced by a result
// check. At present every corpus kernel runs, so there are none.
//
// Host-side arithmetic: the project builds with -std=c++20 (no GNU
// extensions), so GCC does not contract a*b+c into fma in the references;
// std::fma is written out wherever the PTX has fma.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "functional/device.h"

namespace warpsim::functional::corpus {

// ---------------------------------------------------------------------------
// Variants

inline std::filesystem::path corpus_dir() {
  return std::filesystem::path(WARPSIM_SOURCE_DIR) / "tests" / "ptx" / "gen";
}

inline std::filesystem::path variant_path(std::string_view source, std::string_view variant) {
  if (variant == "clang") return corpus_dir() / "clang" / (std::string(source) + ".ptx");
  return corpus_dir() / (std::string(source) + "." + std::string(variant) + ".ptx");
}

// File text, read once per path (empty when missing).
inline const std::string& ptx_text(const std::filesystem::path& p) {
  static std::map<std::string, std::string> cache;
  auto it = cache.find(p.string());
  if (it != cache.end()) return it->second;
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  if (in) ss << in.rdbuf();
  return cache.emplace(p.string(), ss.str()).first->second;
}

// __CUDA_ARCH__ of a variant's build, from its `.target sm_XX` line (so it
// stays right if regen-ptx.sh changes a flag): sm75 and G are sm_75 builds,
// sm80 and lineinfo sm_80, sm90 sm_90, clang sm_75. 0 when unreadable.
inline int variant_arch(std::string_view source, std::string_view variant) {
  const std::string& text = ptx_text(variant_path(source, variant));
  size_t at = text.find(".target");
  if (at == std::string::npos) return 0;
  at = text.find("sm_", at);
  if (at == std::string::npos) return 0;
  return std::atoi(text.c_str() + at + 3) * 10;
}

// The variants a source is run from. "default" (nvcc with no -arch) is
// byte-identical to sm75 with nvcc 13 (its default arch is sm_75 and -O3 its
// default level), so it is run only when its text differs: a change of
// nvcc's defaults then shows up as new test instances. "clang" exists only
// for the sources clang 14 can compile.
inline std::vector<std::string> variants_for(std::string_view source) {
  std::vector<std::string> out;
  for (const char* v : {"sm75", "sm80", "sm90", "G", "lineinfo"}) out.emplace_back(v);
  const std::string& def = ptx_text(variant_path(source, "default"));
  if (!def.empty() && def != ptx_text(variant_path(source, "sm75"))) out.emplace_back("default");
  if (std::filesystem::exists(variant_path(source, "clang"))) out.emplace_back("clang");
  return out;
}

// Variant filters for CORPUS_EXEC_SUITE_WHERE (by the build's __CUDA_ARCH__).
using VariantFilter = std::function<bool(int arch, std::string_view variant)>;
inline VariantFilter arch_below(int arch) {
  return [arch](int a, std::string_view) { return a < arch; };
}
inline VariantFilter arch_at_least(int arch) {
  return [arch](int a, std::string_view) { return a >= arch; };
}
inline std::vector<std::string> variants_where(std::string_view source, const VariantFilter& keep) {
  std::vector<std::string> out;
  for (auto& v : variants_for(source))
    if (keep(variant_arch(source, v), v)) out.push_back(v);
  return out;
}

// ---------------------------------------------------------------------------
// Deterministic inputs (splitmix64; independent of the standard library's
// distributions, so every platform sees the same values).

class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed * 0x9e3779b97f4a7c15ull + 0x1234567ull) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint32_t u32() { return static_cast<uint32_t>(next() >> 32); }
  // Uniform in [lo, hi] (inclusive).
  int64_t range(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo + 1));
  }
  int32_t i32(int32_t lo, int32_t hi) { return static_cast<int32_t>(range(lo, hi)); }
  // Uniform in [lo, hi).
  double real(double lo, double hi) {
    return lo + (hi - lo) * static_cast<double>(next() >> 11) * 0x1.0p-53;
  }
  float f32(float lo, float hi) { return static_cast<float>(real(lo, hi)); }
  bool chance(double p) { return real(0, 1) < p; }

  template <typename T, typename F>
  std::vector<T> vec(size_t n, F&& gen) {
    std::vector<T> v(n);
    for (auto& x : v) x = static_cast<T>(gen());
    return v;
  }

 private:
  uint64_t s_;
};

// ---------------------------------------------------------------------------
// Host helpers for the references

inline uint32_t fbits(float f) { return std::bit_cast<uint32_t>(f); }
inline uint64_t dbits(double d) { return std::bit_cast<uint64_t>(d); }
inline float f_of(uint32_t b) { return std::bit_cast<float>(b); }

// binary16 <-> double. half_from_double rounds to nearest even; exact for any
// double input (one rounding).
inline uint16_t half_from_double(double d) {
  const uint16_t sign = std::signbit(d) ? 0x8000 : 0;
  const double a = std::fabs(d);
  if (std::isnan(d)) return 0x7fff;
  if (a >= 65520.0) return sign | 0x7c00;  // rounds to infinity
  if (a < 0x1.0p-14) {                     // subnormal range: multiples of 2^-24
    const double q = std::nearbyint(a * 0x1.0p24);  // default mode: ties to even
    return sign | static_cast<uint16_t>(q);         // q == 1024 gives the smallest normal
  }
  int e;
  std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1); the ulp is 2^(e - 11)
  const double q = std::nearbyint(std::ldexp(a, 11 - e));  // in [1024, 2048]
  int exp = e - 1 + 15;
  uint32_t mant = static_cast<uint32_t>(q);
  if (mant == 2048) {
    mant = 1024;
    ++exp;
  }
  if (exp >= 31) return sign | 0x7c00;
  return sign | static_cast<uint16_t>((exp << 10) | (mant - 1024));
}
inline double half_to_double(uint16_t h) {
  const int exp = (h >> 10) & 0x1f;
  const int mant = h & 0x3ff;
  const double s = (h & 0x8000) ? -1.0 : 1.0;
  if (exp == 31) return mant ? std::numeric_limits<double>::quiet_NaN() : s * INFINITY;
  if (exp == 0) return s * std::ldexp(mant, -24);
  return s * std::ldexp(mant + 1024, exp - 25);
}
inline float half_to_float(uint16_t h) { return static_cast<float>(half_to_double(h)); }

// bfloat16 <-> double, nearest even, one rounding.
inline uint16_t bf16_from_double(double d) {
  if (std::isnan(d)) return 0x7fff;
  const uint16_t sign = std::signbit(d) ? 0x8000 : 0;
  const double a = std::fabs(d);
  if (a == 0) return sign;
  if (a >= 0x1.ffp127) return sign | 0x7f80;  // the largest finite value + half an ulp, or more
  if (a < 0x1.0p-126) {  // subnormal: multiples of 2^-133
    const double q = std::nearbyint(std::ldexp(a, 133));
    return sign | static_cast<uint16_t>(q);
  }
  int e;
  std::frexp(a, &e);
  const double q = std::nearbyint(std::ldexp(a, 8 - e));  // in [128, 256]
  int exp = e - 1 + 127;
  uint32_t mant = static_cast<uint32_t>(q);
  if (mant == 256) {
    mant = 128;
    ++exp;
  }
  if (exp >= 255) return sign | 0x7f80;
  return sign | static_cast<uint16_t>((exp << 7) | (mant - 128));
}
inline float bf16_to_float(uint16_t h) { return std::bit_cast<float>(uint32_t{h} << 16); }

// A real number held exactly as hi + lo, hi = RN(hi + lo).
struct Exact {
  double hi, lo;
};
// a + b exactly (Knuth's TwoSum).
inline Exact two_sum(double a, double b) {
  const double s = a + b;
  const double bb = s - a;
  const double e = (a - (s - bb)) + (b - bb);
  return {s, e};
}

enum class Round { Nearest, Zero, Down, Up };

// A binary format narrower than double: bit patterns, nearest rounding of a
// double (one rounding), neighbours.
struct F32Format {
  using Bits = uint32_t;
  static double value(Bits b) { return f_of(b); }
  static Bits nearest(double d) { return fbits(static_cast<float>(d)); }
  static constexpr Bits kMax = 0x7f7fffff, kInf = 0x7f800000, kSign = 0x80000000;
};
struct F16Format {
  using Bits = uint16_t;
  static double value(Bits b) { return half_to_double(b); }
  static Bits nearest(double d) { return half_from_double(d); }
  static constexpr Bits kMax = 0x7bff, kInf = 0x7c00, kSign = 0x8000;
};
struct BF16Format {
  using Bits = uint16_t;
  static double value(Bits b) { return bf16_to_float(b); }
  static Bits nearest(double d) { return bf16_from_double(d); }
  static constexpr Bits kMax = 0x7f7f, kInf = 0x7f80, kSign = 0x8000;
};

// The neighbour of finite `b` towards +inf (up) or -inf.
template <typename F>
typename F::Bits step(typename F::Bits b, bool up) {
  using B = typename F::Bits;
  const bool neg = b & F::kSign;
  const B mag = b & static_cast<B>(~F::kSign);
  if (mag == 0) return up ? B{1} : static_cast<B>(F::kSign | 1);  // from +-0
  return (neg != up) ? static_cast<B>(b + 1) : static_cast<B>(b - 1);
}

// sign(hi + lo - v), exactly: when hi - v is inexact, |hi - v| >= |hi| / 2
// dwarfs lo; when it is exact (Sterbenz), the rounded sum has the right sign.
inline int compare_exact(Exact x, double v) {
  const double d = (x.hi - v) + x.lo;
  return d > 0 ? 1 : d < 0 ? -1 : 0;
}

// The exact value x.hi + x.lo (x.hi == RN(x.hi + x.lo)) rounded to format F
// in `mode`: a single rounding, as an IEEE operation with that rounding
// modifier gives (e.g. fma.rm.f32 from the exact product and sum).
template <typename F>
typename F::Bits round_exact(Exact x, Round mode) {
  using B = typename F::Bits;
  if (std::isnan(x.hi)) return F::nearest(x.hi);
  B f = F::nearest(x.hi);
  const B mag = f & static_cast<B>(~F::kSign);
  if (mag == F::kInf) {  // x.hi is at least half an ulp beyond the largest finite value
    const bool neg = f & F::kSign;
    const double mx = F::value(F::kMax);
    const double mid = mx + (mx - F::value(static_cast<B>(F::kMax - 1))) / 2;
    const int c = compare_exact(x, neg ? -mid : mid);
    const bool beyond = neg ? c <= 0 : c >= 0;  // a tie goes to infinity (the even side)
    const bool to_inf = (mode == Round::Nearest && beyond) || (mode == Round::Up && !neg) ||
                        (mode == Round::Down && neg);
    return to_inf ? f : static_cast<B>(F::kMax | (f & F::kSign));
  }
  const int c = compare_exact(x, F::value(f));  // sign(x - f)
  if (c == 0) return f;
  const B down = c > 0 ? f : step<F>(f, false);
  const B up = c > 0 ? step<F>(f, true) : f;
  const bool positive = x.hi > 0 || (x.hi == 0 && x.lo > 0);
  switch (mode) {
    case Round::Down: return down;
    case Round::Up: return up;
    case Round::Zero: return positive ? down : up;
    case Round::Nearest: break;
  }
  // Nearest: compare with the midpoint of down and up (exact in double; an
  // infinite neighbour counts as the next power of two).
  auto val = [](B b) {
    const double v = F::value(b);
    if (!std::isinf(v)) return v;
    const double mx = F::value(F::kMax);
    const double ulp = mx - F::value(static_cast<B>(F::kMax - 1));
    return std::copysign(mx + ulp, v);
  };
  const int m = compare_exact(x, (val(down) + val(up)) / 2);
  if (m != 0) return m < 0 ? down : up;
  return (down & 1) == 0 ? down : up;  // tie: the even one
}

inline float round_f32(Exact x, Round mode) { return f_of(round_exact<F32Format>(x, mode)); }
inline uint16_t round_f16(Exact x, Round mode = Round::Nearest) {
  return round_exact<F16Format>(x, mode);
}
inline uint16_t round_bf16(Exact x, Round mode = Round::Nearest) {
  return round_exact<BF16Format>(x, mode);
}

// A double result s + e (from two_sum) rounded in `mode` (s is the nearest).
inline double round_f64(Exact x, Round mode) {
  if (x.lo == 0 || mode == Round::Nearest || std::isinf(x.hi)) return x.hi;
  const bool above = x.lo < 0;  // s lies above the exact value
  const bool toward_zero = (x.hi > 0) == above;
  switch (mode) {
    case Round::Zero: return toward_zero ? std::nextafter(x.hi, 0.0) : x.hi;
    case Round::Down: return above ? std::nextafter(x.hi, -INFINITY) : x.hi;
    case Round::Up: return above ? x.hi : std::nextafter(x.hi, INFINITY);
    case Round::Nearest: break;
  }
  return x.hi;
}

// a + b in double with rounding `mode` (dadd.rz and friends), overflow
// included: a directed mode that rounds away from infinity gives +-DBL_MAX.
inline double add_f64(double a, double b, Round mode) {
  const double s = a + b;
  if (std::isinf(s) && std::isfinite(a) && std::isfinite(b)) {
    const bool keep = mode == Round::Nearest || (mode == Round::Up && s > 0) ||
                      (mode == Round::Down && s < 0);
    return keep ? s : std::copysign(std::numeric_limits<double>::max(), s);
  }
  if (!std::isfinite(s)) return s;
  return round_f64(two_sum(a, b), mode);
}

// fma of narrow formats computed exactly: the product of two floats (or
// halves) is exact in double, the sum is kept as a pair.
inline Exact exact_fma(double a, double b, double c) { return two_sum(a * b, c); }

// ---------------------------------------------------------------------------
// Comparison: collects mismatches, reports the first few and a count.

inline std::string show(float v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.9g (0x%08x)", v, fbits(v));
  return b;
}
inline std::string show(double v) {
  char b[80];
  std::snprintf(b, sizeof b, "%.17g (0x%016llx)", v, static_cast<unsigned long long>(dbits(v)));
  return b;
}
template <typename T>
  requires std::is_integral_v<T>
std::string show(T v) {
  if constexpr (std::is_signed_v<T>) {
    return std::to_string(static_cast<long long>(v));
  } else {
    char b[64];
    std::snprintf(b, sizeof b, "%llu (0x%llx)", static_cast<unsigned long long>(v),
                  static_cast<unsigned long long>(v));
    return b;
  }
}

// Bitwise equality, any NaN equal to any NaN (PTX gives canonical NaNs).
inline bool same_value(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) || fbits(a) == fbits(b);
}
inline bool same_value(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || dbits(a) == dbits(b);
}
template <typename T>
  requires std::is_integral_v<T>
bool same_value(T a, T b) {
  return a == b;
}

class Mismatches {
 public:
  explicit Mismatches(std::string what) : what_(std::move(what)) {}
  void add(const std::string& msg) {
    if (count_++ < kShown) text_ += "\n  " + msg;
  }
  ::testing::AssertionResult result() const {
    if (count_ == 0) return ::testing::AssertionSuccess();
    auto r = ::testing::AssertionFailure() << what_ << ": " << count_ << " mismatch(es)" << text_;
    if (count_ > kShown) r << "\n  ...";
    return r;
  }

 private:
  static constexpr size_t kShown = 8;
  std::string what_;
  std::string text_;
  size_t count_ = 0;
};

// Exact (bitwise for floating point, NaN == NaN).
template <typename T>
::testing::AssertionResult exact(const std::vector<T>& got, const std::vector<T>& want,
                                 const std::string& what = "values") {
  Mismatches m(what);
  if (got.size() != want.size()) {
    m.add("size " + std::to_string(got.size()) + " != " + std::to_string(want.size()));
    return m.result();
  }
  for (size_t i = 0; i < got.size(); ++i)
    if (!same_value(got[i], want[i]))
      m.add("[" + std::to_string(i) + "] got " + show(got[i]) + ", want " + show(want[i]));
  return m.result();
}

// binary16 / bfloat16 results (bit patterns): exact, any NaN equal to any NaN.
inline bool f16_is_nan(uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x03ff); }
inline bool bf16_is_nan(uint16_t h) { return (h & 0x7f80) == 0x7f80 && (h & 0x007f); }
template <bool (*IsNan)(uint16_t)>
::testing::AssertionResult exact_narrow(const std::vector<uint16_t>& got,
                                        const std::vector<uint16_t>& want,
                                        const std::string& what) {
  Mismatches m(what);
  if (got.size() != want.size()) {
    m.add("size mismatch");
    return m.result();
  }
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i] && !(IsNan(got[i]) && IsNan(want[i])))
      m.add("[" + std::to_string(i) + "] got " + show(got[i]) + ", want " + show(want[i]));
  return m.result();
}
inline ::testing::AssertionResult exact_f16(const std::vector<uint16_t>& got,
                                            const std::vector<uint16_t>& want,
                                            const std::string& what = "f16 values") {
  return exact_narrow<f16_is_nan>(got, want, what);
}
inline ::testing::AssertionResult exact_bf16(const std::vector<uint16_t>& got,
                                             const std::vector<uint16_t>& want,
                                             const std::string& what = "bf16 values") {
  return exact_narrow<bf16_is_nan>(got, want, what);
}

// Distance in units in the last place (representable values between them);
// NaN against non-NaN is infinitely far.
inline uint64_t ulp_distance(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : UINT64_MAX;
  auto ord = [](float f) {
    const int64_t i = std::bit_cast<int32_t>(f);
    return i < 0 ? INT64_C(-0x80000000) - i : i;  // monotonic, -0 == +0
  };
  const int64_t d = ord(a) - ord(b);
  return static_cast<uint64_t>(d < 0 ? -d : d);
}
inline uint64_t ulp_distance(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : UINT64_MAX;
  auto ord = [](double f) -> __int128 {
    const __int128 i = std::bit_cast<int64_t>(f);
    return i < 0 ? -(__int128{1} << 63) - i : i;
  };
  const __int128 d = ord(a) - ord(b);
  const __int128 ad = d < 0 ? -d : d;
  return ad > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(ad);
}

// Within `ulps(i)` units in the last place of the reference (infinities and
// NaNs must match exactly), or within `abs` absolute error (for results near
// zero, where a few ulp of a tiny value say nothing about an approximation
// whose error bound is absolute, as __sinf's).
template <typename T, typename Ulps>
  requires(std::is_floating_point_v<T> && std::is_invocable_r_v<uint64_t, Ulps, size_t>)
::testing::AssertionResult within_ulp(const std::vector<T>& got, const std::vector<T>& want,
                                      Ulps&& ulps, const std::string& what = "values",
                                      double abs = 0) {
  Mismatches m(what);
  if (got.size() != want.size()) {
    m.add("size mismatch");
    return m.result();
  }
  for (size_t i = 0; i < got.size(); ++i) {
    bool ok;
    if (std::isinf(want[i]) || std::isinf(got[i]) || std::isnan(want[i]) || std::isnan(got[i]))
      ok = same_value(got[i], want[i]);
    else
      ok = ulp_distance(got[i], want[i]) <= ulps(i) ||
           std::fabs(static_cast<double>(got[i]) - static_cast<double>(want[i])) <= abs;
    if (!ok)
      m.add("[" + std::to_string(i) + "] got " + show(got[i]) + ", want " + show(want[i]) + " (" +
            std::to_string(ulp_distance(got[i], want[i])) + " ulp, " + std::to_string(ulps(i)) +
            " allowed)");
  }
  return m.result();
}
template <typename T>
  requires(std::is_floating_point_v<T>)
::testing::AssertionResult within_ulp(const std::vector<T>& got, const std::vector<T>& want,
                                      uint64_t ulps, const std::string& what = "values",
                                      double abs = 0) {
  return within_ulp(got, want, [ulps](size_t) { return ulps; }, what, abs);
}

// Element k of every `stride`-element record: the output arrays of the
// corpus interleave several results per input (out[16*i + k]).
template <typename T>
std::vector<T> column(const std::vector<T>& v, size_t stride, size_t k) {
  std::vector<T> out;
  for (size_t i = k; i < v.size(); i += stride) out.push_back(v[i]);
  return out;
}

// ---------------------------------------------------------------------------
// Launch results

inline std::string describe(const LaunchResult& r) {
  if (r.fault) return r.fault->message;
  return std::string(to_string(r.error));
}

// A kernel that uses something warpsim does not implement stops cleanly: the
// launch returns an error (the process goes on), the fault is an unsupported
// instruction, and the report names it (its PTX text contains `mnemonic`).
inline ::testing::AssertionResult unsupported(const LaunchResult& r, std::string_view mnemonic) {
  if (r.ok()) return ::testing::AssertionFailure() << "the launch succeeded (feature landed?)";
  if (!r.fault)
    return ::testing::AssertionFailure() << "failed with " << to_string(r.error)
                                         << " but no report";
  const FaultReport& f = *r.fault;
  if (r.error != LaunchError::LaunchFailure || f.fault.kind != FaultKind::Unsupported)
    return ::testing::AssertionFailure() << "not an unsupported-instruction fault:\n" << f.message;
  if (f.instruction.find(mnemonic) == std::string::npos ||
      f.message.find(f.instruction) == std::string::npos)
    return ::testing::AssertionFailure() << "the report does not name '" << mnemonic << "':\n"
                                         << f.message;
  return ::testing::AssertionSuccess();
}

// Blocks of `block` threads covering n elements (the last one partial when n
// is not a multiple).
inline uint32_t blocks_for(size_t n, uint32_t block) {
  return static_cast<uint32_t>((n + block - 1) / block);
}

// ---------------------------------------------------------------------------
// Fixture

// One kernel argument: the bytes of a value (scalar, pointer or struct).
struct Arg {
  std::vector<uint8_t> bytes;
  template <typename T>
    requires std::is_trivially_copyable_v<T>
  Arg(const T& v) : bytes(param_bytes(v)) {}  // NOLINT(google-explicit-constructor)
  Arg(std::vector<uint8_t> b) : bytes(std::move(b)) {}  // NOLINT(google-explicit-constructor)
};

// Its helpers are public so that free helper functions of a test file
// (shared by several kernels' tests) can use them.
class CorpusExec : public ::testing::TestWithParam<std::string> {
 public:
  const std::string& variant() const { return GetParam(); }
  // __CUDA_ARCH__ the variant was compiled for.
  int arch() const { return variant_arch(source_, variant()); }
  bool is_clang() const { return variant() == "clang"; }
  // Whether the compiler contracted a * b + c into fma.rn: nvcc's optimised
  // device code (fmad=true is the default) and clang -O3 (fp-contract=fast
  // for CUDA) do; nvcc -G emits separate mul and add. Which operands a
  // contraction pairs up is checked in the PTX of each kernel that relies on it.
  bool contracted() const { return variant() != "G"; }

  void load(std::string_view source) {
    source_ = source;
    auto path = variant_path(source, variant());
    const std::string& text = ptx_text(path);
    ASSERT_FALSE(text.empty()) << "cannot read " << path;
    DiagnosticEngine diags;
    program_ = device_.load_ptx(text, path.filename().string(), diags);
    ASSERT_TRUE(program_) << diags.format_all();
  }

  Device& device() { return device_; }
  const Program& program() const { return *program_; }

  // Launches `kernel` (an InvalidValue result with a test failure when it is
  // missing or the arguments do not fit). `tweak` adjusts the configuration
  // (cooperative launches, %envreg values).
  LaunchResult launch(std::string_view kernel, Dim3 grid, Dim3 block, std::vector<Arg> args,
                      uint32_t dynamic_shared = 0,
                      const std::function<void(LaunchConfig&)>& tweak = nullptr) {
    LaunchResult bad;
    bad.error = LaunchError::InvalidValue;
    if (!program_) return bad;
    const KernelInfo* k = program_->find_kernel(kernel);
    if (!k) {
      ADD_FAILURE() << "kernel " << kernel << " not found in " << source_ << "." << variant();
      return bad;
    }
    std::vector<std::vector<uint8_t>> values;
    for (auto& a : args) values.push_back(std::move(a.bytes));
    std::string why;
    auto params = device_.layout_params(*k, values, &why);
    if (!params) {
      ADD_FAILURE() << why;
      return bad;
    }
    LaunchConfig cfg;
    cfg.grid = grid;
    cfg.block = block;
    cfg.dynamic_shared_bytes = dynamic_shared;
    if (tweak) tweak(cfg);
    return device_.launch(*program_, *k, cfg, std::move(*params));
  }

  template <typename T>
  uint64_t upload(const std::vector<T>& v, std::string_view label = "buf") {
    const uint64_t bytes = std::max<uint64_t>(v.size() * sizeof(T), 1);
    const uint64_t a = device_.memory().allocate(bytes, AllocationKind::Device, label);
    EXPECT_NE(a, 0u);
    if (!v.empty()) {
      Fault f = device_.memory().copy_from_host(a, v.data(), v.size() * sizeof(T));
      EXPECT_EQ(f.kind, FaultKind::None) << describe(f);
    }
    return a;
  }
  template <typename T>
  uint64_t zeros(size_t n, std::string_view label = "out") {
    return upload(std::vector<T>(n), label);
  }
  template <typename T>
  uint64_t filled(size_t n, T value, std::string_view label = "out") {
    return upload(std::vector<T>(n, value), label);
  }
  template <typename T>
  std::vector<T> download(uint64_t addr, size_t n) {
    std::vector<T> v(n);
    if (n) {
      Fault f = device_.memory().copy_to_host(v.data(), addr, n * sizeof(T));
      EXPECT_EQ(f.kind, FaultKind::None) << describe(f);
    }
    return v;
  }

  // Device address of a module-scope variable (0 with a failure when absent).
  uint64_t global(std::string_view name) {
    if (!program_) return 0;
    const auto& globals = program_->module->globals;
    for (size_t i = 0; i < globals.size(); ++i)
      if (globals[i].name == name && i < program_->global_addresses.size())
        return program_->global_addresses[i];
    ADD_FAILURE() << "no global " << name;
    return 0;
  }

  const std::string& source() const { return source_; }

 private:
  Device device_;
  std::shared_ptr<const Program> program_;
  std::string source_;
};

inline std::string variant_name(const ::testing::TestParamInfo<std::string>& info) {
  return info.param;
}

}  // namespace warpsim::functional::corpus

// Declares fixture `Suite` for tests/ptx/src/<source>.cu: every test loads the
// variant's PTX in SetUp and runs over all variants of that source.
#define CORPUS_EXEC_SUITE(Suite, source)                                                    \
  class Suite : public ::warpsim::functional::corpus::CorpusExec {                          \
   protected:                                                                               \
    void SetUp() override { load(source); }                                                 \
  };                                                                                        \
  INSTANTIATE_TEST_SUITE_P(Corpus, Suite,                                                   \
                           ::testing::ValuesIn(::warpsim::functional::corpus::variants_for( \
                               source)),                                                    \
                           ::warpsim::functional::corpus::variant_name)

// Like CORPUS_EXEC_SUITE, over the variants `filter` keeps (e.g.
// corpus::arch_below(800) for the builds that take a kernel's fallback path).
#define CORPUS_EXEC_SUITE_WHERE(Suite, source, filter)                                         \
  class Suite : public ::warpsim::functional::corpus::CorpusExec {                             \
   protected:                                                                                  \
    void SetUp() override { load(source); }                                                    \
  };                                                                                           \
  INSTANTIATE_TEST_SUITE_P(Corpus, Suite,                                                      \
                           ::testing::ValuesIn(::warpsim::functional::corpus::variants_where( \
                               source, filter)),                                               \
                           ::warpsim::functional::corpus::variant_name)

// Launch and stop the test with the fault report when it fails.
#define ASSERT_LAUNCH(call)                                                                   \
  do {                                                                                        \
    auto corpus_launch_result_ = (call);                                                      \
    ASSERT_TRUE(corpus_launch_result_.ok())                                                   \
        << ::warpsim::functional::corpus::describe(corpus_launch_result_);                    \
  } while (0)
