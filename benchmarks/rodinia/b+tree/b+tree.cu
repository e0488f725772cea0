// rodinia/b+tree - B+ tree lookups on the GPU (Rodinia B+tree): a tree of order 256 over integer
// keys is built on the host and copied to the device as an array of nodes in breadth-first order;
// the GPU answers batches of queries.
// Kernels: findK (one block per point query; its 256 threads test the 256 key slots of the current
// node in parallel, the matching thread records the child, and after a barrier thread 0 moves the
// query's node pointer down one level; at the leaf the thread holding the key fetches the record)
// and findRangeK (one block per range query; two such walks at once, for the range's start and end
// keys, then the leaves give the position of the first record in the range and the range's length).
// The per-query node pointers live in global memory, as in the well-known version.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <vector>

#include "workload.h"

constexpr int kOrder = 256;  // slots per node = threads per block

// A node: internal nodes hold up to kOrder children, child t covering keys[t] <= key < keys[t+1]
// (keys[0] = INT_MIN, unused slots INT_MAX); leaves hold up to kOrder-1 sorted keys and their record
// indices, unused key slots INT_MAX. The extra slot lets thread t always read keys[t + 1].
struct Knode {
  int location;
  int indices[kOrder + 1];
  int keys[kOrder + 1];
  bool is_leaf;
  int num_keys;
};

struct Record {
  int value;
};

__global__ void find_k(int height, const Knode* __restrict__ knodes, long knodes_elem,
                       const Record* __restrict__ records, int64_t* curr, int64_t* offset,
                       const int* __restrict__ keys, Record* ans) {
  const int t = threadIdx.x, q = blockIdx.x;
  const int key = keys[q];
  for (int level = 0; level < height; ++level) {
    const Knode& node = knodes[curr[q]];
    // Exactly one slot brackets the key; its thread records the child.
    if (node.keys[t] <= key && node.keys[t + 1] > key && node.indices[t] < knodes_elem)
      offset[q] = node.indices[t];
    __syncthreads();
    if (t == 0) curr[q] = offset[q];
    __syncthreads();
  }
  const Knode& leaf = knodes[curr[q]];
  if (leaf.keys[t] == key) ans[q].value = records[leaf.indices[t]].value;
}

__global__ void find_range_k(int height, const Knode* __restrict__ knodes, long knodes_elem,
                             int64_t* curr, int64_t* offset, int64_t* last, int64_t* offset_2,
                             const int* __restrict__ start, const int* __restrict__ end,
                             int* recstart, int* reclength) {
  __shared__ int first;
  const int t = threadIdx.x, q = blockIdx.x;
  const int lo_key = start[q], hi_key = end[q];
  for (int level = 0; level < height; ++level) {
    const Knode& a = knodes[curr[q]];
    if (a.keys[t] <= lo_key && a.keys[t + 1] > lo_key && a.indices[t] < knodes_elem)
      offset[q] = a.indices[t];
    const Knode& b = knodes[last[q]];
    if (b.keys[t] <= hi_key && b.keys[t + 1] > hi_key && b.indices[t] < knodes_elem)
      offset_2[q] = b.indices[t];
    __syncthreads();
    if (t == 0) {
      curr[q] = offset[q];
      last[q] = offset_2[q];
    }
    __syncthreads();
  }
  // Leaves are stored in key order and their records consecutively, so slot t of a leaf is record
  // indices[0] + t (slot num_keys is the next leaf's first record).
  // Start: the first slot with a key >= lo_key.
  const Knode& a = knodes[curr[q]];
  const int a_prev = t == 0 ? INT_MIN : a.keys[t - 1];
  if (a.keys[t] >= lo_key && a_prev < lo_key) {
    first = a.indices[0] + t;
    recstart[q] = first;
  }
  __syncthreads();
  // End: the first slot with a key > hi_key; the records in between are the range.
  const Knode& b = knodes[last[q]];
  const int b_prev = t == 0 ? INT_MIN : b.keys[t - 1];
  if (b.keys[t] > hi_key && b_prev <= hi_key) reclength[q] = b.indices[0] + t - first;
}

// Bulk-loads a tree over sorted keys with nodes filled between half and completely, as a tree grown
// by random insertions is; returns the nodes root first, level by level, and the number of internal
// levels above the leaves.
static std::vector<Knode> build_tree(const std::vector<int>& keys, workload::Rng& rng, int& height) {
  const int n = static_cast<int>(keys.size());
  auto blank = [](bool leaf) {
    Knode k{};
    std::fill(std::begin(k.keys), std::end(k.keys), INT_MAX);
    std::fill(std::begin(k.indices), std::end(k.indices), 0);
    k.is_leaf = leaf;
    return k;
  };
  // levels[0] = leaves; children of internal nodes are indices into the level below for now.
  std::vector<std::vector<Knode>> levels(1);
  std::vector<int> min_key;  // smallest key of each node of the level being built
  for (int i = 0; i < n;) {
    const int fill = std::min(n - i, kOrder / 2 + static_cast<int>(rng.below(kOrder / 2)));
    Knode leaf = blank(true);
    for (int s = 0; s < fill; ++s) {
      leaf.keys[s] = keys[i + s];
      leaf.indices[s] = i + s;  // record index = rank
    }
    leaf.num_keys = fill;
    min_key.push_back(keys[i]);
    levels[0].push_back(leaf);
    i += fill;
  }
  while (levels.back().size() > 1) {
    const int below = static_cast<int>(levels.back().size());
    std::vector<Knode> level;
    std::vector<int> level_min;
    for (int c = 0; c < below;) {
      const int fill = std::min(below - c, kOrder / 2 + static_cast<int>(rng.below(kOrder / 2 + 1)));
      Knode node = blank(false);
      for (int s = 0; s < fill; ++s) {
        node.keys[s] = s == 0 ? INT_MIN : min_key[c + s];
        node.indices[s] = c + s;
      }
      node.num_keys = fill;
      level_min.push_back(min_key[c]);
      level.push_back(node);
      c += fill;
    }
    levels.push_back(std::move(level));
    min_key.swap(level_min);
  }
  height = static_cast<int>(levels.size()) - 1;
  // Breadth-first numbering: the root level first.
  std::vector<int> first(levels.size());
  int total = 0;
  for (int l = height; l >= 0; --l) {
    first[l] = total;
    total += static_cast<int>(levels[l].size());
  }
  std::vector<Knode> nodes;
  nodes.reserve(total);
  for (int l = height; l >= 0; --l)
    for (Knode node : levels[l]) {
      node.location = static_cast<int>(nodes.size());
      if (l > 0)
        for (int s = 0; s < node.num_keys; ++s) node.indices[s] += first[l - 1];
      nodes.push_back(node);
    }
  return nodes;
}

int main(int argc, char** argv) {
  workload::Run run("b+tree", argc, argv);
  // Large is the well-known run: 1 M keys, 10,000 point queries, 6,000 ranges of width 3,000.
  const int n = run.pick(16384, 262144, 1000000);
  const int nk = run.pick(128, 4096, 10000);
  const int nr = run.pick(64, 2048, 6000);
  const int range = 3000;

  // Sorted distinct keys with random gaps (1..4), records with random values.
  workload::Rng rng(run.seed());
  std::vector<int> keys(n);
  std::vector<Record> records(n);
  int key = 1000;
  for (int i = 0; i < n; ++i) {
    key += 1 + static_cast<int>(rng.below(4));
    keys[i] = key;
    records[i].value = static_cast<int>(rng.below(1u << 30));
  }
  int height = 0;
  const std::vector<Knode> nodes = build_tree(keys, rng, height);
  const long knodes_elem = static_cast<long>(nodes.size());

  // Point queries: half are keys in the tree, half random values in (and just past) the key range,
  // most of which miss. Range queries start anywhere in the key range.
  const int lo = keys.front() - 10, span = keys.back() + 10 - lo;
  std::vector<int> qkeys(nk), rstart(nr), rend(nr);
  for (int i = 0; i < nk; ++i)
    qkeys[i] = i % 2 ? keys[rng.below(n)] : lo + static_cast<int>(rng.below(span));
  for (int i = 0; i < nr; ++i) {
    rstart[i] = lo + static_cast<int>(rng.below(span));
    rend[i] = rstart[i] + range;
  }
  run.info("%d records, %ld nodes of order %d, height %d (+ leaves), node %zu bytes", n,
           knodes_elem, kOrder, height, sizeof(Knode));
  run.info("find_k: grid %d, block %d; find_range_k (width %d): grid %d, block %d", nk, kOrder,
           range, nr, kOrder);

  Knode* d_nodes;
  Record *d_records, *d_ans;
  int *d_qkeys, *d_start, *d_end, *d_recstart, *d_reclength;
  int64_t *d_curr, *d_offset, *d_last, *d_offset_2;
  const int nq = std::max(nk, nr);
  CUDA_CHECK(cudaMalloc(&d_nodes, nodes.size() * sizeof(Knode)));
  CUDA_CHECK(cudaMalloc(&d_records, n * sizeof(Record)));
  CUDA_CHECK(cudaMalloc(&d_ans, nk * sizeof(Record)));
  CUDA_CHECK(cudaMalloc(&d_qkeys, nk * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_start, nr * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_end, nr * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_recstart, nr * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_reclength, nr * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_curr, nq * sizeof(int64_t)));
  CUDA_CHECK(cudaMalloc(&d_offset, nq * sizeof(int64_t)));
  CUDA_CHECK(cudaMalloc(&d_last, nr * sizeof(int64_t)));
  CUDA_CHECK(cudaMalloc(&d_offset_2, nr * sizeof(int64_t)));
  CUDA_CHECK(cudaMemcpy(d_nodes, nodes.data(), nodes.size() * sizeof(Knode), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_records, records.data(), n * sizeof(Record), cudaMemcpyHostToDevice));

  // Point queries: every walk starts at the root (node 0); a miss leaves the answer at -1.
  CUDA_CHECK(cudaMemcpy(d_qkeys, qkeys.data(), nk * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(d_curr, 0, nk * sizeof(int64_t)));
  CUDA_CHECK(cudaMemset(d_offset, 0, nk * sizeof(int64_t)));
  CUDA_CHECK(cudaMemset(d_ans, 0xff, nk * sizeof(Record)));
  find_k<<<nk, kOrder>>>(height, d_nodes, knodes_elem, d_records, d_curr, d_offset, d_qkeys, d_ans);
  CUDA_CHECK(cudaGetLastError());
  std::vector<Record> ans(nk);
  CUDA_CHECK(cudaMemcpy(ans.data(), d_ans, nk * sizeof(Record), cudaMemcpyDeviceToHost));

  // Range queries.
  CUDA_CHECK(cudaMemcpy(d_start, rstart.data(), nr * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_end, rend.data(), nr * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(d_curr, 0, nr * sizeof(int64_t)));
  CUDA_CHECK(cudaMemset(d_offset, 0, nr * sizeof(int64_t)));
  CUDA_CHECK(cudaMemset(d_last, 0, nr * sizeof(int64_t)));
  CUDA_CHECK(cudaMemset(d_offset_2, 0, nr * sizeof(int64_t)));
  CUDA_CHECK(cudaMemset(d_recstart, 0xff, nr * sizeof(int)));
  CUDA_CHECK(cudaMemset(d_reclength, 0xff, nr * sizeof(int)));
  find_range_k<<<nr, kOrder>>>(height, d_nodes, knodes_elem, d_curr, d_offset, d_last, d_offset_2,
                               d_start, d_end, d_recstart, d_reclength);
  CUDA_CHECK(cudaGetLastError());
  std::vector<int> recstart(nr), reclength(nr);
  CUDA_CHECK(cudaMemcpy(recstart.data(), d_recstart, nr * sizeof(int), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(reclength.data(), d_reclength, nr * sizeof(int), cudaMemcpyDeviceToHost));

  // CPU reference: binary searches over the sorted keys.
  std::vector<int> got_value(nk), want_value(nk), want_start(nr), want_length(nr);
  int hits = 0;
  for (int i = 0; i < nk; ++i) {
    got_value[i] = ans[i].value;
    const auto it = std::lower_bound(keys.begin(), keys.end(), qkeys[i]);
    const bool found = it != keys.end() && *it == qkeys[i];
    want_value[i] = found ? records[it - keys.begin()].value : -1;
    hits += found;
  }
  long long total_length = 0;
  for (int i = 0; i < nr; ++i) {
    const auto b = std::lower_bound(keys.begin(), keys.end(), rstart[i]);
    const auto e = std::upper_bound(keys.begin(), keys.end(), rend[i]);
    want_start[i] = static_cast<int>(b - keys.begin());
    want_length[i] = static_cast<int>(e - b);
    total_length += want_length[i];
  }
  run.info("%d of %d point queries hit; ranges hold %.0f records on average", hits, nk,
           static_cast<double>(total_length) / nr);
  run.check_equal("find_k value", got_value.data(), want_value.data(), nk);
  run.check_equal("find_range_k start", recstart.data(), want_start.data(), nr);
  run.check_equal("find_range_k length", reclength.data(), want_length.data(), nr);

  CUDA_CHECK(cudaFree(d_nodes));
  CUDA_CHECK(cudaFree(d_records));
  CUDA_CHECK(cudaFree(d_ans));
  CUDA_CHECK(cudaFree(d_qkeys));
  CUDA_CHECK(cudaFree(d_start));
  CUDA_CHECK(cudaFree(d_end));
  CUDA_CHECK(cudaFree(d_recstart));
  CUDA_CHECK(cudaFree(d_reclength));
  CUDA_CHECK(cudaFree(d_curr));
  CUDA_CHECK(cudaFree(d_offset));
  CUDA_CHECK(cudaFree(d_last));
  CUDA_CHECK(cudaFree(d_offset_2));
  return run.pass();
}
