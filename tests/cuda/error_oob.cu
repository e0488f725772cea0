// error_oob.cu - an out-of-bounds store is a sticky cudaErrorIllegalAddress.
//
// Covers: a kernel storing 16 GiB past the end of a 4 KiB cudaMalloc buffer; then
//  - the next synchronising call (cudaDeviceSynchronize) returns cudaErrorIllegalAddress;
//  - the error is sticky. Documented for cudaErrorIllegalAddress: "This leaves the process in
//    an inconsistent state and any further CUDA work will return the same error." So
//    cudaMalloc, cudaMemcpy, cudaStreamQuery and launches afterwards return
//    cudaErrorIllegalAddress, while cudaGetDevice (no context needed) still works;
//  - each call that fails with it becomes the thread's last error like any failing call:
//    cudaGetLastError returns it once and then cudaSuccess, cudaPeekAtLastError too - the
//    context stays broken all the same (measured on an H100 with CUDA 13: cudaGetLastError
//    does not keep returning a sticky error; tests/cuda/README.md);
//  - cudaGetErrorName / cudaGetErrorString describe it;
//  - on warpsim only: cudaDeviceReset() succeeds (its only documented return value is
//    cudaSuccess) and a fresh cudaMalloc + kernel + copy works again. The enum documentation
//    goes on "To continue using CUDA, the process must be terminated and relaunched", and the
//    H100 we measured refuses every call after the reset with cudaErrorDevicesUnavailable;
//    warpsim recovers (cudaDeviceReset destroys the primary context), so the program checks
//    the recovery on warpsim and skips it on a GPU.
//
// Build: nvcc -cudart shared -o error_oob error_oob.cu        [also builds with CUDA 11.8]
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

#define TEST_NAME "error_oob"
#include "cuda_check.h"

__global__ void iota(int* out, int n, int base) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = base + i;
}

__global__ void store_far(int* p, unsigned long long index) { p[index] = 123; }

static void run_iota(int base) {
  const int n = 1024;
  int* d = nullptr;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  iota<<<n / 128, 128>>>(d, n, base);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  static int h[n];
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    EXPECT(h[i] == base + i, "iota(base %d): index %d: got %d", base, i, h[i]);
  CHECK(cudaFree(d));
}

int main() {
  CHECK(cudaSetDevice(0));
  run_iota(0);  // the device works before the fault

  int* buf = nullptr;
  CHECK(cudaMalloc(&buf, 1024 * sizeof(int)));
  // 2^32 ints = 16 GiB past the start of a 4 KiB allocation: nothing is mapped there.
  store_far<<<1, 1>>>(buf, 1ULL << 32);
  // (No cudaGetLastError here: whether the asynchronous fault is already visible right after
  // the launch is not specified.)
  CHECK_RET(cudaDeviceSynchronize(), cudaErrorIllegalAddress);

  // Sticky: further CUDA work returns the same error...
  void* more = nullptr;
  CHECK_RET(cudaMalloc(&more, 256), cudaErrorIllegalAddress);
  int h = 0;
  CHECK_RET(cudaMemcpy(&h, buf, sizeof h, cudaMemcpyDeviceToHost), cudaErrorIllegalAddress);
  CHECK_RET(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
  CHECK_RET(cudaStreamQuery(0), cudaErrorIllegalAddress);
  // ...and is the thread's last error once per failing call, like any error.
  CHECK_RET(cudaPeekAtLastError(), cudaErrorIllegalAddress);
  CHECK_RET(cudaGetLastError(), cudaErrorIllegalAddress);
  CHECK_RET(cudaGetLastError(), cudaSuccess);
  CHECK_RET(cudaPeekAtLastError(), cudaSuccess);
  iota<<<1, 32>>>(buf, 32, 0);
  CHECK_RET(cudaGetLastError(), cudaErrorIllegalAddress);  // launches fail too
  CHECK_RET(cudaGetLastError(), cudaSuccess);
  int dev = -1;
  CHECK(cudaGetDevice(&dev));  // needs no context

  const char* name = cudaGetErrorName(cudaErrorIllegalAddress);
  const char* text = cudaGetErrorString(cudaErrorIllegalAddress);
  EXPECT(name && strcmp(name, "cudaErrorIllegalAddress") == 0, "cudaGetErrorName: '%s'",
         name ? name : "(null)");
  EXPECT(text && text[0] != '\0' && strcmp(text, "unrecognized error code") != 0,
         "cudaGetErrorString: '%s'", text ? text : "(null)");
  printf("sticky error: %s: %s\n", name, text);

  // Reset and start over (see the header comment for what is and is not documented here).
  if (on_warpsim()) {
    CHECK(cudaDeviceReset());
    (void)cudaGetLastError();
    buf = nullptr;  // destroyed by the reset
    run_iota(1000);
    CHECK(cudaGetLastError());
    CHECK(cudaPeekAtLastError());
  } else {
    note_skipped_on_gpu("recovery by cudaDeviceReset");
  }

  return report_pass();
}
