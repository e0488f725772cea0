// CUDA graphs' core (libcudart_shim/graph.h): node and edge bookkeeping,
// deterministic topological order, cycle detection (also inside child
// graphs), cloning, instantiation as a snapshot and exec update; and the
// capture bookkeeping (capture.h): joins, the capture modes' prohibitions.
#include "libcudart_shim/graph.h"

#include <gtest/gtest.h>

#include "libcudart_shim/capture.h"

namespace warpsim::cudart {
namespace {

GraphNode* add(Graph& g, NodeType t, std::vector<GraphNode*> deps = {}) {
  GraphNode* n = nullptr;
  EXPECT_EQ(g.add(t, deps, &n), Error::Success);
  return n;
}

std::vector<uint64_t> order_of(const Graph& g) {
  std::vector<const GraphNode*> order;
  EXPECT_TRUE(g.topological_order(order));
  std::vector<uint64_t> ids;
  for (const GraphNode* n : order) ids.push_back(n->index);
  return ids;
}

TEST(Graph, TopologicalOrderFollowsEdgesThenCreationOrder) {
  Graph g;
  GraphNode* a = add(g, NodeType::Empty);      // 0
  GraphNode* b = add(g, NodeType::Empty);      // 1
  GraphNode* c = add(g, NodeType::Empty, {b});  // 2
  GraphNode* d = add(g, NodeType::Empty);      // 3
  // a must now wait for d: 1 (root), 2 (after 1), 3 (root), 0 (after 3).
  ASSERT_EQ(g.add_edges(std::vector<GraphNode*>{d}, std::vector<GraphNode*>{a}), Error::Success);
  (void)c;
  // Ready set by creation index: {1, 3} -> 1, then {2, 3} -> 2, 3, then 0.
  EXPECT_EQ(order_of(g), (std::vector<uint64_t>{1, 2, 3, 0}));
  EXPECT_EQ(g.roots().size(), 2u);
  EXPECT_EQ(g.edge_count(), 2u);
}

TEST(Graph, RejectsForeignAndRepeatedDependenciesAndEdges) {
  Graph g, other;
  GraphNode* a = add(g, NodeType::Empty);
  GraphNode* x = add(other, NodeType::Empty);
  GraphNode* n = nullptr;
  EXPECT_EQ(g.add(NodeType::Empty, std::vector<GraphNode*>{x}, &n), Error::InvalidValue);
  EXPECT_EQ(g.add(NodeType::Empty, std::vector<GraphNode*>{a, a}, &n), Error::InvalidValue);
  GraphNode* b = add(g, NodeType::Empty, {a});
  std::vector<GraphNode*> from{a}, to{b};
  EXPECT_EQ(g.add_edges(from, to), Error::InvalidValue);  // exists
  EXPECT_EQ(g.add_edges(to, to), Error::InvalidValue);    // self edge
  EXPECT_EQ(g.remove_edges(from, to), Error::Success);
  EXPECT_EQ(g.remove_edges(from, to), Error::InvalidValue);  // gone
  EXPECT_EQ(g.nodes().size(), 2u);
  EXPECT_EQ(g.edge_count(), 0u);
}

TEST(Graph, FindsCyclesAlsoInChildGraphs) {
  Graph g;
  GraphNode* a = add(g, NodeType::Empty);
  GraphNode* b = add(g, NodeType::Empty, {a});
  ASSERT_EQ(g.add_edges(std::vector<GraphNode*>{b}, std::vector<GraphNode*>{a}), Error::Success);
  const GraphNode* on_cycle = nullptr;
  EXPECT_FALSE(g.acyclic(&on_cycle));
  EXPECT_TRUE(on_cycle == a || on_cycle == b);

  Graph outer;
  GraphNode* child = add(outer, NodeType::Graph);
  child->child = g.clone();
  EXPECT_FALSE(outer.acyclic());
  ASSERT_EQ(g.remove_edges(std::vector<GraphNode*>{b}, std::vector<GraphNode*>{a}),
            Error::Success);
  child->child = g.clone();
  EXPECT_TRUE(outer.acyclic());
}

TEST(Graph, DestroyingANodeRemovesItsEdges) {
  Graph g;
  GraphNode* a = add(g, NodeType::Empty);
  GraphNode* b = add(g, NodeType::Empty, {a});
  GraphNode* c = add(g, NodeType::Empty, {b});
  ASSERT_EQ(g.destroy(b), Error::Success);
  EXPECT_TRUE(c->deps.empty());
  EXPECT_TRUE(a->dependents.empty());
  EXPECT_EQ(g.roots().size(), 2u);
}

TEST(Graph, CloneIsDeepAndRemembersOriginals) {
  Graph g;
  GraphNode* k = add(g, NodeType::Kernel);
  k->kernel.param_block = {1, 2, 3, 4, 5, 6, 7, 8};
  k->kernel.param_offsets = {0, 4};
  k->kernel.rebuild_pointers();
  GraphNode* e = add(g, NodeType::Empty, {k});
  auto copy = g.clone();
  GraphNode* k2 = copy->find_clone_of(k);
  ASSERT_NE(k2, nullptr);
  EXPECT_NE(k2, k);
  EXPECT_EQ(copy->find_clone_of(e)->deps.front(), k2);
  // The argument pointers point into the copy's own parameter block.
  EXPECT_EQ(k2->kernel.arg_pointers[1], k2->kernel.param_block.data() + 4);
  k->kernel.param_block[4] = 99;
  EXPECT_EQ(*static_cast<uint8_t*>(k2->kernel.arg_pointers[1]), 5);
}

TEST(GraphExec, IsASnapshotUntilUpdated) {
  Graph g;
  GraphNode* h = add(g, NodeType::Host);
  h->host.user = reinterpret_cast<void*>(1);
  GraphExec x(g, 0);
  GraphNode* xn = x.node_for(h);
  ASSERT_NE(xn, nullptr);
  h->host.user = reinterpret_cast<void*>(2);
  EXPECT_EQ(xn->host.user, reinterpret_cast<void*>(1));
  const GraphNode* bad = nullptr;
  EXPECT_EQ(x.update(g, &bad), UpdateResult::Success);
  EXPECT_EQ(xn->host.user, reinterpret_cast<void*>(2));
}

TEST(GraphExec, UpdateRefusesOtherShapes) {
  Graph g;
  GraphNode* a = add(g, NodeType::Empty);
  add(g, NodeType::Host, {a});
  GraphExec x(g, 0);

  Graph types;  // same edges, another type
  GraphNode* t = add(types, NodeType::Kernel);
  add(types, NodeType::Host, {t});
  const GraphNode* bad = nullptr;
  EXPECT_EQ(x.update(types, &bad), UpdateResult::NodeTypeChanged);
  EXPECT_EQ(bad, t);

  Graph edges;  // same types, no edge
  add(edges, NodeType::Empty);
  add(edges, NodeType::Host);
  EXPECT_EQ(x.update(edges, &bad), UpdateResult::TopologyChanged);

  Graph more;
  add(more, NodeType::Empty);
  EXPECT_EQ(x.update(more, &bad), UpdateResult::TopologyChanged);
}

TEST(GraphExec, MemoryNodesKeepTheirAllocationAcrossClonesAndRefuseChanges) {
  int released = 0;
  auto make = [&](uint64_t address, uint64_t bytes) {
    auto a = std::make_shared<GraphAllocation>();
    a->address = address;
    a->bytes = bytes;
    a->release = [&](GraphAllocation&) { ++released; };
    return a;
  };
  {
    Graph g;
    GraphNode* m = add(g, NodeType::MemAlloc);
    m->alloc = make(0x1000, 256);
    GraphNode* f = add(g, NodeType::MemFree, {m});
    f->free_address = 0x1000;
    EXPECT_TRUE(g.has_memory_nodes());
    GraphExec x(g, 0);
    EXPECT_EQ(x.node_for(m)->alloc, m->alloc);  // the same memory, not a copy

    Graph other;  // same shape, another size
    GraphNode* m2 = add(other, NodeType::MemAlloc);
    m2->alloc = make(0x2000, 512);
    GraphNode* f2 = add(other, NodeType::MemFree, {m2});
    f2->free_address = 0x1000;
    const GraphNode* bad = nullptr;
    EXPECT_EQ(x.update(other, &bad), UpdateResult::NotSupported);
    EXPECT_EQ(bad, m2);
    EXPECT_EQ(released, 0);
  }
  // Released once each, when the last holder (graph, executable graph) went.
  EXPECT_EQ(released, 2);
}

TEST(GraphTable, KnowsLiveHandlesIncludingChildGraphs) {
  GraphTable t;
  Graph* g = t.create();
  GraphNode* n = nullptr;
  ASSERT_EQ(g->add(NodeType::Graph, {}, &n), Error::Success);
  n->child = std::make_unique<Graph>();
  GraphNode* inner = nullptr;
  ASSERT_EQ(n->child->add(NodeType::Empty, {}, &inner), Error::Success);
  t.added(n);
  EXPECT_EQ(t.node(n), n);
  EXPECT_EQ(t.node(inner), inner);
  EXPECT_TRUE(t.live(n->child.get()));
  EXPECT_FALSE(t.top_level(n->child.get()));
  EXPECT_FALSE(t.destroy(n->child.get()));  // not destroyable on its own
  EXPECT_TRUE(t.destroy(g));
  EXPECT_EQ(t.node(n), nullptr);
  EXPECT_EQ(t.node(inner), nullptr);
  EXPECT_FALSE(t.destroy(g));
}

TEST(Capture, JoinsAndUnsafeCallsFollowTheModes) {
  CaptureTable t;
  Graph g;
  Stream origin, other;
  CaptureSession& s = t.begin(origin, CaptureMode::ThreadLocal, g, true, {});
  EXPECT_EQ(origin.capture, &s);
  EXPECT_EQ(t.find(s.id), &s);
  t.join(s, other, {});
  EXPECT_EQ(other.capture, &s);
  EXPECT_EQ(s.streams.size(), 2u);

  // This thread's thread-local capture prohibits unsafe calls, unless the
  // thread's own mode is relaxed.
  CaptureTable::thread_mode() = CaptureMode::Relaxed;
  EXPECT_FALSE(t.refuse_unsafe_call());
  EXPECT_FALSE(s.invalidated);
  CaptureTable::thread_mode() = CaptureMode::Global;
  EXPECT_TRUE(t.refuse_unsafe_call());
  EXPECT_TRUE(s.invalidated);

  const uint64_t id = s.id;
  t.end(s);
  EXPECT_EQ(origin.capture, nullptr);
  EXPECT_EQ(other.capture, nullptr);
  EXPECT_EQ(t.find(id), nullptr);
  EXPECT_FALSE(t.active());
}

TEST(Capture, LegacyStreamUseIsRefusedOnlyWithABlockingCapture) {
  CaptureTable t;
  Graph g;
  Stream nonblocking;
  nonblocking.flags = 1;
  CaptureSession& s = t.begin(nonblocking, CaptureMode::Relaxed, g, true, {});
  EXPECT_FALSE(t.refuse_legacy_stream_use());
  Stream blocking;
  t.join(s, blocking, {});
  EXPECT_TRUE(t.refuse_legacy_stream_use());
  EXPECT_TRUE(s.invalidated);
  t.forget(blocking);
  EXPECT_EQ(blocking.capture, nullptr);
  EXPECT_EQ(s.streams.size(), 1u);
}

}  // namespace
}  // namespace warpsim::cudart
