#pragma once
// Host side of the tensor-core tests (tensor_test.cpp, tensor_wmma_test.cpp):
// logical matrices, their bytes in memory, and the reference D = A * B + C
// with the numerics of docs/functional-tensor.md (f32 fused multiply-adds
// in k order starting from C; f64 likewise; integers exact, then wrapped or
// saturated to s32).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "functional/fp/half.h"
#include "tests/functional/exec_test_util.h"

namespace warpsim::functional::tensor_testing {

// A logical matrix (row-major values) and how it is stored in memory.
struct Mat {
  uint32_t rows = 0, cols = 0;
  std::vector<double> v;
  double& at(uint32_t r, uint32_t c) { return v[r * cols + c]; }
  double at(uint32_t r, uint32_t c) const { return v[r * cols + c]; }
};

inline uint32_t type_bytes(const std::string& t) {
  if (t == "f16" || t == "bf16") return 2;
  if (t == "s8" || t == "u8") return 1;
  if (t == "f64") return 8;
  return 4;
}

inline uint64_t encode(const std::string& t, double x) {
  if (t == "f16") return fp::f32_to_f16(fp::f32_bits(static_cast<float>(x)));
  if (t == "bf16") return fp::f32_to_bf16(fp::f32_bits(static_cast<float>(x)));
  if (t == "f32" || t == "tf32") return fp::f32_bits(static_cast<float>(x));
  if (t == "f64") return fp::f64_bits(x);
  return static_cast<uint32_t>(static_cast<int32_t>(x));  // s8/u8/s32: low bytes
}
inline double decode(const std::string& t, uint64_t b) {
  if (t == "f16") return fp::f16_value(static_cast<uint16_t>(b));
  if (t == "bf16") return fp::bf16_value(static_cast<uint16_t>(b));
  if (t == "f32") return fp::f32_from(static_cast<uint32_t>(b));
  if (t == "f64") return fp::f64_from(b);
  return static_cast<int32_t>(static_cast<uint32_t>(b));
}

// Bytes of `m` stored row- or column-major with leading dimension ld.
inline std::vector<uint8_t> store(const Mat& m, const std::string& t, bool row_major, uint32_t ld) {
  const uint32_t sz = type_bytes(t);
  std::vector<uint8_t> out(size_t{ld} * (row_major ? m.rows : m.cols) * sz, 0xcd);
  for (uint32_t r = 0; r < m.rows; ++r)
    for (uint32_t c = 0; c < m.cols; ++c) {
      const uint64_t b = encode(t, m.at(r, c));
      std::memcpy(&out[(row_major ? size_t{r} * ld + c : size_t{c} * ld + r) * sz], &b, sz);
    }
  return out;
}
inline Mat fetch(const std::vector<uint8_t>& bytes, uint32_t rows, uint32_t cols, const std::string& t,
          bool row_major, uint32_t ld) {
  const uint32_t sz = type_bytes(t);
  Mat m{rows, cols, std::vector<double>(size_t{rows} * cols)};
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t c = 0; c < cols; ++c) {
      uint64_t b = 0;
      std::memcpy(&b, &bytes[(row_major ? size_t{r} * ld + c : size_t{c} * ld + r) * sz], sz);
      m.at(r, c) = decode(t, b);
    }
  return m;
}

// Random values exact in every input type: multiples of 1/4 in [-2, 2]
// (floats, so products and sums are exact too), full-range s8/u8.
inline Mat random_mat(uint32_t rows, uint32_t cols, const std::string& t, uint32_t seed) {
  std::mt19937 rng(seed);
  Mat m{rows, cols, std::vector<double>(size_t{rows} * cols)};
  for (double& x : m.v) {
    if (t == "s8") x = static_cast<int>(rng() % 256) - 128;
    else if (t == "u8") x = static_cast<int>(rng() % 256);
    else if (t == "s32") x = static_cast<int>(rng() % 20001) - 10000;
    else x = (static_cast<int>(rng() % 17) - 8) / 4.0;
  }
  return m;
}

// D = A * B + C; `in` is A's type, `dt` D's (f16 results round once).
inline Mat reference(const Mat& a, const Mat& b, const Mat& c, const std::string& in, const std::string& dt,
              bool satfinite = false) {
  Mat d{a.rows, b.cols, std::vector<double>(size_t{a.rows} * b.cols)};
  for (uint32_t i = 0; i < a.rows; ++i)
    for (uint32_t j = 0; j < b.cols; ++j) {
      if (in == "s8" || in == "u8") {
        int64_t acc = static_cast<int64_t>(c.at(i, j));
        for (uint32_t k = 0; k < a.cols; ++k)
          acc += static_cast<int64_t>(a.at(i, k)) * static_cast<int64_t>(b.at(k, j));
        if (satfinite) acc = std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX);
        d.at(i, j) = static_cast<int32_t>(static_cast<uint32_t>(acc));
      } else if (in == "f64") {
        double acc = c.at(i, j);
        for (uint32_t k = 0; k < a.cols; ++k) acc = std::fma(a.at(i, k), b.at(k, j), acc);
        d.at(i, j) = acc;
      } else {
        float acc = static_cast<float>(c.at(i, j));
        for (uint32_t k = 0; k < a.cols; ++k)
          acc = std::fma(static_cast<float>(a.at(i, k)), static_cast<float>(b.at(k, j)), acc);
        d.at(i, j) = dt == "f16" ? fp::f16_value(fp::f32_to_f16(fp::f32_bits(acc))) : acc;
      }
    }
  return d;
}

inline void expect_equal(const Mat& got, const Mat& want, const std::string& what) {
  ASSERT_EQ(got.v.size(), want.v.size()) << what;
  for (uint32_t r = 0; r < want.rows; ++r)
    for (uint32_t c = 0; c < want.cols; ++c)
      ASSERT_EQ(got.at(r, c), want.at(r, c)) << what << " at (" << r << ", " << c << ")";
}

inline std::string message(const LaunchResult& r) { return r.fault ? r.fault->message : ""; }

}  // namespace warpsim::functional::tensor_testing
