// memcheck_modes.cu - a kernel reading 1 KiB before the start of a cudaMalloc buffer.
//
// Covers: the access pattern of Rodinia srad_v2, whose kernel reads a little below the start of
// its first buffer. On a GPU that address is mapped (the CUDA runtime maps device memory in
// 2 MiB granules; below the second of two buffers lies the first one's granule, below the
// program's first buffer memory the runtime mapped for itself), so the read returns whatever is
// there and the kernel completes. The program
//  - allocates two 4 KiB buffers, fills the second, and runs a kernel that doubles it while
//    copying the 256 ints below its start (whatever they hold) to a third buffer;
//  - does the same with the first buffer, the program's first allocation;
//  - checks the doubled values (the ints read below the buffers are not checked: a GPU returns
//    the first buffer's or the runtime's memory there, warpsim's default mode zeros).
// warpsim runs it twice (tests/cuda/CMakeLists.txt): under the default `--memcheck=gpu` it
// passes; under `--memcheck=strict` (compute-sanitizer's view) the read below the buffer is an
// out-of-bounds fault, so cudaDeviceSynchronize returns cudaErrorIllegalAddress, the program
// prints FAIL, and the test expects warpsim's report naming the buffer.
//
// Build: nvcc -cudart shared -o memcheck_modes memcheck_modes.cu
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#define TEST_NAME "memcheck_modes"
#include "cuda_check.h"

constexpr int kN = 1024;     // ints per buffer (4 KiB)
constexpr int kBelow = 256;  // ints read below the buffer (1 KiB)

__global__ void double_with_halo(const int* in, int* out, int* halo, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kBelow) halo[i] = in[i - kBelow];  // below the start of `in`
  if (i < n) out[i] = 2 * in[i];
}

int main() {
  CHECK(cudaSetDevice(0));
  int* first = nullptr;
  int* second = nullptr;
  int* out = nullptr;
  int* halo = nullptr;
  CHECK(cudaMalloc(&first, kN * sizeof(int)));
  CHECK(cudaMalloc(&second, kN * sizeof(int)));
  CHECK(cudaMalloc(&out, kN * sizeof(int)));
  CHECK(cudaMalloc(&halo, kBelow * sizeof(int)));
  static int h[kN];
  for (int i = 0; i < kN; ++i) h[i] = 3 * i + 1;
  CHECK(cudaMemcpy(second, h, sizeof h, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(first, 0x11, kN * sizeof(int)));

  double_with_halo<<<kN / 128, 128>>>(second, out, halo, kN);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());

  static int got[kN];
  static int want[kN];
  CHECK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
  for (int i = 0; i < kN; ++i) want[i] = 2 * (3 * i + 1);
  check_ints("doubled", got, want, kN);

  // Below the program's first allocation.
  double_with_halo<<<kN / 128, 128>>>(first, out, halo, kN);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
  for (int i = 0; i < kN; ++i) want[i] = 2 * 0x11111111;
  check_ints("doubled first buffer", got, want, kN);

  CHECK(cudaFree(halo));
  CHECK(cudaFree(out));
  CHECK(cudaFree(second));
  CHECK(cudaFree(first));
  return report_pass();
}
