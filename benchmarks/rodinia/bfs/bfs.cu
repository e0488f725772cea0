// rodinia/bfs - breadth-first search over a CSR graph with frontier masks (Rodinia BFS, after
// Harish & Narayanan, HiPC 2007): every level the host launches two kernels until no node changes.
// Kernels: bfs_expand (one thread per node: a frontier node clears its mask and marks every
// unvisited neighbour with cost+1 in the updating mask) and bfs_update (one thread per node: moves
// the updating mask into the frontier and the visited set, raising the 'continue' flag); blocks of
// 512 threads (fewer only when the graph has fewer nodes), 1-D grid over the nodes.
#include <algorithm>
#include <vector>

#include "workload.h"

// Node record as in the well-known version: where its edges start in the edge list, how many.
struct Node {
  int starting;
  int no_of_edges;
};

__global__ void bfs_expand(const Node* __restrict__ nodes, const int* __restrict__ edges,
                           bool* mask, bool* updating_mask, const bool* visited, int* cost,
                           int n) {
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < n && mask[tid]) {
    mask[tid] = false;
    const Node nd = nodes[tid];
    for (int i = nd.starting; i < nd.starting + nd.no_of_edges; ++i) {
      const int id = edges[i];
      // Several frontier nodes may reach the same neighbour; all write the same level.
      if (!visited[id]) {
        cost[id] = cost[tid] + 1;
        updating_mask[id] = true;
      }
    }
  }
}

__global__ void bfs_update(bool* mask, bool* updating_mask, bool* visited, bool* over, int n) {
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < n && updating_mask[tid]) {
    mask[tid] = true;
    visited[tid] = true;
    *over = true;  // every writer stores the same value
    updating_mask[tid] = false;
  }
}

int main(int argc, char** argv) {
  workload::Run run("bfs", argc, argv);
  // Large is the well-known graph1MW_6 input scale: 1 M nodes, average degree about 6.
  const int n = run.pick(16384, 262144, 1 << 20);
  const int source = 0;

  // Synthetic undirected random graph: every node draws 1..5 random partners and each pair is
  // stored in both directions, so degrees spread from 1 to well above 10 around a mean of 6, like
  // the random graphs of the Rodinia generator.
  workload::Rng rng(run.seed());
  std::vector<std::vector<int>> adj(n);
  for (int u = 0; u < n; ++u) {
    const int k = 1 + static_cast<int>(rng.below(5));
    for (int j = 0; j < k; ++j) {
      int v = static_cast<int>(rng.below(static_cast<uint32_t>(n)));
      if (v == u) v = (v + 1) % n;
      adj[u].push_back(v);
      adj[v].push_back(u);
    }
  }
  std::vector<Node> nodes(n);
  std::vector<int> edges;
  edges.reserve(static_cast<size_t>(n) * 6);
  int max_degree = 0;
  for (int u = 0; u < n; ++u) {
    nodes[u] = {static_cast<int>(edges.size()), static_cast<int>(adj[u].size())};
    max_degree = std::max(max_degree, nodes[u].no_of_edges);
    edges.insert(edges.end(), adj[u].begin(), adj[u].end());
  }
  adj.clear();
  adj.shrink_to_fit();
  const int num_edges = static_cast<int>(edges.size());

  const int block = std::min(n, 512);
  const unsigned grid = workload::ceil_div(n, block);
  run.info("%d nodes, %d directed edges (mean degree %.2f, max %d), source %d", n, num_edges,
           static_cast<double>(num_edges) / n, max_degree, source);
  run.info("bfs_expand + bfs_update per level: grid %u, block %d", grid, block);

  std::vector<char> h_mask(n, 0), h_visited(n, 0);  // bool-sized host mirrors
  std::vector<int> h_cost(n, -1);
  h_mask[source] = 1;
  h_visited[source] = 1;
  h_cost[source] = 0;

  Node* d_nodes;
  int *d_edges, *d_cost;
  bool *d_mask, *d_updating, *d_visited, *d_over;
  CUDA_CHECK(cudaMalloc(&d_nodes, n * sizeof(Node)));
  CUDA_CHECK(cudaMalloc(&d_edges, num_edges * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_mask, n * sizeof(bool)));
  CUDA_CHECK(cudaMalloc(&d_updating, n * sizeof(bool)));
  CUDA_CHECK(cudaMalloc(&d_visited, n * sizeof(bool)));
  CUDA_CHECK(cudaMalloc(&d_cost, n * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_over, sizeof(bool)));
  static_assert(sizeof(bool) == sizeof(char), "bool mirrors are bytes");
  CUDA_CHECK(cudaMemcpy(d_nodes, nodes.data(), n * sizeof(Node), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_edges, edges.data(), num_edges * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_mask, h_mask.data(), n, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(d_updating, 0, n));
  CUDA_CHECK(cudaMemcpy(d_visited, h_visited.data(), n, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_cost, h_cost.data(), n * sizeof(int), cudaMemcpyHostToDevice));

  // The host drives the levels: clear the flag, expand, update, read the flag back.
  int levels = 0;
  bool over;
  do {
    over = false;
    CUDA_CHECK(cudaMemcpy(d_over, &over, sizeof(bool), cudaMemcpyHostToDevice));
    bfs_expand<<<grid, block>>>(d_nodes, d_edges, d_mask, d_updating, d_visited, d_cost, n);
    CUDA_CHECK(cudaGetLastError());
    bfs_update<<<grid, block>>>(d_mask, d_updating, d_visited, d_over, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(&over, d_over, sizeof(bool), cudaMemcpyDeviceToHost));
    ++levels;
    if (levels > n + 1) workload::fail("no convergence after %d levels", levels);
  } while (over);
  CUDA_CHECK(cudaMemcpy(h_cost.data(), d_cost, n * sizeof(int), cudaMemcpyDeviceToHost));
  run.info("%d iterations (2 kernels each)", levels);

  // CPU reference: queue-based BFS from the same source; unreachable nodes keep -1.
  std::vector<int> want(n, -1), queue;
  queue.reserve(n);
  want[source] = 0;
  queue.push_back(source);
  for (size_t head = 0; head < queue.size(); ++head) {
    const int u = queue[head];
    for (int i = nodes[u].starting; i < nodes[u].starting + nodes[u].no_of_edges; ++i)
      if (want[edges[i]] < 0) {
        want[edges[i]] = want[u] + 1;
        queue.push_back(edges[i]);
      }
  }
  const int depth = want[queue.back()];
  run.info("%zu nodes reached, depth %d", queue.size(), depth);
  // The GPU runs one extra level that finds nothing new.
  if (levels != depth + 1) workload::fail("%d iterations, expected %d", levels, depth + 1);
  run.check_equal("cost", h_cost.data(), want.data(), n);

  CUDA_CHECK(cudaFree(d_nodes));
  CUDA_CHECK(cudaFree(d_edges));
  CUDA_CHECK(cudaFree(d_mask));
  CUDA_CHECK(cudaFree(d_updating));
  CUDA_CHECK(cudaFree(d_visited));
  CUDA_CHECK(cudaFree(d_cost));
  CUDA_CHECK(cudaFree(d_over));
  return run.pass();
}
