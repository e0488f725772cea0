// ispass/lps - 3-D Laplace solver, the GPGPU-Sim ISPASS'09 "LPS" benchmark (after Giles'
// laplace3d): Jacobi iterations of the 7-point Laplace stencil on an NX x NY x NZ grid, Dirichlet
// boundary (boundary points keep their values), u_new = mean of the six neighbours inside.
// Kernel: laplace3d, one launch per iteration (ping-pong buffers), block 32 x 4, grid
// ceil(NX/32) x ceil(NY/4) = 4 x 25 at the paper's 100^3. Each thread owns one (i, j) column and
// marches up through k, keeping the points below, at and above k in registers; the CTA stages the
// k-plane of its 32 x 4 tile plus a one-point halo in shared memory for the x/y neighbours, with a
// barrier after filling the tile and one before overwriting it.
// Checked exactly against a CPU Jacobi sweep: both sides add the same six floats in the same order
// and multiply by the same constant, with nothing that could contract into a multiply-add.
#include <vector>

#include "workload.h"

namespace {

constexpr int kBlockX = 32, kBlockY = 4;
constexpr float kSixth = 1.0f / 6.0f;

__global__ void __launch_bounds__(kBlockX* kBlockY)
    laplace3d(int nx, int ny, int nz, const float* __restrict__ u1, float* __restrict__ u2) {
  __shared__ float tile[kBlockY + 2][kBlockX + 2];  // plane k with a halo of one point
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int i = blockIdx.x * kBlockX + tx, j = blockIdx.y * kBlockY + ty;
  const bool inside = i < nx && j < ny;  // partial tiles at the +x / +y edges
  const size_t plane = size_t{static_cast<unsigned>(nx)} * ny;
  size_t idx = static_cast<size_t>(j) * nx + i;

  float below = 0.0f;
  float centre = inside ? u1[idx] : 0.0f;
  float above = inside && nz > 1 ? u1[idx + plane] : 0.0f;
  for (int k = 0; k < nz; ++k, idx += plane) {
    if (inside) {
      tile[ty + 1][tx + 1] = centre;
      // Only interior points read neighbours, so the halo is needed where the tile, not the
      // grid, ends.
      if (tx == 0 && i > 0) tile[ty + 1][0] = u1[idx - 1];
      if (tx == kBlockX - 1 && i + 1 < nx) tile[ty + 1][kBlockX + 1] = u1[idx + 1];
      if (ty == 0 && j > 0) tile[0][tx + 1] = u1[idx - nx];
      if (ty == kBlockY - 1 && j + 1 < ny) tile[kBlockY + 1][tx + 1] = u1[idx + nx];
    }
    __syncthreads();
    if (inside) {
      if (i == 0 || i == nx - 1 || j == 0 || j == ny - 1 || k == 0 || k == nz - 1) {
        u2[idx] = centre;  // Dirichlet boundary
      } else {
        u2[idx] = (tile[ty + 1][tx] + tile[ty + 1][tx + 2] + tile[ty][tx + 1] +
                   tile[ty + 2][tx + 1] + below + above) *
                  kSixth;
      }
    }
    __syncthreads();  // everyone has read plane k before it is replaced by k + 1
    below = centre;
    centre = above;
    if (inside && k + 2 < nz) above = u1[idx + 2 * plane];
  }
}

void laplace3d_ref(int nx, int ny, int nz, const std::vector<float>& u1, std::vector<float>& u2) {
  const size_t sx = 1, sy = nx, sz = size_t{static_cast<unsigned>(nx)} * ny;
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        const size_t p = k * sz + j * sy + i;
        if (i == 0 || i == nx - 1 || j == 0 || j == ny - 1 || k == 0 || k == nz - 1)
          u2[p] = u1[p];
        else
          u2[p] = (u1[p - sx] + u1[p + sx] + u1[p - sy] + u1[p + sy] + u1[p - sz] + u1[p + sz]) *
                  kSixth;
      }
}

}  // namespace

int main(int argc, char** argv) {
  workload::Run run("lps", argc, argv);
  const int nx = run.pick(48, 72, 100), ny = run.pick(48, 72, 100), nz = run.pick(24, 64, 100);
  const int iterations = run.pick(3, 10, 10);
  const dim3 block(kBlockX, kBlockY);
  const dim3 grid(workload::ceil_div(nx, kBlockX), workload::ceil_div(ny, kBlockY));
  run.info("%d x %d x %d grid, %d Jacobi iterations; laplace3d grid %u x %u, block %u x %u", nx, ny,
           nz, iterations, grid.x, grid.y, block.x, block.y);

  // A hot and a cold face, a smooth profile on the others, a noisy interior to relax.
  const size_t n = size_t{static_cast<unsigned>(nx)} * ny * nz;
  std::vector<float> u(n);
  workload::Rng rng(run.seed());
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        const size_t p = (static_cast<size_t>(k) * ny + j) * nx + i;
        if (k == 0) {
          u[p] = 1.0f;
        } else if (k == nz - 1) {
          u[p] = 0.0f;
        } else if (i == 0 || i == nx - 1 || j == 0 || j == ny - 1) {
          u[p] = std::sin(3.14159265f * i / (nx - 1)) * std::cos(3.14159265f * j / (ny - 1));
        } else {
          u[p] = rng.uniform(0.0f, 1.0f);
        }
      }

  float *d_u1, *d_u2;
  CUDA_CHECK(cudaMalloc(&d_u1, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_u2, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_u1, u.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  for (int it = 0; it < iterations; ++it) {
    laplace3d<<<grid, block>>>(nx, ny, nz, d_u1, d_u2);
    CUDA_CHECK(cudaGetLastError());
    std::swap(d_u1, d_u2);
  }
  std::vector<float> got(n);
  CUDA_CHECK(cudaMemcpy(got.data(), d_u1, n * sizeof(float), cudaMemcpyDeviceToHost));

  std::vector<float> next(n);
  for (int it = 0; it < iterations; ++it) {
    laplace3d_ref(nx, ny, nz, u, next);
    u.swap(next);
  }
  run.check_close("u", got.data(), u.data(), n, 0.0, 0.0);  // bit-exact, see the top

  CUDA_CHECK(cudaFree(d_u1));
  CUDA_CHECK(cudaFree(d_u2));
  return run.pass();
}
