// Kernel resource estimates.
//
// Parameter buffer size: not padded after the last parameter. Measured with
// nvcc 13.0 for sm_80 (the cubin's EIATTR_KPARAM_INFO offsets and
// EIATTR_CBANK_PARAM_SIZE): (u64, u8) -> offsets 0, 8, size 9;
// (.align 8 .b8 [16], u32, u8) -> 0, 16, 20, size 21; (u8, u64) -> 0, 8,
// size 16; (u64, u64, u64, u32) -> size 28. The CUDA driver
// documentation likewise only asks a packed parameter buffer to honour "the
// alignment/padding requirements of the individual parameters". Callers that
// want a struct-like size can round param_bytes up to param_align.
#include "ptx/resources.h"

#include <algorithm>

namespace warpsim::ptx {

namespace {

uint64_t align_up(uint64_t v, uint64_t a) { return a <= 1 ? v : (v + a - 1) / a * a; }

bool is_shared(StateSpace s) { return s == StateSpace::Shared || s == StateSpace::SharedCta; }

// Places `v` at the next offset aligned for it; unsized arrays are skipped.
void place(std::vector<MemorySlot>& slots, uint64_t& end, VarRef ref, const Variable& v) {
  uint64_t size = v.size_bytes();
  if (size == 0) return;
  uint64_t align = v.alignment();
  uint64_t offset = align_up(end, align);
  slots.push_back({ref, offset, size, align});
  end = offset + size;
}

struct Calls {
  std::vector<uint32_t> callees;  // ascending, unique
  bool indirect = false;
};

// The functions `f` calls directly, or through a .calltargets list.
Calls calls_of(const Function& f) {
  Calls c;
  for (const Instruction& inst : f.instructions) {
    if (inst.opcode != Opcode::Call) continue;
    bool through_register = false, listed = false;
    for (const Operand& op : f.operands_of(inst)) {
      if (op.kind == OperandKind::Register) through_register = true;
      if (op.kind != OperandKind::Symbol) continue;
      if (op.sym.kind == SymbolKind::Function) {
        c.callees.push_back(op.sym.index);
      } else if (op.sym.kind == SymbolKind::TargetList && op.sym.index < f.target_lists.size()) {
        listed = true;
        for (SymbolRef t : f.target_lists[op.sym.index].targets)
          if (t.kind == SymbolKind::Function) c.callees.push_back(t.index);
      }
    }
    if (through_register && !listed) c.indirect = true;
  }
  std::sort(c.callees.begin(), c.callees.end());
  c.callees.erase(std::unique(c.callees.begin(), c.callees.end()), c.callees.end());
  return c;
}

uint64_t frame_bytes(const Function& f, uint32_t index, std::vector<MemorySlot>* slots) {
  std::vector<MemorySlot> scratch;
  std::vector<MemorySlot>& out = slots ? *slots : scratch;
  uint64_t end = 0;
  for (uint32_t i = 0; i < f.variables.size(); ++i)
    if (f.variables[i].space == StateSpace::Local) place(out, end, {index, i}, f.variables[i]);
  return end;
}

uint32_t reg32_of(const Function& f, std::array<uint32_t, kNumScalarTypes>* by_type) {
  std::array<uint32_t, kNumScalarTypes> counts{};
  for (const Register& r : f.registers) {
    size_t t = static_cast<size_t>(r.type);
    if (t < counts.size()) counts[t] += std::max<uint32_t>(1, vector_lanes(r.vec));
  }
  uint32_t total = 0;
  for (size_t t = 0; t < counts.size(); ++t)
    total += counts[t] * reg32_units(static_cast<ScalarType>(t));
  if (by_type) *by_type = counts;
  return total;
}

// Walks the call graph from the kernel: the reachable functions, whether a
// cycle is reachable, and the deepest chain of local frames below the kernel.
struct CallGraphWalk {
  const Module& m;
  std::vector<Calls> calls;         // per function (lazily filled)
  std::vector<uint8_t> state;       // 0 new, 1 on the DFS stack, 2 done
  std::vector<uint64_t> stack_bytes;  // per done function: frame + deepest callee chain
  bool recursion = false;
  bool indirect = false;
  uint32_t kernel = kNone;  // the kernel's index (kept on the stack throughout)
  bool kernel_called = false;

  explicit CallGraphWalk(const Module& mod)
      : m(mod), calls(mod.functions.size()), state(mod.functions.size(), 0),
        stack_bytes(mod.functions.size(), 0) {}

  // Deepest callee chain below a function whose direct calls are `root`.
  uint64_t deepest_below(const Calls& root) {
    indirect |= root.indirect;
    struct Frame {
      uint32_t fn;
      size_t next;
      uint64_t deepest;
    };
    uint64_t best = 0;
    std::vector<Frame> stack;
    auto visit = [&](uint32_t c, uint64_t& parent_deepest) {
      if (c >= m.functions.size()) return;
      if (c == kernel) kernel_called = true;
      if (state[c] == 1) {
        recursion = true;  // back edge: count the cycle once
      } else if (state[c] == 2) {
        parent_deepest = std::max(parent_deepest, stack_bytes[c]);
      } else {
        state[c] = 1;
        calls[c] = calls_of(m.functions[c]);
        indirect |= calls[c].indirect;
        stack.push_back({c, 0, 0});
      }
    };
    for (uint32_t c : root.callees) {
      visit(c, best);
      while (!stack.empty()) {
        Frame& top = stack.back();
        const auto& cs = calls[top.fn].callees;
        if (top.next < cs.size()) {
          uint32_t c2 = cs[top.next++];
          visit(c2, top.deepest);  // may push: `top` is not used after this
          continue;
        }
        uint32_t fn = top.fn;
        stack_bytes[fn] = frame_bytes(m.functions[fn], fn, nullptr) + top.deepest;
        state[fn] = 2;
        stack.pop_back();
        uint64_t& parent = stack.empty() ? best : stack.back().deepest;
        parent = std::max(parent, stack_bytes[fn]);
      }
    }
    return best;
  }
};

}  // namespace

uint32_t reg32_units(ScalarType t) {
  if (t == ScalarType::Pred || t == ScalarType::None) return 0;
  return std::max<uint32_t>(1, (type_bits(t) + 31) / 32);
}

KernelResources compute_resources(const Module& m, const Function& kernel) {
  KernelResources r;
  uint32_t kernel_index = kNone;  // stays kNone only for a kernel from another module
  for (uint32_t i = 0; i < m.functions.size() && kernel_index == kNone; ++i)
    if (&m.functions[i] == &kernel) kernel_index = i;

  // Call graph, recursion and the local-memory stack estimate.
  CallGraphWalk walk(m);
  if (kernel_index != kNone) walk.state[kernel_index] = 1;  // calls back into it are recursion
  walk.kernel = kernel_index;
  uint64_t deepest = walk.deepest_below(calls_of(kernel));
  r.has_recursion = walk.recursion;
  r.has_indirect_calls = walk.indirect;
  for (uint32_t i = 0; i < m.functions.size(); ++i)
    if (walk.state[i] == 2 || (i == kernel_index && walk.kernel_called)) r.callees.push_back(i);
  r.local_frame_bytes = frame_bytes(kernel, kernel_index, &r.local);
  r.local_bytes = r.local_frame_bytes + deepest;

  // Registers.
  r.reg32 = reg32_of(kernel, &r.regs_by_type);
  r.reg32_with_callees = r.reg32;
  for (uint32_t c : r.callees)
    r.reg32_with_callees = std::max(r.reg32_with_callees, reg32_of(m.functions[c], nullptr));

  // The kernel and every callee with a body: which module globals they name.
  std::vector<std::pair<uint32_t, const Function*>> bodies{{kernel_index, &kernel}};
  for (uint32_t c : r.callees)
    if (c != kernel_index) bodies.push_back({c, &m.functions[c]});
  std::vector<uint8_t> referenced(m.globals.size(), 0);
  for (const auto& [index, f] : bodies)
    for (const Operand& op : f->operands) {
      bool names_symbol = op.kind == OperandKind::Symbol ||
                          (op.kind == OperandKind::Address && op.base == AddressBase::Symbol);
      if (names_symbol && op.sym.kind == SymbolKind::Global && op.sym.index < referenced.size())
        referenced[op.sym.index] = 1;
    }

  // Shared and constant windows: module globals in module order, then
  // function-scope variables (kernel first, then callees ascending).
  auto note_dynamic = [&](const Variable& v) {
    if (is_shared(v.space) && v.is_array() && v.size_bytes() == 0) {
      r.uses_dynamic_shared = true;
      r.dynamic_shared_align = std::max(r.dynamic_shared_align, v.alignment());
    }
  };
  for (uint32_t g = 0; g < m.globals.size(); ++g) {
    if (!referenced[g]) continue;
    const Variable& v = m.globals[g];
    note_dynamic(v);
    if (is_shared(v.space)) place(r.shared, r.shared_bytes, {kNone, g}, v);
    if (v.space == StateSpace::Const) place(r.constants, r.const_bytes, {kNone, g}, v);
  }
  for (const auto& [index, f] : bodies)
    for (uint32_t i = 0; i < f->variables.size(); ++i) {
      const Variable& v = f->variables[i];
      note_dynamic(v);
      if (is_shared(v.space)) place(r.shared, r.shared_bytes, {index, i}, v);
      if (v.space == StateSpace::Const) place(r.constants, r.const_bytes, {index, i}, v);
    }

  // Parameters.
  uint64_t end = 0;
  for (const Variable& p : kernel.params) {
    uint64_t align = p.alignment();
    uint64_t offset = align_up(end, align);
    uint64_t size = p.size_bytes();
    r.params.push_back({offset, size, align});
    end = offset + size;
    r.param_align = std::max(r.param_align, align);
  }
  r.param_bytes = end;
  return r;
}

}  // namespace warpsim::ptx
