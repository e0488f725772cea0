#pragma once
// Immediate post-dominators and SIMT reconvergence points.
//
// The functional simulator reconverges divergent warps exactly as GPGPU-Sim
// does: when a branch splits a warp, both sides run until they reach the
// reconvergence PC, which is the first instruction of the immediate
// post-dominator (ipdom) of the branch's block.
//
// Computed with the iterative algorithm of Cooper, Harvey and Kennedy ("A
// Simple, Fast Dominance Algorithm", 2001) on the reverse CFG, rooted at the
// virtual exit node (Cfg::exit()).
//
// Blocks that cannot reach the exit (the body of a loop without any way out)
// have no post-dominator in the usual sense. We give them the exit node as
// ipdom: a warp that diverges inside such a loop then reconverges only at the
// function exit, which it never reaches, so its paths run serialized forever.
// That is what a stack-based SIMT machine does with such code anyway, and it
// keeps every block's ipdom defined. Edges into such blocks are ignored when
// computing the ipdoms of blocks that can reach the exit (a path that enters
// an endless loop never arrives anywhere, so it constrains nothing).
#include <cstdint>
#include <vector>

#include "ptx/cfg.h"

namespace warpsim::ptx {

struct PostDominators {
  // Per node (blocks, then the exit node): the immediate post-dominator.
  // ipdom[exit] == exit. (Defaults: an empty function, whose only node is the exit.)
  std::vector<uint32_t> ipdom{0};
  // Per node: 1 when the node can reach the exit (the exit itself included).
  std::vector<uint8_t> reaches_exit{1};
  // Per instruction: for bra and brx (always the last instruction of a block),
  // the index of the instruction where the paths it creates reconverge: the
  // first instruction of the ipdom of its block, or Cfg::num_instructions
  // (one past the last instruction: "at function exit") when that ipdom is
  // the exit node. kNone for every other instruction (ret/exit/trap remove
  // threads rather than splitting them, and need no reconvergence point).
  std::vector<uint32_t> reconvergence;

  // True if every path from node `b` to the exit passes through node `a`
  // (a node post-dominates itself).
  bool post_dominates(uint32_t a, uint32_t b) const;
};

PostDominators compute_post_dominators(const Cfg& cfg);

}  // namespace warpsim::ptx
