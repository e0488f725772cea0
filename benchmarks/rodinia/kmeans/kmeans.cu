// rodinia/kmeans - k-means clustering (Rodinia K-means): points with F features are assigned to
// the nearest of k centres on the GPU, the host recomputes the centres from the memberships, and the
// loop repeats until no point changes cluster (or 500 iterations).
// Kernels: invert_mapping (once; one thread per point, transposes the point-major features into a
// feature-major array so that a warp's loads of one feature are coalesced) and kmeans_point (every
// iteration; one thread per point, distances to all centres, which sit in constant memory and are
// read by the whole warp at once). Blocks of 256 threads; kmeans_point runs on a square 2-D grid.
// The loop stops after 500 iterations like the original; tiny stops after 3 to stay small.
#include <algorithm>
#include <cmath>
#include <vector>

#include "workload.h"

constexpr int kBlock = 256;
constexpr int kMaxClusters = 32, kMaxFeatures = 34;  // room in constant memory, as the original

__constant__ float c_clusters[kMaxClusters * kMaxFeatures];

__global__ void invert_mapping(const float* __restrict__ in, float* __restrict__ out, int npoints,
                               int nfeatures) {
  const int point = blockIdx.x * blockDim.x + threadIdx.x;
  if (point < npoints)
    for (int f = 0; f < nfeatures; ++f) out[f * npoints + point] = in[point * nfeatures + f];
}

// Squared distance accumulated as fmaf(d, d, sum) explicitly, so the CPU reference (std::fmaf)
// computes bit-identical distances and memberships can be compared exactly.
__global__ void kmeans_point(const float* __restrict__ features_t, int* __restrict__ membership,
                             int npoints, int nfeatures, int nclusters) {
  const int block = blockIdx.y * gridDim.x + blockIdx.x;
  const int point = block * blockDim.x + threadIdx.x;
  if (point >= npoints) return;
  int index = 0;
  float min_dist = INFINITY;
  for (int c = 0; c < nclusters; ++c) {
    float dist = 0.0f;
    for (int f = 0; f < nfeatures; ++f) {
      const float d = features_t[f * npoints + point] - c_clusters[c * nfeatures + f];
      dist = __fmaf_rn(d, d, dist);
    }
    if (dist < min_dist) {  // the first centre wins a tie
      min_dist = dist;
      index = c;
    }
  }
  membership[point] = index;
}

// Host step shared by the GPU loop and the CPU reference: centres = means of their members (a
// centre with no members stays where it is), summing in point order, in float.
static void update_centres(const std::vector<float>& features, const std::vector<int>& membership,
                           int npoints, int nfeatures, int nclusters, std::vector<float>& centres) {
  std::vector<float> sum(static_cast<size_t>(nclusters) * nfeatures, 0.0f);
  std::vector<int> count(nclusters, 0);
  for (int p = 0; p < npoints; ++p) {
    const int c = membership[p];
    ++count[c];
    for (int f = 0; f < nfeatures; ++f)
      sum[static_cast<size_t>(c) * nfeatures + f] += features[static_cast<size_t>(p) * nfeatures + f];
  }
  for (int c = 0; c < nclusters; ++c)
    if (count[c] > 0)
      for (int f = 0; f < nfeatures; ++f)
        centres[static_cast<size_t>(c) * nfeatures + f] =
            sum[static_cast<size_t>(c) * nfeatures + f] / static_cast<float>(count[c]);
}

int main(int argc, char** argv) {
  workload::Run run("kmeans", argc, argv);
  // Large is the well-known kdd_cup input size: 494,020 points of 34 features, 5 clusters.
  const int npoints = run.pick(4096, 8192, 494020);
  const int nfeatures = 34, nclusters = 5;
  const int max_iterations = run.pick(3, 500, 500);

  // Synthetic data: a mixture of 8 Gaussian blobs of different widths and populations in the unit
  // hypercube plus 5% uniform background points, so 5 centres have to split and merge blobs.
  workload::Rng rng(run.seed());
  const int blobs = 8;
  std::vector<float> blob_centre(static_cast<size_t>(blobs) * nfeatures), blob_sigma(blobs),
      blob_weight(blobs);
  float total_weight = 0.0f;
  for (int b = 0; b < blobs; ++b) {
    for (int f = 0; f < nfeatures; ++f) blob_centre[static_cast<size_t>(b) * nfeatures + f] = rng.uniform();
    blob_sigma[b] = rng.uniform(0.03f, 0.12f);
    blob_weight[b] = rng.uniform(0.5f, 2.0f);
    total_weight += blob_weight[b];
  }
  std::vector<float> features(static_cast<size_t>(npoints) * nfeatures);
  for (int p = 0; p < npoints; ++p) {
    float* x = &features[static_cast<size_t>(p) * nfeatures];
    if (rng.uniform() < 0.05f) {
      for (int f = 0; f < nfeatures; ++f) x[f] = rng.uniform();
      continue;
    }
    float pick = rng.uniform(0.0f, total_weight);
    int b = 0;
    while (b < blobs - 1 && pick >= blob_weight[b]) pick -= blob_weight[b++];
    for (int f = 0; f < nfeatures; ++f)
      x[f] = blob_centre[static_cast<size_t>(b) * nfeatures + f] + blob_sigma[b] * rng.normal();
  }
  // Initial centres: k distinct random points.
  std::vector<float> initial(static_cast<size_t>(nclusters) * nfeatures);
  std::vector<int> chosen;
  while (static_cast<int>(chosen.size()) < nclusters) {
    const int p = static_cast<int>(rng.below(npoints));
    if (std::find(chosen.begin(), chosen.end(), p) != chosen.end()) continue;
    std::copy_n(&features[static_cast<size_t>(p) * nfeatures], nfeatures,
                &initial[chosen.size() * nfeatures]);
    chosen.push_back(p);
  }

  const unsigned blocks = workload::ceil_div(npoints, kBlock);
  const unsigned per_dim = static_cast<unsigned>(std::ceil(std::sqrt(static_cast<double>(blocks))));
  const dim3 grid2(per_dim, per_dim);
  run.info("%d points × %d features, %d clusters, at most %d iterations", npoints, nfeatures,
           nclusters, max_iterations);
  run.info("invert_mapping: grid %u, block %d; kmeans_point: grid %u×%u, block %d", blocks, kBlock,
           per_dim, per_dim, kBlock);

  float *d_features, *d_features_t;
  int* d_membership;
  CUDA_CHECK(cudaMalloc(&d_features, features.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_features_t, features.size() * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_membership, npoints * sizeof(int)));
  CUDA_CHECK(cudaMemcpy(d_features, features.data(), features.size() * sizeof(float),
                        cudaMemcpyHostToDevice));
  invert_mapping<<<blocks, kBlock>>>(d_features, d_features_t, npoints, nfeatures);
  CUDA_CHECK(cudaGetLastError());

  // The host loop of the well-known version: centres to constant memory, assign, copy the
  // memberships back, count changes, recompute the centres.
  std::vector<float> centres = initial;
  std::vector<int> membership(npoints, -1), got(npoints);
  int iterations = 0, delta;
  do {
    CUDA_CHECK(cudaMemcpyToSymbol(c_clusters, centres.data(), centres.size() * sizeof(float)));
    kmeans_point<<<grid2, kBlock>>>(d_features_t, d_membership, npoints, nfeatures, nclusters);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(got.data(), d_membership, npoints * sizeof(int), cudaMemcpyDeviceToHost));
    delta = 0;
    for (int p = 0; p < npoints; ++p) delta += got[p] != membership[p];
    membership.swap(got);
    update_centres(features, membership, npoints, nfeatures, nclusters, centres);
    ++iterations;
  } while (delta > 0 && iterations < max_iterations);
  run.info("%d iterations (kmeans_point launches)", iterations);

  // CPU reference: the same loop with distances computed on the host.
  std::vector<float> want_centres = initial;
  std::vector<int> want(npoints, -1), next(npoints);
  int want_iterations = 0;
  do {
    delta = 0;
    for (int p = 0; p < npoints; ++p) {
      int index = 0;
      float min_dist = INFINITY;
      for (int c = 0; c < nclusters; ++c) {
        float dist = 0.0f;
        for (int f = 0; f < nfeatures; ++f) {
          const float d = features[static_cast<size_t>(p) * nfeatures + f] -
                          want_centres[static_cast<size_t>(c) * nfeatures + f];
          dist = std::fmaf(d, d, dist);
        }
        if (dist < min_dist) {
          min_dist = dist;
          index = c;
        }
      }
      next[p] = index;
      delta += index != want[p];
    }
    want.swap(next);
    update_centres(features, want, npoints, nfeatures, nclusters, want_centres);
    ++want_iterations;
  } while (delta > 0 && want_iterations < max_iterations);

  if (iterations != want_iterations)
    workload::fail("%d iterations, expected %d", iterations, want_iterations);
  run.check_equal("membership", membership.data(), want.data(), npoints);

  CUDA_CHECK(cudaFree(d_features));
  CUDA_CHECK(cudaFree(d_features_t));
  CUDA_CHECK(cudaFree(d_membership));
  return run.pass();
}
