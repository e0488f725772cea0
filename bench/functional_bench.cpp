// Functional-execution speed, single thread: warp instructions/s and thread
// instructions/s for (a) an ALU-bound kernel, (b) a streaming memory kernel,
// (c) a divergent kernel and (d) a 512x512 tiled matrix multiply
// (bench/kernels/matmul.cu, 16x16 shared-memory tiles, as nvcc 13 compiled it
// for sm_80: bench/kernels/matmul.ptx).
#include <benchmark/benchmark.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "functional/device.h"

namespace {

using namespace warpsim;
using namespace warpsim::functional;

constexpr const char* kHeader = ".version 8.5\n.target sm_80\n.address_size 64\n";

// (a) Each thread runs a dependent integer chain: 4 ALU instructions per
// iteration (mad, xor, shl/shr mix) plus the loop's add/setp/bra.
constexpr const char* kAlu = R"(
.visible .entry alu(.param .u64 out, .param .u32 iters)
{
  .reg .pred %p<2>; .reg .b32 %r<10>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out]; ld.param.u32 %r1, [iters];
  mov.u32 %r2, %tid.x; mov.u32 %r3, 0; mov.u32 %r4, %r2;
LOOP:
  mad.lo.s32 %r4, %r4, 1664525, 1013904223;
  xor.b32 %r5, %r4, %r2;
  shr.u32 %r6, %r5, 7;
  add.s32 %r4, %r4, %r6;
  add.s32 %r3, %r3, 1;
  setp.lt.u32 %p1, %r3, %r1;
  @%p1 bra LOOP;
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r4;
  ret;
}
)";

// (b) out[i] = a[i] + b[i] over a large array, grid-stride.
constexpr const char* kStream = R"(
.visible .entry stream(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)
{
  .reg .pred %p<2>; .reg .b32 %r<10>; .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [a]; ld.param.u64 %rd2, [b]; ld.param.u64 %rd3, [c]; ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  mov.u32 %r6, %nctaid.x; mul.lo.s32 %r7, %r6, %r3;
LOOP:
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  mul.wide.u32 %rd4, %r5, 4;
  add.s64 %rd5, %rd1, %rd4; add.s64 %rd6, %rd2, %rd4; add.s64 %rd7, %rd3, %rd4;
  ld.global.u32 %r8, [%rd5]; ld.global.u32 %r9, [%rd6];
  add.s32 %r8, %r8, %r9;
  st.global.u32 [%rd7], %r8;
  add.s32 %r5, %r5, %r7;
  bra LOOP;
DONE:
  ret;
}
)";

// (c) Lanes take one of four data-dependent paths each iteration.
constexpr const char* kDivergent = R"(
.visible .entry divergent(.param .u64 out, .param .u32 iters)
{
  .reg .pred %p<4>; .reg .b32 %r<10>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out]; ld.param.u32 %r1, [iters];
  mov.u32 %r2, %tid.x; mov.u32 %r3, 0; mov.u32 %r4, %r2;
LOOP:
  and.b32 %r5, %r4, 3;
  setp.eq.u32 %p1, %r5, 0;
  @%p1 bra A;
  setp.eq.u32 %p2, %r5, 1;
  @%p2 bra B;
  setp.eq.u32 %p3, %r5, 2;
  @%p3 bra C;
  add.s32 %r4, %r4, 7;
  bra NEXT;
A: mul.lo.s32 %r4, %r4, 3; bra NEXT;
B: xor.b32 %r4, %r4, 0x5a5a; bra NEXT;
C: shr.u32 %r4, %r4, 1;
NEXT:
  add.s32 %r4, %r4, %r3;
  add.s32 %r3, %r3, 1;
  setp.lt.u32 %p1, %r3, %r1;
  @%p1 bra LOOP;
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r4;
  ret;
}
)";

struct Setup {
  Device device;
  std::shared_ptr<const Program> program;
  explicit Setup(const std::string& text) {
    DiagnosticEngine d;
    program = device.load_ptx(text, "bench.ptx", d);
    if (!program) std::fprintf(stderr, "%s", d.format_all().c_str());
  }
};

void report(benchmark::State& state, uint64_t warp, uint64_t thread) {
  state.counters["warp_inst_per_s"] =
      benchmark::Counter(static_cast<double>(warp), benchmark::Counter::kIsRate);
  state.counters["thread_inst_per_s"] =
      benchmark::Counter(static_cast<double>(thread), benchmark::Counter::kIsRate);
}

void run_kernel(benchmark::State& state, Setup& s, const char* name, Dim3 grid, Dim3 block,
                std::vector<std::vector<uint8_t>> args) {
  const KernelInfo* k = s.program ? s.program->find_kernel(name) : nullptr;
  if (!k) {
    state.SkipWithError("kernel did not load");
    return;
  }
  auto params = s.device.layout_params(*k, args);
  LaunchConfig cfg;
  cfg.grid = grid;
  cfg.block = block;
  uint64_t warp = 0, thread = 0;
  for (auto _ : state) {
    LaunchResult r = s.device.launch(*s.program, *k, cfg, *params);
    if (!r.ok()) {
      state.SkipWithError(r.fault ? r.fault->message.c_str() : "launch failed");
      return;
    }
    warp += r.warp_instructions;
    thread += r.thread_instructions;
  }
  report(state, warp, thread);
}

void BM_AluBound(benchmark::State& state) {
  static Setup s(std::string(kHeader) + kAlu);
  uint64_t out = s.device.memory().allocate(64 * 256 * 4, AllocationKind::Device, "out");
  run_kernel(state, s, "alu", {64}, {256}, {param_bytes(out), param_bytes(uint32_t{200})});
}
BENCHMARK(BM_AluBound)->Unit(benchmark::kMillisecond);

void BM_Streaming(benchmark::State& state) {
  static Setup s(std::string(kHeader) + kStream);
  const uint32_t n = 1 << 20;
  auto& m = s.device.memory();
  uint64_t a = m.allocate(n * 4, AllocationKind::Device, "a");
  uint64_t b = m.allocate(n * 4, AllocationKind::Device, "b");
  uint64_t c = m.allocate(n * 4, AllocationKind::Device, "c");
  run_kernel(state, s, "stream", {256}, {256},
             {param_bytes(a), param_bytes(b), param_bytes(c), param_bytes(n)});
}
BENCHMARK(BM_Streaming)->Unit(benchmark::kMillisecond);

void BM_Divergent(benchmark::State& state) {
  static Setup s(std::string(kHeader) + kDivergent);
  uint64_t out = s.device.memory().allocate(64 * 256 * 4, AllocationKind::Device, "out");
  run_kernel(state, s, "divergent", {64}, {256}, {param_bytes(out), param_bytes(uint32_t{100})});
}
BENCHMARK(BM_Divergent)->Unit(benchmark::kMillisecond);

// (d) C = A * B for 512x512 floats: 32x32 CTAs of 16x16 threads, on
// state.range(0) host threads (1: the single-thread figure).
void BM_MatMul512(benchmark::State& state) {
  static Setup s([] {
    std::ifstream in(std::filesystem::path(WARPSIM_SOURCE_DIR) / "bench/kernels/matmul.ptx");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }());
  const uint32_t n = 512;
  ExecutorOptions options;
  options.threads = static_cast<uint32_t>(state.range(0));
  s.device.set_executor_options(options);
  auto& m = s.device.memory();
  std::vector<float> a(n * n), b(n * n);
  for (uint32_t i = 0; i < n * n; ++i) {
    a[i] = static_cast<float>(i % 17) * 0.25f;
    b[i] = static_cast<float>(i % 13) - 6.0f;
  }
  uint64_t da = m.allocate(n * n * 4, AllocationKind::Device, "A");
  uint64_t db = m.allocate(n * n * 4, AllocationKind::Device, "B");
  uint64_t dc = m.allocate(n * n * 4, AllocationKind::Device, "C");
  (void)m.copy_from_host(da, a.data(), n * n * 4);
  (void)m.copy_from_host(db, b.data(), n * n * 4);
  run_kernel(state, s, "matmul", {n / 16, n / 16}, {16, 16},
             {param_bytes(da), param_bytes(db), param_bytes(dc), param_bytes(n)});
  // Spot-check one element, so a broken executor cannot report a rate.
  float c = 0;
  (void)m.copy_to_host(&c, dc + (5 * n + 7) * 4, 4);
  float want = 0;
  for (uint32_t k = 0; k < n; ++k) want = std::fma(a[5 * n + k], b[k * n + 7], want);
  if (c != want) state.SkipWithError("matmul result is wrong");
}
// Thread counts above 1 show the parallel grid executor's scaling: rates
// are per wall-clock second there.
BENCHMARK(BM_MatMul512)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MatMul512)->Name("BM_MatMul512_Threads")->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
