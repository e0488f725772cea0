// LaunchActivity: the GPU-level statistics table and publishing.
#include "timing/launch_activity.h"

#include <fmt/format.h>

namespace warpsim::timing {

std::string_view to_string(Sampling s) {
  switch (s) {
    case Sampling::None:
      return "";
    case Sampling::Extrapolated:
      return "extrapolated";
    case Sampling::ScaleModel:
      return "scale-model";
    case Sampling::Estimated:
      return "estimated";
  }
  return "";
}

const stats::StatTable<LaunchActivity>& launch_stats_table() {
  static const stats::StatTable<LaunchActivity> table = [] {
    using L = LaunchActivity;
    using V = stats::FormulaValue;
    stats::StatTable<L> t("The GPU: launches, cycles, instructions per cycle");
    t.counter("cycles", &L::cycles, "cycles", "core cycles of the launches").headline("gpu_tot_sim_cycle");
    t.counter("functional_fallback_launches", &L::fallback_launches, "launches",
              "launches with thread-block clusters larger than a GPC can hold at once, which ran in the "
              "functional executor (cycles estimated from their instruction count)");
    t.counter("sampled_launches", &L::sampled_launches, "launches",
              "launches simulated in part (timing.sample, timing.sample_ctas) or not at all "
              "(timing.sample_launches): their cycles are extrapolated or estimated, and every other timing "
              "statistic but the instruction and CTA counts covers only their simulated part");
    t.counter("simulated_cycles", &L::simulated_cycles, "cycles",
              "core cycles simulated cycle by cycle (cycles less the extrapolated and estimated ones)");
    t.counter("simulated_ctas", &L::simulated_ctas, "CTAs",
              "CTAs placed on an SM and simulated cycle by cycle (the rest of a sampled launch's ran in the "
              "functional executor)");
    t.counter("sampled_cycles_ci95", &L::cycles_ci95, "cycles",
              "sampled launches: the sum of their cycles' 95% confidence half-widths (timing.sample: the "
              "IPC's noise; timing.sample_ctas: the spread of the simulated CTAs' work; "
              "timing.sample_launches: the spread of the shape's simulated IPCs)");
    t.counter("unsimulated_warp_instructions", &L::unsimulated_warp_instructions, "instructions",
              "sampled launches: warp instructions run in the functional executor, timed by extrapolation");
    t.formula("launch_cycles", "cycles", "core cycles from the launch to its last CTA's end",
              [](const L& l) -> V { return l.cycles; })
        .headline("gpu_sim_cycle");
    t.formula("launch_thread_instructions", "instructions", "thread instructions of the launch",
              [](const L& l) -> V { return l.sm.thread_instructions; })
        .headline("gpu_sim_insn");
    t.formula("ipc", "instructions/cycle", "thread instructions per core cycle of the launch",
              [](const L& l) -> V {
                return l.cycles ? static_cast<double>(l.sm.thread_instructions) / l.cycles : 0.0;
              })
        .headline("gpu_ipc");
    // gpu_tot_sim_insn is the runtime's: every launch's thread instructions,
    // functional mode included.
    t.run_ratio("tot_ipc", "gpu_tot_sim_insn", "gpu_tot_sim_cycle", "instructions/cycle",
                "thread instructions per core cycle over the run")
        .headline("gpu_tot_ipc");
    return t;
  }();
  return table;
}

void sum_sms(LaunchActivity& a) {
  a.sm = {};
  a.l1d = a.l1i = a.constant = {};
  for (const SmActivity& s : a.sms) {
    sm_stats_table().add(a.sm, s.sm);
    cache_stats_table().add(a.l1d, s.l1d);
    cache_stats_table().add(a.l1i, s.l1i);
    cache_stats_table().add(a.constant, s.constant);
  }
}

void publish(StatsRegistry& stats, const LaunchActivity& a, PublishDetail detail) {
  launch_stats_table().publish(stats, a, kGpuStats);
  if (a.fallback()) return;
  sm_stats_table().publish(stats, a.sm, kSmStats, {a.max_warps, a.ctas_per_sm});
  cache_stats_table().publish(stats, a.l1d, kL1dStats);
  cache_stats_table().publish(stats, a.l1i, kL1iStats);
  cache_stats_table().publish(stats, a.constant, kConstantCacheStats);
  if (a.has_memory_system) publish(stats, a.memory, a.cycles, detail);
  if (detail == PublishDetail::Totals) return;
  // Per SM: where CTAs went and how busy each SM was (load balance across
  // SMs is what CTA-scheduling studies look at).
  for (size_t i = 0; i < a.sms.size(); ++i) {
    const std::string prefix = fmt::format("timing.sm.{}", i);
    sm_stats_table().publish_instance(stats, a.sms[i].sm, prefix);
    cache_stats_table().publish_instance(stats, a.sms[i].l1d, prefix + ".l1d");
  }
  if (!a.cta_trace.empty()) {
    std::string text;
    for (const auto& [cta, sm] : a.cta_trace) text += fmt::format("{}{}:{}", text.empty() ? "" : " ", cta, sm);
    stats.set(fmt::format("timing.launch.{}.cta_trace", a.index + 1), text);
  }
}

}  // namespace warpsim::timing
