#include "ptx/cfg.h"

#include <algorithm>

namespace warpsim::ptx {

namespace {

Terminator terminator_of(Opcode op) {
  switch (op) {
    case Opcode::Bra: return Terminator::Branch;
    case Opcode::Brx: return Terminator::IndirectBranch;
    case Opcode::Ret:
    case Opcode::Exit:
    case Opcode::Trap: return Terminator::Return;
    default: return Terminator::FallThrough;
  }
}

// The instruction a label symbol points at, or kNone when it is not a label.
uint32_t label_target(const Function& f, SymbolRef sym) {
  if (sym.kind != SymbolKind::Label || sym.index >= f.labels.size()) return kNone;
  return f.labels[sym.index].instruction;
}

// Appends the label instructions a branch may jump to (kNone entries skipped).
void branch_targets(const Function& f, const Instruction& inst, std::vector<uint32_t>& out) {
  auto ops = f.operands_of(inst);
  if (inst.opcode == Opcode::Bra) {
    if (!ops.empty() && ops[0].kind == OperandKind::Symbol) out.push_back(label_target(f, ops[0].sym));
    return;
  }
  // brx.idx index, list: the list is a .branchtargets name (or, leniently, one label).
  if (ops.size() < 2 || ops[1].kind != OperandKind::Symbol) return;
  SymbolRef sym = ops[1].sym;
  if (sym.kind == SymbolKind::Label) {
    out.push_back(label_target(f, sym));
  } else if (sym.kind == SymbolKind::TargetList && sym.index < f.target_lists.size()) {
    for (SymbolRef t : f.target_lists[sym.index].targets) out.push_back(label_target(f, t));
  }
}

// Fills first/list (CSR) from per-node edge lists.
void to_csr(const std::vector<std::vector<uint32_t>>& edges, std::vector<uint32_t>& first,
            std::vector<uint32_t>& list) {
  first.assign(edges.size() + 1, 0);
  size_t total = 0;
  for (const auto& e : edges) total += e.size();
  list.clear();
  list.reserve(total);
  for (size_t n = 0; n < edges.size(); ++n) {
    list.insert(list.end(), edges[n].begin(), edges[n].end());
    first[n + 1] = static_cast<uint32_t>(list.size());
  }
}

}  // namespace

Cfg build_cfg(const Module&, const Function& f) {
  Cfg cfg;
  const uint32_t n = static_cast<uint32_t>(f.instructions.size());
  cfg.num_instructions = n;

  // 1. Leaders.
  std::vector<uint8_t> leader(n + 1, 0);
  if (n > 0) leader[0] = 1;
  for (const Label& l : f.labels)
    if (l.instruction < n) leader[l.instruction] = 1;
  for (uint32_t i = 0; i < n; ++i)
    if (terminator_of(f.instructions[i].opcode) != Terminator::FallThrough) leader[i + 1] = 1;

  // 2. Blocks and the instruction -> block map.
  cfg.inst_block.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    if (leader[i]) cfg.blocks.push_back({i, i, Terminator::FallThrough, false});
    BasicBlock& b = cfg.blocks.back();
    b.end = i + 1;
    cfg.inst_block[i] = static_cast<uint32_t>(cfg.blocks.size() - 1);
  }

  // 3. Successors (deduplicated, targets first, then the fall-through).
  const uint32_t exit = cfg.exit();
  std::vector<std::vector<uint32_t>> succs(cfg.num_nodes()), preds(cfg.num_nodes());
  std::vector<uint32_t> targets;
  for (uint32_t b = 0; b < cfg.blocks.size(); ++b) {
    BasicBlock& block = cfg.blocks[b];
    const Instruction& last = f.instructions[block.last()];
    block.terminator = terminator_of(last.opcode);
    block.guarded = last.has_guard;
    auto& out = succs[b];
    auto add = [&](uint32_t node) {
      if (std::find(out.begin(), out.end(), node) == out.end()) out.push_back(node);
    };
    targets.clear();
    switch (block.terminator) {
      case Terminator::Branch:
      case Terminator::IndirectBranch:
        branch_targets(f, last, targets);
        for (uint32_t t : targets)
          if (t != kNone) add(cfg.block_of(t));  // a label at the end maps to exit
        break;
      case Terminator::Return:
        add(exit);
        break;
      case Terminator::FallThrough:
        break;
    }
    // Falls through unless the terminator is an unconditional transfer.
    if (block.terminator == Terminator::FallThrough || block.guarded) add(cfg.block_of(block.end));
  }
  for (uint32_t b = 0; b < succs.size(); ++b)
    for (uint32_t s : succs[b]) preds[s].push_back(b);  // ascending by construction

  to_csr(succs, cfg.succ_first, cfg.succ_list);
  to_csr(preds, cfg.pred_first, cfg.pred_list);
  return cfg;
}

}  // namespace warpsim::ptx
