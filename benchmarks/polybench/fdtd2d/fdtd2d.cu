// polybench/fdtd2d - PolyBench/GPU FDTD-2D: TMAX time steps of a 2-D finite-difference
// time-domain (Yee) update of the fields ex (NX x NY+1), ey (NX+1 x NY) and hz (NX x NY), row-major
// float, with the source _fict_[t] imposed on row 0 of ey at step t.
// Kernels, three per time step in this order, each one thread per (i, j) point of NX x NY in
// 32 x 8 thread blocks over an (NY / 32) x (NX / 8) grid (the GPU port's decomposition):
//   fdtd_step1_kernel: ey[i][j] -= 0.5 * (hz[i][j] - hz[i-1][j])        (row 0: ey = _fict_[t])
//   fdtd_step2_kernel: ex[i][j] -= 0.5 * (hz[i][j] - hz[i][j-1])        (j > 0)
//   fdtd_step3_kernel: hz[i][j] -= 0.7 * (ex[i][j+1] - ex[i][j] + ey[i+1][j] - ey[i][j])
// All plain global-memory accesses; the kernel boundaries are the only synchronisation.
#include <vector>

#include "workload.h"

__global__ void fdtd_step1_kernel(int nx, int ny, const float* fict, float* ey, const float* hz,
                                  int t) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= nx || j >= ny) return;
  if (i == 0)
    ey[j] = fict[t];
  else
    ey[i * ny + j] = ey[i * ny + j] - 0.5f * (hz[i * ny + j] - hz[(i - 1) * ny + j]);
}

__global__ void fdtd_step2_kernel(int nx, int ny, float* ex, const float* hz) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= nx || j >= ny || j == 0) return;
  ex[i * (ny + 1) + j] = ex[i * (ny + 1) + j] - 0.5f * (hz[i * ny + j] - hz[i * ny + (j - 1)]);
}

__global__ void fdtd_step3_kernel(int nx, int ny, const float* ex, const float* ey, float* hz) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= nx || j >= ny) return;
  hz[i * ny + j] = hz[i * ny + j] - 0.7f * (ex[i * (ny + 1) + (j + 1)] - ex[i * (ny + 1) + j] +
                                            ey[(i + 1) * ny + j] - ey[i * ny + j]);
}

int main(int argc, char** argv) {
  workload::Run run("fdtd2d", argc, argv);
  // large is PolyBench/GPU's standard dataset (NX = NY = 2048, TMAX = 500).
  const int nx = run.pick(128, 512, 2048), ny = nx;
  const int tmax = run.pick(6, 6, 500);
  const dim3 block(32, 8);
  const dim3 grid(workload::ceil_div(ny, block.x), workload::ceil_div(nx, block.y));
  run.info("%d x %d grid, %d time steps", nx, ny, tmax);
  run.info("kernels fdtd_step1/2/3_kernel: %d launches each, grid %u x %u, block %u x %u", tmax,
           grid.x, grid.y, block.x, block.y);

  // Smooth initial fields (a few random low-frequency modes plus a little noise) and a
  // sinusoidal source, like an excitation a simulation would start from.
  workload::Rng rng(run.seed());
  const size_t n_ex = size_t(nx) * (ny + 1), n_ey = size_t(nx + 1) * ny, n_hz = size_t(nx) * ny;
  std::vector<float> ex(n_ex), ey(n_ey), hz(n_hz), fict(tmax);
  auto field = [&](std::vector<float>& f, int rows, int cols) {
    const double fx = rng.uniform_double(1, 4), fy = rng.uniform_double(1, 4);
    const double ph = rng.uniform_double(0, 6.283185307179586);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j)
        f[size_t(i) * cols + j] =
            float(std::sin(6.283185307179586 * (fx * i / rows + fy * j / cols) + ph) +
                  0.1 * rng.uniform(-1.0f, 1.0f));
  };
  field(ex, nx, ny + 1);
  field(ey, nx + 1, ny);
  field(hz, nx, ny);
  for (int t = 0; t < tmax; ++t) fict[t] = float(std::sin(0.05 * t));

  float *dex, *dey, *dhz, *dfict;
  CUDA_CHECK(cudaMalloc(&dex, n_ex * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dey, n_ey * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dhz, n_hz * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&dfict, tmax * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(dex, ex.data(), n_ex * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dey, ey.data(), n_ey * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dhz, hz.data(), n_hz * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dfict, fict.data(), tmax * sizeof(float), cudaMemcpyHostToDevice));

  for (int t = 0; t < tmax; ++t) {
    fdtd_step1_kernel<<<grid, block>>>(nx, ny, dfict, dey, dhz, t);
    CUDA_CHECK(cudaGetLastError());
    fdtd_step2_kernel<<<grid, block>>>(nx, ny, dex, dhz);
    CUDA_CHECK(cudaGetLastError());
    fdtd_step3_kernel<<<grid, block>>>(nx, ny, dex, dey, dhz);
    CUDA_CHECK(cudaGetLastError());
  }
  std::vector<float> got_ex(n_ex), got_ey(n_ey), got_hz(n_hz);
  CUDA_CHECK(cudaMemcpy(got_ex.data(), dex, n_ex * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(got_ey.data(), dey, n_ey * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(got_hz.data(), dhz, n_hz * sizeof(float), cudaMemcpyDeviceToHost));

  // CPU reference in double, the same three sweeps per step.
  std::vector<double> rex(ex.begin(), ex.end()), rey(ey.begin(), ey.end()),
      rhz(hz.begin(), hz.end());
  const size_t sx = ny + 1, sy = ny;  // row strides of ex and of ey / hz
  for (int t = 0; t < tmax; ++t) {
    for (int j = 0; j < ny; ++j) rey[j] = fict[t];
    for (int i = 1; i < nx; ++i)
      for (int j = 0; j < ny; ++j)
        rey[i * sy + j] -= 0.5 * (rhz[i * sy + j] - rhz[(i - 1) * sy + j]);
    for (int i = 0; i < nx; ++i)
      for (int j = 1; j < ny; ++j) rex[i * sx + j] -= 0.5 * (rhz[i * sy + j] - rhz[i * sy + j - 1]);
    for (int i = 0; i < nx; ++i)
      for (int j = 0; j < ny; ++j)
        rhz[i * sy + j] -=
            0.7 * (rex[i * sx + j + 1] - rex[i * sx + j] + rey[(i + 1) * sy + j] - rey[i * sy + j]);
  }
  // Each step adds a few float roundings of values of order 1 (0.5 * 0.7 is inside the scheme's
  // CFL limit, so errors are not amplified); the float-vs-double difference grows at most
  // linearly with the steps (observed ~5e-7 after 6 steps, ~5e-6 after 500 in a float
  // emulation). 1e-5 + 2e-7 per step covers that with room, while a wrong update is off by ~0.1.
  const double tol = 1e-5 + 2e-7 * tmax;
  const std::vector<double> ex_d(got_ex.begin(), got_ex.end()), ey_d(got_ey.begin(), got_ey.end()),
      hz_d(got_hz.begin(), got_hz.end());
  run.check_close("ex", ex_d.data(), rex.data(), n_ex, 0.0, tol);
  run.check_close("ey", ey_d.data(), rey.data(), n_ey, 0.0, tol);
  run.check_close("hz", hz_d.data(), rhz.data(), n_hz, 0.0, tol);

  for (float* p : {dex, dey, dhz, dfict}) CUDA_CHECK(cudaFree(p));
  return run.pass();
}
