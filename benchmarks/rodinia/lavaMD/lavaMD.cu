// rodinia/lavaMD - particle potential and force in a 3-D grid of boxes (Rodinia lavaMD): space
// is cut into boxes1d^3 cubic boxes of 100 particles each; every particle interacts with the
// particles of its own box and of the up-to-26 adjacent boxes through a Gaussian pair potential
//   v_ij = exp(-a2 * r2_ij),  r2_ij = v_i + v_j - r_i . r_j,  v = |r|^2 / 2  (so r2 = |r_i - r_j|^2
//   / 2),
// accumulating  V_i += q_j v_ij  and  F_i += q_j * 2 v_ij * (r_i - r_j).
// Kernel: kernel_gpu, one 128-thread block per home box. The block stages the home box's positions
// in shared memory, then for the home box and each neighbour in turn stages that box's positions
// and charges in shared memory and lets each thread sweep its home particle over all 100 of them.
#include <algorithm>
#include <cmath>
#include <vector>

#include "workload.h"

constexpr int kParPerBox = 100;
constexpr int kThreads = 128;
constexpr int kMaxNeighbours = 26;

// A position (with v = |r|^2 / 2) or a result (potential v, force x, y, z), as in the original.
struct __align__(16) FourVector {
  float v, x, y, z;
};

struct Box {
  int offset;                     // index of the box's first particle
  int count;                      // number of neighbour boxes (3..26)
  int neighbour[kMaxNeighbours];  // their indices, in z, y, x order
};

__global__ void kernel_gpu(const Box* __restrict__ boxes, int num_boxes,
                           const FourVector* __restrict__ rv, const float* __restrict__ qv,
                           FourVector* __restrict__ fv, float a2) {
  __shared__ FourVector ra[kParPerBox];  // home box positions
  __shared__ FourVector rb[kParPerBox];  // current neighbour box positions
  __shared__ float qb[kParPerBox];       // and charges
  const int bx = blockIdx.x, tx = threadIdx.x;
  if (bx >= num_boxes) return;
  const Box& home = boxes[bx];
  for (int i = tx; i < kParPerBox; i += kThreads) ra[i] = rv[home.offset + i];

  // k = 0 is the home box itself, then its neighbours.
  for (int k = 0; k <= home.count; ++k) {
    const int nb = k == 0 ? home.offset : boxes[home.neighbour[k - 1]].offset;
    __syncthreads();  // the previous box's particles are no longer in use
    for (int j = tx; j < kParPerBox; j += kThreads) {
      rb[j] = rv[nb + j];
      qb[j] = qv[nb + j];
    }
    __syncthreads();
    for (int i = tx; i < kParPerBox; i += kThreads) {
      const FourVector a = ra[i];
      FourVector f = fv[home.offset + i];
      for (int j = 0; j < kParPerBox; ++j) {
        const FourVector b = rb[j];
        const float r2 = a.v + b.v - (a.x * b.x + a.y * b.y + a.z * b.z);
        const float vij = expf(-a2 * r2);
        const float fs = 2.0f * vij;
        const float q = qb[j];
        f.v += q * vij;
        f.x += q * (fs * (a.x - b.x));
        f.y += q * (fs * (a.y - b.y));
        f.z += q * (fs * (a.z - b.z));
      }
      fv[home.offset + i] = f;
    }
  }
}

int main(int argc, char** argv) {
  workload::Run run("lavaMD", argc, argv);
  const int boxes1d = run.pick(2, 3, 10);
  const int num_boxes = boxes1d * boxes1d * boxes1d;
  const int n = num_boxes * kParPerBox;
  const float alpha = 0.5f, a2 = 2.0f * alpha * alpha;
  run.info("%d^3 boxes of %d particles (%d particles), alpha %.2f: kernel_gpu grid %d x block %d",
           boxes1d, kParPerBox, n, alpha, num_boxes, kThreads);

  // Boxes in z, y, x order, each with the list of its existing neighbours (no wrap-around).
  std::vector<Box> boxes(num_boxes);
  for (int z = 0, b = 0; z < boxes1d; ++z)
    for (int y = 0; y < boxes1d; ++y)
      for (int x = 0; x < boxes1d; ++x, ++b) {
        Box& box = boxes[b];
        box.offset = b * kParPerBox;
        box.count = 0;
        for (int dz = -1; dz <= 1; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              const int nz = z + dz, ny = y + dy, nx = x + dx;
              if ((dz == 0 && dy == 0 && dx == 0) || nz < 0 || ny < 0 || nx < 0 || nz >= boxes1d ||
                  ny >= boxes1d || nx >= boxes1d)
                continue;
              box.neighbour[box.count++] = (nz * boxes1d + ny) * boxes1d + nx;
            }
      }

  // Particles uniformly inside their unit box; v = |r|^2 / 2; charges 0.1 .. 1.
  workload::Rng rng(run.seed());
  std::vector<FourVector> rv(n);
  std::vector<float> qv(n);
  for (int z = 0, b = 0; z < boxes1d; ++z)
    for (int y = 0; y < boxes1d; ++y)
      for (int x = 0; x < boxes1d; ++x, ++b)
        for (int p = 0; p < kParPerBox; ++p) {
          FourVector& r = rv[b * kParPerBox + p];
          r.x = x + rng.uniform();
          r.y = y + rng.uniform();
          r.z = z + rng.uniform();
          r.v = 0.5f * (r.x * r.x + r.y * r.y + r.z * r.z);
          qv[b * kParPerBox + p] = rng.uniform(0.1f, 1.0f);
        }

  Box* d_boxes;
  FourVector *d_rv, *d_fv;
  float* d_qv;
  CUDA_CHECK(cudaMalloc(&d_boxes, num_boxes * sizeof(Box)));
  CUDA_CHECK(cudaMalloc(&d_rv, n * sizeof(FourVector)));
  CUDA_CHECK(cudaMalloc(&d_qv, n * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_fv, n * sizeof(FourVector)));
  CUDA_CHECK(cudaMemcpy(d_boxes, boxes.data(), num_boxes * sizeof(Box), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_rv, rv.data(), n * sizeof(FourVector), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_qv, qv.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(d_fv, 0, n * sizeof(FourVector)));
  kernel_gpu<<<num_boxes, kThreads>>>(d_boxes, num_boxes, d_rv, d_qv, d_fv, a2);
  CUDA_CHECK(cudaGetLastError());
  std::vector<FourVector> fv(n);
  CUDA_CHECK(cudaMemcpy(fv.data(), d_fv, n * sizeof(FourVector), cudaMemcpyDeviceToHost));

  // CPU reference in double over the same pairs, with a first-order error bound per output:
  // each term carries the rounding of r2 (a 5-term sum, <= 6u of its terms' magnitude S, scaled
  // by a2 inside the exponential), expf's 2 ulp (4u) and <= 4 more roundings (8u in all), and
  // the float accumulation of N terms adds up to N*u of the terms' absolute sum.
  const double u = std::ldexp(1.0, -24);
  double worst = 0.0;
  for (int b = 0; b < num_boxes; ++b) {
    const Box& home = boxes[b];
    const int terms = (home.count + 1) * kParPerBox;
    for (int i = 0; i < kParPerBox; ++i) {
      const FourVector a = rv[home.offset + i];
      double want[4] = {0, 0, 0, 0}, bound[4] = {0, 0, 0, 0};
      for (int k = 0; k <= home.count; ++k) {
        const int nb = k == 0 ? home.offset : boxes[home.neighbour[k - 1]].offset;
        for (int j = 0; j < kParPerBox; ++j) {
          const FourVector r = rv[nb + j];
          const double dot = double(a.x) * r.x + double(a.y) * r.y + double(a.z) * r.z;
          const double r2 = double(a.v) + r.v - dot;
          const double vij = std::exp(-double(a2) * r2), q = qv[nb + j];
          const double t[4] = {q * vij, q * 2 * vij * (double(a.x) - r.x),
                               q * 2 * vij * (double(a.y) - r.y),
                               q * 2 * vij * (double(a.z) - r.z)};
          const double rel = terms * u + 8 * u + a2 * 6 * u * (double(a.v) + r.v + std::fabs(dot));
          for (int c = 0; c < 4; ++c) {
            want[c] += t[c];
            bound[c] += std::fabs(t[c]) * rel;
          }
        }
      }
      const FourVector g = fv[home.offset + i];
      const double got[4] = {g.v, g.x, g.y, g.z};
      static const char* name[4] = {"potential", "force x", "force y", "force z"};
      for (int c = 0; c < 4; ++c) {
        const double err = std::fabs(got[c] - want[c]);
        if (!(err <= bound[c]))
          workload::fail("particle %d %s: got %.9g, expected %.9g (error %.3g > bound %.3g)",
                         home.offset + i, name[c], got[c], want[c], err, bound[c]);
        worst = std::max(worst, err / bound[c]);
      }
    }
  }
  run.info("largest error: %.4f of the bound", worst);

  CUDA_CHECK(cudaFree(d_boxes));
  CUDA_CHECK(cudaFree(d_rv));
  CUDA_CHECK(cudaFree(d_qv));
  CUDA_CHECK(cudaFree(d_fv));
  return run.pass();
}
