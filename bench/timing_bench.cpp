// Timing-mode speed on the GTX480-like config (configs/gtx480.toml):
// simulated cycles per second and thread instructions per second for
// (a) vectorAdd over 1M elements (one element per thread, 256-thread CTAs,
// as the CUDA sample) and (b) the 512x512 tiled matrix multiply of
// bench/kernels/matmul.ptx. The goal set when the timing model was built:
// >= 5 M thread-inst/s for (a), 10x GPGPU-Sim (docs/performance.md).
// (a) also runs on the flit-level 8x8 mesh of configs/zhao-lallc-8x8.toml
// and the 6x6 mesh of configs/bakhoda-thesis-6x6.toml, with the same goal.
// (a) and (b) run three ways, side by side (the `energy` argument): the
// energy model off (0), on as the CUDA runtime runs it (1: each launch's
// counters published, taken as the energy model's inputs, added to the
// kernel's, and priced), and on with a power trace sampled every 10,000
// cycles (2). Goal: (1) at most 5% slower than (0) (docs/power.md).
#include <benchmark/benchmark.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "functional/device.h"
#include "power/energy_model.h"
#include "timing/gpu.h"
#include "timing/power_machine.h"
#include "timing/sim_config.h"

namespace {

using namespace warpsim;
using namespace warpsim::functional;

constexpr const char* kVectorAdd = R"(.version 8.5
.target sm_80
.address_size 64
.visible .entry vectorAdd(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)
{
  .reg .pred %p<2>; .reg .b32 %r<6>; .reg .f32 %f<4>; .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [a]; ld.param.u64 %rd2, [b]; ld.param.u64 %rd3, [c]; ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.s32 %p1, %r5, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd4, %rd1; cvta.to.global.u64 %rd5, %rd2; cvta.to.global.u64 %rd6, %rd3;
  mul.wide.s32 %rd7, %r5, 4;
  add.s64 %rd8, %rd4, %rd7; ld.global.f32 %f1, [%rd8];
  add.s64 %rd9, %rd5, %rd7; ld.global.f32 %f2, [%rd9];
  add.f32 %f3, %f1, %f2;
  add.s64 %rd8, %rd6, %rd7; st.global.f32 [%rd8], %f3;
DONE:
  ret;
}
)";

struct TimedDevice {
  SimConfig config;
  Device device;
  std::unique_ptr<timing::Gpu> gpu;
  std::shared_ptr<const Program> program;
  TimedDevice(const std::string& ptx, const char* config_name = "gtx480") {
    DiagnosticEngine d;
    auto c = load_sim_config(config_name, {}, d);
    if (!c) std::fprintf(stderr, "%s", d.format_all().c_str());
    config = c.value_or(SimConfig{});
    gpu = std::make_unique<timing::Gpu>(config);
    device.set_sm_count(config.gpu.num_sms);
    device.set_grid_runner(gpu->grid_runner());
    program = device.load_ptx(ptx, "bench.ptx", d);
    if (!program) std::fprintf(stderr, "%s", d.format_all().c_str());
  }
};

// What the CUDA runtime does after a launch (libcudart_shim/runtime.cpp):
// publish the launch's statistics and, with the energy model on, take the
// launch's share of the model's counters for its kernel and price them.
struct LaunchStatistics {
  StatsRegistry run;
  power::Activity kernel;
  power::Machine machine;
  double joules = 0;
  void publish(const timing::LaunchActivity& a, const SimConfig& config, bool energy) {
    if (!energy) {
      timing::publish(run, a);
      return;
    }
    const power::Activity before = power::Activity::from_registry(run, power::input_names());
    timing::publish(run, a);
    kernel.add(power::Activity::from_registry(run, power::input_names()).minus(before));
    joules = power::estimate(config.power, machine, kernel).total_joules;
  }
};

void run_kernel(benchmark::State& state, TimedDevice& s, const char* name, Dim3 grid, Dim3 block,
                std::vector<std::vector<uint8_t>> args) {
  const int64_t energy = state.range(0);  // 0 off, 1 on, 2 on with a power trace
  LaunchStatistics stats;
  stats.machine = timing::power_machine(s.config);
  power::Activity sampled;
  if (energy == 2)
    s.gpu->set_sampler(10000, [&](const timing::LaunchActivity& so_far) {
      StatsRegistry one;
      timing::publish(one, so_far, timing::PublishDetail::Totals);
      sampled = power::Activity::from_registry(one, power::input_names());
      benchmark::DoNotOptimize(power::estimate(s.config.power, stats.machine, sampled).total_joules);
    });
  else
    s.gpu->set_sampler(1, {});
  const KernelInfo* k = s.program ? s.program->find_kernel(name) : nullptr;
  if (!k) {
    state.SkipWithError("kernel did not load");
    return;
  }
  auto params = s.device.layout_params(*k, args);
  LaunchConfig cfg;
  cfg.grid = grid;
  cfg.block = block;
  uint64_t thread = 0, cycles = 0;
  for (auto _ : state) {
    LaunchResult r = s.device.launch(*s.program, *k, cfg, *params);
    if (!r.ok()) {
      state.SkipWithError(r.fault ? r.fault->message.c_str() : "launch failed");
      return;
    }
    thread += r.thread_instructions;
    cycles += r.cycles;
    stats.publish(s.gpu->last(), s.config, energy != 0);
  }
  // The kernel's energy over every launch of the benchmark, per launch.
  if (energy != 0) state.counters["joules_per_launch"] = stats.joules / static_cast<double>(state.iterations());
  state.counters["thread_inst_per_s"] = benchmark::Counter(static_cast<double>(thread), benchmark::Counter::kIsRate);
  state.counters["cycles_per_s"] = benchmark::Counter(static_cast<double>(cycles), benchmark::Counter::kIsRate);
  state.counters["sim_cycles"] = static_cast<double>(s.gpu->last().cycles);
  state.counters["ipc"] = static_cast<double>(s.gpu->last().sm.thread_instructions) /
                          static_cast<double>(std::max<uint64_t>(1, s.gpu->last().cycles));
}

void vector_add_1m(benchmark::State& state, TimedDevice& s) {
  const uint32_t n = 1 << 20;
  auto& m = s.device.memory();
  std::vector<float> a(n), b(n);
  for (uint32_t i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i % 100);
    b[i] = static_cast<float>(i % 7);
  }
  const uint64_t da = m.allocate(n * 4, AllocationKind::Device, "a");
  const uint64_t db = m.allocate(n * 4, AllocationKind::Device, "b");
  const uint64_t dc = m.allocate(n * 4, AllocationKind::Device, "c");
  (void)m.copy_from_host(da, a.data(), n * 4);
  (void)m.copy_from_host(db, b.data(), n * 4);
  run_kernel(state, s, "vectorAdd", {n / 256}, {256},
             {param_bytes(da), param_bytes(db), param_bytes(dc), param_bytes(n)});
  float c = 0;
  (void)m.copy_to_host(&c, dc + 4 * 12345, 4);
  if (c != a[12345] + b[12345]) state.SkipWithError("vectorAdd result is wrong");
}

void BM_TimingVectorAdd1M(benchmark::State& state) {
  static TimedDevice s(kVectorAdd);
  vector_add_1m(state, s);
}
BENCHMARK(BM_TimingVectorAdd1M)->ArgName("energy")->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

void BM_TimingVectorAdd1MMesh8x8(benchmark::State& state) {
  static TimedDevice s(kVectorAdd, "zhao-lallc-8x8");
  vector_add_1m(state, s);
}
BENCHMARK(BM_TimingVectorAdd1MMesh8x8)->ArgName("energy")->Arg(0)->Unit(benchmark::kMillisecond);

void BM_TimingVectorAdd1MMesh6x6(benchmark::State& state) {
  static TimedDevice s(kVectorAdd, "bakhoda-thesis-6x6");
  vector_add_1m(state, s);
}
BENCHMARK(BM_TimingVectorAdd1MMesh6x6)->ArgName("energy")->Arg(0)->Unit(benchmark::kMillisecond);

void BM_TimingMatMul512(benchmark::State& state) {
  static TimedDevice s([] {
    std::ifstream in(std::filesystem::path(WARPSIM_SOURCE_DIR) / "bench/kernels/matmul.ptx");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }());
  const uint32_t n = 512;
  auto& m = s.device.memory();
  std::vector<float> a(n * n), b(n * n);
  for (uint32_t i = 0; i < n * n; ++i) {
    a[i] = static_cast<float>(i % 17) * 0.25f;
    b[i] = static_cast<float>(i % 13) - 6.0f;
  }
  const uint64_t da = m.allocate(n * n * 4, AllocationKind::Device, "A");
  const uint64_t db = m.allocate(n * n * 4, AllocationKind::Device, "B");
  const uint64_t dc = m.allocate(n * n * 4, AllocationKind::Device, "C");
  (void)m.copy_from_host(da, a.data(), n * n * 4);
  (void)m.copy_from_host(db, b.data(), n * n * 4);
  run_kernel(state, s, "matmul", {n / 16, n / 16}, {16, 16},
             {param_bytes(da), param_bytes(db), param_bytes(dc), param_bytes(n)});
  float c = 0;
  (void)m.copy_to_host(&c, dc + (5 * n + 7) * 4, 4);
  float want = 0;
  for (uint32_t k = 0; k < n; ++k) want = std::fma(a[5 * n + k], b[k * n + 7], want);
  if (c != want) state.SkipWithError("matmul result is wrong");
}
BENCHMARK(BM_TimingMatMul512)->ArgName("energy")->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
