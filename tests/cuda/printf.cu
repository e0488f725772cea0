// printf.cu - device-side printf.
//
// Covers: device printf of int, unsigned, long, long long, float and double with %f %e %E %g
// %G and widths/precision/flags, %s (with width and precision), %c, %x/%X/%o, %%; output of
// several launches in a known order (every kernel is launched <<<1, N>>> with a single printing
// thread, followed by cudaDeviceSynchronize, which flushes the device printf buffer).
// %p is not used (addresses are not deterministic).
//
// The program captures its own stdout (fd 1) while the kernels run, compares the captured text
// with the expected text below, then writes it to stdout followed by "PASS printf".
// Expected stdout, exactly (the ctest regex checks it too):
//
// int: 42 -7   123|45   |00067|+8| 9
// unsigned: 4000000000 ff BEEF 10 0xff 00000abc
// long long: -1234567890123 18446744073709551615 123456789abc -9876543210
// float: 1.500000 3.14    2.718|-0.5    |3
// exp: 1.234568e+04 1.230e-04 1.000000E-300  -6.0221e+23|
// g: 0.0001 1e+10 100 1.23457e+08 3.14 1E-20 0.5
// double: 0.3333333333  -0.25 0.1
// str: hello|     right|left  |xY!|%|tru
// args: 7 -2.5 0.125 Z
// launch 0: block 0 thread 0 of 1
// launch 1: block 0 thread 0 of 1
// launch 2: block 0 thread 0 of 1
// order 0 from thread 5 of 32
// order 1 from thread 5 of 32
// order 2 from thread 5 of 32
// order 3 from thread 5 of 32
// same thread: first
// same thread: second
// same thread: third 3
// PASS printf
//
// Build: nvcc -cudart shared -o printf printf.cu        [also builds with CUDA 11.8]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

#include <cuda_runtime.h>

#define TEST_NAME "printf"
static void restore_stdout();  // defined below: a failure line goes to the real stdout
#define TEST_BEFORE_FAIL() restore_stdout()
#include "cuda_check.h"

static int g_saved_stdout = -1;  // original fd 1 while stdout is being captured

static const char kExpected[] =
    "int: 42 -7   123|45   |00067|+8| 9\n"
    "unsigned: 4000000000 ff BEEF 10 0xff 00000abc\n"
    "long long: -1234567890123 18446744073709551615 123456789abc -9876543210\n"
    "float: 1.500000 3.14    2.718|-0.5    |3\n"
    "exp: 1.234568e+04 1.230e-04 1.000000E-300  -6.0221e+23|\n"
    "g: 0.0001 1e+10 100 1.23457e+08 3.14 1E-20 0.5\n"
    "double: 0.3333333333  -0.25 0.1\n"
    "str: hello|     right|left  |xY!|%|tru\n"
    "args: 7 -2.5 0.125 Z\n"
    "launch 0: block 0 thread 0 of 1\n"
    "launch 1: block 0 thread 0 of 1\n"
    "launch 2: block 0 thread 0 of 1\n"
    "order 0 from thread 5 of 32\n"
    "order 1 from thread 5 of 32\n"
    "order 2 from thread 5 of 32\n"
    "order 3 from thread 5 of 32\n"
    "same thread: first\n"
    "same thread: second\n"
    "same thread: third 3\n";

static void restore_stdout() {
  if (g_saved_stdout >= 0) {
    fflush(stdout);
    dup2(g_saved_stdout, 1);
    close(g_saved_stdout);
    g_saved_stdout = -1;
  }
}

__global__ void print_formats() {
  printf("int: %d %i %5d|%-5d|%05d|%+d|% d\n", 42, -7, 123, 45, 67, 8, 9);
  printf("unsigned: %u %x %X %o %#x %08x\n", 4000000000u, 255u, 0xBEEFu, 8u, 255u, 0xabcu);
  printf("long long: %lld %llu %llx %ld\n", -1234567890123LL, 18446744073709551615ULL,
         0x123456789abcULL, -9876543210L);
  printf("float: %f %.2f %8.3f|%-8.1f|%.0f\n", 1.5f, 3.14159f, 2.71828f, -0.5f, 2.6f);
  printf("exp: %e %.3e %E %12.4e|\n", 12345.678, 0.000123, 1e-300, -6.02214076e23);
  printf("g: %g %g %g %g %.3g %G %g\n", 0.0001, 1e10, 100.0, 123456789.0, 3.14159, 1e-20, 0.5);
  printf("double: %.10f %6.2f %.15g\n", 1.0 / 3.0, -0.25, 0.1);
  printf("str: %s|%10s|%-6s|%c%c%c|%%|%.3s\n", "hello", "right", "left", 'x', 'Y', '!',
         "truncate");
}

// Values that only exist at run time (kernel parameters).
__global__ void print_args(int i, float f, double d, char c) {
  printf("args: %d %g %g %c\n", i, f, d, c);
}

__global__ void print_launch(int launch) {
  printf("launch %d: block %d thread %d of %d\n", launch, (int)blockIdx.x, (int)threadIdx.x,
         (int)blockDim.x);
}

// 32 threads, only thread 5 prints.
__global__ void print_one_thread(int order) {
  if (threadIdx.x == 5)
    printf("order %d from thread %d of %d\n", order, (int)threadIdx.x, (int)blockDim.x);
}

// Several printf calls by one thread appear in program order.
__global__ void print_sequence(int n) {
  printf("same thread: first\n");
  printf("same thread: second\n");
  printf("same thread: third %d\n", n);
}

int main() {
  CHECK(cudaSetDevice(0));
  CHECK(cudaFree(0));  // create the context before redirecting stdout

  // Capture fd 1 into a temporary file.
  FILE* cap = tmpfile();
  if (!cap) FAIL("tmpfile() failed");
  fflush(stdout);
  g_saved_stdout = dup(1);
  if (g_saved_stdout < 0 || dup2(fileno(cap), 1) < 0) FAIL("cannot redirect stdout");

  print_formats<<<1, 1>>>();
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  print_args<<<1, 1>>>(7, -2.5f, 0.125, 'Z');
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  for (int launch = 0; launch < 3; ++launch) {
    print_launch<<<1, 1>>>(launch);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
  }
  for (int order = 0; order < 4; ++order) {
    print_one_thread<<<1, 32>>>(order);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
  }
  print_sequence<<<1, 1>>>(3);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());

  restore_stdout();

  // Read back what the device printed.
  static char got[8192];
  fseek(cap, 0, SEEK_SET);
  size_t len = fread(got, 1, sizeof got - 1, cap);
  got[len] = '\0';
  fclose(cap);
  fputs(got, stdout);

  if (strcmp(got, kExpected) != 0) {
    // Report the first differing line.
    const char* g = got;
    const char* e = kExpected;
    int line = 1;
    while (*g && *g == *e) {
      if (*g == '\n') ++line;
      ++g;
      ++e;
    }
    const char* gl = g;
    while (gl > got && gl[-1] != '\n') --gl;
    const char* el = e;
    while (el > kExpected && el[-1] != '\n') --el;
    int gn = (int)strcspn(gl, "\n"), en = (int)strcspn(el, "\n");
    FAIL("device output differs at line %d: got \"%.*s\", expected \"%.*s\"", line, gn, gl, en,
         el);
  }
  CHECK(cudaGetLastError());
  return report_pass();
}
