// shoc/stream - the four STREAM device-bandwidth kernels, run in STREAM's order for several
// repetitions on arrays resident on the device (no host transfers in between):
//   copy  c = a,   scale  b = s * c,   add  c = a + b,   triad  a = b + s * c.
// Single precision (or double with --double 1). Kernels: copy, scale, add, triad, one element per
// thread, blocks of 256 threads, grid = n / 256 (rounded up), 4 launches per repetition.
#include <cmath>
#include <vector>

#include "workload.h"

// Plain pointers, as STREAM-style device kernels are written: ordinary global loads and stores.
template <class T>
__global__ void copy(const T* a, T* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i];
}

template <class T>
__global__ void scale(T* b, const T* c, T s, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = s * c[i];
}

template <class T>
__global__ void add(const T* a, const T* b, T* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

// b + s * c, written as the fused multiply-add nvcc contracts it to anyway, so that the result
// does not depend on -fmad and the CPU reference (std::fma) can match it bit for bit.
template <class T>
__global__ void triad(T* a, const T* b, const T* c, T s, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = fma(s, c[i], b[i]);
}

template <class T>
void run_stream(const workload::Run& run, size_t n, int reps) {
  const int block = 256;
  const unsigned grid = workload::ceil_div(n, block);
  const T s = 3;  // STREAM's scalar
  run.info("%zu %s elements, %d repetitions of copy, scale, add, triad: grid %u x block %d", n,
           sizeof(T) == 4 ? "float" : "double", reps, grid, block);

  workload::Rng rng(run.seed());
  std::vector<T> a(n), b(n), c(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = static_cast<T>(rng.uniform_double(-1.0, 1.0));
    b[i] = static_cast<T>(rng.uniform_double(-1.0, 1.0));
    c[i] = static_cast<T>(rng.uniform_double(-1.0, 1.0));
  }
  T *da, *db, *dc;
  CUDA_CHECK(cudaMalloc(&da, n * sizeof(T)));
  CUDA_CHECK(cudaMalloc(&db, n * sizeof(T)));
  CUDA_CHECK(cudaMalloc(&dc, n * sizeof(T)));
  CUDA_CHECK(cudaMemcpy(da, a.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(db, b.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dc, c.data(), n * sizeof(T), cudaMemcpyHostToDevice));

  const int len = static_cast<int>(n);
  for (int r = 0; r < reps; ++r) {
    copy<<<grid, block>>>(da, dc, len);
    CUDA_CHECK(cudaGetLastError());
    scale<<<grid, block>>>(db, dc, s, len);
    CUDA_CHECK(cudaGetLastError());
    add<<<grid, block>>>(da, db, dc, len);
    CUDA_CHECK(cudaGetLastError());
    triad<<<grid, block>>>(da, db, dc, s, len);
    CUDA_CHECK(cudaGetLastError());
  }

  // The same sequence on the host. Every step is one correctly rounded operation (the triad one
  // fused multiply-add on both sides), so the arrays must match exactly.
  for (int r = 0; r < reps; ++r)
    for (size_t i = 0; i < n; ++i) {
      c[i] = a[i];
      b[i] = s * c[i];
      c[i] = a[i] + b[i];
      a[i] = std::fma(s, c[i], b[i]);
    }
  std::vector<T> got(n);
  CUDA_CHECK(cudaMemcpy(got.data(), da, n * sizeof(T), cudaMemcpyDeviceToHost));
  run.check_close("a", got.data(), a.data(), n, 0.0, 0.0);
  CUDA_CHECK(cudaMemcpy(got.data(), db, n * sizeof(T), cudaMemcpyDeviceToHost));
  run.check_close("b", got.data(), b.data(), n, 0.0, 0.0);
  CUDA_CHECK(cudaMemcpy(got.data(), dc, n * sizeof(T), cudaMemcpyDeviceToHost));
  run.check_close("c", got.data(), c.data(), n, 0.0, 0.0);

  CUDA_CHECK(cudaFree(da));
  CUDA_CHECK(cudaFree(db));
  CUDA_CHECK(cudaFree(dc));
}

int main(int argc, char** argv) {
  workload::Run run("stream", argc, argv, {"--double"});
  // large: STREAM's default array size (10 million elements) and repetition count (NTIMES = 10).
  const size_t n = run.pick<size_t>(1 << 16, 1 << 20, 10000000);
  const int reps = run.pick(2, 2, 10);
  if (run.option("--double", 0))
    run_stream<double>(run, n, reps);
  else
    run_stream<float>(run, n, reps);
  return run.pass();
}
