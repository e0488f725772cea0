// error_uaf.cu - reading device memory after cudaFree is a sticky cudaErrorIllegalAddress.
//
// Covers: a kernel reads a 32 MiB buffer (fine), the buffer is freed, the same kernel reads it
// again: the next synchronising call returns cudaErrorIllegalAddress, and the error is sticky
// exactly as in error_oob.cu (further cudaMalloc / cudaMemcpy / launches return it: "This
// leaves the process in an inconsistent state and any further CUDA work will return the same
// error"; cudaGetLastError reports it once per failing call). On warpsim, cudaDeviceReset then
// succeeds and a fresh allocation + kernel work (see error_oob.cu for why that part is checked
// on warpsim only).
//
// On a real GPU the fault relies on cudaFree unmapping the range. The buffer is 32 MiB (many
// 2 MiB pages, so it is not a sub-allocation of a shared page), nothing is allocated between
// the free and the launch (so the range is not reused), and the read is in the middle.
//
// Build: nvcc -cudart shared -o error_uaf error_uaf.cu
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>

#define TEST_NAME "error_uaf"
#include "cuda_check.h"

// 32 threads each read one int at index base + threadIdx.x and store it to out.
__global__ void read_some(const int* p, size_t base, int* out) {
  out[threadIdx.x] = p[base + threadIdx.x];
}

__global__ void fill(int* p, size_t base, int n, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[base + i] = v + i;
}

int main() {
  CHECK(cudaSetDevice(0));
  const size_t bytes = (size_t)32 << 20;
  const size_t mid = bytes / sizeof(int) / 2;

  int* out = nullptr;  // allocated first, stays valid
  CHECK(cudaMalloc(&out, 32 * sizeof(int)));
  int* buf = nullptr;
  CHECK(cudaMalloc(&buf, bytes));

  // Valid use first.
  fill<<<1, 32>>>(buf, mid, 32, 500);
  CHECK(cudaGetLastError());
  read_some<<<1, 32>>>(buf, mid, out);
  CHECK(cudaGetLastError());
  int h[32];
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 32; ++i) EXPECT(h[i] == 500 + i, "before free: index %d: got %d", i, h[i]);

  // Use after free.
  CHECK(cudaFree(buf));
  read_some<<<1, 32>>>(buf, mid, out);
  CHECK_RET(cudaDeviceSynchronize(), cudaErrorIllegalAddress);

  // Sticky.
  void* more = nullptr;
  CHECK_RET(cudaMalloc(&more, 256), cudaErrorIllegalAddress);
  CHECK_RET(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost), cudaErrorIllegalAddress);
  CHECK_RET(cudaPeekAtLastError(), cudaErrorIllegalAddress);
  CHECK_RET(cudaGetLastError(), cudaErrorIllegalAddress);
  CHECK_RET(cudaGetLastError(), cudaSuccess);  // reported once, as any error
  CHECK_RET(cudaStreamSynchronize(0), cudaErrorIllegalAddress);
  CHECK_RET(cudaGetLastError(), cudaErrorIllegalAddress);
  const char* text = cudaGetErrorString(cudaErrorIllegalAddress);
  EXPECT(text && text[0] != '\0', "cudaGetErrorString returned an empty string");

  // Reset and start over.
  if (!on_warpsim()) {
    note_skipped_on_gpu("recovery by cudaDeviceReset");
    return report_pass();
  }
  CHECK(cudaDeviceReset());
  (void)cudaGetLastError();
  out = nullptr;
  int* fresh = nullptr;
  CHECK(cudaMalloc(&fresh, 64 * sizeof(int)));
  fill<<<2, 32>>>(fresh, 0, 64, -7);
  CHECK(cudaGetLastError());
  int back[64];
  CHECK(cudaMemcpy(back, fresh, sizeof back, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 64; ++i)
    EXPECT(back[i] == -7 + i, "after reset: index %d: got %d", i, back[i]);
  CHECK(cudaFree(fresh));
  CHECK(cudaGetLastError());
  return report_pass();
}
