// rodinia/nn - nearest neighbour search over storm-track records (Rodinia NN): every record is a
// (latitude, longitude) position; the k records closest to a query position are wanted.
// Kernel: euclid, one thread per record in 256-thread blocks on a 1-D grid, computing the
// Euclidean distance (in degrees) from the record to the query. The host then picks the k
// nearest from the distance array with a linear scan, as the original does.
#include <algorithm>
#include <utility>
#include <vector>

#include "workload.h"

struct LatLong {
  float lat, lng;
};

__global__ void euclid(const LatLong* __restrict__ records, float* __restrict__ distances, int n,
                       float lat, float lng) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const LatLong r = records[i];
    distances[i] = sqrtf((lat - r.lat) * (lat - r.lat) + (lng - r.lng) * (lng - r.lng));
  }
}

// The k smallest (distance, record) pairs in ascending order, chosen by a single pass that keeps
// a sorted list of the best k so far (the original's host selection). Ties go to the lower index.
static std::vector<std::pair<float, int>> k_nearest(const std::vector<float>& dist, int k) {
  std::vector<std::pair<float, int>> best;
  for (int i = 0; i < static_cast<int>(dist.size()); ++i) {
    if (static_cast<int>(best.size()) == k && !(dist[i] < best.back().first)) continue;
    auto pos = std::upper_bound(best.begin(), best.end(), std::make_pair(dist[i], i));
    best.insert(pos, {dist[i], i});
    if (static_cast<int>(best.size()) > k) best.pop_back();
  }
  return best;
}

int main(int argc, char** argv) {
  workload::Run run("nn", argc, argv);
  const int n = run.pick(1 << 16, 1 << 20, 1 << 23);
  const int k = 10;
  const float query_lat = 30.0f, query_lng = 90.0f;  // the original's usual query point
  const int block = 256;
  const unsigned grid = workload::ceil_div(n, block);
  run.info("%d records, %d nearest to (%.1f, %.1f): euclid grid %u x block %d", n, k, query_lat,
           query_lng, grid, block);

  // Storm tracks, like the original's hurricane records: each storm starts at a random position
  // and drifts north-west in small random steps, so records are clustered along tracks.
  workload::Rng rng(run.seed());
  std::vector<LatLong> records(n);
  float lat = 0.0f, lng = 0.0f;
  for (int i = 0; i < n; ++i) {
    if (i % 32 == 0) {  // a new storm every 32 six-hourly fixes
      lat = rng.uniform(7.0f, 40.0f);
      lng = rng.uniform(20.0f, 160.0f);
    }
    records[i] = {lat, lng};
    lat = std::min(lat + rng.uniform(-0.2f, 0.8f), 89.0f);
    lng = std::max(lng - rng.uniform(-0.3f, 1.0f), 0.0f);
  }

  LatLong* d_records;
  float* d_dist;
  CUDA_CHECK(cudaMalloc(&d_records, n * sizeof(LatLong)));
  CUDA_CHECK(cudaMalloc(&d_dist, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(d_records, records.data(), n * sizeof(LatLong), cudaMemcpyHostToDevice));
  euclid<<<grid, block>>>(d_records, d_dist, n, query_lat, query_lng);
  CUDA_CHECK(cudaGetLastError());
  std::vector<float> got(n);
  CUDA_CHECK(cudaMemcpy(got.data(), d_dist, n * sizeof(float), cudaMemcpyDeviceToHost));
  const auto got_best = k_nearest(got, k);

  // CPU reference. The GPU may fuse one of the two products into the sum (one rounding fewer)
  // and both sides take a correctly rounded sqrtf, so they differ by at most 1 ulp of the
  // square root; 2.5e-7 relative is that ulp (2^-23 = 1.19e-7) with margin for the double step.
  std::vector<float> want(n);
  for (int i = 0; i < n; ++i) {
    const float dlat = query_lat - records[i].lat, dlng = query_lng - records[i].lng;
    want[i] = std::sqrt(dlat * dlat + dlng * dlng);
  }
  run.check_close("distance", got.data(), want.data(), n, 2.5e-7, 0.0);

  // The k nearest: same distances (within the same tolerance), and every record the GPU side
  // chose is truly among the nearest (its reference distance is no larger than the k-th, up to
  // the tolerance; near-ties may legitimately be ordered differently).
  const auto want_best = k_nearest(want, k);
  for (int j = 0; j < k; ++j) {
    const float g = got_best[j].first, w = want_best[j].first;
    if (!(std::fabs(g - w) <= 2.5e-7f * w))
      workload::fail("nearest #%d: distance %.9g, expected %.9g", j, g, w);
    const float kth = want_best[k - 1].first;
    if (!(want[got_best[j].second] <= kth * (1.0f + 2.5e-7f)))
      workload::fail("nearest #%d: record %d is not among the %d nearest", j, got_best[j].second,
                     k);
  }
  for (int j = 0; j < std::min(k, 3); ++j)
    run.info("nearest #%d: record %d at (%.3f, %.3f), distance %.4f", j, got_best[j].second,
             records[got_best[j].second].lat, records[got_best[j].second].lng, got_best[j].first);

  CUDA_CHECK(cudaFree(d_records));
  CUDA_CHECK(cudaFree(d_dist));
  return run.pass();
}
