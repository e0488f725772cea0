// rodinia/gaussian - Gaussian elimination without pivoting (Rodinia Gaussian): solves A x = b for a
// dense diagonally dominant n×n matrix. For every pivot column t (n-1 of them) the host launches
// Fan1 (the multipliers m[i][t] = a[i][t] / a[t][t] of the rows below the pivot, one thread per row,
// 1-D blocks of 512) and then Fan2 (the rank-1 update of the trailing rows of a and of b, one thread
// per element over a 2-D grid of 4×4 blocks that covers the whole matrix). Back substitution runs on
// the host, as in the well-known version.
#include <vector>

#include "workload.h"

constexpr int kFan1Block = 512;
constexpr int kFan2Block = 4;  // 4×4 threads, as the well-known version's BLOCK_SIZE_XY

__global__ void fan1(float* m, const float* a, int n, int t) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;  // i-th row below the pivot
  if (i >= n - 1 - t) return;
  const int row = i + 1 + t;
  m[n * row + t] = a[n * row + t] / a[n * t + t];
}

// x indexes rows below the pivot, y columns from the pivot on: consecutive threadIdx.x touch
// consecutive rows, so the a and m accesses are strided by n, as in the well-known version.
__global__ void fan2(const float* m, float* a, float* b, int n, int t) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= n - 1 - t || y >= n - t) return;
  const int row = x + 1 + t, col = y + t;
  // Only column t of the trailing rows is written here, and nobody reads it (they read m).
  a[n * row + col] -= m[n * row + t] * a[n * t + col];
  if (y == 0) b[row] -= m[n * row + t] * b[t];
}

// Host back substitution on the upper-triangular system left in a, b.
static std::vector<float> back_substitute(const std::vector<float>& a, const std::vector<float>& b,
                                          int n) {
  std::vector<float> x(n);
  for (int i = n - 1; i >= 0; --i) {
    float s = b[i];
    for (int j = i + 1; j < n; ++j) s -= a[static_cast<size_t>(n) * i + j] * x[j];
    x[i] = s / a[static_cast<size_t>(n) * i + i];
  }
  return x;
}

int main(int argc, char** argv) {
  workload::Run run("gaussian", argc, argv);
  // Large is the well-known version's 1024×1024 input.
  const int n = run.pick(64, 160, 1024);
  const size_t nn = static_cast<size_t>(n) * n;

  // Diagonally dominant matrix (elimination without pivoting is stable on it): off-diagonal
  // entries decay away from the diagonal with random signs, the diagonal exceeds the row's sum.
  workload::Rng rng(run.seed());
  std::vector<float> a(nn), b(n), x_true(n);
  for (int i = 0; i < n; ++i) {
    float row_sum = 0.0f;
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      const int d = i > j ? i - j : j - i;
      const float v = rng.uniform(-1.0f, 1.0f) / (1.0f + 0.1f * d);
      a[static_cast<size_t>(n) * i + j] = v;
      row_sum += std::fabs(v);
    }
    a[static_cast<size_t>(n) * i + i] = row_sum + rng.uniform(1.0f, 2.0f);
  }
  for (int i = 0; i < n; ++i) x_true[i] = rng.uniform(-1.0f, 1.0f);
  for (int i = 0; i < n; ++i) {
    double s = 0.0;
    for (int j = 0; j < n; ++j) s += static_cast<double>(a[static_cast<size_t>(n) * i + j]) * x_true[j];
    b[i] = static_cast<float>(s);
  }

  const unsigned grid1 = workload::ceil_div(n, kFan1Block);
  const dim3 block2(kFan2Block, kFan2Block);
  const dim3 grid2(workload::ceil_div(n, kFan2Block), workload::ceil_div(n, kFan2Block));
  run.info("%d×%d matrix, %d pivot steps", n, n, n - 1);
  run.info("fan1: grid %u, block %d; fan2: grid %u×%u, block %d×%d", grid1, kFan1Block, grid2.x,
           grid2.y, kFan2Block, kFan2Block);

  float *d_a, *d_b, *d_m;
  CUDA_CHECK(cudaMalloc(&d_a, nn * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_b, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_m, nn * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_a, a.data(), nn * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_b, b.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(d_m, 0, nn * sizeof(float)));

  for (int t = 0; t < n - 1; ++t) {
    fan1<<<grid1, kFan1Block>>>(d_m, d_a, n, t);
    CUDA_CHECK(cudaGetLastError());
    fan2<<<grid2, block2>>>(d_m, d_a, d_b, n, t);
    CUDA_CHECK(cudaGetLastError());
  }
  std::vector<float> ga(nn), gb(n);
  CUDA_CHECK(cudaMemcpy(ga.data(), d_a, nn * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(gb.data(), d_b, n * sizeof(float), cudaMemcpyDeviceToHost));
  const std::vector<float> x = back_substitute(ga, gb, n);

  // CPU reference: the same elimination in the same order.
  std::vector<float> m(nn, 0.0f);
  for (int t = 0; t < n - 1; ++t) {
    for (int row = t + 1; row < n; ++row)
      m[static_cast<size_t>(n) * row + t] =
          a[static_cast<size_t>(n) * row + t] / a[static_cast<size_t>(n) * t + t];
    for (int row = t + 1; row < n; ++row) {
      const float f = m[static_cast<size_t>(n) * row + t];
      for (int col = t; col < n; ++col)
        a[static_cast<size_t>(n) * row + col] -= f * a[static_cast<size_t>(n) * t + col];
      b[row] -= f * b[t];
    }
  }
  const std::vector<float> want = back_substitute(a, b, n);
  // The device may fuse each a -= m * a_t into one FMA (one rounding instead of two); over n
  // elimination steps on this well-conditioned matrix that moves x by well under 1e-5 (x is of
  // order 1, so the same bound serves as the absolute tolerance for entries near zero).
  run.check_close("x", x.data(), want.data(), n, 1e-5, 1e-5);
  // And the solution solves the system the program set up.
  run.check_close("x vs generated solution", x.data(), x_true.data(), n, 1e-3, 1e-4);

  CUDA_CHECK(cudaFree(d_a));
  CUDA_CHECK(cudaFree(d_b));
  CUDA_CHECK(cudaFree(d_m));
  return run.pass();
}
