// ispass/nqu - N-Queens: the number of ways to place N non-attacking queens on an N x N board,
// the GPGPU-Sim ISPASS'09 "NQU" benchmark. The host places queens on the first K rows in every
// legal way (the subproblems); each GPU thread completes subproblems by depth-first backtracking
// over bitmasks (occupied columns and both diagonals), with its explicit stack in shared memory.
// Kernel: nqueens, block 96, grid = subproblems / 96 capped at the paper's 223 CTAs (threads then
// take several subproblems, grid-stride). Each thread keeps its stack as a column of the shared
// arrays [level][thread], so a warp's stack accesses fall in distinct banks; at the end the CTA
// sums its threads' counts with a shared-memory tree reduction (barriers) and writes one total.
// Checked exactly: every CTA's total against a CPU count of the same subproblems, and the sum
// against the known number of solutions (OEIS A000170).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "workload.h"

namespace {

constexpr int kThreads = 96;
constexpr int kMaxGrid = 223;
constexpr int kMaxDepth = 14;  // rows left to place per subproblem (N - K)

struct Subproblems {  // one entry per legal placement of the first K rows (structure of arrays)
  std::vector<uint32_t> cols, left, right;  // occupied columns, diagonals moving left / right
};

__global__ void __launch_bounds__(kThreads)
    nqueens(const uint32_t* __restrict__ cols, const uint32_t* __restrict__ left,
            const uint32_t* __restrict__ right, unsigned nsub, int n, int depth,
            unsigned long long* __restrict__ cta_counts) {
  // Per-level state of every thread's search: the squares still to try on that row, and the
  // attack masks the row was entered with.
  __shared__ uint32_t s_avail[kMaxDepth][kThreads];
  __shared__ uint32_t s_cols[kMaxDepth][kThreads];
  __shared__ uint32_t s_left[kMaxDepth][kThreads];
  __shared__ uint32_t s_right[kMaxDepth][kThreads];
  __shared__ unsigned s_sum[kThreads];

  const int t = threadIdx.x;
  const uint32_t full = (1u << n) - 1;
  unsigned count = 0;
  for (unsigned sub = blockIdx.x * kThreads + t; sub < nsub; sub += gridDim.x * kThreads) {
    s_cols[0][t] = cols[sub];
    s_left[0][t] = left[sub];
    s_right[0][t] = right[sub];
    s_avail[0][t] = full & ~(cols[sub] | left[sub] | right[sub]);
    int level = 0;
    while (level >= 0) {
      const uint32_t avail = s_avail[level][t];
      if (avail == 0) {  // row exhausted: back up
        --level;
        continue;
      }
      if (level == depth - 1) {  // last row: every free square is a solution
        count += __popc(avail);
        --level;
        continue;
      }
      const uint32_t bit = avail & (0u - avail);  // lowest free square
      s_avail[level][t] = avail ^ bit;
      const uint32_t c = s_cols[level][t] | bit;
      const uint32_t l = ((s_left[level][t] | bit) << 1) & full;
      const uint32_t r = (s_right[level][t] | bit) >> 1;
      ++level;
      s_cols[level][t] = c;
      s_left[level][t] = l;
      s_right[level][t] = r;
      s_avail[level][t] = full & ~(c | l | r);
    }
  }

  s_sum[t] = count;
  __syncthreads();
  for (int stride = 64; stride > 0; stride >>= 1) {  // 96 = 64 + 32: the first step folds 32
    if (t < stride && t + stride < kThreads) s_sum[t] += s_sum[t + stride];
    __syncthreads();
  }
  if (t == 0) cta_counts[blockIdx.x] = s_sum[0];
}

// Every legal placement of queens on the first k rows.
void enumerate(int n, int k, int row, uint32_t c, uint32_t l, uint32_t r, Subproblems& out) {
  if (row == k) {
    out.cols.push_back(c);
    out.left.push_back(l);
    out.right.push_back(r);
    return;
  }
  const uint32_t full = (1u << n) - 1;
  for (uint32_t avail = full & ~(c | l | r); avail; avail &= avail - 1) {
    const uint32_t bit = avail & (0u - avail);
    enumerate(n, k, row + 1, c | bit, ((l | bit) << 1) & full, (r | bit) >> 1, out);
  }
}

// The CPU reference: plain recursion over the same masks.
uint64_t count_ref(int n, uint32_t c, uint32_t l, uint32_t r) {
  const uint32_t full = (1u << n) - 1;
  if (c == full) return 1;
  uint64_t total = 0;
  for (uint32_t avail = full & ~(c | l | r); avail; avail &= avail - 1) {
    const uint32_t bit = avail & (0u - avail);
    total += count_ref(n, c | bit, ((l | bit) << 1) & full, (r | bit) >> 1);
  }
  return total;
}

}  // namespace

int main(int argc, char** argv) {
  workload::Run run("nqu", argc, argv);
  const int n = run.pick(11, 12, 14);
  const int k = run.pick(4, 5, 5);  // rows placed on the host
  // Solutions for N = 1..16 (OEIS A000170).
  const uint64_t known[17] = {0,   1,   0,    0,     2,     10,     4,       40,      92,
                              352, 724, 2680, 14200, 73712, 365596, 2279184, 14772512};
  if (n - k > kMaxDepth || n > 16) workload::fail("N %d with %d host rows is out of range", n, k);

  Subproblems sub;
  enumerate(n, k, 0, 0, 0, 0, sub);
  const unsigned nsub = static_cast<unsigned>(sub.cols.size());
  const unsigned grid = std::min<unsigned>(workload::ceil_div(nsub, kThreads), kMaxGrid);
  run.info("N = %d, first %d rows on the host: %u subproblems, grid %u, block %d (%.2f per thread)",
           n, k, nsub, grid, kThreads, static_cast<double>(nsub) / (grid * kThreads));

  uint32_t *d_cols, *d_left, *d_right;
  unsigned long long* d_counts;
  const size_t bytes = nsub * sizeof(uint32_t);
  CUDA_CHECK(cudaMalloc(&d_cols, bytes));
  CUDA_CHECK(cudaMalloc(&d_left, bytes));
  CUDA_CHECK(cudaMalloc(&d_right, bytes));
  CUDA_CHECK(cudaMalloc(&d_counts, grid * sizeof(unsigned long long)));
  CUDA_CHECK(cudaMemcpy(d_cols, sub.cols.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_left, sub.left.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_right, sub.right.data(), bytes, cudaMemcpyHostToDevice));
  nqueens<<<grid, kThreads>>>(d_cols, d_left, d_right, nsub, n, n - k, d_counts);
  CUDA_CHECK(cudaGetLastError());
  std::vector<unsigned long long> got(grid);
  CUDA_CHECK(
      cudaMemcpy(got.data(), d_counts, grid * sizeof(unsigned long long), cudaMemcpyDeviceToHost));

  // Each CTA's total: the subproblems its threads took (the same grid-stride assignment).
  std::vector<unsigned long long> want(grid, 0);
  for (unsigned s = 0; s < nsub; ++s)
    want[(s % (grid * kThreads)) / kThreads] +=
        count_ref(n, sub.cols[s], sub.left[s], sub.right[s]);
  run.check_equal("solutions per CTA", got.data(), want.data(), grid);
  unsigned long long total = 0;
  for (unsigned long long c : got) total += c;
  run.info("%llu solutions", total);
  if (total != known[n])
    workload::fail("N = %d: %llu solutions, expected %llu", n, total,
                   static_cast<unsigned long long>(known[n]));

  CUDA_CHECK(cudaFree(d_cols));
  CUDA_CHECK(cudaFree(d_left));
  CUDA_CHECK(cudaFree(d_right));
  CUDA_CHECK(cudaFree(d_counts));
  return run.pass();
}
