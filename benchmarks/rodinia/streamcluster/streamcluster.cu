// rodinia/streamcluster - online k-median clustering of a stream of points (Rodinia/PARSEC
// streamcluster). The stream is read in chunks; each chunk is clustered by a local search for a
// facility-location solution whose facility cost z is binary-searched until between kmin and kmax
// centres open, and the weighted centres of all chunks are finally clustered the same way.
// The local search repeatedly asks "would opening candidate x as a centre lower the cost?"
// (pgain), and that question is what runs on the GPU:
//   pgain_kernel  one thread per point in 512-thread blocks: the point's weighted distance to x
//                 (x's coordinates staged in shared memory, point coordinates stored
//                 dimension-major so each dimension is a coalesced row); a point that is closer
//                 to x than to its centre is marked in switch_membership and adds its saving to
//                 its row's last slot of work_mem, any other point adds what it would lose to the
//                 slot of its centre (the lower bound for closing that centre).
// The host copies work_mem back, sums the columns and decides to open x and close centres, as
// the original does; coordinates are re-uploaded only after the points were shuffled.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "workload.h"

constexpr int kThreads = 512;
constexpr int kIter = 3;  // local-search effort factor (pgain calls per round: 3 kmax ln kmax)
constexpr int kSpeedyTries = 1;

struct PointRec {  // the per-point record the kernel reads (the original's Point_Struct)
  float weight;
  int assign;  // index of the point's centre
  float cost;  // weighted distance to that centre
};

__global__ void pgain_kernel(int num, int dim, int x, const PointRec* __restrict__ p,
                             int num_centers, int stride, const float* __restrict__ coord,
                             float* __restrict__ work_mem, const int* __restrict__ center_table,
                             char* __restrict__ switch_membership) {
  extern __shared__ float coord_x[];  // the candidate's coordinates
  for (int d = threadIdx.x; d < dim; d += blockDim.x) coord_x[d] = coord[d * num + x];
  __syncthreads();
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= num) return;

  float dist = 0.0f;
  for (int d = 0; d < dim; ++d) {
    const float diff = coord_x[d] - coord[d * num + tid];
    dist += diff * diff;
  }
  const PointRec rec = p[tid];
  const float x_cost = dist * rec.weight;
  float* lower = work_mem + static_cast<size_t>(tid) * stride;
  if (x_cost < rec.cost) {
    switch_membership[tid] = 1;
    lower[num_centers] += x_cost - rec.cost;
  } else {
    lower[center_table[rec.assign]] += rec.cost - x_cost;
  }
}

// A set of weighted points (a chunk of the stream, or the collected centres).
struct Points {
  int num = 0, dim = 0;
  std::vector<float> coord;  // num x dim, row-major
  std::vector<float> weight, cost;
  std::vector<int> assign;
  std::vector<char> is_center;
  void resize(int n, int d) {
    num = n, dim = d;
    coord.assign(static_cast<size_t>(n) * d, 0.0f);
    weight.assign(n, 1.0f);
    cost.assign(n, 0.0f);
    assign.assign(n, 0);
    is_center.assign(n, 0);
  }
  const float* at(int i) const { return &coord[static_cast<size_t>(i) * dim]; }
};

static float dist2(const Points& P, int i, int j) {
  float s = 0.0f;
  for (int d = 0; d < P.dim; ++d) {
    const float diff = P.at(i)[d] - P.at(j)[d];
    s += diff * diff;
  }
  return s;
}

// The local search: host control flow, GPU pgain, and a CPU check of every pgain launch.
class Clusterer {
 public:
  Clusterer(const workload::Run& run, workload::Rng& rng, int max_points, int dim)
      : run_(run), rng_(rng) {
    CUDA_CHECK(cudaMalloc(&d_coord_, static_cast<size_t>(max_points) * dim * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_p_, max_points * sizeof(PointRec)));
    CUDA_CHECK(cudaMalloc(&d_center_table_, max_points * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d_switch_, max_points));
  }
  ~Clusterer() {
    CUDA_CHECK(cudaFree(d_coord_));
    CUDA_CHECK(cudaFree(d_p_));
    CUDA_CHECK(cudaFree(d_center_table_));
    CUDA_CHECK(cudaFree(d_switch_));
    CUDA_CHECK(cudaFree(d_work_mem_));
  }
  long launches() const { return launches_; }

  // Clusters P into kmin..kmax centres (if it can); marks P.is_center, sets assign and cost.
  void local_search(Points& P, int kmin, int kmax) {
    P.is_center.assign(P.num, 0);
    if (P.num <= kmax) {  // no more points than centres wanted: every point is a centre
      for (int i = 0; i < P.num; ++i) P.assign[i] = i, P.cost[i] = 0.0f, P.is_center[i] = 1;
      return;
    }
    double hiz = 0.0, loz = 0.0;
    for (int i = 0; i < P.num; ++i) hiz += dist2(P, i, 0) * P.weight[i];
    double z = (hiz + loz) / 2.0;
    int k = 0;
    shuffle(P);
    double cost = speedy(P, z, &k);
    // Too few facilities: retry with another order, and after kSpeedyTries lower z.
    for (int tries = 0; k < kmin; ++tries) {
      if (tries >= kSpeedyTries) hiz = z, z = (hiz + loz) / 2.0, tries = 0;
      shuffle(P);
      cost = speedy(P, z, &k);
    }
    std::vector<int> feasible = select_feasible(P, kmin);
    for (int i = 0; i < P.num; ++i) P.is_center[P.assign[i]] = 1;

    const long iter = static_cast<long>(kIter * kmax * std::log(static_cast<double>(kmax)));
    for (;;) {
      cost = facility_location(P, feasible, z, &k, cost, iter, 0.1);  // rough
      if ((k <= 1.1 * kmax && k >= 0.9 * kmin) || (k <= kmax + 2 && k >= kmin - 2))
        cost = facility_location(P, feasible, z, &k, cost, iter, 0.001);  // then accurate
      if (k > kmax) {  // facilities too cheap: raise z
        loz = z;
        z = (hiz + loz) / 2.0;
        cost += (z - loz) * k;
      }
      if (k < kmin) {  // facilities too expensive: lower z
        hiz = z;
        z = (hiz + loz) / 2.0;
        cost += (z - hiz) * k;
      }
      if ((k <= kmax && k >= kmin) || loz >= 0.999 * hiz) break;
    }
    run_.info("  local search over %d points: %d centres", P.num, k);
  }

 private:
  void shuffle(Points& P) {
    for (int i = 0; i < P.num - 1; ++i) {
      const int j = i + static_cast<int>(rng_.below(P.num - i));
      std::swap_ranges(P.coord.begin() + static_cast<size_t>(i) * P.dim,
                       P.coord.begin() + static_cast<size_t>(i + 1) * P.dim,
                       P.coord.begin() + static_cast<size_t>(j) * P.dim);
      std::swap(P.weight[i], P.weight[j]);
    }
    coords_uploaded_ = false;
  }

  // A quick initial solution: open point 0, then each point with probability cost / z.
  double speedy(Points& P, double z, int* k) {
    for (int i = 0; i < P.num; ++i) P.cost[i] = dist2(P, i, 0) * P.weight[i], P.assign[i] = 0;
    *k = 1;
    for (int i = 1; i < P.num; ++i) {
      if (!(rng_.uniform_double() < P.cost[i] / z)) continue;
      ++*k;
      for (int j = 0; j < P.num; ++j) {
        const float c = dist2(P, i, j) * P.weight[j];
        if (c < P.cost[j]) P.cost[j] = c, P.assign[j] = i;
      }
    }
    double total = z * *k;
    for (int i = 0; i < P.num; ++i) total += P.cost[i];
    return total;
  }

  // Candidate centres: a weighted sample of kIter * kmin * ln(kmin) points.
  std::vector<int> select_feasible(const Points& P, int kmin) {
    const int count =
        std::min(P.num, static_cast<int>(kIter * kmin * std::log(static_cast<double>(kmin))));
    std::vector<int> feasible(count);
    if (count == P.num) {
      std::iota(feasible.begin(), feasible.end(), 0);
      return feasible;
    }
    std::vector<double> accum(P.num);
    std::partial_sum(P.weight.begin(), P.weight.end(), accum.begin());
    for (int& f : feasible) {
      const double w = rng_.uniform_double() * accum.back();
      f = static_cast<int>(std::upper_bound(accum.begin(), accum.end(), w) - accum.begin());
      f = std::min(f, P.num - 1);
    }
    return feasible;
  }

  // Rounds of `iter` pgain calls over the shuffled candidates until a round gains too little.
  double facility_location(Points& P, std::vector<int>& feasible, double z, int* k, double cost,
                           long iter, double e) {
    double change = cost;
    while (change / cost > e) {
      change = 0.0;
      for (int i = static_cast<int>(feasible.size()) - 1; i > 0; --i)
        std::swap(feasible[i], feasible[rng_.below(i + 1)]);
      for (long i = 0; i < iter; ++i) change += pgain(feasible[i % feasible.size()], P, z, k);
      cost -= change;
    }
    return cost;
  }

  // Opens x if that lowers the total cost (closing centres that become useless); returns the gain.
  double pgain(int x, Points& P, double z, int* numcenters) {
    const int num = P.num, dim = P.dim;
    // Number the current centres 0..K-1.
    std::vector<int> center_table(num);
    int K = 0;
    for (int i = 0; i < num; ++i)
      if (P.is_center[i]) center_table[i] = K++;
    const int stride = K + 1;

    if (!coords_uploaded_) {  // dimension-major for coalesced loads
      std::vector<float> t(static_cast<size_t>(num) * dim);
      for (int i = 0; i < num; ++i)
        for (int d = 0; d < dim; ++d) t[static_cast<size_t>(d) * num + i] = P.at(i)[d];
      CUDA_CHECK(cudaMemcpy(d_coord_, t.data(), t.size() * sizeof(float), cudaMemcpyHostToDevice));
      coords_uploaded_ = true;
    }
    const size_t work_size = static_cast<size_t>(num) * stride;
    if (work_size > work_capacity_) {
      CUDA_CHECK(cudaFree(d_work_mem_));
      CUDA_CHECK(cudaMalloc(&d_work_mem_, work_size * sizeof(float)));
      work_capacity_ = work_size;
    }
    std::vector<PointRec> rec(num);
    for (int i = 0; i < num; ++i) rec[i] = {P.weight[i], P.assign[i], P.cost[i]};
    CUDA_CHECK(cudaMemcpy(d_p_, rec.data(), num * sizeof(PointRec), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_center_table_, center_table.data(), num * sizeof(int),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_switch_, 0, num));
    CUDA_CHECK(cudaMemset(d_work_mem_, 0, work_size * sizeof(float)));
    pgain_kernel<<<workload::ceil_div(num, kThreads), kThreads, dim * sizeof(float)>>>(
        num, dim, x, d_p_, K, stride, d_coord_, d_work_mem_, d_center_table_, d_switch_);
    CUDA_CHECK(cudaGetLastError());
    ++launches_;
    std::vector<float> work(work_size);
    std::vector<char> sw(num);
    CUDA_CHECK(
        cudaMemcpy(work.data(), d_work_mem_, work_size * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(sw.data(), d_switch_, num, cudaMemcpyDeviceToHost));
    check(x, P, center_table, K, work, sw);

    // Opening x costs z, minus what the switching points save.
    double cost_of_opening_x = z;
    for (int i = 0; i < num; ++i) cost_of_opening_x += work[static_cast<size_t>(i) * stride + K];
    // A centre whose remaining points lose less than z by moving to x is better closed.
    std::vector<double> gl_lower(K, z);
    for (int i = 0; i < num; ++i)
      for (int c = 0; c < K; ++c) gl_lower[c] += work[static_cast<size_t>(i) * stride + c];
    int to_close = 0;
    for (int c = 0; c < K; ++c)
      if (gl_lower[c] > 0) ++to_close, cost_of_opening_x -= gl_lower[c];

    if (cost_of_opening_x >= 0) return 0.0;
    for (int i = 0; i < num; ++i) {
      const bool close_center = gl_lower[center_table[P.assign[i]]] > 0;
      if (sw[i] || close_center) {
        P.cost[i] = dist2(P, i, x) * P.weight[i];
        P.assign[i] = x;
      }
    }
    for (int i = 0; i < num; ++i)
      if (P.is_center[i] && gl_lower[center_table[i]] > 0) P.is_center[i] = 0;
    P.is_center[x] = 1;
    *numcenters += 1 - to_close;
    return -cost_of_opening_x;
  }

  // The CPU reference for one launch, from the same state. The GPU's float distance may differ
  // from the exact one by the roundings of the differences, the dim-term sum and the weight
  // product (<= (dim+3)u relative, first order), so a point whose exact x_cost is that close to
  // its current cost may go either way; every row of work_mem must then hold the one value the
  // GPU's decision implies, within that rounding plus one for the subtraction, and zeros elsewhere.
  void check(int x, const Points& P, const std::vector<int>& center_table, int K,
             const std::vector<float>& work, const std::vector<char>& sw) const {
    const double u = std::ldexp(1.0, -24);
    const int stride = K + 1;
    for (int i = 0; i < P.num; ++i) {
      double d = 0.0;
      for (int k = 0; k < P.dim; ++k) {
        const double diff = static_cast<double>(P.at(x)[k]) - P.at(i)[k];
        d += diff * diff;
      }
      const double x_cost = d * P.weight[i], cost = P.cost[i];
      const double tol = (P.dim + 4) * u * (x_cost + cost);
      const bool ambiguous = std::fabs(x_cost - cost) <= tol;
      if (sw[i] > 1 || (!ambiguous && sw[i] != (x_cost < cost)))
        workload::fail(
            "pgain(%d) launch %ld: point %d switch %d, expected %d (x_cost %.9g, cost %.9g)", x,
            launches_, i, sw[i], x_cost < cost, x_cost, cost);
      const int slot = sw[i] ? K : center_table[P.assign[i]];
      const double want = sw[i] ? x_cost - cost : cost - x_cost;
      for (int c = 0; c < stride; ++c) {
        const float got = work[static_cast<size_t>(i) * stride + c];
        if (c == slot ? !(std::fabs(got - want) <= tol) : got != 0.0f)
          workload::fail("pgain(%d) launch %ld: work_mem[%d][%d] = %.9g, expected %.9g", x,
                         launches_, i, c, got, c == slot ? want : 0.0);
      }
    }
  }

  const workload::Run& run_;
  workload::Rng& rng_;
  float* d_coord_ = nullptr;
  PointRec* d_p_ = nullptr;
  int* d_center_table_ = nullptr;
  char* d_switch_ = nullptr;
  float* d_work_mem_ = nullptr;
  size_t work_capacity_ = 0;
  bool coords_uploaded_ = false;
  long launches_ = 0;
};

// Moves every centre to the weighted mean of its cluster and gives it the cluster's weight.
static void contract_centers(Points& P) {
  for (int i = 0; i < P.num; ++i) {
    const int c = P.assign[i];
    if (c == i) continue;
    const float rel = P.weight[i] / (P.weight[c] + P.weight[i]);
    for (int d = 0; d < P.dim; ++d)
      P.coord[static_cast<size_t>(c) * P.dim + d] =
          P.coord[static_cast<size_t>(c) * P.dim + d] * (1.0f - rel) + P.at(i)[d] * rel;
    P.weight[c] += P.weight[i];
  }
}

int main(int argc, char** argv) {
  workload::Run run("streamcluster", argc, argv);
  // large is the original's usual run (10 20 256 65536 65536 1000); the smaller presets keep the
  // algorithm but shrink k, the dimension and the stream (each chunk costs hundreds of launches).
  const int kmin = run.pick(2, 3, 10), kmax = run.pick(4, 6, 20);
  const int dim = run.pick(8, 16, 256);
  const int n = run.pick(2048, 4096, 65536), chunk = run.pick(2048, 2048, 65536);
  const int max_centers = 1000;  // the original's cluster-size argument
  run.info(
      "%d points of dimension %d in chunks of %d, %d..%d centres: pgain_kernel grid %u x "
      "block %d",
      n, dim, chunk, kmin, kmax, workload::ceil_div(chunk, kThreads), kThreads);

  // The stream: points around 2*kmax Gaussian cluster centres in the unit cube, in random order.
  workload::Rng rng(run.seed());
  const int clusters = 2 * kmax;
  std::vector<float> centre(static_cast<size_t>(clusters) * dim), spread(clusters);
  for (auto& c : centre) c = rng.uniform();
  for (auto& s : spread) s = rng.uniform(0.02f, 0.1f);

  Points centers;
  centers.resize(0, dim);
  long launches = 0;
  {  // the clusterer owns the device buffers
    Clusterer clusterer(run, rng, std::max(chunk, max_centers), dim);
    Points P;
    for (int start = 0; start < n; start += chunk) {
      P.resize(std::min(chunk, n - start), dim);
      for (int i = 0; i < P.num; ++i) {
        const int c = static_cast<int>(rng.below(clusters));
        for (int d = 0; d < dim; ++d)
          P.coord[static_cast<size_t>(i) * dim + d] =
              centre[static_cast<size_t>(c) * dim + d] + spread[c] * rng.normal();
      }
      clusterer.local_search(P, kmin, kmax);
      contract_centers(P);
      for (int i = 0; i < P.num; ++i) {  // keep the weighted centres
        if (!P.is_center[i]) continue;
        if (centers.num == max_centers) workload::fail("more than %d centres", max_centers);
        centers.coord.insert(centers.coord.end(), P.at(i), P.at(i) + dim);
        centers.weight.push_back(P.weight[i]);
        ++centers.num;
      }
    }
    // Cluster the collected centres into the final solution.
    centers.cost.assign(centers.num, 0.0f);
    centers.assign.assign(centers.num, 0);
    clusterer.local_search(centers, kmin, kmax);
    launches = clusterer.launches();
  }

  // The final solution is consistent: every point's centre is open, every cost is its weighted
  // distance to that centre, and the centres carry the whole stream's weight.
  int final_k = 0;
  double total_cost = 0.0, total_weight = 0.0;
  for (int i = 0; i < centers.num; ++i) {
    const int c = centers.assign[i];
    if (!centers.is_center[c])
      workload::fail("centre %d is assigned to %d, which is not open", i, c);
    const float want = dist2(centers, i, c) * centers.weight[i];
    if (centers.cost[i] != want)
      workload::fail("centre %d: cost %.9g, expected %.9g", i, centers.cost[i], want);
    final_k += centers.is_center[i];
    total_cost += centers.cost[i];
    total_weight += centers.weight[i];
  }
  if (total_weight != n)
    workload::fail("centre weights add up to %.0f, expected %d", total_weight, n);
  run.info("%ld pgain launches; %d intermediate centres clustered into %d, cost %.4f", launches,
           centers.num, final_k, total_cost);
  return run.pass();
}
