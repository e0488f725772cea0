// dead_moves: removes `mov` instructions whose destination register no
// instruction of the function reads. A mov has no effect besides its
// destination, so removing it changes nothing a program can observe; removing
// one may leave another mov dead, so the pass repeats until none is.
#include <memory>

#include "ptx/def_use.h"
#include "ptx/passes/pass_registry.h"
#include "ptx/passes/rewrite.h"

namespace warpsim::ptx {

struct DeadMovesConfig {};

const config::Table<DeadMovesConfig>& dead_moves_config_table() {
  static const config::Table<DeadMovesConfig> table("Compile pass dead_moves (no keys)");
  return table;
}

struct DeadMovesStats {
  uint64_t moves_removed = 0;
  uint64_t functions_changed = 0;
};

const stats::StatTable<DeadMovesStats>& dead_moves_stats_table() {
  static const stats::StatTable<DeadMovesStats> table = [] {
    using S = DeadMovesStats;
    stats::StatTable<S> t("Compile pass dead_moves");
    t.counter("moves_removed", &S::moves_removed, "instructions", "mov instructions removed as dead");
    t.counter("functions_changed", &S::functions_changed, "functions", "functions that lost a mov");
    return t;
  }();
  return table;
}

namespace {

// A mov writing one whole register (not a vector element or a pair).
bool is_plain_move(const Function& f, const Instruction& inst) {
  if (inst.opcode != Opcode::Mov || inst.num_operands != 2) return false;
  const Operand& dst = f.operands_of(inst)[0];
  return dst.kind == OperandKind::Register && dst.component == Component::None;
}

class DeadMoves final : public ModulePass {
 public:
  std::string_view name() const override { return "dead_moves"; }

  void run(Module& module, DiagnosticEngine&) override {
    for (Function& f : module.functions) {
      if (!f.has_body) continue;
      const uint64_t before = stats_.moves_removed;
      for (;;) {
        const DefUse du = compute_def_use(f);
        std::vector<bool> remove(f.instructions.size(), false);
        bool any = false;
        for (uint32_t i = 0; i < f.instructions.size(); ++i) {
          const Instruction& inst = f.instructions[i];
          if (!is_plain_move(f, inst)) continue;
          const uint32_t reg = f.operands_of(inst)[0].reg;
          if (!du.using_insts(reg).empty()) continue;
          remove[i] = any = true;
          ++stats_.moves_removed;
        }
        if (!any) break;
        erase_instructions(f, remove);
      }
      if (stats_.moves_removed != before) ++stats_.functions_changed;
    }
  }

  void publish(StatsRegistry& stats, std::string_view prefix) override {
    dead_moves_stats_table().publish(stats, stats_, {prefix});
    stats_ = {};
  }

 private:
  DeadMovesStats stats_;
};

}  // namespace

std::unique_ptr<ModulePass> make_dead_moves(const PassContext&) { return std::make_unique<DeadMoves>(); }

}  // namespace warpsim::ptx
