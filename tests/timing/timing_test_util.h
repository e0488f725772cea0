#pragma once
// A functional::Device whose launches run on a timing::Gpu, for tests that
// load hand-written PTX (the timing counterpart of exec_test_util.h).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "functional/device.h"
#include "ptx/compile.h"
#include "timing/gpu.h"
#include "timing/sim_config.h"

namespace warpsim::timing::testing {

// sm_90: the cluster tests use mapa and barrier.cluster.
inline constexpr const char* kPtxHeader = ".version 8.5\n.target sm_90\n.address_size 64\n";

// scale(in, out): out[i] = in[i] * 2 + 1, a stream that reads and writes
// each line once.
inline constexpr const char* kScaleKernel = R"(
.visible .entry scale(.param .u64 in, .param .u64 out)
{
  .reg .b32 %r<8>; .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r4, %r2, %r3, %r1;
  mul.wide.u32 %rd3, %r4, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r5, [%rd4];
  mad.lo.u32 %r6, %r5, 2, 1;
  add.s64 %rd5, %rd2, %rd3;
  st.global.u32 [%rd5], %r6;
  ret;
}
)";

// A small GPU that tests can reason about: 4 SMs, 2 schedulers, no clusters.
inline SimConfig small_gpu() {
  SimConfig c;
  c.gpu.num_sms = 4;
  c.timing.sm.schedulers = 2;
  return c;
}

struct TimedDevice {
  SimConfig config;
  functional::Device device;
  std::unique_ptr<Gpu> gpu;
  std::shared_ptr<const functional::Program> program;

  // `mechanisms` and `options` (compile passes) besides the configuration's.
  TimedDevice(const SimConfig& c, const std::string& body, Mechanisms mechanisms = {},
              const ptx::CompileOptions& options = {})
      : config(c) {
    gpu = std::make_unique<Gpu>(config, std::move(mechanisms));
    device.set_sm_count(config.gpu.num_sms);
    device.set_grid_runner(gpu->grid_runner());
    DiagnosticEngine diags;
    const std::string text = std::string(kPtxHeader) + body;
    const ptx::PtxSource source{text, "test.ptx"};
    program = device.load(std::span(&source, 1), options, diags);
    EXPECT_TRUE(program) << diags.format_all();
  }

  uint64_t alloc(size_t bytes) {
    return device.memory().allocate(bytes, functional::AllocationKind::Device, "buf");
  }
  template <typename T>
  std::vector<T> download(uint64_t addr, size_t n) {
    std::vector<T> v(n);
    EXPECT_FALSE(device.memory().copy_to_host(v.data(), addr, n * sizeof(T)));
    return v;
  }
  functional::LaunchResult run(const std::string& kernel, functional::Dim3 grid, functional::Dim3 block,
                               std::vector<std::vector<uint8_t>> args) {
    const functional::KernelInfo* k = program ? program->find_kernel(kernel) : nullptr;
    EXPECT_NE(k, nullptr) << kernel;
    functional::LaunchResult bad;
    bad.error = functional::LaunchError::InvalidValue;
    if (k == nullptr) return bad;
    auto params = device.layout_params(*k, args);
    EXPECT_TRUE(params.has_value());
    if (!params) return bad;
    functional::LaunchConfig cfg;
    cfg.grid = grid;
    cfg.block = block;
    return device.launch(*program, *k, cfg, *params);
  }
};

}  // namespace warpsim::timing::testing
