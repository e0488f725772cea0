// rodinia/hotspot - transient thermal simulation of a chip (Rodinia HotSpot, after the HotSpot
// compact thermal model): every cell of a rows×cols grid is updated from its four neighbours, its
// power dissipation and the ambient through the vertical resistance, with an explicit time step.
// Kernel: calculate_temp with pyramid (ghost-zone) blocking: a 16×16 block loads a 16×16 tile of
// temperatures and power into shared memory, advances it `pyramid_height` steps in place (the valid
// region shrinking by one cell per side per step), and writes back its inner
// (16 - 2·pyramid_height)² cells; the host ping-pongs two temperature buffers between launches.
#include <algorithm>
#include <vector>

#include "workload.h"

constexpr int kBlock = 16;

// Thermal constants of the HotSpot model (SI units).
constexpr float kChipThickness = 0.0005f;
constexpr float kChipSize = 0.016f;  // 16 mm square die
constexpr float kAmbient = 80.0f;
constexpr float kFactorChip = 0.5f;
constexpr float kSpecHeatSi = 1.75e6f;
constexpr float kKSi = 100.0f;
constexpr float kMaxPowerDensity = 3.0e6f;
constexpr float kPrecision = 0.001f;

// One explicit step of one cell; the CPU reference calls the same expression.
__host__ __device__ inline float cell_step(float t, float p, float tn, float ts, float te,
                                           float tw, float step_div_cap, float rx_1, float ry_1,
                                           float rz_1) {
  return t + step_div_cap *
                 (p + (ts + tn - 2.0f * t) * ry_1 + (te + tw - 2.0f * t) * rx_1 + (kAmbient - t) * rz_1);
}

__device__ inline bool in_range(int x, int lo, int hi) { return x >= lo && x <= hi; }

// `iteration` steps (<= pyramid_height) on tiles laid out for `pyramid_height` ghost cells.
__global__ void calculate_temp(int iteration, int pyramid_height, const float* __restrict__ power,
                               const float* __restrict__ temp_src, float* __restrict__ temp_dst,
                               int cols, int rows, float cap, float rx, float ry, float rz,
                               float step) {
  __shared__ float temp_on[kBlock][kBlock];
  __shared__ float power_on[kBlock][kBlock];
  __shared__ float temp_t[kBlock][kBlock];

  const float step_div_cap = step / cap;
  const float rx_1 = 1.0f / rx, ry_1 = 1.0f / ry, rz_1 = 1.0f / rz;
  const int tx = threadIdx.x, ty = threadIdx.y;

  // The block owns a small×small square of outputs; its tile starts pyramid_height cells before it.
  const int small = kBlock - 2 * pyramid_height;
  const int blk_y = small * blockIdx.y - pyramid_height;
  const int blk_x = small * blockIdx.x - pyramid_height;
  const int y = blk_y + ty, x = blk_x + tx;
  const int index = cols * y + x;
  const bool inside = y >= 0 && y < rows && x >= 0 && x < cols;
  if (inside) {
    temp_on[ty][tx] = temp_src[index];
    power_on[ty][tx] = power[index];
  }
  __syncthreads();

  // The part of the tile inside the grid; neighbours past the chip edge clamp to the cell itself.
  const int valid_y_min = blk_y < 0 ? -blk_y : 0;
  const int valid_y_max = blk_y + kBlock - 1 > rows - 1 ? rows - 1 - blk_y : kBlock - 1;
  const int valid_x_min = blk_x < 0 ? -blk_x : 0;
  const int valid_x_max = blk_x + kBlock - 1 > cols - 1 ? cols - 1 - blk_x : kBlock - 1;
  const int n = max(ty - 1, valid_y_min), s = min(ty + 1, valid_y_max);
  const int w = max(tx - 1, valid_x_min), e = min(tx + 1, valid_x_max);

  bool computed = false;
  for (int i = 0; i < iteration; ++i) {
    // Step i is exact on the tile shrunk by i+1 cells per side.
    computed = in_range(tx, i + 1, kBlock - i - 2) && in_range(ty, i + 1, kBlock - i - 2) &&
               in_range(tx, valid_x_min, valid_x_max) && in_range(ty, valid_y_min, valid_y_max);
    if (computed)
      temp_t[ty][tx] = cell_step(temp_on[ty][tx], power_on[ty][tx], temp_on[n][tx],
                                 temp_on[s][tx], temp_on[ty][e], temp_on[ty][w], step_div_cap,
                                 rx_1, ry_1, rz_1);
    __syncthreads();
    if (i == iteration - 1) break;
    if (computed) temp_on[ty][tx] = temp_t[ty][tx];
    __syncthreads();
  }
  // Only the owned square is written, so neighbouring blocks never store the same cell.
  const bool owned = in_range(tx, pyramid_height, kBlock - 1 - pyramid_height) &&
                     in_range(ty, pyramid_height, kBlock - 1 - pyramid_height);
  if (computed && owned) temp_dst[index] = temp_t[ty][tx];
}

int main(int argc, char** argv) {
  workload::Run run("hotspot", argc, argv, {"--pyramid-height"});
  // Small is the well-known default run (512×512, pyramid height 2); large the 1024×1024 input.
  const int rows = run.pick(128, 512, 1024), cols = rows;
  const int sim_time = run.pick(4, 4, 20);
  const int pyramid_height = static_cast<int>(run.option("--pyramid-height", 2));
  if (pyramid_height < 1 || 2 * pyramid_height >= kBlock)
    workload::fail("--pyramid-height must be 1..%d", kBlock / 2 - 1);
  const size_t cells = static_cast<size_t>(rows) * cols;

  const float grid_height = kChipSize / rows, grid_width = kChipSize / cols;
  const float cap = kFactorChip * kSpecHeatSi * kChipThickness * grid_width * grid_height;
  const float rx = grid_width / (2.0f * kKSi * kChipThickness * grid_height);
  const float ry = grid_height / (2.0f * kKSi * kChipThickness * grid_width);
  const float rz = kChipThickness / (kKSi * grid_height * grid_width);
  const float max_slope = kMaxPowerDensity / (kFactorChip * kChipThickness * kSpecHeatSi);
  const float step = kPrecision / max_slope;

  // Synthetic floorplan: a dozen rectangular functional units, each with its own power density
  // (hot cores, cool caches), on a low-power background with per-cell noise; power per cell scales
  // with the cell area. Initial temperatures: a smooth warm gradient plus noise, around 320-345 K.
  workload::Rng rng(run.seed());
  std::vector<float> power(cells), temp(cells);
  std::vector<float> density(cells, 0.05f);
  for (int u = 0; u < 12; ++u) {
    const int h = rows / 8 + static_cast<int>(rng.below(rows / 4)), wdt = cols / 8 + static_cast<int>(rng.below(cols / 4));
    const int y0 = static_cast<int>(rng.below(rows - h)), x0 = static_cast<int>(rng.below(cols - wdt));
    const float d = rng.uniform(0.1f, 1.0f);
    for (int y = y0; y < y0 + h; ++y)
      for (int x = x0; x < x0 + wdt; ++x) density[static_cast<size_t>(y) * cols + x] = d;
  }
  const float cell_scale = 5e-3f * (512.0f * 512.0f) / static_cast<float>(cells);
  for (size_t i = 0; i < cells; ++i) power[i] = cell_scale * density[i] * rng.uniform(0.9f, 1.1f);
  for (int y = 0; y < rows; ++y)
    for (int x = 0; x < cols; ++x)
      temp[static_cast<size_t>(y) * cols + x] =
          320.0f + 20.0f * (y + x) / (rows + cols) + rng.uniform(0.0f, 5.0f);

  const int small = kBlock - 2 * pyramid_height;
  const dim3 block(kBlock, kBlock);
  const dim3 grid(workload::ceil_div(cols, small), workload::ceil_div(rows, small));
  const int launches = (sim_time + pyramid_height - 1) / pyramid_height;
  run.info("%d×%d grid, %d time steps, pyramid height %d", rows, cols, sim_time, pyramid_height);
  run.info("calculate_temp: %d launches, grid %u×%u, block %d×%d (%d×%d outputs per block)",
           launches, grid.x, grid.y, kBlock, kBlock, small, small);

  float *d_power, *d_temp[2];
  CUDA_CHECK(cudaMalloc(&d_power, cells * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_temp[0], cells * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_temp[1], cells * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_power, power.data(), cells * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_temp[0], temp.data(), cells * sizeof(float), cudaMemcpyHostToDevice));

  int src = 0;
  for (int t = 0; t < sim_time; t += pyramid_height) {
    const int iteration = std::min(pyramid_height, sim_time - t);
    calculate_temp<<<grid, block>>>(iteration, pyramid_height, d_power, d_temp[src],
                                    d_temp[1 - src], cols, rows, cap, rx, ry, rz, step);
    CUDA_CHECK(cudaGetLastError());
    src = 1 - src;
  }
  std::vector<float> got(cells);
  CUDA_CHECK(cudaMemcpy(got.data(), d_temp[src], cells * sizeof(float), cudaMemcpyDeviceToHost));

  // CPU reference: plain double-buffered stencil over the whole grid, same expression per cell.
  const float step_div_cap = step / cap;
  const float rx_1 = 1.0f / rx, ry_1 = 1.0f / ry, rz_1 = 1.0f / rz;
  std::vector<float> next(cells);
  for (int t = 0; t < sim_time; ++t) {
    for (int y = 0; y < rows; ++y)
      for (int x = 0; x < cols; ++x) {
        const size_t i = static_cast<size_t>(y) * cols + x;
        const size_t n = static_cast<size_t>(std::max(y - 1, 0)) * cols + x;
        const size_t s = static_cast<size_t>(std::min(y + 1, rows - 1)) * cols + x;
        const size_t w = static_cast<size_t>(y) * cols + std::max(x - 1, 0);
        const size_t e = static_cast<size_t>(y) * cols + std::min(x + 1, cols - 1);
        next[i] = cell_step(temp[i], power[i], temp[n], temp[s], temp[e], temp[w], step_div_cap,
                            rx_1, ry_1, rz_1);
      }
    temp.swap(next);
  }
  // The device may contract the expression's multiply-adds into FMAs; a few float roundings of
  // ~300 K values per step differ by a few ulp (3e-5 K each) at most.
  run.check_close("temperature", got.data(), temp.data(), cells, 1e-6, 1e-4);

  CUDA_CHECK(cudaFree(d_power));
  CUDA_CHECK(cudaFree(d_temp[0]));
  CUDA_CHECK(cudaFree(d_temp[1]));
  return run.pass();
}
