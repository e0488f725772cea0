#include "ptx/post_dominators.h"

namespace warpsim::ptx {

namespace {

// Postorder of the reverse CFG from the exit (iterative DFS: functions with
// tens of thousands of blocks must not overflow the native stack).
std::vector<uint32_t> postorder_from_exit(const Cfg& cfg) {
  const uint32_t nodes = cfg.num_nodes();
  std::vector<uint32_t> order;
  order.reserve(nodes);
  std::vector<uint8_t> seen(nodes, 0);
  struct Frame {
    uint32_t node;
    uint32_t next;  // index of the next predecessor to visit
  };
  std::vector<Frame> stack;
  stack.push_back({cfg.exit(), 0});
  seen[cfg.exit()] = 1;
  while (!stack.empty()) {
    Frame& top = stack.back();
    auto preds = cfg.predecessors(top.node);
    if (top.next < preds.size()) {
      uint32_t p = preds[top.next++];
      if (!seen[p]) {
        seen[p] = 1;
        stack.push_back({p, 0});
      }
    } else {
      order.push_back(top.node);
      stack.pop_back();
    }
  }
  return order;  // postorder: the exit is last
}

}  // namespace

bool PostDominators::post_dominates(uint32_t a, uint32_t b) const {
  const uint32_t exit = static_cast<uint32_t>(ipdom.size() - 1);
  if (a == exit) return true;
  for (uint32_t n = b;; n = ipdom[n]) {
    if (n == a) return true;
    if (n == exit) return false;
  }
}

PostDominators compute_post_dominators(const Cfg& cfg) {
  const uint32_t nodes = cfg.num_nodes();
  const uint32_t exit = cfg.exit();
  PostDominators pd;

  std::vector<uint32_t> post = postorder_from_exit(cfg);
  std::vector<uint32_t> po_num(nodes, kNone);  // kNone: cannot reach the exit
  for (uint32_t i = 0; i < post.size(); ++i) po_num[post[i]] = i;

  // Cooper-Harvey-Kennedy. In the reverse CFG a node's predecessors are its
  // CFG successors, and nodes are processed in reverse postorder.
  std::vector<uint32_t> idom(nodes, kNone);
  idom[exit] = exit;
  auto intersect = [&](uint32_t a, uint32_t b) {
    while (a != b) {
      while (po_num[a] < po_num[b]) a = idom[a];
      while (po_num[b] < po_num[a]) b = idom[b];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = post.size() - 1; i-- > 0;) {  // skip the exit (last in postorder)
      uint32_t b = post[i];
      uint32_t new_idom = kNone;
      for (uint32_t s : cfg.successors(b)) {
        if (idom[s] == kNone) continue;  // not processed yet, or cannot reach the exit
        new_idom = new_idom == kNone ? s : intersect(s, new_idom);
      }
      if (new_idom != idom[b]) {
        idom[b] = new_idom;
        changed = true;
      }
    }
  }

  pd.reaches_exit.assign(nodes, 0);
  for (uint32_t n = 0; n < nodes; ++n) {
    pd.reaches_exit[n] = po_num[n] != kNone;
    if (idom[n] == kNone) idom[n] = exit;  // endless loops: see the header
  }
  pd.ipdom = std::move(idom);

  pd.reconvergence.assign(cfg.num_instructions, kNone);
  for (uint32_t b = 0; b < cfg.blocks.size(); ++b) {
    const BasicBlock& block = cfg.blocks[b];
    if (block.terminator != Terminator::Branch && block.terminator != Terminator::IndirectBranch)
      continue;
    uint32_t target = pd.ipdom[b];
    pd.reconvergence[block.last()] = target == exit ? cfg.num_instructions : cfg.blocks[target].first;
  }
  return pd;
}

}  // namespace warpsim::ptx
