// A program that runs as long as it is asked to, for the tests of what
// `warpsim run` and `warpsim bench` do around a program (signals, progress,
// outputs, the watchdog): tests/tools/reliability_test.py.
//
//   long_run [--blocks N] [--iterations N] [--launches N] [--chdir DIR]
//            [--ignore-term] [--hang] [--killed]
//
// --chdir DIR moves to DIR before any CUDA call (relative output paths must
// not follow it); --ignore-term ignores SIGTERM (warpsim must still stop it);
// --hang launches a kernel that never ends (the watchdog's case); --killed
// ends by SIGKILL, so that the runtime never writes its statistics.
#define TEST_NAME "long_run"
#include <signal.h>
#include <unistd.h>

#include <cstring>

#include "cuda_check.h"

__global__ void work(float* out, int iterations) {
  float v = static_cast<float>(threadIdx.x);
  for (int i = 0; i < iterations; ++i) v = v * 0.999f + 1.0f;
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

__global__ void hang(volatile int* flag) {
  while (*flag == 0) {
  }
}

int main(int argc, char** argv) {
  int blocks = 64, iterations = 1000, launches = 1;
  bool hang_kernel = false;
  for (int i = 1; i < argc; ++i) {
    const bool more = i + 1 < argc;
    if (!std::strcmp(argv[i], "--blocks") && more) blocks = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--iterations") && more) iterations = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--launches") && more) launches = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--chdir") && more) EXPECT(chdir(argv[++i]) == 0, "chdir %s", argv[i]);
    else if (!std::strcmp(argv[i], "--ignore-term")) signal(SIGTERM, SIG_IGN);
    else if (!std::strcmp(argv[i], "--hang")) hang_kernel = true;
    else if (!std::strcmp(argv[i], "--killed")) kill(getpid(), SIGKILL);
    else FAIL("unknown argument %s", argv[i]);
  }
  if (hang_kernel) {
    int* flag = nullptr;
    CHECK(cudaMalloc(&flag, sizeof(int)));
    CHECK(cudaMemset(flag, 0, sizeof(int)));
    hang<<<1, 32>>>(flag);
    CHECK_RET(cudaDeviceSynchronize(), cudaErrorLaunchTimeout);
    return report_pass();
  }
  const int threads = 128;
  float* out = nullptr;
  CHECK(cudaMalloc(&out, sizeof(float) * blocks * threads));
  for (int l = 0; l < launches; ++l) {
    work<<<blocks, threads>>>(out, iterations);
    CHECK(cudaGetLastError());
  }
  CHECK(cudaDeviceSynchronize());
  float first = 0;
  CHECK(cudaMemcpy(&first, out, sizeof first, cudaMemcpyDeviceToHost));
  EXPECT(first > 0, "result %f", first);
  return report_pass();
}
