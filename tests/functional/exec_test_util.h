#pragma once
// Helpers shared by the execution tests: load hand-written PTX into a fresh
// Device, move buffers in and out, launch a kernel by name.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "functional/device.h"

namespace warpsim::functional::testing {

inline constexpr const char* kPtxHeader = ".version 8.5\n.target sm_80\n.address_size 64\n";

struct Loaded {
  Device device;
  std::shared_ptr<const Program> program;
};

// Parses `body` (module contents after the header, or a whole module when
// `with_header` is false) into a fresh Device; fails the test on diagnostics.
inline std::unique_ptr<Loaded> load(const std::string& body, bool with_header = true) {
  auto l = std::make_unique<Loaded>();
  DiagnosticEngine diags;
  l->program = l->device.load_ptx(with_header ? std::string(kPtxHeader) + body : body, "test.ptx", diags);
  EXPECT_TRUE(l->program) << diags.format_all();
  return l;
}

template <typename T>
uint64_t upload(Device& d, const std::vector<T>& v) {
  const size_t bytes = std::max<size_t>(v.size() * sizeof(T), 1);
  uint64_t a = d.memory().allocate(bytes, AllocationKind::Device, "buf");
  if (!v.empty()) {
    EXPECT_FALSE(d.memory().copy_from_host(a, v.data(), v.size() * sizeof(T)));
  }
  return a;
}

template <typename T = uint32_t>
std::vector<T> download(Device& d, uint64_t a, size_t n) {
  std::vector<T> v(n);
  if (n != 0) {
    EXPECT_FALSE(d.memory().copy_to_host(v.data(), a, n * sizeof(T)));
  }
  return v;
}

inline LaunchResult run(Loaded& l, const std::string& kernel, Dim3 grid, Dim3 block,
                        std::vector<std::vector<uint8_t>> args, uint32_t dyn_shared = 0) {
  const KernelInfo* k = l.program->find_kernel(kernel);
  EXPECT_NE(k, nullptr) << "no kernel " << kernel;
  LaunchResult invalid;
  invalid.error = LaunchError::InvalidValue;
  if (k == nullptr) return invalid;
  std::string why;
  auto params = l.device.layout_params(*k, args, &why);
  EXPECT_TRUE(params) << why;
  if (!params) return invalid;
  LaunchConfig cfg;
  cfg.grid = grid;
  cfg.block = block;
  cfg.dynamic_shared_bytes = dyn_shared;
  return l.device.launch(*l.program, *k, cfg, *params);
}

}  // namespace warpsim::functional::testing
