#pragma once
// Helpers shared by the execution tests: load hand-written PTX into a fresh
// Device, move buffers in and out, launch a kernel by name.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <cstdint>
#include <vector>

#include "functional/device.h"

namespace warpsim::functional::testing {

// sm_90: the tests use cluster, elect, stmatrix and bf16 atomic forms, which older targets lack.
inline constexpr const char* kPtxHeader = ".version 8.5\n.target sm_90\n.address_size 64\n";

struct Loaded {
  explicit Loaded(DeviceMemoryConfig memory = {}) : device(memory) {}
  Device device;
  std::shared_ptr<const Program> program;
};

// Device memory that faults at any byte outside an allocation (compute-
// sanitizer's view), for tests of the out-of-bounds reports.
inline DeviceMemoryConfig strict_memory() {
  DeviceMemoryConfig c;
  c.check = MemoryCheck::Strict;
  return c;
}

// Parses `body` (module contents after the header, or a whole module when
// `with_header` is false) into a fresh Device; fails the test on diagnostics.
inline std::unique_ptr<Loaded> load(const std::string& body, bool with_header = true,
                                    DeviceMemoryConfig memory = {}) {
  auto l = std::make_unique<Loaded>(memory);
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

// Runs `body` once per element in a single CTA of a.size() threads: it
// operates on %r1 = a[i], %r2 = b[i], %r3 = c[i] (.b32 registers; %rd1..%rd3
// hold the same values as .b64 for 64-bit operands, %r5 = %tid.x) and leaves
// its result in %r4 (or %rd4 when `wide`). Returns the results.
template <typename T = uint32_t>
std::vector<T> run_lanes(const std::string& body, const std::vector<T>& a, const std::vector<T>& b,
                         const std::vector<T>& c) {
  constexpr bool wide = sizeof(T) == 8;
  const std::string w = wide ? "u64" : "u32";
  const std::string text =
      ".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 po)\n{\n"
      "  .reg .pred %p<8>; .reg .b32 %r<16>; .reg .b64 %rd<24>; .reg .b16 %h<8>;\n"
      "  ld.param.u64 %rd11, [pa]; ld.param.u64 %rd12, [pb]; ld.param.u64 %rd13, [pc];\n"
      "  ld.param.u64 %rd14, [po];\n"
      "  mov.u32 %r5, %tid.x; mul.wide.u32 %rd15, %r5, " + std::to_string(sizeof(T)) + ";\n"
      "  add.s64 %rd16, %rd11, %rd15; add.s64 %rd17, %rd12, %rd15; add.s64 %rd18, %rd13, %rd15;\n"
      "  add.s64 %rd19, %rd14, %rd15;\n" +
      (wide ? "  ld.global.u64 %rd1, [%rd16]; ld.global.u64 %rd2, [%rd17]; ld.global.u64 %rd3, [%rd18];\n"
            : "  ld.global.u32 %r1, [%rd16]; ld.global.u32 %r2, [%rd17]; ld.global.u32 %r3, [%rd18];\n") +
      body + "\n  st.global." + w + " [%rd19], " + (wide ? "%rd4" : "%r4") + ";\n  ret;\n}\n";
  auto l = load(text);
  const uint32_t n = static_cast<uint32_t>(a.size());
  uint64_t da = upload(l->device, a), db = upload(l->device, b), dc = upload(l->device, c);
  uint64_t out = upload(l->device, std::vector<T>(n, static_cast<T>(0xdeadbeef)));
  LaunchResult r = run(*l, "k", {1}, {n}, {param_bytes(da), param_bytes(db), param_bytes(dc), param_bytes(out)});
  EXPECT_TRUE(r.ok()) << (r.fault ? r.fault->message : "") << "\n" << body;
  return download<T>(l->device, out, n);
}

}  // namespace warpsim::functional::testing
