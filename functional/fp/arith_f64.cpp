// f64 arithmetic under the directed rounding modes (.rz .rm .rp).
//
// The host FPU does the operation with its rounding mode switched for the
// duration of one operation (RoundingScope) and restored before returning,
// so nothing leaks to the caller. This file is built with -frounding-math so
// that the compiler neither constant-folds nor assumes round-to-nearest; the
// empty asm statements pin each operation between the two mode switches
// (GCC does not model the FP environment as a dependency of arithmetic).
#include <cfenv>
#include <cmath>

#include "functional/fp/arith.h"

namespace warpsim::functional::fp::detail {
namespace {

#if defined(__x86_64__) || defined(__i386__)
#define WARPSIM_FP_REG "+x"
#elif defined(__aarch64__)
#define WARPSIM_FP_REG "+w"
#else
#define WARPSIM_FP_REG "+m"
#endif

// Makes `v` look modified here: computations using it cannot move above.
inline void pin(double& v) { asm volatile("" : WARPSIM_FP_REG(v)); }

int fe_mode(RoundMode m) {
  switch (m) {
    case RoundMode::TowardZero: return FE_TOWARDZERO;
    case RoundMode::Down: return FE_DOWNWARD;
    case RoundMode::Up: return FE_UPWARD;
    default: return FE_TONEAREST;  // NearestAway has no host mode; not a PTX arithmetic mode
  }
}

class RoundingScope {
 public:
  explicit RoundingScope(RoundMode m) : saved_(std::fegetround()) { std::fesetround(fe_mode(m)); }
  ~RoundingScope() { std::fesetround(saved_); }
  RoundingScope(const RoundingScope&) = delete;
  RoundingScope& operator=(const RoundingScope&) = delete;

 private:
  int saved_;
};

}  // namespace

double add_f64_directed(double a, double b, RoundMode m) {
  RoundingScope scope(m);
  pin(a);
  pin(b);
  double r = a + b;
  pin(r);
  return r;
}

double mul_f64_directed(double a, double b, RoundMode m) {
  RoundingScope scope(m);
  pin(a);
  pin(b);
  double r = a * b;
  pin(r);
  return r;
}

double fma_f64_directed(double a, double b, double c, RoundMode m) {
  RoundingScope scope(m);
  pin(a);
  pin(b);
  pin(c);
  double r = std::fma(a, b, c);  // C requires fma to honour the current rounding mode
  pin(r);
  return r;
}

double div_f64_directed(double a, double b, RoundMode m) {
  RoundingScope scope(m);
  pin(a);
  pin(b);
  double r = a / b;
  pin(r);
  return r;
}

double sqrt_f64_directed(double a, RoundMode m) {
  RoundingScope scope(m);
  pin(a);
  double r = std::sqrt(a);  // callers pass a >= 0 or NaN-free input, so errno is untouched
  pin(r);
  return r;
}

}  // namespace warpsim::functional::fp::detail
