#pragma once
// PTX floating-point and conversion semantics for the functional executor:
// one include for all of warpsim::functional::fp.
//
//   format.h   bit-pattern helpers, formats, canonical NaNs, round_to()
//   arith.h    add/sub/mul/fma/div/sqrt/rcp .f32/.f64 with .rn/.rz/.rm/.rp, .ftz, .sat
//   half.h     f16/bf16/tf32/e4m3/e5m2 conversions; f16/bf16 add/sub/mul/fma
//   minmax.h   min/max (.NaN, .xorsign.abs, 3 inputs), abs, neg, copysign, testp
//   approx.h   rcp/sqrt/rsqrt/div/sin/cos/lg2/ex2/tanh .approx, div.full, f64 approximations
//   convert.h  cvt: float<->int, int<->int (cvt_int), float<->float, cvt() dispatcher
//
// Conventions
//  * Operands and results are register bit patterns (f32 uint32_t, f64
//    uint64_t, f16/bf16 uint16_t, e4m3/e5m2 uint8_t); packed .x2/.x4 forms
//    are applied element by element by the caller.
//  * Rounding and types are the decoded ptx::Rounding / ptx::ScalarType
//    fields; ptx::Rounding::None means the PTX default (.rn; .rzi for
//    float -> int).
//  * Results are correctly rounded wherever the ISA is IEEE-754 compliant
//    (every op with a rounding modifier, every cvt); .approx results are the
//    correctly rounded or libm value, which is inside every documented bound.
//  * NaN results: f32/f16/bf16 give the canonical NaN (0x7fffffff / 0x7fff);
//    f64 propagates the first NaN operand, quieted, and otherwise gives
//    0xfff8000000000000. Exceptions: f64 abs/neg/copysign pass NaNs through,
//    rcp/rsqrt.approx.ftz.f64 give 0x7fffffff00000000 (ISA).
//  * .ftz flushes subnormal inputs and subnormal rounded results to zero of
//    the same sign; .sat clamps to [+0, 1] with NaN -> +0.
//
// Host requirements: the FP environment must be in its default state
// (round-to-nearest, no FTZ/DAZ), as it is in a normal process. Nothing here
// changes it except the f64 directed-rounding operations, which switch the
// rounding mode for one operation and restore it (arith_f64.cpp). No
// allocation, no errno, no exceptions.
#include "functional/fp/approx.h"
#include "functional/fp/arith.h"
#include "functional/fp/convert.h"
#include "functional/fp/format.h"
#include "functional/fp/half.h"
#include "functional/fp/minmax.h"
