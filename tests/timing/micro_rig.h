#pragma once
// The rig of the timing microbenchmarks: a Device whose launches run on a
// timing::Gpu, kernels built from timed sections that read %clock64, and a
// helper that runs one warm and returns each section's cycles.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tests/functional/exec_test_util.h"
#include "timing/gpu.h"
#include "timing/sim_config.h"

namespace warpsim::timing::testing {

namespace ft = functional::testing;
using functional::Dim3;
using functional::LaunchResult;
using functional::param_bytes;

// A Device whose launches run on a timing::Gpu of `config`.
struct Rig {
  Rig(const SimConfig& config, const std::string& ptx)
      : gpu(std::make_unique<Gpu>(config)), loaded(ft::load(ptx)) {
    loaded->device.set_grid_runner(gpu->grid_runner());
  }
  LaunchResult launch(const std::string& kernel, Dim3 grid, Dim3 block,
                      std::vector<std::vector<uint8_t>> args) {
    LaunchResult r = ft::run(*loaded, kernel, grid, block, std::move(args));
    EXPECT_TRUE(r.ok()) << (r.fault ? r.fault->message : "launch error");
    return r;
  }
  // Launches twice and keeps the second run, whose instruction fetches all
  // hit the L1I (checked).
  LaunchResult launch_warm(const std::string& kernel, Dim3 grid, Dim3 block,
                           const std::vector<std::vector<uint8_t>>& args) {
    launch(kernel, grid, block, args);
    LaunchResult r = launch(kernel, grid, block, args);
    EXPECT_EQ(gpu->last().l1i.read_misses, 0u) << "the timed launch must not miss in the L1I";
    return r;
  }
  functional::Device& device() { return loaded->device; }
  std::unique_ptr<Gpu> gpu;
  std::unique_ptr<ft::Loaded> loaded;
};

// Builds a kernel `name(.param .u64 out, .param .u64 data, .param .u32 arg)`
// from code and timed sections; section i stores its cycles to out[i].
// %rd15 holds out, %rd14 data.
class KernelText {
 public:
  KernelText(std::string name, std::string decls) : name_(std::move(name)), decls_(std::move(decls)) {}
  void add(const std::string& code) { body_ += code + "\n"; }
  // pre; t0; link x n (with {k} in `link` replaced by k); post; t1.
  void section(const std::string& pre, const std::string& link, uint32_t n, const std::string& post = "") {
    const uint32_t i = sections_++;
    add(pre);
    add("  mov.u64 %t" + std::to_string(2 * i) + ", %clock64;");
    for (uint32_t k = 0; k < n; ++k) {
      std::string line = link;
      for (size_t at; (at = line.find("{k}")) != std::string::npos;) line.replace(at, 3, std::to_string(k));
      add(line);
    }
    add(post);
    add("  mov.u64 %t" + std::to_string(2 * i + 1) + ", %clock64;");
  }
  std::string text() const {
    std::string s = ".visible .entry " + name_ + "(.param .u64 out, .param .u64 data, .param .u32 arg)\n{\n" +
                    "  .reg .pred %p<4>; .reg .b32 %r<96>; .reg .b64 %rd<16>; .reg .f32 %f<16>;\n"
                    "  .reg .f64 %fd<8>; .reg .b64 %t<16>;\n" + decls_ +
                    "  ld.param.u64 %rd15, [out];\n  ld.param.u64 %rd14, [data];\n" + body_;
    for (uint32_t i = 0; i < sections_; ++i) {
      s += "  sub.s64 %t" + std::to_string(2 * i) + ", %t" + std::to_string(2 * i + 1) + ", %t" +
           std::to_string(2 * i) + ";\n";
      s += "  st.global.u64 [%rd15+" + std::to_string(8 * i) + "], %t" + std::to_string(2 * i) + ";\n";
    }
    return s + "  ret;\n}\n";
  }

 private:
  std::string name_, decls_, body_;
  uint32_t sections_ = 0;
};

// Runs `kernel` of `ptx` warm on one CTA of `threads` and returns the cycles
// of its `sections` timed sections.
inline std::vector<uint64_t> time_kernel(Rig& rig, const std::string& kernel, uint32_t sections, uint32_t threads = 1,
                                  uint64_t data = 0, uint32_t arg = 0) {
  const uint64_t out = ft::upload(rig.device(), std::vector<uint64_t>(sections, 0));
  rig.launch_warm(kernel, {1}, {threads}, {param_bytes(out), param_bytes(data), param_bytes(arg)});
  return ft::download<uint64_t>(rig.device(), out, sections);
}

}  // namespace warpsim::timing::testing
