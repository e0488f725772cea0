// ispass/cp - Coulombic potential, the GPGPU-Sim ISPASS'09 "CP" benchmark (after the direct
// Coulomb summation kernel of VMD's cionize, Stone et al. 2007): the electrostatic potential
// V(p) = sum_i q_i / |p - a_i| of a set of point charges at every point of a 2-D lattice slice.
// Kernel: cenergy, block 16 x 8, grid nx / (16 * 8) x ny / 8 (8 x 32 at the paper's 1024 x 256
// slice). Each thread computes 8 lattice points of one row, 16 points apart, so that at every
// step a row of 16 threads reads and writes 16 consecutive floats (coalesced). The atoms live in
// constant memory as (x, y, dz^2, q) with dz^2 to the slice precomputed on the host; every thread
// of a warp reads the same atom at the same time (a broadcast). The atoms go through in chunks
// that fit constant memory, one launch per chunk, each adding its part to the lattice.
// Checked against a CPU sum in double: per point, the error may be a few float roundings of
// sum_i |q_i| / r_i (see the check, which also reports the worst error seen).
#include <algorithm>
#include <cmath>
#include <vector>

#include "workload.h"

namespace {

constexpr int kBlockX = 16, kBlockY = 8, kUnroll = 8;
constexpr int kMaxAtoms = 4000;  // 4000 float4 = 62.5 KiB, under the 64 KiB of constant memory

__constant__ float4 c_atoms[kMaxAtoms];  // x, y, dz^2, charge

__global__ void __launch_bounds__(kBlockX* kBlockY)
    cenergy(int natoms, float spacing, int nx, float* __restrict__ energy) {
  // The lattice is a whole number of tiles, so there is no bounds check (as in the original).
  const int xi = blockIdx.x * kBlockX * kUnroll + threadIdx.x;
  const int yi = blockIdx.y * kBlockY + threadIdx.y;
  const float x0 = spacing * xi, y = spacing * yi;
  const float step = spacing * kBlockX;  // distance between this thread's points
  float e[kUnroll] = {};
  for (int a = 0; a < natoms; ++a) {
    const float4 atom = c_atoms[a];
    const float dy = y - atom.y;
    const float dyz2 = dy * dy + atom.z;
    float dx = x0 - atom.x;
#pragma unroll
    for (int u = 0; u < kUnroll; ++u, dx += step) e[u] += atom.w * rsqrtf(dx * dx + dyz2);
  }
  float* out = energy + static_cast<size_t>(yi) * nx + xi;
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) out[u * kBlockX] += e[u];
}

struct Atom {
  float x, y, z, q;
};

}  // namespace

int main(int argc, char** argv) {
  workload::Run run("cp", argc, argv);
  const dim3 block(kBlockX, kBlockY);
  const dim3 grid(run.pick(4u, 8u, 8u), run.pick(4u, 16u, 32u));
  const int nx = grid.x * kBlockX * kUnroll, ny = grid.y * kBlockY;
  const int natoms = run.pick(96, 256, 4000);
  const int per_launch = run.pick(32, 128, 1000);  // atoms per constant-memory load and launch
  const float spacing = 0.5f;                      // Angstrom
  const float slice_z = 0.0f;
  const int launches = (natoms + per_launch - 1) / per_launch;
  run.info(
      "%d x %d lattice (%.1f A spacing), %d atoms in %d launches; cenergy grid %u x %u, block "
      "%u x %u, %d points per thread",
      nx, ny, spacing, natoms, launches, grid.x, grid.y, block.x, block.y, kUnroll);

  // Atoms spread over the slice's area and 10 A above and below it, with partial charges of
  // either sign (|q| 0.1 .. 1 e) as in a biomolecule.
  workload::Rng rng(run.seed());
  std::vector<Atom> atoms(natoms);
  for (Atom& a : atoms) {
    a.x = rng.uniform(0.0f, nx * spacing);
    a.y = rng.uniform(0.0f, ny * spacing);
    a.z = rng.uniform(slice_z - 10.0f, slice_z + 10.0f);
    a.q = rng.uniform(0.1f, 1.0f) * (rng.below(2) ? 1.0f : -1.0f);
  }

  const size_t points = size_t{static_cast<unsigned>(nx)} * ny;
  float* d_energy;
  CUDA_CHECK(cudaMalloc(&d_energy, points * sizeof(float)));
  CUDA_CHECK(cudaMemset(d_energy, 0, points * sizeof(float)));
  std::vector<float4> chunk(per_launch);
  for (int first = 0; first < natoms; first += per_launch) {
    const int count = std::min(per_launch, natoms - first);
    for (int i = 0; i < count; ++i) {
      const Atom& a = atoms[first + i];
      const float dz = slice_z - a.z;
      chunk[i] = make_float4(a.x, a.y, dz * dz, a.q);
    }
    CUDA_CHECK(cudaMemcpyToSymbol(c_atoms, chunk.data(), count * sizeof(float4)));
    cenergy<<<grid, block>>>(count, spacing, nx, d_energy);
    CUDA_CHECK(cudaGetLastError());
  }
  std::vector<float> got(points);
  CUDA_CHECK(cudaMemcpy(got.data(), d_energy, points * sizeof(float), cudaMemcpyDeviceToHost));

  // Each term carries about 8 float roundings (the coordinate differences, squares and sum,
  // rsqrtf's 2 ulp, the product with q), each relative to that term; the float running sum over
  // the atoms adds one rounding per atom, which accumulate like a random walk. So the error is a
  // few (8 + 2 sqrt(atoms)) float epsilons of sum_i |q_i| / r_i, the condition of the sum.
  const double eps = std::ldexp(1.0, -24);
  const double tol = (8.0 + 2.0 * std::sqrt(static_cast<double>(natoms))) * eps;
  double worst = 0;
  for (int yi = 0; yi < ny; ++yi)
    for (int xi = 0; xi < nx; ++xi) {
      const double x = static_cast<double>(spacing) * xi, y = static_cast<double>(spacing) * yi;
      double v = 0, mag = 0;
      for (const Atom& a : atoms) {
        const double dx = x - a.x, dy = y - a.y, dz = slice_z - static_cast<double>(a.z);
        const double term = a.q / std::sqrt(dx * dx + dy * dy + dz * dz);
        v += term;
        mag += std::fabs(term);
      }
      const size_t p = static_cast<size_t>(yi) * nx + xi;
      const double err = std::fabs(got[p] - v) / mag;
      worst = std::max(worst, err);
      if (!(err <= tol))
        workload::fail(
            "potential at (%d, %d): got %.9g, expected %.9g (error %.2e of sum |q/r| = "
            "%.4g, tolerance %.1e)",
            xi, yi, got[p], v, err, mag, tol);
    }
  run.info("worst error %.2e of sum |q/r| (tolerance %.1e)", worst, tol);

  CUDA_CHECK(cudaFree(d_energy));
  return run.pass();
}
