// polybench/gesummv - PolyBench/GPU GESUMMV: y = alpha * A x + beta * B x for N x N row-major
// float matrices A and B.
// Kernel: gesummv_kernel, one thread per row in 1-D blocks of 256 threads, grid N / 256. Each
// thread walks its rows of A and B (a warp's loads are N floats apart: uncoalesced), reading the
// shared x[j] (a broadcast). As in the GPU port, both partial sums accumulate in global memory,
// tmp[i] and y[i] (zeroed before the launch; the pointers may alias, so the stores stay inside
// the loop), and y[i] = alpha * tmp[i] + beta * y[i] at the end.
#include <vector>

#include "workload.h"

__global__ void gesummv_kernel(int n, float alpha, float beta, const float* a, const float* b,
                               const float* x, float* y, float* tmp) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  for (int j = 0; j < n; ++j) {
    tmp[i] += a[i * n + j] * x[j];
    y[i] += b[i * n + j] * x[j];
  }
  y[i] = alpha * tmp[i] + beta * y[i];
}

int main(int argc, char** argv) {
  workload::Run run("gesummv", argc, argv);
  // large is PolyBench/GPU's standard dataset (N = 4096).
  const int n = run.pick(1024, 2048, 4096);
  const float alpha = 1.5f, beta = 1.2f;
  const int block = 256;
  const unsigned grid = workload::ceil_div(n, block);
  run.info("y = %g * A x + %g * B x, A and B %d x %d", alpha, beta, n, n);
  run.info("kernel gesummv_kernel: grid %u, block %d", grid, block);

  // Entries uniform in [0, 1), non-negative like PolyBench's initial values: no cancellation,
  // so a relative tolerance is meaningful.
  workload::Rng rng(run.seed());
  std::vector<float> a(size_t(n) * n), b(size_t(n) * n), x(n);
  for (auto* v : {&a, &b, &x})
    for (auto& e : *v) e = rng.uniform();

  float *da, *db, *dx, *dy, *dtmp;
  CUDA_CHECK(cudaMalloc(&da, a.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&db, b.size() * sizeof(float)));
  for (float** p : {&dx, &dy, &dtmp}) CUDA_CHECK(cudaMalloc(p, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(db, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dy, 0, n * sizeof(float)));
  CUDA_CHECK(cudaMemset(dtmp, 0, n * sizeof(float)));

  gesummv_kernel<<<grid, block>>>(n, alpha, beta, da, db, dx, dy, dtmp);
  CUDA_CHECK(cudaGetLastError());
  std::vector<float> got_y(n), got_tmp(n);
  CUDA_CHECK(cudaMemcpy(got_y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(got_tmp.data(), dtmp, n * sizeof(float), cudaMemcpyDeviceToHost));

  // CPU reference in double.
  std::vector<double> want_y(n), want_tmp(n);
  for (int i = 0; i < n; ++i) {
    double ax = 0.0, bx = 0.0;
    for (int j = 0; j < n; ++j) {
      ax += double(a[size_t(i) * n + j]) * x[j];
      bx += double(b[size_t(i) * n + j]) * x[j];
    }
    want_tmp[i] = ax;
    want_y[i] = double(alpha) * ax + double(beta) * bx;
  }
  // Float FMA chains of up to 4096 non-negative terms summed in order: the rounding error stays
  // far below 1e-4 relative (observed ~1e-6), while one missing term (~1/4096 = 2.4e-4 of a
  // sum) is still caught.
  const std::vector<double> y_d(got_y.begin(), got_y.end()), tmp_d(got_tmp.begin(), got_tmp.end());
  run.check_close("tmp", tmp_d.data(), want_tmp.data(), n, 1e-4, 1e-6);
  run.check_close("y", y_d.data(), want_y.data(), n, 1e-4, 1e-6);

  for (float* p : {da, db, dx, dy, dtmp}) CUDA_CHECK(cudaFree(p));
  return run.pass();
}
