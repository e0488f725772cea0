// `table`: shortest-path routing from a table built once at start-up: for
// every (router, destination router) the lowest-numbered output port on a
// shortest path. Deterministic and minimal; deadlock-free on fabrics whose
// channel graph has no cycle (butterflies, a single switch), which is where
// the topologies offer it. On meshes use the dimension-order routings.
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "interconnect/routing/routing.h"

namespace warpsim::interconnect {
namespace {

class TableRouting final : public Routing {
 public:
  TableRouting(const Fabric& f, std::vector<uint32_t> next) : n_(f.routers.size()), next_(std::move(next)) {}
  uint32_t route(uint32_t router, uint32_t, RouteState& s) const override {
    return router == s.dst ? kEject : next_[size_t(router) * n_ + s.dst];
  }

 private:
  size_t n_;
  std::vector<uint32_t> next_;  // [router][destination] -> output port
};

}  // namespace

std::unique_ptr<Routing> make_table_routing(const Fabric& fabric, std::string& error) {
  if (fabric.is_grid()) {
    error = "table routing is for acyclic fabrics (butterfly); on a grid use xy, yx, o1turn, cdr or checkerboard";
    return nullptr;
  }
  const size_t n = fabric.routers.size();
  // Reverse adjacency: for each router, the (router, port) pairs leading to it.
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> into(n);
  for (uint32_t r = 0; r < n; ++r)
    for (uint32_t p = 0; p < fabric.routers[r].out.size(); ++p)
      if (fabric.routers[r].out[p].router != kNoPort) into[fabric.routers[r].out[p].router].push_back({r, p});
  std::vector<uint32_t> next(n * n, kNoPort);
  std::vector<uint32_t> dist(n);
  std::deque<uint32_t> queue;
  for (uint32_t d = 0; d < n; ++d) {
    std::fill(dist.begin(), dist.end(), UINT32_MAX);
    dist[d] = 0;
    queue.assign(1, d);
    while (!queue.empty()) {
      const uint32_t v = queue.front();
      queue.pop_front();
      for (auto [u, port] : into[v]) {
        if (dist[u] == UINT32_MAX) {
          dist[u] = dist[v] + 1;
          queue.push_back(u);
        }
        // The lowest port on any shortest path.
        if (dist[u] == dist[v] + 1 && port < next[size_t(u) * n + d]) next[size_t(u) * n + d] = port;
      }
    }
  }
  // Every router that has a node ejecting must be reachable from every
  // router that has a node injecting.
  for (uint32_t src = 0; src < fabric.inject.size(); ++src)
    for (const Attachment& a : fabric.inject[src])
      for (uint32_t dst = 0; dst < fabric.eject.size(); ++dst)
        for (const Attachment& e : fabric.eject[dst])
          if (a.router != e.router && next[size_t(a.router) * n + e.router] == kNoPort) {
            error = "table routing: node " + std::to_string(dst) + " cannot be reached from node " +
                    std::to_string(src);
            return nullptr;
          }
  return std::make_unique<TableRouting>(fabric, std::move(next));
}

}  // namespace warpsim::interconnect
