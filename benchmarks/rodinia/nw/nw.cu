// rodinia/nw - Needleman-Wunsch global sequence alignment (Rodinia NW): the (n+1) x (n+1) score
// matrix of two protein sequences of length n,
//   score[i][0] = -i * gap, score[0][j] = -j * gap,
//   score[i][j] = max(score[i-1][j-1] + subst(a[i], b[j]),
//                     score[i][j-1] - gap, score[i-1][j] - gap),
// with a BLOSUM62-like symmetric substitution table and a linear gap penalty.
// The matrix is cut into 16x16 tiles whose anti-diagonals are independent. Kernel nw_upper sweeps
// the tile anti-diagonals of the upper-left triangle (launch d has d+1 blocks), then nw_lower
// those of the lower-right triangle (shrinking again); 2n/16 - 1 launches in all. Each block is 16
// threads filling its tile in shared memory along the tile's own 31 anti-diagonals, after staging
// the tile's substitution scores and the neighbouring row/column of scores.
#include <algorithm>
#include <vector>

#include "workload.h"

constexpr int kTile = 16;
// The 20 amino acids plus B, Z, X and the stop symbol, as in BLOSUM62.
constexpr int kAlphabet = 24;

// Fills the 16x16 tile whose top-left cell is score[1 + 16*tile_row][1 + 16*tile_col]. `subst`
// holds the per-cell substitution score, laid out like `score` (row-major, `cols` wide).
__device__ void fill_tile(int* __restrict__ score, const int* __restrict__ subst, int cols,
                          int tile_row, int tile_col, int gap) {
  __shared__ int s[kTile + 1][kTile + 1];  // the tile plus the row above and column to the left
  __shared__ int sub[kTile][kTile];
  const int tx = threadIdx.x;
  const int corner = cols * kTile * tile_row + kTile * tile_col;  // the cell above-left of the tile
  const int first = corner + cols + 1;                            // the tile's first cell

  for (int r = 0; r < kTile; ++r) sub[r][tx] = subst[first + r * cols + tx];
  s[tx + 1][0] = score[corner + (tx + 1) * cols];  // left neighbour column
  s[0][tx + 1] = score[corner + 1 + tx];           // upper neighbour row
  if (tx == 0) s[0][0] = score[corner];
  __syncthreads();

  // Upper-left half of the tile's anti-diagonals (lengths 1..16); thread tx takes column tx.
  for (int m = 0; m < kTile; ++m) {
    if (tx <= m) {
      const int x = tx + 1, y = m - tx + 1;
      s[y][x] = max(s[y - 1][x - 1] + sub[y - 1][x - 1], max(s[y][x - 1] - gap, s[y - 1][x] - gap));
    }
    __syncthreads();
  }
  // Lower-right half (lengths 15..1).
  for (int m = kTile - 2; m >= 0; --m) {
    if (tx <= m) {
      const int x = tx + kTile - m, y = kTile - tx;
      s[y][x] = max(s[y - 1][x - 1] + sub[y - 1][x - 1], max(s[y][x - 1] - gap, s[y - 1][x] - gap));
    }
    __syncthreads();
  }

  for (int r = 0; r < kTile; ++r) score[first + r * cols + tx] = s[r + 1][tx + 1];
}

// Tile anti-diagonal `diag` (0-based) of the upper-left triangle: diag + 1 tiles.
__global__ void nw_upper(int* score, const int* subst, int cols, int diag, int gap) {
  const int bx = blockIdx.x;
  fill_tile(score, subst, cols, diag - bx, bx, gap);
}

// Anti-diagonal `diag` counted back from the corner tile of the lower-right triangle: diag + 1
// tiles, the first in the last tile row.
__global__ void nw_lower(int* score, const int* subst, int cols, int diag, int tiles, int gap) {
  const int bx = blockIdx.x;
  fill_tile(score, subst, cols, tiles - 1 - bx, tiles - 1 - diag + bx, gap);
}

int main(int argc, char** argv) {
  workload::Run run("nw", argc, argv);
  const int n = run.pick(256, 1024, 2048);  // sequence length, a multiple of the tile size
  const int gap = 10;
  const int cols = n + 1;
  const int tiles = n / kTile;
  run.info("two sequences of %d residues, gap penalty %d: %d x %d score matrix", n, gap, cols,
           cols);
  run.info(
      "nw_upper: %d launches of 1..%d blocks x %d threads; nw_lower: %d launches of %d..1 blocks",
      tiles, tiles, kTile, tiles - 1, tiles - 1);

  workload::Rng rng(run.seed());
  // A BLOSUM62-like symmetric table: matches score 4..11, mismatches mostly negative (-4..3).
  int table[kAlphabet][kAlphabet];
  for (int i = 0; i < kAlphabet; ++i) {
    table[i][i] = 4 + static_cast<int>(rng.below(8));
    for (int j = 0; j < i; ++j) table[i][j] = table[j][i] = static_cast<int>(rng.below(8)) - 4;
  }
  // Sequence a is random over the 20 amino acids; b is a relative of a (about 25% substitutions,
  // short insertions and deletions), so the optimal alignment follows a band near the diagonal.
  std::vector<int> a(n + 1), b(n + 1);
  for (int i = 1; i <= n; ++i) a[i] = static_cast<int>(rng.below(20));
  for (int j = 1, i = 1; j <= n; ++j) {
    const uint32_t event = rng.below(100);
    if (event < 3) {
      b[j] = static_cast<int>(rng.below(20));  // insertion in b
      continue;
    }
    if (event < 6) i += 1 + static_cast<int>(rng.below(3));  // deletion from b
    const int src = 1 + (i - 1) % n;
    b[j] = rng.below(4) == 0 ? static_cast<int>(rng.below(kAlphabet)) : a[src];
    ++i;
  }

  const size_t cells = static_cast<size_t>(cols) * cols;
  std::vector<int> subst(cells, 0), score(cells, 0);
  for (int i = 1; i <= n; ++i)
    for (int j = 1; j <= n; ++j) subst[static_cast<size_t>(i) * cols + j] = table[a[i]][b[j]];
  for (int i = 0; i <= n; ++i) {
    score[static_cast<size_t>(i) * cols] = -i * gap;
    score[i] = -i * gap;
  }

  int *d_score, *d_subst;
  CUDA_CHECK(cudaMalloc(&d_score, cells * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_subst, cells * sizeof(int)));
  CUDA_CHECK(cudaMemcpy(d_score, score.data(), cells * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_subst, subst.data(), cells * sizeof(int), cudaMemcpyHostToDevice));
  for (int d = 0; d < tiles; ++d) {
    nw_upper<<<d + 1, kTile>>>(d_score, d_subst, cols, d, gap);
    CUDA_CHECK(cudaGetLastError());
  }
  for (int d = tiles - 2; d >= 0; --d) {
    nw_lower<<<d + 1, kTile>>>(d_score, d_subst, cols, d, tiles, gap);
    CUDA_CHECK(cudaGetLastError());
  }
  std::vector<int> got(cells);
  CUDA_CHECK(cudaMemcpy(got.data(), d_score, cells * sizeof(int), cudaMemcpyDeviceToHost));

  // CPU reference: the plain row-by-row recurrence.
  for (int i = 1; i <= n; ++i)
    for (int j = 1; j <= n; ++j) {
      const size_t c = static_cast<size_t>(i) * cols + j;
      score[c] = std::max(score[c - cols - 1] + subst[c],
                          std::max(score[c - 1] - gap, score[c - cols] - gap));
    }
  run.check_equal("score matrix", got.data(), score.data(), cells);
  run.info("alignment score %d", got[cells - 1]);

  CUDA_CHECK(cudaFree(d_score));
  CUDA_CHECK(cudaFree(d_subst));
  return run.pass();
}
