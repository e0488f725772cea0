// rodinia/lud - blocked LU decomposition without pivoting, in place (Rodinia LUD): A = L * U
// with L unit lower triangular (stored below the diagonal) and U upper triangular.
// The n x n matrix is cut into 16x16 blocks. For each block step along the diagonal:
//   lud_diagonal   1 block of 16 threads: factors the diagonal block A11 = L11 U11 in shared
//                  memory;
//   lud_perimeter  one 32-thread block per remaining block column/row: threads 0-15 compute the
//                  U12 block (L11^-1 A12), threads 16-31 the L21 block (A21 U11^-1);
//   lud_internal   a 2-D grid of 16x16-thread blocks updating the trailing matrix A22 -= L21 U12,
//                  each block staging its L21 and U12 tiles in shared memory.
// The last diagonal block is factored by lud_diagonal alone.
#include <algorithm>
#include <cmath>
#include <vector>

#include "workload.h"

constexpr int kB = 16;

__global__ void lud_diagonal(float* m, int n, int off) {
  __shared__ float a[kB][kB];
  const int tx = threadIdx.x;
  for (int r = 0; r < kB; ++r) a[r][tx] = m[(off + r) * n + off + tx];
  __syncthreads();
  // Right-looking elimination: step k scales column k below the pivot (thread per row), then
  // updates the trailing rows (thread per column, so a row is read across consecutive banks).
  for (int k = 0; k < kB - 1; ++k) {
    if (tx > k) a[tx][k] /= a[k][k];
    __syncthreads();
    if (tx > k)
      for (int r = k + 1; r < kB; ++r) a[r][tx] -= a[r][k] * a[k][tx];
    __syncthreads();
  }
  for (int r = 0; r < kB; ++r) m[(off + r) * n + off + tx] = a[r][tx];
}

__global__ void lud_perimeter(float* m, int n, int off) {
  __shared__ float dia[kB][kB], row[kB][kB], col[kB][kB];
  const int t = threadIdx.x;                      // 0 .. 2*kB-1
  const int other = off + (blockIdx.x + 1) * kB;  // first row/column of this block's perimeter pair
  // Stage the factored diagonal block, the block to its right (row) and the one below it (col).
  for (int i = t; i < kB * kB; i += 2 * kB) {
    const int r = i / kB, c = i % kB;
    dia[r][c] = m[(off + r) * n + off + c];
    row[r][c] = m[(off + r) * n + other + c];
    col[r][c] = m[(other + r) * n + off + c];
  }
  __syncthreads();
  if (t < kB) {
    // U12 = L11^-1 A12, column t: forward substitution with the unit lower triangle.
    for (int r = 1; r < kB; ++r) {
      float sum = 0.0f;
      for (int k = 0; k < r; ++k) sum += dia[r][k] * row[k][t];
      row[r][t] -= sum;
    }
  } else {
    // L21 = A21 U11^-1, row t - kB: substitution against the upper triangle.
    const int r = t - kB;
    for (int c = 0; c < kB; ++c) {
      float sum = 0.0f;
      for (int k = 0; k < c; ++k) sum += col[r][k] * dia[k][c];
      col[r][c] = (col[r][c] - sum) / dia[c][c];
    }
  }
  __syncthreads();
  for (int i = t; i < kB * kB; i += 2 * kB) {
    const int r = i / kB, c = i % kB;
    m[(off + r) * n + other + c] = row[r][c];
    m[(other + r) * n + off + c] = col[r][c];
  }
}

__global__ void lud_internal(float* m, int n, int off) {
  __shared__ float u12[kB][kB], l21[kB][kB];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int r0 = off + (blockIdx.y + 1) * kB, c0 = off + (blockIdx.x + 1) * kB;
  u12[ty][tx] = m[(off + ty) * n + c0 + tx];
  l21[ty][tx] = m[(r0 + ty) * n + off + tx];
  __syncthreads();
  float sum = 0.0f;
  for (int k = 0; k < kB; ++k) sum += l21[ty][k] * u12[k][tx];
  m[(r0 + ty) * n + c0 + tx] -= sum;
}

int main(int argc, char** argv) {
  workload::Run run("lud", argc, argv);
  const int n = run.pick(128, 384, 2048);  // a multiple of the block size
  const int steps = n / kB;
  run.info(
      "%d x %d matrix, %d block steps: lud_diagonal 1 x %d, lud_perimeter %d..1 x %d, "
      "lud_internal %dx%d..1x1 x %dx%d",
      n, n, steps, kB, steps - 1, 2 * kB, steps - 1, steps - 1, kB, kB);

  // A random diagonally dominant matrix, so elimination without pivoting is stable.
  workload::Rng rng(run.seed());
  const size_t cells = static_cast<size_t>(n) * n;
  std::vector<float> a(cells);
  for (int i = 0; i < n; ++i) {
    double off_sum = 0.0;
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      a[static_cast<size_t>(i) * n + j] = rng.uniform(-1.0f, 1.0f);
      off_sum += std::fabs(a[static_cast<size_t>(i) * n + j]);
    }
    a[static_cast<size_t>(i) * n + i] = static_cast<float>(off_sum) + rng.uniform(1.0f, 2.0f);
  }

  float* d_m;
  CUDA_CHECK(cudaMalloc(&d_m, cells * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_m, a.data(), cells * sizeof(float), cudaMemcpyHostToDevice));
  int off = 0;
  for (; off < n - kB; off += kB) {
    const int rest = (n - off) / kB - 1;  // blocks right of / below the diagonal block
    lud_diagonal<<<1, kB>>>(d_m, n, off);
    CUDA_CHECK(cudaGetLastError());
    lud_perimeter<<<rest, 2 * kB>>>(d_m, n, off);
    CUDA_CHECK(cudaGetLastError());
    lud_internal<<<dim3(rest, rest), dim3(kB, kB)>>>(d_m, n, off);
    CUDA_CHECK(cudaGetLastError());
  }
  lud_diagonal<<<1, kB>>>(d_m, n, off);
  CUDA_CHECK(cudaGetLastError());
  std::vector<float> lu(cells);
  CUDA_CHECK(cudaMemcpy(lu.data(), d_m, cells * sizeof(float), cudaMemcpyDeviceToHost));

  // Check L * U == A. LU in floating point satisfies |A - L U| <= gamma_k |L| |U| elementwise
  // (Higham, Thm 9.3; k = terms in the inner product, any summation order, FMA only helps), so
  // each element's error is bounded relative to (|L| |U|)_ij rather than to A_ij.
  std::vector<double> prod(n), mag(n);
  double worst = 0.0;
  for (int i = 0; i < n; ++i) {
    std::fill(prod.begin(), prod.end(), 0.0);
    std::fill(mag.begin(), mag.end(), 0.0);
    const float* li = &lu[static_cast<size_t>(i) * n];
    for (int k = 0; k <= i; ++k) {
      const double l = k == i ? 1.0 : li[k];  // unit diagonal of L
      const float* uk = &lu[static_cast<size_t>(k) * n];
      for (int j = k; j < n; ++j) {  // U is zero below its diagonal
        prod[j] += l * uk[j];
        mag[j] += std::fabs(l * uk[j]);
      }
    }
    for (int j = 0; j < n; ++j) {
      const double want = a[static_cast<size_t>(i) * n + j];
      const double err = std::fabs(prod[j] - want);
      // gamma_k with k = min(i, j) + 1 terms; 2^-24 is float's unit roundoff.
      const double k = std::min(i, j) + 1;
      const double u = std::ldexp(1.0, -24), bound = k * u / (1.0 - k * u) * mag[j];
      if (!(err <= bound))
        workload::fail("(L*U)[%d][%d] = %.9g, A = %.9g: error %.3g exceeds bound %.3g", i, j,
                       prod[j], want, err, bound);
      if (mag[j] > 0) worst = std::max(worst, err / (k * u * mag[j]));
    }
  }
  run.info("largest error: %.3f of the k*u*(|L||U|) bound", worst);

  CUDA_CHECK(cudaFree(d_m));
  return run.pass();
}
