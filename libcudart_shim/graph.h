#pragma once
// CUDA graphs, independent of any CUDA major's ABI: a Graph is a DAG of
// nodes (kernel launches, copies, sets, host functions, event records and
// waits, empty nodes and child graphs) built by hand (cudaGraphAdd*Node) or
// by stream capture (capture.h); a GraphExec is an instantiated snapshot of
// one, launched into a stream (runtime_graph.cpp).
//
// Nodes and graphs are owned by their graph and handed to programs as raw
// pointers (cudaGraphNode_t, cudaGraph_t); GraphTable knows which handles
// are live, so a stale or foreign handle is an error, not a crash.
//
// Node parameters are held by value: a kernel node keeps its own copy of the
// argument bytes, laid out as the kernel's parameter block, as CUDA copies
// them when the node is created or its parameters are set.
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "functional/launch.h"
#include "libcudart_shim/copy_region.h"
#include "libcudart_shim/errors.h"

namespace warpsim::cudart {

// cudaGraphNodeType values.
enum class NodeType : int {
  Kernel = 0,
  Memcpy = 1,
  Memset = 2,
  Host = 3,
  Graph = 4,
  Empty = 5,
  WaitEvent = 6,
  EventRecord = 7,
  MemAlloc = 10,
  MemFree = 11,
};
const char* node_type_name(NodeType t);

struct KernelParams {
  const void* function = nullptr;  // host stub or kernel handle
  functional::Dim3 grid{1, 1, 1}, block{1, 1, 1};
  uint64_t shared_bytes = 0;
  std::vector<uint8_t> param_block;     // the kernel's parameter block
  std::vector<uint32_t> param_offsets;  // where each argument starts in it
  std::vector<void*> arg_pointers;      // into param_block: the void** CUDA hands back
  void rebuild_pointers();
};

struct MemsetParams {
  void* dst = nullptr;
  uint64_t pitch = 0;
  uint32_t value = 0;
  uint32_t element_size = 1;  // 1, 2 or 4 bytes
  uint64_t width = 0;         // elements per row
  uint64_t height = 1;
};

struct HostParams {
  void (*fn)(void*) = nullptr;
  void* user = nullptr;
};

// The memory of a graph allocation node. Its address is fixed when the
// node is created and stays reserved for as long as a graph or executable
// graph holds the node (CUDA fixes it for the graph's life); a launch that
// runs the node makes it live, a free node or cudaFree(Async) ends that.
struct GraphAllocation {
  uint64_t address = 0;
  uint64_t bytes = 0;
  bool live = false;
  uint32_t executables = 0;  // executable graphs made with the node (CUDA allows one at a time)
  std::function<void(GraphAllocation&)> release;  // gives the memory back
  GraphAllocation() = default;
  GraphAllocation(const GraphAllocation&) = delete;
  GraphAllocation& operator=(const GraphAllocation&) = delete;
  ~GraphAllocation() {
    if (release) release(*this);
  }
};

class Graph;

struct GraphNode {
  NodeType type = NodeType::Empty;
  Graph* owner = nullptr;
  uint64_t index = 0;  // creation order within the owner (exec update pairs nodes by it)
  KernelParams kernel;
  Copy3D copy;
  MemsetParams memset;
  HostParams host;
  const void* event = nullptr;  // WaitEvent, EventRecord
  std::unique_ptr<Graph> child;  // Graph: the graph's own copy of the child
  std::shared_ptr<GraphAllocation> alloc;  // MemAlloc (shared by clones)
  uint64_t free_address = 0;               // MemFree
  std::vector<GraphNode*> deps;        // incoming edges, in the order added
  std::vector<GraphNode*> dependents;  // outgoing edges
  const GraphNode* cloned_from = nullptr;
};

class Graph {
 public:
  Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // A new node depending on `deps`, which must be distinct nodes of this graph.
  Error add(NodeType type, std::span<GraphNode* const> deps, GraphNode** out);
  // Edges from[i] -> to[i]; an edge that exists already (add) or does not
  // (remove) is cudaErrorInvalidValue, and nothing changes.
  Error add_edges(std::span<GraphNode* const> from, std::span<GraphNode* const> to);
  Error remove_edges(std::span<GraphNode* const> from, std::span<GraphNode* const> to);
  // Removes a node and its edges.
  Error destroy(GraphNode* node);

  bool contains(const GraphNode* node) const;
  const std::vector<std::unique_ptr<GraphNode>>& nodes() const { return nodes_; }
  std::vector<GraphNode*> roots() const;
  size_t edge_count() const;

  // A deep copy; every copied node remembers the node it was copied from.
  std::unique_ptr<Graph> clone() const;
  GraphNode* find_clone_of(const GraphNode* original) const;

  // Nodes in an order that respects every edge (ties: creation order), or
  // false when the edges contain a cycle; *on_cycle then names a node on it.
  bool topological_order(std::vector<const GraphNode*>& out,
                         const GraphNode** on_cycle = nullptr) const;
  // Whether the graph (or a child graph in it) contains a cycle.
  bool acyclic(const GraphNode** on_cycle = nullptr) const;
  // Whether it has memory allocation or free nodes (not allowed in child graphs).
  bool has_memory_nodes() const;

  // Nodes of this graph and of its child graphs, recursively (for the table
  // of live handles).
  void for_each_node(const std::function<void(GraphNode*)>& f);

  // cudaGraphDebugDotPrint: the graph in Graphviz form.
  std::string to_dot(const std::string& name) const;

 private:
  std::vector<std::unique_ptr<GraphNode>> nodes_;
  uint64_t next_index_ = 0;
};

// Why an instantiated graph cannot take another graph's parameters
// (cudaGraphExecUpdateResult values).
enum class UpdateResult : int {
  Success = 0,
  Error = 1,
  TopologyChanged = 2,
  NodeTypeChanged = 3,
  FunctionChanged = 4,
  ParametersChanged = 5,
  NotSupported = 6,
};

class GraphExec {
 public:
  // Instantiates a snapshot of `graph` (which must be acyclic).
  GraphExec(const Graph& graph, uint64_t flags);
  ~GraphExec();
  GraphExec(const GraphExec&) = delete;
  GraphExec& operator=(const GraphExec&) = delete;

  const Graph& graph() const { return *graph_; }
  uint64_t flags() const { return flags_; }
  const std::vector<const GraphNode*>& order() const { return order_; }

  // The instantiated node for a node of the graph it was made from (or of a
  // graph it was updated from); nullptr if none.
  GraphNode* node_for(const GraphNode* original) const;
  bool enabled(const GraphNode* exec_node) const { return !disabled_.contains(exec_node); }
  void set_enabled(const GraphNode* exec_node, bool on);

  // cudaGraphExecUpdate: takes `graph`'s node parameters if its topology and
  // node types match (nodes paired in creation order); *error_node is the
  // node of `graph` that prevented it.
  UpdateResult update(const Graph& graph, const GraphNode** error_node);

 private:
  std::unique_ptr<Graph> graph_;
  uint64_t flags_;
  std::vector<const GraphNode*> order_;
  std::unordered_map<const GraphNode*, GraphNode*> from_original_;
  std::unordered_set<const GraphNode*> disabled_;
};

// Live graph, node and executable-graph handles.
class GraphTable {
 public:
  Graph* create();
  // Takes ownership of a graph built elsewhere (stream capture).
  Graph* adopt(std::unique_ptr<Graph> graph);
  bool destroy(Graph* graph);  // false: not a live top-level graph
  bool live(const Graph* graph) const { return graphs_.contains(graph) || owned_.contains(graph); }
  bool top_level(const Graph* graph) const { return graphs_.contains(graph); }
  GraphNode* node(const void* handle) const;
  // Bookkeeping after nodes are added to or removed from a live graph.
  void added(GraphNode* node);
  void removed(GraphNode* node);

  GraphExec* instantiate(const Graph& graph, uint64_t flags);
  GraphExec* exec(const void* handle) const;
  bool destroy_exec(GraphExec* exec);

  void reset();  // cudaDeviceReset

 private:
  void forget_nodes(Graph& graph);
  std::unordered_map<const Graph*, std::unique_ptr<Graph>> graphs_;
  std::unordered_set<const Graph*> owned_;  // child graphs inside live graphs
  std::unordered_set<const GraphNode*> nodes_;
  std::unordered_map<const GraphExec*, std::unique_ptr<GraphExec>> execs_;
};

}  // namespace warpsim::cudart
