// Instruction-array edits that keep labels and the body consistent.
#include "ptx/passes/rewrite.h"

#include <algorithm>

#include "common/invariant.h"

namespace warpsim::ptx {

void erase_instructions(Function& f, const std::vector<bool>& remove) {
  WARPSIM_INVARIANT(remove.size() == f.instructions.size(), "one flag per instruction");
  const auto n = static_cast<uint32_t>(f.instructions.size());
  // new_index[i]: where instruction i (or, if removed, the next kept one) ends up.
  std::vector<uint32_t> new_index(n + 1);
  std::vector<Instruction> kept;
  kept.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    new_index[i] = static_cast<uint32_t>(kept.size());
    if (!remove[i]) kept.push_back(f.instructions[i]);
  }
  new_index[n] = static_cast<uint32_t>(kept.size());
  f.instructions = std::move(kept);
  for (Label& l : f.labels) l.instruction = new_index[std::min(l.instruction, n)];
  std::vector<BodyItem> body;
  body.reserve(f.body.size());
  for (const BodyItem& item : f.body) {
    if (item.kind != BodyItemKind::Instruction) {
      body.push_back(item);
    } else if (!remove[item.index]) {
      body.push_back({item.kind, new_index[item.index]});
    }
  }
  f.body = std::move(body);
}

bool body_contiguous(const Function& f, uint32_t first, uint32_t end) {
  if (end <= first + 1) return true;
  for (const Label& l : f.labels)
    if (l.instruction > first && l.instruction < end) return false;
  // Body items of instructions appear in instruction order; find `first`.
  size_t pos = 0;
  while (pos < f.body.size() &&
         !(f.body[pos].kind == BodyItemKind::Instruction && f.body[pos].index == first))
    ++pos;
  for (uint32_t i = first; i < end; ++i, ++pos)
    if (pos >= f.body.size() || f.body[pos].kind != BodyItemKind::Instruction || f.body[pos].index != i)
      return false;
  return true;
}

void reorder_instructions(Function& f, uint32_t first, std::span<const uint32_t> order) {
  std::vector<Instruction> moved;
  moved.reserve(order.size());
  for (uint32_t from : order) {
    WARPSIM_INVARIANT(from >= first && from - first < order.size(), "a permutation of the range");
    moved.push_back(f.instructions[from]);
  }
  for (size_t k = 0; k < moved.size(); ++k) f.instructions[first + k] = std::move(moved[k]);
}

}  // namespace warpsim::ptx
