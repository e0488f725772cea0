// The generic float -> float cvt and the cvt dispatcher.
#include "functional/fp/convert.h"

namespace warpsim::functional::fp {
namespace {

using ptx::ScalarType;

bool is_integer_rounding(ptx::Rounding r) {
  return r == ptx::Rounding::Rni || r == ptx::Rounding::Rzi || r == ptx::Rounding::Rmi || r == ptx::Rounding::Rpi;
}

// Every supported float value is exact in double.
double float_value(uint64_t a, ScalarType t) {
  switch (t) {
    case ScalarType::F64: return f64_from(a);
    case ScalarType::F16: return f16_value(static_cast<uint16_t>(a));
    case ScalarType::BF16: return bf16_value(static_cast<uint16_t>(a));
    case ScalarType::E4M3: {
      const auto x = static_cast<uint8_t>(a);
      return is_nan_e4m3(x) ? NAN : e4m3_value(x);
    }
    case ScalarType::E5M2: return f16_value(static_cast<uint16_t>((a & 0xff) << 8));
    default: return f32_from(static_cast<uint32_t>(a));  // F32, TF32
  }
}

// The f32 pattern of a NaN source (payload in the top mantissa bits).
uint32_t nan_as_f32(uint64_t a, ScalarType t) {
  switch (t) {
    case ScalarType::F16: return f32_bits(f16_value(static_cast<uint16_t>(a)));
    case ScalarType::BF16: return static_cast<uint32_t>(a & 0xffff) << 16;
    default: return static_cast<uint32_t>(a);
  }
}

// The NaN result of a float -> float cvt. f64 keeps the payload (quieted), as
// f64 instructions do; the narrower formats return their canonical NaN.
uint64_t nan_result(uint64_t a, ScalarType dst, ScalarType src, bool sat) {
  switch (dst) {
    case ScalarType::F64: {
      if (sat) return 0;
      if (src == ScalarType::F64) return quiet64(a);
      const uint32_t n = nan_as_f32(a, src);
      return (static_cast<uint64_t>(n & 0x80000000u) << 32) | 0x7ff8000000000000ull |
             (static_cast<uint64_t>(n & 0x007fffffu) << 29);
    }
    case ScalarType::F16:
    case ScalarType::BF16: return sat ? 0 : 0x7fff;
    case ScalarType::E4M3:
    case ScalarType::E5M2: return kF8CanonicalNaN;
    default: return sat ? 0 : kF32CanonicalNaN;  // F32, TF32
  }
}

}  // namespace

uint64_t cvt_float(uint64_t a, ScalarType dst, ScalarType src, ptx::Rounding rnd, CvtModifiers mods) {
  // .ftz concerns single-precision inputs and results only.
  if (src == ScalarType::F32) a = ftz32(static_cast<uint32_t>(a), mods.ftz);
  double v = float_value(a, src);
  if (v != v) return nan_result(a, dst, src, mods.sat);

  RoundMode m = to_mode(rnd);
  if (is_integer_rounding(rnd)) {
    v = round_integral(v, m);  // integral values are exact in the (same-size) destination
    m = RoundMode::NearestEven;
  }
  uint64_t out;
  switch (dst) {
    case ScalarType::F64:
      out = round_to(kF64, v, 0, m);
      return mods.sat ? sat64(out) : out;
    case ScalarType::F16: {
      auto h = static_cast<uint16_t>(round_to(kF16, v, 0, m, mods.satfinite));
      if (mods.relu && (h & 0x8000u)) h = 0;
      return mods.sat ? sat16(h) : h;
    }
    case ScalarType::BF16: {
      auto h = static_cast<uint16_t>(round_to(kBF16, v, 0, m, mods.satfinite));
      return (mods.relu && (h & 0x8000u)) ? 0 : h;
    }
    case ScalarType::TF32: return f32_to_tf32(f32_bits(static_cast<float>(v)), rnd, mods.satfinite, mods.relu);
    case ScalarType::E4M3: return double_to_f8(v, kE4M3, mods.relu, true);
    case ScalarType::E5M2: return double_to_f8(v, kE5M2, mods.relu, true);
    default: {  // F32
      auto f = static_cast<uint32_t>(round_to(kF32, v, 0, m));
      f = ftz32(f, mods.ftz);
      return mods.sat ? sat32(f) : f;
    }
  }
}

uint64_t cvt(uint64_t a, ScalarType dst, ScalarType src, ptx::Rounding rnd, CvtModifiers mods) {
  const bool int_dst = int_bits(dst) != 0, int_src = int_bits(src) != 0;
  if (int_dst && int_src) return cvt_int(a, src, dst, mods.sat);
  if (int_dst) {
    switch (src) {
      case ScalarType::F64: return cvt_f64_to_int(a, dst, rnd);
      case ScalarType::F16: return cvt_f16_to_int(static_cast<uint16_t>(a), dst, rnd);
      case ScalarType::BF16: return cvt_bf16_to_int(static_cast<uint16_t>(a), dst, rnd);
      default: return cvt_f32_to_int(static_cast<uint32_t>(a), dst, rnd, mods.ftz);
    }
  }
  if (int_src) {
    switch (dst) {
      case ScalarType::F64: return cvt_int_to_f64(a, src, rnd, mods.sat);
      case ScalarType::F16: return cvt_int_to_f16(a, src, rnd, mods.sat);
      case ScalarType::BF16: return cvt_int_to_bf16(a, src, rnd);
      default: return cvt_int_to_f32(a, src, rnd, mods.sat);
    }
  }
  return cvt_float(a, dst, src, rnd, mods);
}

}  // namespace warpsim::functional::fp
