# `warpsim ptx extract` on a program nvcc built: exit 0 and the expected PTX.
#   cmake -DWARPSIM=<warpsim> -DPROGRAM=<binary> -DEXPECT=<regex> -P extract_test.cmake
execute_process(COMMAND ${WARPSIM} ptx extract ${PROGRAM}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "${EXPECT}")
  message(FATAL_ERROR "ptx extract ${PROGRAM}: status ${rc}, expected /${EXPECT}/\n${out}${err}")
endif()
