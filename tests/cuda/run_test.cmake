# Runs one CUDA test program under `warpsim run` and checks what it did.
#
#   cmake -DWARPSIM=<warpsim> -DPROGRAM=<binary> -DNAME=<test name>
#         [-DRUN_ARGS=a|b|c]       options for `warpsim run` ('|'-separated)
#         [-DARGS=a|b]             arguments of the program
#         [-DEXPECT_EXIT=N]        exit status (default 0)
#         [-DEXPECT_PASS=ON|OFF]   stdout must contain "PASS <NAME>" (default ON)
#         [-DEXPECT_STDOUT=regex]  stdout must match
#         [-DEXPECT_STDERR=regex]  stderr must match
#         [-DSUMMARY=ON]           let warpsim print its summary (to stderr)
#         -P run_test.cmake
#
# With WARPSIM_TEST_CONFIG=NAME in the environment, a test that names no
# --config runs on that GPU configuration (to check the programs on every
# shipped config: WARPSIM_TEST_CONFIG=gtx480 ctest -L cuda).
# With WARPSIM_TEST_MODE=functional|timing, a test that names no --mode runs
# in that mode; WARPSIM_TEST_SET=section.key=value adds that override to
# every test (to check the programs with a compile pass on:
# WARPSIM_TEST_SET=compiler.passes=offload_chains ctest -L cuda).
cmake_policy(SET CMP0057 NEW)  # if(IN_LIST) in script mode
foreach(var RUN_ARGS ARGS)
  if(DEFINED ${var})
    string(REPLACE "|" ";" ${var} "${${var}}")
  endif()
endforeach()
if(DEFINED ENV{WARPSIM_TEST_CONFIG} AND NOT "--config" IN_LIST RUN_ARGS)
  list(PREPEND RUN_ARGS --config "$ENV{WARPSIM_TEST_CONFIG}")
endif()
if(DEFINED ENV{WARPSIM_TEST_MODE} AND NOT "--mode" IN_LIST RUN_ARGS)
  list(PREPEND RUN_ARGS --mode "$ENV{WARPSIM_TEST_MODE}")
endif()
if(DEFINED ENV{WARPSIM_TEST_SET})
  list(PREPEND RUN_ARGS --set "$ENV{WARPSIM_TEST_SET}")
endif()
if(NOT DEFINED EXPECT_EXIT)
  set(EXPECT_EXIT 0)
endif()
if(NOT DEFINED EXPECT_PASS)
  set(EXPECT_PASS ON)
endif()

set(quiet --quiet)
if(SUMMARY)
  set(quiet "")
endif()
execute_process(
  COMMAND ${WARPSIM} run ${quiet} ${RUN_ARGS} -- ${PROGRAM} ${ARGS}
  RESULT_VARIABLE rc
  OUTPUT_VARIABLE out
  ERROR_VARIABLE err
  TIMEOUT 600)

set(problems "")
if(NOT rc STREQUAL "${EXPECT_EXIT}")
  string(APPEND problems "exit status ${rc}, expected ${EXPECT_EXIT}\n")
endif()
string(FIND "${out}" "PASS ${NAME}\n" pass_at)  # a plain search: names may hold '+'
if(EXPECT_PASS AND pass_at EQUAL -1)
  string(APPEND problems "stdout lacks 'PASS ${NAME}'\n")
endif()
if(EXPECT_PASS AND out MATCHES "(^|\n)FAIL ")
  string(APPEND problems "the program reported a failure\n")
endif()
if(DEFINED EXPECT_STDOUT AND NOT out MATCHES "${EXPECT_STDOUT}")
  string(APPEND problems "stdout does not match: ${EXPECT_STDOUT}\n")
endif()
if(DEFINED EXPECT_STDERR AND NOT err MATCHES "${EXPECT_STDERR}")
  string(APPEND problems "stderr does not match: ${EXPECT_STDERR}\n")
endif()

if(problems)
  message(FATAL_ERROR "${NAME}: ${problems}--- stdout ---\n${out}--- stderr ---\n${err}")
endif()
message(STATUS "${NAME}: ok\n${out}")
