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
// Built with -DTEST_KEEP_GOING, a failure does not end the program: every failure line is
// printed (check_ints/check_floats: up to 8 per comparison) and report_pass() prints
// `FAIL <name>: <n> failures` and returns 1. This lists every expectation a real GPU
// disagrees with in one run (README.md, "Checking the expectations on a GPU").
//
// Plain C++ with nothing from the C++ library beyond <cstdio>/<cstdlib>: the [cuda11] programs
// are also built with CUDA 11.8's nvcc and linked by clang-14 without libstdc++ (README.md,
// "Building").
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cstring>

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

#ifdef TEST_KEEP_GOING
inline int test_failures = 0;
inline void test_fail_end() {
  printf("\n");
  fflush(stdout);
  ++test_failures;
}
// The failure lines each comparison may print before it stops.
constexpr int kTestMismatchLines = 8;
#else
[[noreturn]] inline void test_fail_end() {
  printf("\n");
  exit(1);
}
constexpr int kTestMismatchLines = 1;
#endif

// FAIL <name>: <printf-style reason>, exit status 1.
#define FAIL(...)                                                                         \
  do {                                                                                    \
    test_fail_begin();                                                                    \
    printf(__VA_ARGS__);                                                                  \
    test_fail_end();                                                                      \
  } while (0)

constexpr int kTestCrashed = -1;  // no cudaError_t has this value
#ifdef TEST_KEEP_GOING
// A call that crashes (a real runtime may dereference a NULL argument that warpsim rejects)
// is reported as a failure and the program goes on: TEST_GUARDED(err, call) sets err to the
// call's result, or to kTestCrashed.
#include <csetjmp>
#include <csignal>
inline sigjmp_buf test_guard;
inline void test_on_crash(int) { siglongjmp(test_guard, 1); }
#define TEST_GUARDED(err, call)                                                           \
  do {                                                                                    \
    signal(SIGSEGV, test_on_crash);                                                       \
    if (sigsetjmp(test_guard, 1) == 0)                                                    \
      err = (int)(call);                                                                  \
    else                                                                                  \
      err = kTestCrashed;                                                                 \
    signal(SIGSEGV, SIG_DFL);                                                             \
  } while (0)
#else
#define TEST_GUARDED(err, call) err = (int)(call)
#endif

// `call` must return `expected` (a cudaError_t).
#define CHECK_RET(call, expected)                                                         \
  do {                                                                                    \
    int ret_;                                                                             \
    TEST_GUARDED(ret_, call);                                                             \
    const cudaError_t err_ = (cudaError_t)ret_;                                           \
    if (ret_ != (int)(expected)) {                                                        \
      test_fail_begin();                                                                  \
      if (ret_ == kTestCrashed)                                                           \
        printf("%s:%d: %s crashed (SIGSEGV), expected %s", __FILE__, __LINE__, #call,     \
               #expected);                                                                \
      else                                                                                \
        printf("%s:%d: %s returned %s (%d), expected %s", __FILE__, __LINE__, #call,      \
               cudaGetErrorName(err_), (int)err_, #expected);                             \
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
  int lines = 0;
  for (size_t i = 0; i < n && lines < kTestMismatchLines; ++i)
    if (got[i] != want[i]) {
      FAIL("%s: %s mismatch at index %zu: got %d, expected %d", what, lines ? "next" : "first",
           i, got[i], want[i]);
      ++lines;
    }
}

// Floats are printed with %.9g, which tells any two floats apart.
inline void check_floats(const char* what, const float* got, const float* want, size_t n) {
  int lines = 0;
  for (size_t i = 0; i < n && lines < kTestMismatchLines; ++i)
    if (got[i] != want[i]) {
      FAIL("%s: %s mismatch at index %zu: got %.9g, expected %.9g", what,
           lines ? "next" : "first", i, (double)got[i], (double)want[i]);
      ++lines;
    }
}

// Where CUDA majors differ (README.md, "Behaviour measured on a GPU"): a launch whose grid or
// block the device cannot run, and a block beyond the kernel's own limit (__launch_bounds__,
// registers), fail with cudaErrorInvalidValue from CUDA 13's runtime (measured on an H100);
// with cudaErrorInvalidConfiguration and cudaErrorLaunchOutOfResources before.
#if CUDART_VERSION >= 13000
#define EXPECTED_BAD_LAUNCH_SHAPE cudaErrorInvalidValue
#define EXPECTED_BEYOND_KERNEL_LIMIT cudaErrorInvalidValue
#else
#define EXPECTED_BAD_LAUNCH_SHAPE cudaErrorInvalidConfiguration
#define EXPECTED_BEYOND_KERNEL_LIMIT cudaErrorLaunchOutOfResources
#endif

// Whether the program runs on warpsim (its device's name starts "warpsim"). A few parts of the
// programs check what warpsim does where GPUs are not alike or not documented - recovery from
// a kernel fault by cudaDeviceReset (a measured H100 refuses every later call with
// cudaErrorDevicesUnavailable), device-side cudaMemsetAsync/cudaMemcpyAsync (a measured H100
// returns cudaSuccess and does nothing); on a GPU they are skipped with a note.
inline bool on_warpsim() {
  static const int simulated = [] {
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return 0;
    return strncmp(p.name, "warpsim", 7) == 0 ? 1 : 0;
  }();
  return simulated != 0;
}

// Prints why a warpsim-only part is skipped on a GPU.
inline void note_skipped_on_gpu(const char* what) {
  printf("note: %s: checked on warpsim only (README.md)\n", what);
}

// The end of a successful run: `return report_pass();` from main.
inline int report_pass() {
#ifdef TEST_KEEP_GOING
  if (test_failures) {
    printf("FAIL %s: %d failures\n", TEST_NAME, test_failures);
    return 1;
  }
#endif
  printf("PASS %s\n", TEST_NAME);
  return 0;
}
