# `warpsim ptx info` says per kernel whether its CTAs can act on one another,
# and through what: a kernel of plain accesses is independent, one with a
# global atomic (here in a called function) interacts.
#   cmake -DWARPSIM=<warpsim> -DDIR=<scratch dir> -P ptx_info_test.cmake
file(MAKE_DIRECTORY ${DIR})
file(WRITE ${DIR}/two.ptx [=[
.version 8.0
.target sm_80
.address_size 64
.func bump(.param .b64 a)
{
  .reg .b64 %x; .reg .b32 %y;
  ld.param.b64 %x, [a];
  atom.global.add.u32 %y, [%x], 1;
  ret;
}
.visible .entry copy(.param .u64 p)
{
  .reg .b32 %r<2>; .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  ld.global.u32 %r1, [%rd1];
  st.global.u32 [%rd1+4], %r1;
  ret;
}
.visible .entry count(.param .u64 p)
{
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  {
  .param .b64 a0;
  st.param.b64 [a0], %rd1;
  call.uni bump, (a0);
  }
  ret;
}
]=])
execute_process(COMMAND ${WARPSIM} ptx info ${DIR}/two.ptx RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ptx info failed (${rc}):\n${out}${err}")
endif()
foreach(expect
    "kernel copy\n([^\n]*\n)*  CTAs: independent \\(functional mode runs them on every core by default\\)\n"
    "kernel count\n([^\n]*\n)*  CTAs: interact through atom on global memory in function `bump` \\(functional mode runs them in order by default\\)\n")
  if(NOT out MATCHES "${expect}")
    message(FATAL_ERROR "ptx info output does not match '${expect}':\n${out}")
  endif()
endforeach()
