// offload_chains: the compiler half of opportunistic computing (Pattnaik et
// al., ISCA 2019, section 4.1). docs/compiler.md walks through it with
// examples; in short, per basic block:
//   1. candidate terminals: global stores first (they give the longest
//      chains), then 32-bit ALU instructions and setp, in program order;
//   2. from a terminal, its sources are followed backwards inside the block:
//      a register whose reaching definition is a global load becomes a load
//      operand, one defined by an eligible ALU instruction an inner node, a
//      kernel parameter or immediate the packet's 4-byte immediate, anything
//      else a value the core supplies. A load or intermediate whose register
//      is read anywhere else in the function (per-thread register reuse)
//      stays at the core as such a value;
//   3. the shape must be one of the nine of the paper's Table 1;
//   4. alias safety: no store, atomic, barrier, fence, call or volatile access
//      between the first member and the last;
//   5. the chain is made contiguous: every other instruction in between is
//      moved above it if it depends on no member (the address arithmetic the
//      paper hoists) or else below it, if no later member depends on it and
//      it is not a memory access; otherwise the chain is left alone. Within
//      the chain the loads come first;
//   6. members are tagged 01 (first), 10 (intermediate) and 11 (last) with
//      the pattern and the chain id.
// Moving an instruction never crosses a register dependence (read, write or
// both, either way) or a memory write, so the moved code computes the same.
#include "ptx/passes/offload_chains.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>

#include "ptx/cfg.h"
#include "ptx/def_use.h"
#include "ptx/passes/offload_tags.h"
#include "ptx/passes/pass_registry.h"
#include "ptx/passes/rewrite.h"
#include "ptx/resources.h"

namespace warpsim::ptx {

const config::Table<OffloadChainsConfig>& offload_chains_config_table() {
  static const config::Table<OffloadChainsConfig> table = [] {
    using C = OffloadChainsConfig;
    config::Table<C> t("Compile pass offload_chains: load-compute-store chains for opportunistic computing");
    t.bytes("core_compute_shared_limit", &C::core_compute_shared_limit,
            "kernels with more static shared memory than this, or with dynamic shared memory, have their "
            "chains marked for computing at LLC nodes only (a core's service queue buffers operands in "
            "shared memory)")
        .range(0, uint64_t{1} << 30);
    t.integer("max_span", &C::max_span, "instructions",
              "longest stretch from a chain's first instruction to its last that is made contiguous")
        .range(2, 4096);
    return t;
  }();
  return table;
}

const stats::StatTable<OffloadChainsStats>& offload_chains_stats_table() {
  static const stats::StatTable<OffloadChainsStats> table = [] {
    using S = OffloadChainsStats;
    static constexpr const char* kNames[] = {"1", "2", "3", "4", "5", "6", "7", "8", "9"};
    static constexpr const char* kDescriptions[] = {
        "pattern 1: ld a; ld b; alu c,a,b; st c",
        "pattern 2: ld a; ld b; alu c,a,b (result to the core)",
        "pattern 3: ld a; st a",
        "pattern 4: ld a; alu c,a,x; st c (x from the core)",
        "pattern 5: ld a; ld b; setp a,b (predicate to the core)",
        "pattern 6: ld a; setp a,i (predicate to the core)",
        "pattern 7: ld a; alu c,a,i; st c",
        "pattern 8: ld b; ld a; alu c,b,i; alu d,a,c (result to the core)",
        "pattern 9: ld b; ld a; alu c,b,i; alu d,a,c; st d"};
    stats::StatTable<S> t("Compile pass offload_chains: what it found in the modules it compiled");
    t.counter("chains", &S::chains, "chains", "chains tagged");
    t.counters("chains_by_pattern", &S::by_pattern, kNames, kDescriptions, "chains");
    t.counter("tagged_instructions", &S::tagged_instructions, "instructions",
              "static instructions in a tagged chain");
    t.counter("instructions", &S::instructions, "instructions", "static instructions of the functions examined");
    t.counter("global_accesses", &S::global_accesses, "instructions",
              "static global-memory loads, stores and atomics");
    t.counter("tagged_global_accesses", &S::tagged_global_accesses, "instructions",
              "static global-memory loads and stores in a tagged chain");
    t.counter("hoisted", &S::hoisted, "instructions",
              "instructions moved above a chain to make it contiguous (its address arithmetic)");
    t.counter("sunk", &S::sunk, "instructions", "instructions moved below a chain to make it contiguous");
    t.counter("loads_kept_for_reuse", &S::loads_kept_for_reuse, "instructions",
              "loads left at the core because another instruction reads their register");
    t.counter("rejected.reuse", &S::rejected_reuse, "candidates",
              "candidate chains dropped because a loaded value is reused and nothing offloadable is left");
    t.counter("rejected.alias", &S::rejected_alias, "candidates",
              "candidate chains with a store, atomic, barrier, fence, call or volatile access inside");
    t.counter("rejected.width", &S::rejected_width, "candidates",
              "candidate chains with 64-bit or vector operands (the packet holds 32-bit values)");
    t.counter("rejected.shape", &S::rejected_shape, "candidates",
              "candidate chains that match none of the nine patterns");
    t.counter("rejected.order", &S::rejected_order, "candidates",
              "matching chains that could not be made contiguous (or spanned more than max_span)");
    t.counter("kernels", &S::kernels, "kernels", "kernels examined");
    t.counter("kernels_without_core_compute", &S::kernels_without_core_compute, "kernels",
              "kernels whose shared memory leaves no room for a core's service queue");
    return t;
  }();
  return table;
}

namespace {

// ---- instruction classes ----------------------------------------------------------

// A value the packet carries in one operand field: 8 to 32 bits.
bool fits_packet(ScalarType t) { return t != ScalarType::None && type_bits(t) >= 8 && type_bits(t) <= 32; }

bool plain_register(const Operand& op) {
  return op.kind == OperandKind::Register && op.component == Component::None && !op.negated;
}

bool is_global_memory(const Instruction& inst) {
  switch (inst.opcode) {
    case Opcode::Ld:
    case Opcode::Ldu:
    case Opcode::St:
    case Opcode::Atom:
    case Opcode::Red: return inst.mods.space() == StateSpace::Global;
    default: return false;
  }
}

bool is_global_load(const Instruction& inst) {
  return (inst.opcode == Opcode::Ld || inst.opcode == Opcode::Ldu) && inst.mods.space() == StateSpace::Global;
}

// What a load or store may not be to join a chain: ordered or volatile.
bool ordered_access(const Instruction& inst) { return inst.mods.sem != MemorySemantics::None; }

// A load or store the packet can carry: one value of at most 32 bits per thread.
bool scalar_packet_access(const Instruction& inst) {
  return inst.mods.vec == VectorWidth::None && fits_packet(inst.mods.type());
}

// Instructions no chain may span (alias and ordering safety): anything that
// writes memory, orders memory, synchronises or leaves the block.
bool blocks_chain(const Instruction& inst) {
  switch (inst.opcode) {
    case Opcode::St:
    case Opcode::Atom:
    case Opcode::Red:
    case Opcode::Call:
    case Opcode::Cp:
    case Opcode::Sust:
    case Opcode::Sured:
    case Opcode::Stmatrix:
    case Opcode::Multimem:
    case Opcode::Tensormap:
    case Opcode::Mbarrier:
    case Opcode::Nanosleep:
    case Opcode::Trap:
    case Opcode::Brkpt:
    case Opcode::Pmevent:
    case Opcode::Stackrestore:
    case Opcode::Alloca:
    case Opcode::Wmma:
    case Opcode::Wgmma:
    case Opcode::Griddepcontrol:
    case Opcode::Clusterlaunchcontrol:
    case Opcode::Setmaxnreg: return true;
    case Opcode::Ld:
    case Opcode::Ldu: return ordered_access(inst);
    default: break;
  }
  const UnitClass unit = opcode_info(inst.opcode).unit;
  return unit == UnitClass::Sync || unit == UnitClass::Branch;
}

// ALU operations a compute node's 32-wide SP/integer ALU performs.
enum class AluShape : uint8_t { None, Binary, Ternary, Compare };

AluShape alu_shape(const Instruction& inst) {
  if (inst.mods.has(Flag::Cc)) return AluShape::None;
  switch (inst.opcode) {
    case Opcode::Add:
    case Opcode::Sub:
    case Opcode::Div:
    case Opcode::Rem:
    case Opcode::Min:
    case Opcode::Max:
    case Opcode::And:
    case Opcode::Or:
    case Opcode::Xor:
    case Opcode::Shl:
    case Opcode::Shr: return inst.num_operands == 3 ? AluShape::Binary : AluShape::None;
    case Opcode::Mul:
      // mul.wide writes twice the width; mul.hi is a different operation
      // from what the node's multiplier returns, but also 32-bit: allowed.
      return inst.num_operands == 3 && !inst.mods.has(Flag::Wide) ? AluShape::Binary : AluShape::None;
    case Opcode::Fma:
    case Opcode::Mad:
      return inst.num_operands == 4 && !inst.mods.has(Flag::Wide) && !inst.mods.has(Flag::Hi)
                 ? AluShape::Ternary
                 : AluShape::None;
    case Opcode::Setp: return inst.num_operands == 3 ? AluShape::Compare : AluShape::None;
    default: return AluShape::None;
  }
}

// ---- one block's working state ------------------------------------------------------

enum class Reject : uint8_t { None, Reuse, Alias, Width, Shape, Order };

// What a chain member's source operand is.
enum class Source : uint8_t { Load, Alu, Imm, Live, Bad };

// A chain being matched: its members and what its operands are.
struct Match {
  std::vector<uint32_t> loads;  // instruction ids
  std::vector<uint32_t> alus;   // ALU members (not the terminal store), inner first
  uint32_t terminal = kNone;
  enum class End : uint8_t { Store, Compare, Data } end = End::Store;
  uint32_t imms = 0;   // scalar operands (immediates, kernel parameters)
  uint32_t lives = 0;  // per-thread values the core supplies
  bool reused_load = false;    // a load stayed at the core for reuse
  Reject reject = Reject::None;
  // Per ALU member (parallel to alus): its sources' kinds, for patterns 8/9.
  struct Sources {
    uint8_t loads = 0, alus = 0, imms = 0, lives = 0;
    bool ternary = false;  // fma/mad: kind[0] * kind[1] + kind[2]
    std::array<Source, 3> kind{};
  };
  std::vector<Sources> sources;

  std::vector<uint32_t> members() const {
    std::vector<uint32_t> m = loads;
    m.insert(m.end(), alus.begin(), alus.end());
    if (terminal != kNone && std::find(m.begin(), m.end(), terminal) == m.end()) m.push_back(terminal);
    return m;
  }
};

class ChainFinder {
 public:
  ChainFinder(Function& f, const Cfg& cfg, const DefUse& du, const OffloadChainsConfig& config,
              OffloadChainsStats& stats)
      : f_(f), cfg_(cfg), du_(du), config_(config), stats_(stats), chain_of_(f.instructions.size(), 0),
        position_(f.instructions.size(), kNone) {}

  // Finds the chains of every block; returns them with ids from `next_id`.
  std::vector<OffloadChain> run(uint32_t function, bool core_compute, uint32_t& next_id) {
    std::vector<OffloadChain> found;
    for (const BasicBlock& b : cfg_.blocks) {
      order_.assign(b.end - b.first, 0);
      for (uint32_t i = b.first; i < b.end; ++i) order_[i - b.first] = i;
      update_positions();
      const bool movable = body_contiguous(f_, b.first, b.end);
      std::vector<OffloadChain> block_chains;
      for (int phase = 0; phase < 2; ++phase) {
        // Terminals in the order the block had before this phase.
        const std::vector<uint32_t> terminals = order_;
        for (uint32_t t : terminals) {
          if (chain_of_[t] != 0) continue;
          const Instruction& inst = f_.instructions[t];
          const bool store = inst.opcode == Opcode::St;
          if (phase == 0 ? !store : (store || alu_shape(inst) == AluShape::None)) continue;
          Match m = match(t);
          if (m.reject == Reject::None && m.terminal == kNone) continue;  // not a candidate
          uint32_t pattern = 0;
          if (m.reject == Reject::None) {
            pattern = classify(m);
            if (pattern == 0) m.reject = m.reused_load ? Reject::Reuse : Reject::Shape;
          }
          uint32_t hoisted = 0;
          if (m.reject == Reject::None && !make_contiguous(m, movable, hoisted) && m.reject == Reject::None)
            m.reject = Reject::Order;
          if (m.reject != Reject::None) {
            count(m.reject);
            continue;
          }
          OffloadChain c;
          c.function = function;
          c.id = next_id++;
          c.pattern = pattern;
          c.core_compute = core_compute;
          c.instructions = m.members();
          c.hoisted = hoisted;
          for (uint32_t i : c.instructions) chain_of_[i] = c.id;
          if (m.reused_load) ++stats_.loads_kept_for_reuse;
          block_chains.push_back(std::move(c));
        }
      }
      if (block_chains.empty()) continue;
      // Tag in the final order, then move the instructions there.
      std::vector<uint32_t> position(b.end - b.first);
      for (uint32_t k = 0; k < order_.size(); ++k) position[order_[k] - b.first] = b.first + k;
      for (OffloadChain& c : block_chains) {
        std::sort(c.instructions.begin(), c.instructions.end(),
                  [&](uint32_t x, uint32_t y) { return position[x - b.first] < position[y - b.first]; });
        for (size_t k = 0; k < c.instructions.size(); ++k) {
          Annotation& a = f_.instructions[c.instructions[k]].annotation;
          const uint32_t tag = k == 0 ? offload::kFirst
                               : k + 1 == c.instructions.size() ? offload::kLast
                                                                 : offload::kIntermediate;
          a.flags = (a.flags & ~(offload::kTagMask | offload::kPatternMask)) | tag |
                    (c.pattern << offload::kPatternShift) | (core_compute ? 0 : offload::kNoCoreCompute);
          a.group = c.id;
        }
        for (uint32_t& i : c.instructions) i = position[i - b.first];
        found.push_back(std::move(c));
      }
      reorder_instructions(f_, b.first, order_);
    }
    return found;
  }

 private:
  void count(Reject r) {
    switch (r) {
      case Reject::Reuse: ++stats_.rejected_reuse; break;
      case Reject::Alias: ++stats_.rejected_alias; break;
      case Reject::Width: ++stats_.rejected_width; break;
      case Reject::Shape: ++stats_.rejected_shape; break;
      case Reject::Order: ++stats_.rejected_order; break;
      case Reject::None: break;
    }
  }

  // Where each instruction of the block stands in order_.
  void update_positions() {
    for (uint32_t k = 0; k < order_.size(); ++k) position_[order_[k]] = k;
  }
  uint32_t pos(uint32_t inst) const { return position_[inst]; }

  bool defines(uint32_t inst, uint32_t reg) const {
    const auto d = du_.defs(inst);
    return std::find(d.begin(), d.end(), reg) != d.end();
  }

  // The instruction of this block whose write of `reg` reaches `user`
  // (current order); kNone if none does or a guarded write might.
  uint32_t reaching_def(uint32_t reg, uint32_t user) const {
    const uint32_t p = pos(user);
    for (uint32_t k = p; k-- > 0;) {
      const uint32_t i = order_[k];
      if (!defines(i, reg)) continue;
      return f_.instructions[i].has_guard ? kNone : i;
    }
    return kNone;
  }

  // Whether `user` is the only instruction of the function that reads `reg`.
  bool only_reader(uint32_t reg, uint32_t user) const {
    const auto u = du_.using_insts(reg);
    return u.size() == 1 && u[0] == user;
  }

  // A register whose value is the same for every thread of the launch and
  // fits the packet's 4-byte immediate: written once, by a 32-bit ld.param or
  // a mov of a literal.
  bool is_scalar(uint32_t reg) const {
    const auto d = du_.defining(reg);
    if (d.size() != 1) return false;
    const Instruction& inst = f_.instructions[d[0]];
    if (inst.has_guard) return false;
    if (inst.opcode == Opcode::Ld) {
      const StateSpace s = inst.mods.space();
      return (s == StateSpace::Param || s == StateSpace::ParamEntry) && scalar_packet_access(inst);
    }
    if (inst.opcode == Opcode::Mov && inst.num_operands == 2) {
      const Operand& src = f_.operands_of(inst)[1];
      return (src.kind == OperandKind::Immediate || src.kind == OperandKind::Float) &&
             fits_packet(inst.mods.type());
    }
    return false;
  }

  // Whether an operand of a 32-bit instruction is a literal that fits the
  // 4-byte immediate (a 64-bit float literal does not).
  static bool literal(const Operand& op) {
    return op.kind == OperandKind::Immediate ||
           (op.kind == OperandKind::Float && op.fsyntax != FloatSyntax::F64Bits);
  }

  // Classifies `user`'s source operand `op`, adding loads and inner ALU
  // nodes to `m`.
  Source source(Match& m, const Operand& op, uint32_t user, int depth) {
    if (literal(op)) return Source::Imm;
    if (op.kind == OperandKind::Float) {  // a 64-bit literal
      m.reject = Reject::Width;
      return Source::Bad;
    }
    if (!plain_register(op)) return Source::Live;
    const uint32_t reg = op.reg;
    if (is_scalar(reg)) return Source::Imm;
    const uint32_t d = reaching_def(reg, user);
    if (d == kNone || chain_of_[d] != 0) return Source::Live;
    const Instruction& def = f_.instructions[d];
    if (is_global_load(def)) {
      if (!only_reader(reg, user)) {
        m.reused_load = true;
        return Source::Live;  // reused at the core: that load stays there
      }
      if (ordered_access(def)) {
        m.reject = Reject::Alias;
        return Source::Bad;
      }
      if (!scalar_packet_access(def) || f_.operands_of(def)[0].kind != OperandKind::Register) {
        m.reject = Reject::Width;
        return Source::Bad;
      }
      if (std::find(m.loads.begin(), m.loads.end(), d) == m.loads.end()) m.loads.push_back(d);
      return Source::Load;
    }
    const AluShape shape = alu_shape(def);
    if (depth < 2 && (shape == AluShape::Binary || shape == AluShape::Ternary) && only_reader(reg, user) &&
        !def.has_guard) {
      if (!visit_alu(m, d, depth + 1)) return Source::Bad;
      return Source::Alu;
    }
    return Source::Live;
  }

  // Adds ALU instruction `alu` (not the terminal of a data chain) and its
  // sources to `m`; false when the chain cannot hold it.
  bool visit_alu(Match& m, uint32_t alu, int depth) {
    const Instruction& inst = f_.instructions[alu];
    const auto ops = f_.operands_of(inst);
    if (!fits_packet(inst.mods.type()) || !plain_register(ops[0])) {
      m.reject = Reject::Width;
      return false;
    }
    const size_t slot = m.sources.size();
    m.sources.emplace_back();
    m.sources[slot].ternary = ops.size() == 4;
    m.alus.push_back(alu);  // reordered inner-first below
    for (size_t k = 1; k < ops.size(); ++k) {
      const Source s = source(m, ops[k], alu, depth);
      Match::Sources& src = m.sources[slot];
      src.kind[k - 1] = s;
      switch (s) {
        case Source::Bad: return false;
        case Source::Load: ++src.loads; break;
        case Source::Alu: ++src.alus; break;
        case Source::Imm: ++src.imms; ++m.imms; break;
        case Source::Live:
          ++src.lives;
          ++m.lives;
          break;
      }
    }
    return true;
  }

  // The chain ending at `t`, or a rejection; terminal == kNone when `t` ends
  // no candidate chain (it reaches no global load).
  Match match(uint32_t t) {
    Match m;
    const Instruction& inst = f_.instructions[t];
    if (inst.has_guard) return m;
    const auto ops = f_.operands_of(inst);
    if (inst.opcode == Opcode::St) {
      if (inst.mods.space() != StateSpace::Global || ops.size() != 2) return m;
      m.end = Match::End::Store;
      const Operand& value = ops[1];
      if (!plain_register(value)) return m;
      const uint32_t d = reaching_def(value.reg, t);
      if (d == kNone || chain_of_[d] != 0 || !only_reader(value.reg, t)) return m;
      const Instruction& def = f_.instructions[d];
      if (!is_global_load(def) && alu_shape(def) != AluShape::Binary && alu_shape(def) != AluShape::Ternary)
        return m;
      m.terminal = t;
      if (ordered_access(inst)) {
        m.reject = Reject::Alias;
        return m;
      }
      if (!scalar_packet_access(inst)) {
        m.reject = Reject::Width;
        return m;
      }
      if (source(m, value, t, 0) == Source::Bad) return m;
    } else {
      const AluShape shape = alu_shape(inst);
      m.end = shape == AluShape::Compare ? Match::End::Compare : Match::End::Data;
      // A data chain returns its result: something else must read it.
      if (shape != AluShape::Compare &&
          (!plain_register(ops[0]) || du_.using_insts(ops[0].reg).empty()))
        return m;
      if (shape == AluShape::Compare && ops[0].kind != OperandKind::Register) return m;  // p|q
      m.terminal = t;
      if (shape == AluShape::Compare) {
        if (!fits_packet(inst.mods.type())) m.reject = Reject::Width;
        for (size_t k = 1; k < ops.size() && m.reject == Reject::None; ++k) {
          const Source s = source(m, ops[k], t, 0);
          if (s == Source::Imm) ++m.imms;
          if (s == Source::Live) ++m.lives;
          if (s == Source::Alu) m.reject = Reject::Shape;
        }
      } else {
        visit_alu(m, t, 1);
      }
      // An ALU instruction that reaches no load (a wide one stops before its
      // sources) is no candidate at all.
      if (m.loads.empty() && (m.reject == Reject::None || m.reject == Reject::Width)) {
        m.terminal = kNone;
        m.reject = Reject::None;
      }
    }
    if (m.reject == Reject::None && m.loads.empty()) {
      m.terminal = kNone;
      return m;
    }
    // Inner ALU nodes before outer ones: their program order.
    std::vector<std::pair<uint32_t, Match::Sources>> alus;
    for (size_t k = 0; k < m.alus.size(); ++k) alus.emplace_back(m.alus[k], m.sources[k]);
    std::sort(alus.begin(), alus.end(), [&](const auto& x, const auto& y) { return pos(x.first) < pos(y.first); });
    if (m.end != Match::End::Compare) {
      m.alus.clear();
      m.sources.clear();
      for (auto& [i, s] : alus) {
        m.alus.push_back(i);
        m.sources.push_back(s);
      }
    }
    if (m.end == Match::End::Data && !m.alus.empty() && m.alus.back() == t) m.alus.pop_back();  // kept apart
    std::sort(m.loads.begin(), m.loads.end(), [&](uint32_t x, uint32_t y) { return pos(x) < pos(y); });
    return m;
  }

  // The chain's Table 1 pattern (1-9), or 0. A fused multiply-add counts
  // as the two operations it fuses: fma(b, i, a) is pattern 8/9's
  // f(a, g(b, i)) in one instruction, fma(a, b, x) with x from the core the
  // accumulation of pattern 2 (the product computed remotely, the sum at the
  // core), and fma(a, g(b, i), x) pattern 8's d = f(a, d, g(b, i)).
  static uint32_t classify(const Match& m) {
    const size_t loads = m.loads.size();
    const size_t alus = m.alus.size() + (m.end == Match::End::Data ? 1 : 0);
    const uint32_t imms = m.imms, lives = m.lives;
    auto pair_is = [](const Match::Sources& s, Source a, Source b) {
      return (s.kind[0] == a && s.kind[1] == b) || (s.kind[0] == b && s.kind[1] == a);
    };
    // f(a, g(b, i)) as two instructions: the inner ALU reads a load and the
    // immediate, the outer one a load and the inner result.
    auto nested = [&] {
      if (m.sources.size() != 2 || m.sources[0].ternary || m.sources[1].ternary) return false;
      const Match::Sources& in = m.sources[0];
      const Match::Sources& out = m.sources[1];
      return in.loads == 1 && in.imms == 1 && in.lives == 0 && out.loads == 1 && out.alus == 1 && out.lives == 0;
    };
    bool ternary = false;
    for (const Match::Sources& s : m.sources) ternary = ternary || s.ternary;
    if (ternary) {
      const Match::Sources& last = m.sources.back();
      if (!last.ternary) return 0;  // fma/mad only as the outer operation
      if (m.sources.size() == 1) {
        const bool fused = pair_is(last, Source::Load, Source::Imm) && last.kind[2] == Source::Load;
        const bool accumulate = pair_is(last, Source::Load, Source::Load) && last.kind[2] == Source::Live;
        if (m.end == Match::End::Store && fused) return 9;
        if (m.end == Match::End::Data && fused) return 8;
        if (m.end == Match::End::Data && accumulate) return 2;
        return 0;
      }
      const Match::Sources& in = m.sources[0];
      const bool inner = !in.ternary && in.loads == 1 && in.imms == 1 && in.lives == 0;
      if (m.end == Match::End::Data && inner && pair_is(last, Source::Load, Source::Alu) &&
          last.kind[2] == Source::Live)
        return 8;
      return 0;
    }
    switch (m.end) {
      case Match::End::Store:
        if (alus == 0 && loads == 1 && imms == 0 && lives == 0) return 3;
        if (alus == 1 && loads == 2 && imms == 0 && lives == 0) return 1;
        if (alus == 1 && loads == 1 && imms == 0 && lives == 1) return 4;
        if (alus == 1 && loads == 1 && imms == 1 && lives == 0) return 7;
        if (alus == 2 && loads == 2 && imms == 1 && lives == 0 && nested()) return 9;
        return 0;
      case Match::End::Compare:
        if (loads == 2 && imms == 0 && lives == 0) return 5;
        if (loads == 1 && imms == 1 && lives == 0) return 6;
        return 0;
      case Match::End::Data:
        if (alus == 1 && loads == 2 && imms == 0 && lives == 0) return 2;
        if (alus == 2 && loads == 2 && imms == 1 && lives == 0 && nested()) return 8;
        return 0;
    }
    return 0;
  }

  // Whether a and b must keep their order: one writes a register the other
  // reads or writes (a guarded write also reads: it may keep the old value).
  bool conflict(uint32_t a, uint32_t b) const {
    auto touches = [&](uint32_t x, uint32_t reg) {
      const auto u = du_.uses(x);
      return defines(x, reg) || std::find(u.begin(), u.end(), reg) != u.end();
    };
    for (uint32_t reg : du_.defs(a))
      if (touches(b, reg)) return true;
    for (uint32_t reg : du_.defs(b))
      if (touches(a, reg)) return true;
    return false;
  }

  static bool memory_access(const Instruction& inst) {
    return opcode_info(inst.opcode).unit == UnitClass::Mem || inst.opcode == Opcode::Tex ||
           inst.opcode == Opcode::Tld4 || inst.opcode == Opcode::Suld;
  }

  // Moves every non-member between the chain's first and last member above
  // or below it, and orders the members loads first. Updates order_ when it
  // can; otherwise leaves it and returns false (or flags an alias).
  bool make_contiguous(Match& m, bool movable, uint32_t& hoisted_count) {
    std::vector<uint32_t> members = m.members();
    uint32_t lo = kNone, hi = 0;
    for (uint32_t i : members) {
      const uint32_t p = pos(i);
      lo = std::min(lo, p);
      hi = std::max(hi, p);
    }
    if (hi - lo + 1 > config_.max_span) return false;
    auto is_member = [&](uint32_t i) { return std::find(members.begin(), members.end(), i) != members.end(); };
    const bool has_store = m.end == Match::End::Store;
    std::vector<uint32_t> hoisted, chain, sunk;
    for (uint32_t k = lo; k <= hi; ++k) {
      const uint32_t x = order_[k];
      if (is_member(x)) {
        for (uint32_t s : sunk)
          if (conflict(x, s)) return false;
        chain.push_back(x);
        continue;
      }
      const Instruction& inst = f_.instructions[x];
      if (blocks_chain(inst)) {
        m.reject = Reject::Alias;
        return false;
      }
      bool up = true;
      for (uint32_t c : chain) up = up && !conflict(x, c);
      for (uint32_t s : sunk) up = up && !conflict(x, s);
      if (up) {
        hoisted.push_back(x);
      } else if (!(has_store && memory_access(inst))) {
        sunk.push_back(x);
      } else {
        return false;
      }
    }
    // Another chain caught in between must stay whole.
    auto split = [&](const std::vector<uint32_t>& part) {
      for (uint32_t x : part) {
        const uint32_t id = chain_of_[x];
        if (id == 0) continue;
        for (uint32_t k = lo; k <= hi; ++k) {
          const uint32_t y = order_[k];
          if (chain_of_[y] == id && std::find(part.begin(), part.end(), y) == part.end()) return true;
        }
      }
      return false;
    };
    if (split(hoisted) || split(sunk)) return false;
    if (!movable && (!hoisted.empty() || !sunk.empty())) return false;
    // Loads first, where nothing forbids it.
    std::vector<uint32_t> loads, rest;
    for (uint32_t x : chain)
      (std::find(m.loads.begin(), m.loads.end(), x) != m.loads.end() ? loads : rest).push_back(x);
    bool free = true;
    for (uint32_t l : loads)
      for (uint32_t r : rest)
        if (pos(r) < pos(l) && conflict(l, r)) free = false;
    if (free && movable) {
      chain = loads;
      chain.insert(chain.end(), rest.begin(), rest.end());
    }
    std::vector<uint32_t> next(order_.begin(), order_.begin() + lo);
    next.insert(next.end(), hoisted.begin(), hoisted.end());
    next.insert(next.end(), chain.begin(), chain.end());
    next.insert(next.end(), sunk.begin(), sunk.end());
    next.insert(next.end(), order_.begin() + hi + 1, order_.end());
    if (next != order_) {
      stats_.hoisted += hoisted.size();
      stats_.sunk += sunk.size();
    }
    hoisted_count = static_cast<uint32_t>(hoisted.size());
    order_ = std::move(next);
    update_positions();
    return true;
  }

  Function& f_;
  const Cfg& cfg_;
  const DefUse& du_;
  const OffloadChainsConfig& config_;
  OffloadChainsStats& stats_;
  std::vector<uint32_t> chain_of_;  // per instruction: its chain's id, 0 none
  std::vector<uint32_t> order_;     // the block's instructions, in their current order
  std::vector<uint32_t> position_;  // per instruction of the block: its place in order_
};

class OffloadChains final : public ModulePass {
 public:
  explicit OffloadChains(const OffloadChainsConfig& config) : config_(config) {}

  std::string_view name() const override { return "offload_chains"; }

  void run(Module& module, DiagnosticEngine&) override {
    // Which functions run in a kernel whose shared memory rules out core compute.
    std::vector<bool> no_core(module.functions.size(), false);
    for (uint32_t k = 0; k < module.functions.size(); ++k) {
      const Function& f = module.functions[k];
      if (!f.has_body || !f.is_entry) continue;
      ++stats_.kernels;
      const KernelResources r = compute_resources(module, f);
      if (r.shared_bytes <= config_.core_compute_shared_limit && !r.uses_dynamic_shared) continue;
      ++stats_.kernels_without_core_compute;
      no_core[k] = true;
      for (uint32_t c : r.callees) no_core[c] = true;
    }
    uint32_t next_id = 1;
    for (uint32_t k = 0; k < module.functions.size(); ++k) {
      Function& f = module.functions[k];
      if (!f.has_body) continue;
      for (Instruction& inst : f.instructions) {
        inst.annotation.flags &= ~offload::kOwnedBits;
        if (is_global_memory(inst)) inst.annotation.flags |= offload::kGlobalAccess;
      }
      const Cfg cfg = build_cfg(module, f);
      const DefUse du = compute_def_use(f);
      ChainFinder finder(f, cfg, du, config_, stats_);
      for (OffloadChain& c : finder.run(k, !no_core[k], next_id)) {
        ++stats_.chains;
        ++stats_.by_pattern[c.pattern - 1];
        stats_.tagged_instructions += c.instructions.size();
        for (uint32_t i : c.instructions)
          if (is_global_memory(f.instructions[i])) ++stats_.tagged_global_accesses;
        chains_.push_back(std::move(c));
      }
      stats_.instructions += f.instructions.size();
      for (const Instruction& inst : f.instructions)
        if (is_global_memory(inst)) ++stats_.global_accesses;
    }
  }

  void publish(StatsRegistry& stats, std::string_view prefix) override {
    offload_chains_stats_table().publish(stats, stats_, {prefix});
    stats_ = {};
  }

  std::span<const OffloadChain> chains() const { return chains_; }

 private:
  OffloadChainsConfig config_;
  OffloadChainsStats stats_;
  std::vector<OffloadChain> chains_;
};

}  // namespace

std::span<const OffloadChain> offload_chains_of(const ModulePass& pass) {
  const auto* p = dynamic_cast<const OffloadChains*>(&pass);
  return p != nullptr ? p->chains() : std::span<const OffloadChain>{};
}

std::unique_ptr<ModulePass> make_offload_chains_pass(const OffloadChainsConfig& config) {
  return std::make_unique<OffloadChains>(config);
}

std::unique_ptr<ModulePass> make_offload_chains(const PassContext& context) {
  return make_offload_chains_pass(context.section<OffloadChainsConfig>("offload_chains"));
}

}  // namespace warpsim::ptx
