// sdk/fdtd3d - finite-difference time-domain style 3-D stencil (the CUDA SDK "FDTD3d" sample):
// every time step replaces each interior point of a dimx x dimy x dimz volume by a weighted sum
// of itself and its neighbours up to RADIUS = 4 away along x, y and z (a 25-point star). The
// volume carries a RADIUS-deep boundary layer that stays fixed; two buffers alternate as input
// and output, one launch per time step.
// Kernel fdtd3d_step: a 32 x 16 CTA owns a 32 x 16 column of points and marches along z. Each
// thread keeps the z-neighbours of its point in registers (a queue of RADIUS values behind and
// RADIUS in front, shifted by one each step, one new load per step); the xy-plane of the current
// z, plus a RADIUS-wide halo, is staged in shared memory for the x and y neighbours.
// Shapes: grid (ceil(dimx / 32), ceil(dimy / 16)), block 32 x 16, `steps` launches.
#include <algorithm>
#include <vector>

#include "workload.h"

constexpr int RADIUS = 4;
constexpr int BX = 32, BY = 16;

__constant__ float c_coeff[RADIUS + 1];

// Volumes are stored with the boundary layer: (dimx + 2R) x (dimy + 2R) x (dimz + 2R), x fastest.
// Interior coordinates run from 0; the boundary layer has coordinates -R..-1 and dim..dim+R-1.
__global__ void __launch_bounds__(BX * BY)
fdtd3d_step(float* __restrict__ out, const float* __restrict__ in, int dimx, int dimy,
            int dimz) {
  __shared__ float tile[BY + 2 * RADIUS][BX + 2 * RADIUS];
  const int px = dimx + 2 * RADIUS, py = dimy + 2 * RADIUS;
  const int sy = px, sz = px * py;  // strides of y and z
  const int gx = blockIdx.x * BX + threadIdx.x;
  const int gy = blockIdx.y * BY + threadIdx.y;
  const int tx = threadIdx.x + RADIUS, ty = threadIdx.y + RADIUS;
  // Index of interior point (x, y, z).
  auto at = [=](int x, int y, int z) { return (z + RADIUS) * sz + (y + RADIUS) * sy + x + RADIUS; };
  // The CTA may overhang the volume: points are readable up to the far boundary layer, and
  // written only inside.
  const bool readable = gx < dimx + RADIUS && gy < dimy + RADIUS;
  const bool inside = gx < dimx && gy < dimy;
  const bool halo_right = threadIdx.x < RADIUS && gx + BX < dimx + RADIUS && gy < dimy + RADIUS;
  const bool halo_below = threadIdx.y < RADIUS && gy + BY < dimy + RADIUS && gx < dimx + RADIUS;

  // behind[i] = in(z - 1 - i), cur = in(z), front[i] = in(z + 1 + i).
  float behind[RADIUS], cur = 0.0f, front[RADIUS];
  int idx = at(gx, gy, 0);
#pragma unroll
  for (int i = 0; i < RADIUS; ++i) {
    behind[i] = readable ? in[idx - (i + 1) * sz] : 0.0f;
    front[i] = readable ? in[idx + (i + 1) * sz] : 0.0f;
  }
  if (readable) cur = in[idx];

  for (int z = 0; z < dimz; ++z, idx += sz) {
    if (z > 0) {  // advance the register queue by one plane; one new load
#pragma unroll
      for (int i = RADIUS - 1; i > 0; --i) behind[i] = behind[i - 1];
      behind[0] = cur;
      cur = front[0];
#pragma unroll
      for (int i = 0; i < RADIUS - 1; ++i) front[i] = front[i + 1];
      front[RADIUS - 1] = readable ? in[idx + RADIUS * sz] : 0.0f;
    }
    __syncthreads();  // the previous plane's tile has been read
    if (threadIdx.y < RADIUS) {  // halo rows above and below
      tile[threadIdx.y][tx] = gx < dimx + RADIUS ? in[idx - RADIUS * sy] : 0.0f;
      tile[ty + BY][tx] = halo_below ? in[idx + BY * sy] : 0.0f;
    }
    if (threadIdx.x < RADIUS) {  // halo columns left and right
      tile[ty][threadIdx.x] = gy < dimy + RADIUS ? in[idx - RADIUS] : 0.0f;
      tile[ty][tx + BX] = halo_right ? in[idx + BX] : 0.0f;
    }
    tile[ty][tx] = cur;
    __syncthreads();

    float value = c_coeff[0] * cur;
#pragma unroll
    for (int i = 1; i <= RADIUS; ++i)
      value += c_coeff[i] * (front[i - 1] + behind[i - 1] + tile[ty - i][tx] + tile[ty + i][tx] +
                             tile[ty][tx - i] + tile[ty][tx + i]);
    if (inside) out[idx] = value;
  }
}

int main(int argc, char** argv) {
  workload::Run run("fdtd3d", argc, argv);
  // The SDK's default is a 376^3 volume, 5 time steps (large).
  const int dimx = run.pick(120, 248, 376);
  const int dimy = run.pick(72, 248, 376);
  const int dimz = run.pick(8, 16, 376);
  const int steps = run.pick(2, 2, 5);
  const int px = dimx + 2 * RADIUS, py = dimy + 2 * RADIUS, pz = dimz + 2 * RADIUS;
  const size_t total = size_t(px) * py * pz;
  if (total >= (size_t(1) << 31)) workload::fail("volume too large for 32-bit indices");
  const dim3 block(BX, BY), grid(workload::ceil_div(dimx, BX), workload::ceil_div(dimy, BY));
  run.info("%d x %d x %d volume (radius-%d boundary layer), %d time steps", dimx, dimy, dimz,
           RADIUS, steps);
  run.info("fdtd3d_step: grid %ux%u, block %ux%u, %d launches", grid.x, grid.y, block.x, block.y,
           steps);

  // A smoothing (diffusion-like) stencil: positive weights summing to 1, so the scheme is stable
  // and rounding errors do not grow from step to step.
  float coeff[RADIUS + 1];
  double side = 0;
  for (int i = 1; i <= RADIUS; ++i) side += (coeff[i] = 0.06f / float(i * i));
  coeff[0] = static_cast<float>(1.0 - 6.0 * side);

  workload::Rng rng(run.seed());
  std::vector<float> h_in(total), got(total);
  for (int z = 0; z < pz; ++z)
    for (int y = 0; y < py; ++y)
      for (int x = 0; x < px; ++x)
        h_in[(size_t(z) * py + y) * px + x] = static_cast<float>(
            0.5 + 0.25 * std::sin(x * 0.09) * std::cos(y * 0.07 + z * 0.05) +
            rng.uniform(-0.25f, 0.25f));

  float* d_buf[2];
  for (auto& d : d_buf) {
    CUDA_CHECK(cudaMalloc(&d, total * sizeof(float)));
    // Both buffers start as the input, so the fixed boundary layer is present in each.
    CUDA_CHECK(cudaMemcpy(d, h_in.data(), total * sizeof(float), cudaMemcpyHostToDevice));
  }
  CUDA_CHECK(cudaMemcpyToSymbol(c_coeff, coeff, sizeof(coeff)));
  for (int t = 0; t < steps; ++t) {
    fdtd3d_step<<<grid, block>>>(d_buf[(t + 1) % 2], d_buf[t % 2], dimx, dimy, dimz);
    CUDA_CHECK(cudaGetLastError());
  }
  CUDA_CHECK(cudaMemcpy(got.data(), d_buf[steps % 2], total * sizeof(float),
                        cudaMemcpyDeviceToHost));

  // Reference in double over the whole padded volume (the boundary layer must come back
  // unchanged too).
  std::vector<double> a(h_in.begin(), h_in.end()), b = a;
  const size_t sy = px, sz = size_t(px) * py;
  for (int t = 0; t < steps; ++t) {
    for (int z = RADIUS; z < dimz + RADIUS; ++z)
      for (int y = RADIUS; y < dimy + RADIUS; ++y)
        for (int x = RADIUS; x < dimx + RADIUS; ++x) {
          const size_t i = z * sz + y * sy + x;
          double v = coeff[0] * a[i];
          for (int r = 1; r <= RADIUS; ++r)
            v += coeff[r] * (a[i - r] + a[i + r] + a[i - r * sy] + a[i + r * sy] + a[i - r * sz] +
                             a[i + r * sz]);
          b[i] = v;
        }
    std::swap(a, b);
  }
  std::vector<float> want(a.begin(), a.end());
  double max_err = 0;
  for (size_t i = 0; i < total; ++i) max_err = std::max(max_err, std::fabs(got[i] - a[i]));
  run.info("max abs error %.3g", max_err);
  // Values lie in [0, 1] and the weights are positive and sum to 1 (the reference uses the same
  // float weights). Per step, the five additions of each 6-term sum (partial sums <= 6) err by at
  // most 20 * 2^-24 times its weight (the side weights sum to 0.085), and the five fused
  // multiply-adds by at most 5 * 2^-24: under 8 * 2^-24 in all, and earlier steps' errors are
  // averaged, not amplified. Bound: (8 * steps + 1) * 2^-24 absolute, with the final rounding.
  run.check_close("volume", got.data(), want.data(), total, 0.0, (8.0 * steps + 1) * 0x1p-24);

  for (auto& d : d_buf) CUDA_CHECK(cudaFree(d));
  return run.pass();
}
