// cuda_check.h - the checking conventions shared by the self-checking CUDA programs of
// tests/cuda (see README.md there).
//
// Each translation unit of a program names the program (the same name in all of them: the
// helpers below are inline functions), then includes this header:
//   #define TEST_NAME "vector_add"
//   #include "cuda_check.h"
// - CHECK / CHECK_RET / CHECK_FAILS: a CUDA call with an unexpected result prints
//     FAIL <name>: <file>:<line>: <call> returned <cudaGetErrorName> (<number>), expected <...>
//   and exits with status 1;
// - FAIL(...) (printf-style reason), EXPECT(cond, ...) (prefixed with <file>:<line>: <cond>:),
//   check_ints / check_floats (`<what>: first mismatch at index <i>: got <x>, expected <y>`):
//   any other failure prints one line `FAIL <name>: <reason>` and exits with status 1;
// - on success main ends with `return report_pass();`, which prints `PASS <name>` and returns 0.
// A program that must undo something before a failure line is printed (printf.cu restores the
// stdout it captures) defines TEST_BEFORE_FAIL() before including this header.
//
// Plain C++ with nothing from the C++ library beyond <cstdio>/<cstdlib>: the [cuda11] programs
// are also built with CUDA 11.8's nvcc and linked by clang-14 without libstdc++ (README.md,
// "Building").
#pragma once

#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#ifndef TEST_NAME
#error "#define TEST_NAME \"<program name>\" before including cuda_check.h"
#endif

#ifndef TEST_BEFORE_FAIL
#define TEST_BEFORE_FAIL() ((void)0)
#endif

// A failure line is `FAIL <name>: ` (test_fail_begin), the reason, then test_fail_end.
inline void test_fail_begin() {
  TEST_BEFORE_FAIL();
  printf("FAIL %s: ", TEST_NAME);
}

[[noreturn]] inline void test_fail_end() {
  printf("\n");
  exit(1);
}

// FAIL <name>: <printf-style reason>, exit status 1.
#define FAIL(...)                                                                         \
  do {                                                                                    \
    test_fail_begin();                                                                    \
    printf(__VA_ARGS__);                                                                  \
    test_fail_end();                                                                      \
  } while (0)

// `call` must return `expected` (a cudaError_t).
#define CHECK_RET(call, expected)                                                         \
  do {                                                                                    \
    cudaError_t err_ = (call);                                                            \
    if (err_ != (expected)) {                                                             \
      test_fail_begin();                                                                  \
      printf("%s:%d: %s returned %s (%d), expected %s", __FILE__, __LINE__, #call,        \
             cudaGetErrorName(err_), (int)err_, #expected);                               \
      test_fail_end();                                                                    \
    }                                                                                     \
  } while (0)
#define CHECK(call) CHECK_RET(call, cudaSuccess)

// A call that must fail with `expected`; the failure is also reported (once) by
// cudaGetLastError, which then resets it to cudaSuccess (the error is not sticky).
#define CHECK_FAILS(call, expected)                                                       \
  do {                                                                                    \
    CHECK_RET(call, expected);                                                            \
    CHECK_RET(cudaGetLastError(), expected);                                              \
    CHECK_RET(cudaGetLastError(), cudaSuccess);                                           \
  } while (0)

// `cond` must hold; otherwise FAIL <name>: <file>:<line>: <cond>: <printf-style reason>.
#define EXPECT(cond, ...)                                                                 \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      test_fail_begin();                                                                  \
      printf("%s:%d: %s: ", __FILE__, __LINE__, #cond);                                   \
      printf(__VA_ARGS__);                                                                \
      test_fail_end();                                                                    \
    }                                                                                     \
  } while (0)

// Exact comparisons of n values; the first difference fails with
//   FAIL <name>: <what>: first mismatch at index <i>: got <x>, expected <y>
inline void check_ints(const char* what, const int* got, const int* want, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (got[i] != want[i])
      FAIL("%s: first mismatch at index %zu: got %d, expected %d", what, i, got[i], want[i]);
}

// Floats are printed with %.9g, which tells any two floats apart.
inline void check_floats(const char* what, const float* got, const float* want, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (got[i] != want[i])
      FAIL("%s: first mismatch at index %zu: got %.9g, expected %.9g", what, i, (double)got[i],
           (double)want[i]);
}

// The end of a successful run: `return report_pass();` from main.
inline int report_pass() {
  printf("PASS %s\n", TEST_NAME);
  return 0;
}
