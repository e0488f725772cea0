// rodinia/pathfinder - dynamic programming over a rows x cols grid of weights: the cheapest path
// from the top row to each cell of the bottom row, moving one row down per step to the same column
// or a diagonal neighbour (Rodinia PathFinder).
//   cost[0][c] = wall[0][c]
//   cost[r][c] = wall[r][c] + min(cost[r-1][c-1], cost[r-1][c], cost[r-1][c+1])   (edges clamped)
// Kernel: dynproc, 256-thread blocks, one thread per column. Each launch advances pyramid_height
// rows entirely in shared memory: a block loads 256 columns of the previous row, and each row step
// shrinks the columns it can still compute by one on each side (the "ghost zone"), so a block
// writes 256 - 2 * pyramid_height columns and neighbouring blocks overlap by the halo. The host
// launches ceil((rows - 1) / pyramid_height) kernels, swapping the two row buffers.
#include <algorithm>
#include <vector>

#include "workload.h"

constexpr int kBlock = 256;

// Advances `steps` rows starting from `src` (the cost of row first_row - 1) into `dst`.
// `wall` is the full grid; `border` is the halo width the host partitioned the columns with.
__global__ void dynproc(int steps, const int* __restrict__ wall, const int* __restrict__ src,
                        int* __restrict__ dst, int cols, int first_row, int border) {
  __shared__ int prev[kBlock];
  __shared__ int result[kBlock];

  const int tx = threadIdx.x;
  // Columns this block writes; the loaded span reaches `steps` further on each side.
  const int out_cols = kBlock - 2 * steps;
  const int span_first = out_cols * static_cast<int>(blockIdx.x) - border;
  const int col = span_first + tx;

  // The part of the loaded span that lies inside the grid, in thread coordinates.
  const int valid_first = span_first < 0 ? -span_first : 0;
  const int span_last = span_first + kBlock - 1;
  const int valid_last = span_last > cols - 1 ? kBlock - 1 - (span_last - (cols - 1)) : kBlock - 1;
  const bool in_grid = tx >= valid_first && tx <= valid_last;
  // Neighbours clamped at the grid's left and right edges.
  const int west = max(tx - 1, valid_first);
  const int east = min(tx + 1, valid_last);

  if (in_grid) prev[tx] = src[col];
  __syncthreads();

  bool computed = false;
  for (int i = 0; i < steps; ++i) {
    computed = false;
    // After step i only threads i+1 .. kBlock-2-i still have all three inputs.
    if (tx >= i + 1 && tx <= kBlock - 2 - i && in_grid) {
      computed = true;
      const int best = min(prev[west], min(prev[tx], prev[east]));
      result[tx] = best + wall[static_cast<size_t>(first_row + i) * cols + col];
    }
    __syncthreads();
    if (i == steps - 1) break;
    if (computed) prev[tx] = result[tx];
    __syncthreads();
  }
  if (computed) dst[col] = result[tx];
}

int main(int argc, char** argv) {
  workload::Run run("pathfinder", argc, argv);
  const int cols = run.pick(8192, 40000, 100000);
  const int rows = run.pick(40, 100, 100);
  const int pyramid_height = 20;
  const int border = pyramid_height;  // one column of halo per row step
  const int out_cols = kBlock - 2 * border;
  const int blocks = static_cast<int>(workload::ceil_div(cols, out_cols));
  const int launches = static_cast<int>(workload::ceil_div(rows - 1, pyramid_height));
  run.info(
      "%d rows x %d cols, pyramid height %d: %d launches of dynproc, grid %d x block %d "
      "(%d columns written per block)",
      rows, cols, pyramid_height, launches, blocks, kBlock, out_cols);

  // Weights 0..9, as in the original's random grid.
  workload::Rng rng(run.seed());
  const size_t cells = static_cast<size_t>(rows) * cols;
  std::vector<int> wall(cells);
  for (auto& w : wall) w = static_cast<int>(rng.below(10));

  int *d_wall, *d_buf[2];
  CUDA_CHECK(cudaMalloc(&d_wall, cells * sizeof(int)));
  for (auto& b : d_buf) CUDA_CHECK(cudaMalloc(&b, cols * sizeof(int)));
  CUDA_CHECK(cudaMemcpy(d_wall, wall.data(), cells * sizeof(int), cudaMemcpyHostToDevice));
  // Row 0's cost is its weight.
  CUDA_CHECK(cudaMemcpy(d_buf[0], wall.data(), cols * sizeof(int), cudaMemcpyHostToDevice));

  int src = 0;
  for (int t = 0; t < rows - 1; t += pyramid_height) {
    const int steps = std::min(pyramid_height, rows - 1 - t);
    dynproc<<<blocks, kBlock>>>(steps, d_wall, d_buf[src], d_buf[1 - src], cols, t + 1, border);
    CUDA_CHECK(cudaGetLastError());
    src = 1 - src;
  }
  std::vector<int> got(cols);
  CUDA_CHECK(cudaMemcpy(got.data(), d_buf[src], cols * sizeof(int), cudaMemcpyDeviceToHost));

  // CPU reference: the same recurrence row by row.
  std::vector<int> cost(wall.begin(), wall.begin() + cols), next(cols);
  for (int r = 1; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      int best = cost[c];
      if (c > 0) best = std::min(best, cost[c - 1]);
      if (c < cols - 1) best = std::min(best, cost[c + 1]);
      next[c] = best + wall[static_cast<size_t>(r) * cols + c];
    }
    cost.swap(next);
  }
  run.check_equal("bottom-row cost", got.data(), cost.data(), cols);

  CUDA_CHECK(cudaFree(d_wall));
  for (auto& b : d_buf) CUDA_CHECK(cudaFree(b));
  return run.pass();
}
