#pragma once
// Control-flow graph of one PTX function.
//
// Basic blocks are [first, end) ranges of the function's flat instruction
// array. Nodes are numbered 0..blocks.size()-1 for the blocks, plus one
// virtual exit node numbered blocks.size(): every ret/exit/trap, every branch
// to a label that sits after the last instruction, and falling off the end of
// the body lead there. The exit node has predecessors and no successors; it is
// the root of the post-dominator tree (ptx/post_dominators.h).
//
// Edges are stored in CSR form (one offset array and one index array per
// direction), so a CFG is a handful of allocations however large the function.
// Results hold indices only, no names: the functional simulator lowers them
// straight into its decoded program.
#include <cstdint>
#include <span>
#include <vector>

#include "ptx/ir.h"

namespace warpsim::ptx {

// How a block ends: what its last instruction does to control flow.
enum class Terminator : uint8_t {
  FallThrough,     // an ordinary instruction (or call): continues with the next block
  Branch,          // bra: the label's block (and the next block when guarded)
  IndirectBranch,  // brx.idx: every label of its .branchtargets list (+ next when guarded)
  Return,          // ret / exit / trap: the exit node (+ next block when guarded)
};

struct BasicBlock {
  uint32_t first = 0;  // index of the first instruction
  uint32_t end = 0;    // one past the last instruction (never equal to first)
  Terminator terminator = Terminator::FallThrough;
  bool guarded = false;  // the terminator has a guard predicate (it may not be taken)
  uint32_t last() const { return end - 1; }
};

struct Cfg {
  std::vector<BasicBlock> blocks;
  uint32_t num_instructions = 0;

  // Node ids: block indices, and exit() for the virtual exit node.
  uint32_t exit() const { return static_cast<uint32_t>(blocks.size()); }
  uint32_t num_nodes() const { return exit() + 1; }
  // The entry block (block 0); exit() for a function without instructions.
  uint32_t entry() const { return 0; }

  // The block holding instruction `inst`; exit() for inst >= num_instructions
  // (the position of a label after the last instruction).
  uint32_t block_of(uint32_t inst) const {
    return inst < inst_block.size() ? inst_block[inst] : exit();
  }

  // Successors and predecessors of a node (block or exit), without duplicates.
  // Successor order: the branch target(s) in their written order, then the
  // fall-through block.
  std::span<const uint32_t> successors(uint32_t node) const {
    return {succ_list.data() + succ_first[node], succ_first[node + 1] - succ_first[node]};
  }
  std::span<const uint32_t> predecessors(uint32_t node) const {
    return {pred_list.data() + pred_first[node], pred_first[node + 1] - pred_first[node]};
  }

  // CSR storage: edges of node n are list[first[n] .. first[n+1]). The
  // defaults describe an empty function (only the exit node), so a
  // default-constructed Cfg (e.g. for a declaration) is safe to query.
  std::vector<uint32_t> inst_block;  // per instruction: its block
  std::vector<uint32_t> succ_first{0, 0}, succ_list;
  std::vector<uint32_t> pred_first{0, 0}, pred_list;
};

// Builds the CFG of `function` (a function of `module`). Leaders are
// instruction 0, every labelled instruction (branch target or not: an extra
// split is harmless and keeps the rule simple) and the instruction after any
// bra, brx, ret, exit or trap. brkpt and call continue with the next
// instruction. Unresolved branch targets (only in modules with errors) get no
// edge.
Cfg build_cfg(const Module& module, const Function& function);

}  // namespace warpsim::ptx
