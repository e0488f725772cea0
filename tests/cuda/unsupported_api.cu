// unsupported_api.cu - an API warpsim does not implement fails cleanly.  WARPSIM-SPECIFIC.
//
// warpsim's runtime does not implement CUDA IPC. cudaIpcGetMemHandle on a device pointer must
// return cudaErrorNotSupported (801), print exactly one line naming the function on stderr, and
// leave the runtime fully usable: the error is not sticky (cudaGetLastError reports it once)
// and a normal allocation + launch + copy works afterwards.
//
// On a real GPU IPC works and cudaIpcGetMemHandle returns cudaSuccess, so this program FAILS
// there by design; it is only meant to run under `warpsim run`.
//
// The program captures its own stderr (fd 2) around the call to check the message.
//
// Build: nvcc -cudart shared -o unsupported_api unsupported_api.cu
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

#include <cuda_runtime.h>

#define TEST_NAME "unsupported_api"
#include "cuda_check.h"

__global__ void iota(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 3 * i - 1;
}

int main() {
  CHECK(cudaSetDevice(0));
  const int n = 512;
  int* d = nullptr;
  CHECK(cudaMalloc(&d, n * sizeof(int)));

  // Capture stderr around the unsupported call.
  FILE* cap = tmpfile();
  EXPECT(cap != nullptr, "tmpfile() failed");
  fflush(stderr);
  int saved = dup(2);
  EXPECT(saved >= 0 && dup2(fileno(cap), 2) >= 0, "cannot redirect stderr");
  cudaIpcMemHandle_t handle;
  memset(&handle, 0, sizeof handle);
  cudaError_t err = cudaIpcGetMemHandle(&handle, d);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);

  char msg[4096];
  fseek(cap, 0, SEEK_SET);
  size_t len = fread(msg, 1, sizeof msg - 1, cap);
  msg[len] = '\0';
  fclose(cap);
  fputs(msg, stderr);  // pass the message on

  EXPECT(err == cudaErrorNotSupported,
         "cudaIpcGetMemHandle returned %s (%d), expected cudaErrorNotSupported (801) "
         "(warpsim-specific expectation)",
         cudaGetErrorName(err), (int)err);
  EXPECT((int)cudaErrorNotSupported == 801, "cudaErrorNotSupported = %d",
         (int)cudaErrorNotSupported);
  int lines = 0;
  for (size_t i = 0; i < len; ++i) lines += msg[i] == '\n';
  EXPECT(lines == 1 && msg[len - 1] == '\n',
         "expected exactly one line on stderr, got %d line(s): \"%s\"", lines, msg);
  EXPECT(strstr(msg, "cudaIpcGetMemHandle") != nullptr,
         "the stderr line does not name cudaIpcGetMemHandle: \"%s\"", msg);

  // Reported once by cudaGetLastError, then cleared: not sticky.
  CHECK_RET(cudaGetLastError(), cudaErrorNotSupported);
  CHECK(cudaGetLastError());

  // The runtime keeps working.
  iota<<<(n + 127) / 128, 128>>>(d, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  int h[n];
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) EXPECT(h[i] == 3 * i - 1, "index %d: got %d", i, h[i]);
  CHECK(cudaFree(d));
  CHECK(cudaGetLastError());
  return report_pass();
}
