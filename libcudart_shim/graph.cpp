// CUDA graphs: construction, cloning, ordering, instantiation and update
// (graph.h). Execution is the runtime's (runtime_graph.cpp).
#include "libcudart_shim/graph.h"

#include <algorithm>
#include <queue>

#include <fmt/format.h>

namespace warpsim::cudart {

const char* node_type_name(NodeType t) {
  switch (t) {
    case NodeType::Kernel: return "kernel";
    case NodeType::Memcpy: return "memcpy";
    case NodeType::Memset: return "memset";
    case NodeType::Host: return "host";
    case NodeType::Graph: return "graph";
    case NodeType::Empty: return "empty";
    case NodeType::WaitEvent: return "wait-event";
    case NodeType::EventRecord: return "event-record";
    case NodeType::MemAlloc: return "mem-alloc";
    case NodeType::MemFree: return "mem-free";
  }
  return "?";
}

void KernelParams::rebuild_pointers() {
  arg_pointers.clear();
  for (uint32_t off : param_offsets) arg_pointers.push_back(param_block.data() + off);
}

// ---- Graph ---------------------------------------------------------------------------------

bool Graph::contains(const GraphNode* node) const { return node && node->owner == this; }

Error Graph::add(NodeType type, std::span<GraphNode* const> deps, GraphNode** out) {
  for (size_t i = 0; i < deps.size(); ++i) {
    if (!contains(deps[i])) return Error::InvalidValue;
    for (size_t j = 0; j < i; ++j)
      if (deps[j] == deps[i]) return Error::InvalidValue;  // duplicate dependency
  }
  auto node = std::make_unique<GraphNode>();
  node->type = type;
  node->owner = this;
  node->index = next_index_++;
  for (GraphNode* d : deps) {
    node->deps.push_back(d);
    d->dependents.push_back(node.get());
  }
  *out = node.get();
  nodes_.push_back(std::move(node));
  return Error::Success;
}

namespace {
bool has_edge(const GraphNode* from, const GraphNode* to) {
  return std::find(to->deps.begin(), to->deps.end(), from) != to->deps.end();
}
void erase_one(std::vector<GraphNode*>& v, const GraphNode* x) {
  auto it = std::find(v.begin(), v.end(), x);
  if (it != v.end()) v.erase(it);
}
}  // namespace

Error Graph::add_edges(std::span<GraphNode* const> from, std::span<GraphNode* const> to) {
  if (from.size() != to.size()) return Error::InvalidValue;
  for (size_t i = 0; i < from.size(); ++i) {
    if (!contains(from[i]) || !contains(to[i]) || from[i] == to[i]) return Error::InvalidValue;
    if (has_edge(from[i], to[i])) return Error::InvalidValue;
    for (size_t j = 0; j < i; ++j)
      if (from[j] == from[i] && to[j] == to[i]) return Error::InvalidValue;
  }
  for (size_t i = 0; i < from.size(); ++i) {
    to[i]->deps.push_back(from[i]);
    from[i]->dependents.push_back(to[i]);
  }
  return Error::Success;
}

Error Graph::remove_edges(std::span<GraphNode* const> from, std::span<GraphNode* const> to) {
  if (from.size() != to.size()) return Error::InvalidValue;
  for (size_t i = 0; i < from.size(); ++i)
    if (!contains(from[i]) || !contains(to[i]) || !has_edge(from[i], to[i]))
      return Error::InvalidValue;
  for (size_t i = 0; i < from.size(); ++i) {
    erase_one(to[i]->deps, from[i]);
    erase_one(from[i]->dependents, to[i]);
  }
  return Error::Success;
}

Error Graph::destroy(GraphNode* node) {
  if (!contains(node)) return Error::InvalidValue;
  for (GraphNode* d : node->deps) erase_one(d->dependents, node);
  for (GraphNode* d : node->dependents) erase_one(d->deps, node);
  std::erase_if(nodes_, [&](const std::unique_ptr<GraphNode>& n) { return n.get() == node; });
  return Error::Success;
}

std::vector<GraphNode*> Graph::roots() const {
  std::vector<GraphNode*> out;
  for (const auto& n : nodes_)
    if (n->deps.empty()) out.push_back(n.get());
  return out;
}

size_t Graph::edge_count() const {
  size_t n = 0;
  for (const auto& node : nodes_) n += node->deps.size();
  return n;
}

std::unique_ptr<Graph> Graph::clone() const {
  auto g = std::make_unique<Graph>();
  std::unordered_map<const GraphNode*, GraphNode*> map;
  for (const auto& n : nodes_) {
    auto c = std::make_unique<GraphNode>();
    c->type = n->type;
    c->owner = g.get();
    c->index = n->index;
    c->kernel = n->kernel;
    c->kernel.rebuild_pointers();
    c->copy = n->copy;
    c->memset = n->memset;
    c->host = n->host;
    c->event = n->event;
    if (n->child) c->child = n->child->clone();
    c->alloc = n->alloc;
    c->free_address = n->free_address;
    c->cloned_from = n.get();
    map[n.get()] = c.get();
    g->nodes_.push_back(std::move(c));
  }
  for (const auto& n : nodes_) {
    GraphNode* c = map[n.get()];
    for (GraphNode* d : n->deps) c->deps.push_back(map[d]);
    for (GraphNode* d : n->dependents) c->dependents.push_back(map[d]);
  }
  g->next_index_ = next_index_;
  return g;
}

GraphNode* Graph::find_clone_of(const GraphNode* original) const {
  for (const auto& n : nodes_)
    if (n->cloned_from == original) return n.get();
  return nullptr;
}

bool Graph::topological_order(std::vector<const GraphNode*>& out,
                              const GraphNode** on_cycle) const {
  // Kahn's algorithm; the ready set is ordered by creation so the order (and
  // so the functional execution order) is deterministic.
  std::unordered_map<const GraphNode*, size_t> waiting;
  using Item = std::pair<uint64_t, const GraphNode*>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> ready;
  for (const auto& n : nodes_) {
    waiting[n.get()] = n->deps.size();
    if (n->deps.empty()) ready.push({n->index, n.get()});
  }
  out.clear();
  while (!ready.empty()) {
    const GraphNode* n = ready.top().second;
    ready.pop();
    out.push_back(n);
    for (const GraphNode* d : n->dependents)
      if (--waiting[d] == 0) ready.push({d->index, d});
  }
  if (out.size() == nodes_.size()) return true;
  if (on_cycle) {
    for (const auto& n : nodes_)
      if (waiting[n.get()] != 0) {
        *on_cycle = n.get();
        break;
      }
  }
  return false;
}

bool Graph::acyclic(const GraphNode** on_cycle) const {
  std::vector<const GraphNode*> order;
  if (!topological_order(order, on_cycle)) return false;
  for (const auto& n : nodes_)
    if (n->child && !n->child->acyclic(on_cycle)) return false;
  return true;
}

bool Graph::has_memory_nodes() const {
  for (const auto& n : nodes_)
    if (n->type == NodeType::MemAlloc || n->type == NodeType::MemFree) return true;
  return false;
}

void Graph::for_each_node(const std::function<void(GraphNode*)>& f) {
  for (auto& n : nodes_) {
    f(n.get());
    if (n->child) n->child->for_each_node(f);
  }
}

std::string Graph::to_dot(const std::string& name) const {
  std::string s = fmt::format("digraph \"{}\" {{\n", name);
  for (const auto& n : nodes_) {
    std::string label = node_type_name(n->type);
    if (n->type == NodeType::Kernel)
      label += fmt::format("\\ngrid ({},{},{}) block ({},{},{})", n->kernel.grid.x,
                           n->kernel.grid.y, n->kernel.grid.z, n->kernel.block.x,
                           n->kernel.block.y, n->kernel.block.z);
    else if (n->type == NodeType::Memcpy)
      label += fmt::format("\\n{} x {} x {} bytes", n->copy.width, n->copy.height, n->copy.depth);
    s += fmt::format("  n{} [label=\"{} {}\"];\n", n->index, n->index, label);
  }
  for (const auto& n : nodes_)
    for (const GraphNode* d : n->deps) s += fmt::format("  n{} -> n{};\n", d->index, n->index);
  s += "}\n";
  return s;
}

// ---- GraphExec -----------------------------------------------------------------------------

GraphExec::GraphExec(const Graph& graph, uint64_t flags) : graph_(graph.clone()), flags_(flags) {
  graph_->topological_order(order_);
  for (const auto& n : graph_->nodes()) {
    from_original_[n->cloned_from] = n.get();
    if (n->type == NodeType::MemAlloc) ++n->alloc->executables;
  }
}

GraphExec::~GraphExec() {
  for (const auto& n : graph_->nodes())
    if (n->type == NodeType::MemAlloc) --n->alloc->executables;
}

GraphNode* GraphExec::node_for(const GraphNode* original) const {
  auto it = from_original_.find(original);
  return it == from_original_.end() ? nullptr : it->second;
}

void GraphExec::set_enabled(const GraphNode* exec_node, bool on) {
  if (on)
    disabled_.erase(exec_node);
  else
    disabled_.insert(exec_node);
}

namespace {

// Whether `b` has `a`'s shape: node types pairwise (by position), edges, and
// child graphs recursively. Nodes are paired in creation order.
UpdateResult same_shape(const Graph& a, const Graph& b, const GraphNode** error_node) {
  const auto& na = a.nodes();
  const auto& nb = b.nodes();
  if (na.size() != nb.size()) {
    if (error_node && !nb.empty()) *error_node = nb.front().get();
    return UpdateResult::TopologyChanged;
  }
  std::unordered_map<const GraphNode*, size_t> pos_a, pos_b;
  for (size_t i = 0; i < na.size(); ++i) {
    pos_a[na[i].get()] = i;
    pos_b[nb[i].get()] = i;
  }
  for (size_t i = 0; i < na.size(); ++i) {
    const GraphNode& x = *na[i];
    const GraphNode& y = *nb[i];
    if (x.type != y.type) {
      if (error_node) *error_node = &y;
      return UpdateResult::NodeTypeChanged;
    }
    std::vector<size_t> dx, dy;
    for (const GraphNode* d : x.deps) dx.push_back(pos_a[d]);
    for (const GraphNode* d : y.deps) dy.push_back(pos_b[d]);
    std::sort(dx.begin(), dx.end());
    std::sort(dy.begin(), dy.end());
    if (dx != dy) {
      if (error_node) *error_node = &y;
      return UpdateResult::TopologyChanged;
    }
    // Memory nodes cannot change: the executable graph's addresses are fixed.
    if ((x.type == NodeType::MemAlloc && x.alloc->bytes != y.alloc->bytes) ||
        (x.type == NodeType::MemFree && x.free_address != y.free_address)) {
      if (error_node) *error_node = &y;
      return UpdateResult::NotSupported;
    }
    if (x.type == NodeType::Graph) {
      UpdateResult r = same_shape(*x.child, *y.child, nullptr);
      if (r != UpdateResult::Success) {
        if (error_node) *error_node = &y;
        return r;
      }
    }
  }
  return UpdateResult::Success;
}

void take_parameters(Graph& into, const Graph& from) {
  for (size_t i = 0; i < into.nodes().size(); ++i) {
    GraphNode& x = *into.nodes()[i];
    const GraphNode& y = *from.nodes()[i];
    x.kernel = y.kernel;
    x.kernel.rebuild_pointers();
    x.copy = y.copy;
    x.memset = y.memset;
    x.host = y.host;
    x.event = y.event;
    if (x.child) take_parameters(*x.child, *y.child);
  }
}

}  // namespace

UpdateResult GraphExec::update(const Graph& graph, const GraphNode** error_node) {
  UpdateResult r = same_shape(*graph_, graph, error_node);
  if (r != UpdateResult::Success) return r;
  take_parameters(*graph_, graph);
  // The updated graph's nodes name the same instantiated nodes from now on.
  for (size_t i = 0; i < graph.nodes().size(); ++i)
    from_original_[graph.nodes()[i].get()] = graph_->nodes()[i].get();
  return UpdateResult::Success;
}

// ---- GraphTable ----------------------------------------------------------------------------

Graph* GraphTable::create() { return adopt(std::make_unique<Graph>()); }

Graph* GraphTable::adopt(std::unique_ptr<Graph> graph) {
  Graph* g = graph.get();
  g->for_each_node([&](GraphNode* n) { added(n); });
  graphs_[g] = std::move(graph);
  return g;
}

void GraphTable::added(GraphNode* node) {
  nodes_.insert(node);
  if (node->child) {
    owned_.insert(node->child.get());
    node->child->for_each_node([&](GraphNode* n) { added(n); });
  }
}

void GraphTable::removed(GraphNode* node) {
  nodes_.erase(node);
  if (node->child) forget_nodes(*node->child);
}

void GraphTable::forget_nodes(Graph& graph) {
  owned_.erase(&graph);
  graph.for_each_node([&](GraphNode* n) {
    nodes_.erase(n);
    if (n->child) owned_.erase(n->child.get());
  });
}

bool GraphTable::destroy(Graph* graph) {
  auto it = graphs_.find(graph);
  if (it == graphs_.end()) return false;
  forget_nodes(*graph);
  graphs_.erase(it);
  return true;
}

GraphNode* GraphTable::node(const void* handle) const {
  auto* n = static_cast<GraphNode*>(const_cast<void*>(handle));
  return nodes_.contains(n) ? n : nullptr;
}

GraphExec* GraphTable::instantiate(const Graph& graph, uint64_t flags) {
  auto exec = std::make_unique<GraphExec>(graph, flags);
  GraphExec* e = exec.get();
  execs_[e] = std::move(exec);
  return e;
}

GraphExec* GraphTable::exec(const void* handle) const {
  auto it = execs_.find(static_cast<const GraphExec*>(handle));
  return it == execs_.end() ? nullptr : it->second.get();
}

bool GraphTable::destroy_exec(GraphExec* exec) { return execs_.erase(exec) != 0; }

void GraphTable::reset() {
  graphs_.clear();
  owned_.clear();
  nodes_.clear();
  execs_.clear();
}

}  // namespace warpsim::cudart
