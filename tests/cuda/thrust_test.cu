// thrust_test.cu - Thrust algorithms on thrust::device_vector.
//
// Covers: thrust::sort (20000 ints), thrust::sort_by_key, thrust::stable_sort_by_key,
// thrust::reduce (sum and maximum), thrust::inclusive_scan, thrust::exclusive_scan (with an
// initial value), thrust::transform with a user functor, thrust::count_if with a predicate
// functor, thrust::unique after a sort; every result is copied back and compared with the
// std:: equivalent on the host.
// Inputs come from a fixed-seed linear congruential generator.
//
// Build: nvcc -cudart shared -o thrust_test thrust_test.cu
//        [also builds with CUDA 11.8; Thrust needs the C++ library, so with the 11.8 toolkit
//         link with clang++ (-ccbin clang++-14) or add -lstdc++ when using -ccbin clang-14]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <numeric>
#include <utility>
#include <vector>

#include <cuda_runtime.h>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/unique.h>

#define TEST_NAME "thrust_test"
#include "cuda_check.h"

static void check_ints(const char* what, const std::vector<int>& got,
                       const std::vector<int>& want) {
  EXPECT(got.size() == want.size(), "%s: size %zu, expected %zu", what, got.size(), want.size());
  check_ints(what, got.data(), want.data(), want.size());
}

static std::vector<int> to_host(const thrust::device_vector<int>& d) {
  std::vector<int> h(d.size());
  thrust::copy(d.begin(), d.end(), h.begin());
  return h;
}

struct Lcg {
  unsigned state;
  explicit Lcg(unsigned seed) : state(seed) {}
  int next(int mod) {
    state = state * 1664525u + 1013904223u;
    return (int)((state >> 8) % (unsigned)mod);
  }
};

struct SquareMod {
  __host__ __device__ int operator()(int x) const { return (x * x) % 1009 - 500; }
};

struct IsMultipleOf {
  int k;
  __host__ __device__ bool operator()(int x) const { return x % k == 0; }
};

int main() {
  CHECK(cudaSetDevice(0));
  Lcg rng(12345);

  // ---- sort 20000 ints ----
  const int n = 20000;
  std::vector<int> h(n);
  for (int i = 0; i < n; ++i) h[i] = rng.next(2000001) - 1000000;
  {
    thrust::device_vector<int> d(h.begin(), h.end());
    thrust::sort(d.begin(), d.end());
    std::vector<int> want = h;
    std::sort(want.begin(), want.end());
    check_ints("thrust::sort", to_host(d), want);
  }

  // ---- sort_by_key (not promised stable: keys sorted, values a matching permutation) and
  // stable_sort_by_key (exactly std::stable_sort) ----
  {
    const int m = 4096;
    std::vector<int> keys(m), vals(m);
    for (int i = 0; i < m; ++i) {
      keys[i] = rng.next(300);  // many duplicates
      vals[i] = i;
    }
    std::vector<std::pair<int, int>> pairs(m);
    for (int i = 0; i < m; ++i) pairs[i] = std::make_pair(keys[i], vals[i]);
    std::stable_sort(pairs.begin(), pairs.end(),
                     [](const std::pair<int, int>& a, const std::pair<int, int>& b) {
                       return a.first < b.first;
                     });
    std::vector<int> want_k(m), want_v(m);
    for (int i = 0; i < m; ++i) {
      want_k[i] = pairs[i].first;
      want_v[i] = pairs[i].second;
    }

    thrust::device_vector<int> dk(keys.begin(), keys.end()), dv(vals.begin(), vals.end());
    thrust::sort_by_key(dk.begin(), dk.end(), dv.begin());
    std::vector<int> got_k = to_host(dk), got_v = to_host(dv);
    check_ints("thrust::sort_by_key keys", got_k, want_k);
    std::vector<char> used(m, 0);
    for (int i = 0; i < m; ++i) {
      int v = got_v[i];
      EXPECT(v >= 0 && v < m && !used[v] && keys[v] == got_k[i],
             "thrust::sort_by_key: position %d holds value %d for key %d", i, v, got_k[i]);
      used[v] = 1;
    }

    thrust::device_vector<int> sk(keys.begin(), keys.end()), sv(vals.begin(), vals.end());
    thrust::stable_sort_by_key(sk.begin(), sk.end(), sv.begin());
    check_ints("thrust::stable_sort_by_key keys", to_host(sk), want_k);
    check_ints("thrust::stable_sort_by_key values", to_host(sv), want_v);
  }

  // ---- reduce ----
  thrust::device_vector<int> d(h.begin(), h.end());
  {
    long long want_sum = std::accumulate(h.begin(), h.end(), 0LL);
    long long got_sum = thrust::reduce(d.begin(), d.end(), 0LL, thrust::plus<long long>());
    EXPECT(got_sum == want_sum, "thrust::reduce sum %lld, expected %lld", got_sum, want_sum);
    int got_max = thrust::reduce(d.begin(), d.end(), -2000000000, thrust::maximum<int>());
    int want_max = *std::max_element(h.begin(), h.end());
    EXPECT(got_max == want_max, "thrust::reduce max %d, expected %d", got_max, want_max);
  }

  // ---- scans (values kept small so the int prefix sums do not overflow) ----
  {
    std::vector<int> small(n);
    for (int i = 0; i < n; ++i) small[i] = h[i] % 1000;
    thrust::device_vector<int> ds(small.begin(), small.end()), out(n);
    thrust::inclusive_scan(ds.begin(), ds.end(), out.begin());
    std::vector<int> want(n);
    std::partial_sum(small.begin(), small.end(), want.begin());
    check_ints("thrust::inclusive_scan", to_host(out), want);

    thrust::exclusive_scan(ds.begin(), ds.end(), out.begin(), 17);
    int acc = 17;
    for (int i = 0; i < n; ++i) {
      want[i] = acc;
      acc += small[i];
    }
    check_ints("thrust::exclusive_scan(init 17)", to_host(out), want);
  }

  // ---- transform with a functor ----
  {
    thrust::device_vector<int> out(n);
    std::vector<int> small(n);
    for (int i = 0; i < n; ++i) small[i] = h[i] % 30000;
    thrust::device_vector<int> ds(small.begin(), small.end());
    thrust::transform(ds.begin(), ds.end(), out.begin(), SquareMod());
    std::vector<int> want(n);
    std::transform(small.begin(), small.end(), want.begin(), SquareMod());
    check_ints("thrust::transform(SquareMod)", to_host(out), want);
  }

  // ---- count_if ----
  {
    IsMultipleOf pred;
    pred.k = 7;
    long got = (long)thrust::count_if(d.begin(), d.end(), pred);
    long want = (long)std::count_if(h.begin(), h.end(), pred);
    EXPECT(got == want, "thrust::count_if(multiple of 7) = %ld, expected %ld", got, want);
  }

  // ---- unique after sort (5000 elements: keeps the simulated instruction count down) ----
  {
    std::vector<int> dup(5000);
    for (int i = 0; i < 5000; ++i) dup[i] = h[i] % 500;
    thrust::device_vector<int> dd(dup.begin(), dup.end());
    thrust::sort(dd.begin(), dd.end());
    thrust::device_vector<int>::iterator end = thrust::unique(dd.begin(), dd.end());
    dd.resize(end - dd.begin());
    std::sort(dup.begin(), dup.end());
    dup.erase(std::unique(dup.begin(), dup.end()), dup.end());
    check_ints("thrust::sort + thrust::unique", to_host(dd), dup);
  }

  CHECK(cudaDeviceSynchronize());
  CHECK(cudaGetLastError());
  return report_pass();
}
