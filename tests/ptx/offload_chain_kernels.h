#pragma once
// Hand-written kernels for the offload_chains pass's tests: one per pattern
// of Pattnaik et al. (ISCA 2019, Table 1) and the near-misses the pass must
// leave alone. Each body runs one thread per element: %rd5, %rd6 and %rd7
// address a[i], b[i] and c[i] (.f32 arrays), %f10 holds the scalar parameter
// s, %r1 is the thread index; the body ends by storing to c[i] (and at most
// b[i]).
#include <string>
#include <vector>

namespace warpsim::ptx::testing {

inline std::string chain_kernel(const std::string& body) {
  return ".version 8.5\n.target sm_80\n.address_size 64\n"
         ".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .f32 ps)\n{\n"
         "  .reg .pred %p<8>;\n  .reg .b32 %r<16>;\n  .reg .f32 %f<16>;\n  .reg .b64 %rd<24>;\n"
         "  .reg .f64 %fd<8>;\n"
         "  ld.param.u64 %rd1, [pa];\n  ld.param.u64 %rd2, [pb];\n  ld.param.u64 %rd3, [pc];\n"
         "  ld.param.f32 %f10, [ps];\n"
         "  mov.u32 %r1, %tid.x;\n  mul.wide.u32 %rd4, %r1, 4;\n"
         "  add.s64 %rd5, %rd1, %rd4;\n  add.s64 %rd6, %rd2, %rd4;\n  add.s64 %rd7, %rd3, %rd4;\n" +
         body + "\n  ret;\n}\n";
}

struct ChainCase {
  const char* name;
  int pattern;        // the chain's pattern; 0: no chain
  int tagged;         // instructions tagged
  std::string body;
};

// One case per pattern, each with exactly one chain.
inline std::vector<ChainCase> pattern_cases() {
  return {
      {"p1_vecadd", 1, 4,
       "ld.global.f32 %f1, [%rd5];\nld.global.f32 %f2, [%rd6];\nadd.f32 %f3, %f1, %f2;\n"
       "st.global.f32 [%rd7], %f3;"},
      {"p2_product_to_core", 2, 3,
       "cvt.rn.f32.u32 %f5, %r1;\nld.global.f32 %f1, [%rd5];\nld.global.f32 %f2, [%rd6];\n"
       "mul.f32 %f3, %f1, %f2;\nadd.f32 %f4, %f3, %f5;\nst.global.f32 [%rd7], %f4;"},
      {"p2_fma_accumulate", 2, 3,
       "cvt.rn.f32.u32 %f5, %r1;\nld.global.f32 %f1, [%rd5];\nld.global.f32 %f2, [%rd6];\n"
       "fma.rn.f32 %f4, %f1, %f2, %f5;\nst.global.f32 [%rd7], %f4;"},
      {"p3_copy", 3, 2, "ld.global.f32 %f1, [%rd5];\nst.global.f32 [%rd7], %f1;"},
      {"p4_core_operand", 4, 3,
       "cvt.rn.f32.u32 %f5, %r1;\nld.global.f32 %f1, [%rd5];\nsub.f32 %f3, %f1, %f5;\n"
       "st.global.f32 [%rd7], %f3;"},
      {"p5_compare", 5, 3,
       "ld.global.f32 %f1, [%rd5];\nld.global.f32 %f2, [%rd6];\nsetp.lt.f32 %p1, %f1, %f2;\n"
       "selp.f32 %f3, 0f3F800000, 0f00000000, %p1;\nst.global.f32 [%rd7], %f3;"},
      {"p6_compare_immediate", 6, 2,
       "ld.global.f32 %f1, [%rd5];\nsetp.gt.f32 %p1, %f1, %f10;\n"
       "selp.f32 %f3, 0f3F800000, 0f00000000, %p1;\nst.global.f32 [%rd7], %f3;"},
      {"p7_scale", 7, 3,
       "ld.global.f32 %f1, [%rd5];\nmul.f32 %f3, %f1, %f10;\nst.global.f32 [%rd7], %f3;"},
      {"p8_nested_to_core", 8, 4,
       "cvt.rn.f32.u32 %f5, %r1;\nld.global.f32 %f1, [%rd5];\nld.global.f32 %f2, [%rd6];\n"
       "mul.f32 %f3, %f2, %f10;\nadd.f32 %f4, %f1, %f3;\nadd.f32 %f6, %f4, %f5;\n"
       "st.global.f32 [%rd7], %f6;"},
      {"p9_triad", 9, 5,
       "ld.global.f32 %f1, [%rd5];\nld.global.f32 %f2, [%rd6];\nmul.f32 %f3, %f2, %f10;\n"
       "add.f32 %f4, %f1, %f3;\nst.global.f32 [%rd7], %f4;"},
      {"p9_fused_triad", 9, 4,
       "ld.global.f32 %f1, [%rd5];\nld.global.f32 %f2, [%rd6];\nfma.rn.f32 %f4, %f2, %f10, %f1;\n"
       "st.global.f32 [%rd7], %f4;"},
      {"p1_integer_with_address_arithmetic_between", 1, 4,
       "ld.global.u32 %r2, [%rd5];\nadd.s64 %rd8, %rd2, %rd4;\nld.global.u32 %r3, [%rd8];\n"
       "xor.b32 %r4, %r2, %r3;\ncvta.to.global.u64 %rd9, %rd3;\nadd.s64 %rd10, %rd9, %rd4;\n"
       "st.global.u32 [%rd10], %r4;"},
  };
}

// Near-misses: nothing may be tagged.
inline std::vector<ChainCase> near_miss_cases() {
  return {
      {"reused_load", 0, 0,
       "ld.global.f32 %f1, [%rd5];\nst.global.f32 [%rd7], %f1;\nadd.f32 %f2, %f1, 0f3F800000;\n"
       "st.global.f32 [%rd6], %f2;"},
      {"aliasing_store_between", 0, 0,
       "cvt.rn.f32.u32 %f9, %r1;\nld.global.f32 %f1, [%rd5];\nst.global.f32 [%rd6], %f9;\n"
       "ld.global.f32 %f2, [%rd6];\nadd.f32 %f3, %f1, %f2;\nst.global.f32 [%rd7], %f3;"},
      {"barrier_between", 0, 0,
       "ld.global.f32 %f1, [%rd5];\nbar.sync 0;\nld.global.f32 %f2, [%rd6];\nadd.f32 %f3, %f1, %f2;\n"
       "st.global.f32 [%rd7], %f3;"},
      {"atomic_between", 0, 0,
       "ld.global.f32 %f1, [%rd5];\natom.global.add.f32 %f9, [%rd6], 0f3F800000;\n"
       "ld.global.f32 %f2, [%rd7];\nadd.f32 %f3, %f1, %f2;\nst.global.f32 [%rd7], %f3;"},
      {"three_loads", 0, 0,
       "ld.global.f32 %f1, [%rd5];\nld.global.f32 %f2, [%rd6];\nld.global.f32 %f3, [%rd7];\n"
       "fma.rn.f32 %f4, %f1, %f2, %f3;\nst.global.f32 [%rd7], %f4;"},
      {"wide_operands", 0, 0,
       "mul.wide.u32 %rd11, %r1, 8;\nadd.s64 %rd12, %rd1, %rd11;\nadd.s64 %rd13, %rd2, %rd11;\n"
       "add.s64 %rd14, %rd3, %rd11;\nld.global.f64 %fd1, [%rd12];\nld.global.f64 %fd2, [%rd13];\n"
       "add.f64 %fd3, %fd1, %fd2;\nst.global.f64 [%rd14], %fd3;"},
      {"wide_immediate", 0, 0,
       "mul.wide.u32 %rd11, %r1, 8;\nadd.s64 %rd12, %rd1, %rd11;\nadd.s64 %rd14, %rd3, %rd11;\n"
       "ld.global.u64 %rd15, [%rd12];\nadd.s64 %rd16, %rd15, %rd1;\nst.global.u64 [%rd14], %rd16;"},
      {"volatile_load", 0, 0, "ld.volatile.global.f32 %f1, [%rd5];\nst.global.f32 [%rd7], %f1;"},
  };
}

}  // namespace warpsim::ptx::testing
