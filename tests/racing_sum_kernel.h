#pragma once
// A kernel with a data race that a GPU resolves in a known way, shared by the
// functional and the timing tests of how warps interleave.
//
// Eight warps of one CTA run `x[lane] += a[j]` for j < n without atomics: the
// warps race on x. A GPU switches warps while a load is in flight, so in each
// iteration every warp reads x[lane] before any writes it back, and the
// updates of all but one warp are lost: x ends as one warp's sum. Running
// each warp's whole loop in one turn would add the eight sums up instead.
inline constexpr const char* kRacingSumPtx = R"(
.visible .entry racing_sum(.param .u64 px, .param .u64 pa, .param .u32 pn)
{
  .reg .pred %p<2>; .reg .b32 %r<8>; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [px]; ld.param.u64 %rd2, [pa]; ld.param.u32 %r1, [pn];
  cvta.to.global.u64 %rd1, %rd1; cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r2, %tid.x; and.b32 %r3, %r2, 31;
  mul.wide.u32 %rd3, %r3, 4; add.s64 %rd4, %rd1, %rd3;
  mov.u32 %r4, 0;
LOOP:
  setp.ge.u32 %p1, %r4, %r1;
  @%p1 bra DONE;
  mul.wide.u32 %rd5, %r4, 4; add.s64 %rd6, %rd2, %rd5;
  ld.global.u32 %r5, [%rd6];
  ld.global.u32 %r6, [%rd4];
  add.s32 %r6, %r6, %r5;
  st.global.u32 [%rd4], %r6;
  add.s32 %r4, %r4, 1;
  bra.uni LOOP;
DONE:
  ret;
}
)";

