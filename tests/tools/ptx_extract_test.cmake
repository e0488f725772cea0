# `warpsim ptx extract` on a real fatbin file: files written with -o, PTX on
# stdout without it, and a clean error for a file with no device code.
#   cmake -DWARPSIM=<warpsim> -DFATBIN=<file.fatbin> -DOUT=<dir> -P ptx_extract_test.cmake
file(REMOVE_RECURSE "${OUT}")
execute_process(COMMAND ${WARPSIM} ptx extract ${FATBIN} -o ${OUT}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "extract -o failed (${rc}): ${out}${err}")
endif()
file(GLOB written "${OUT}/*.ptx")
list(LENGTH written n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "expected one PTX file, got: ${written}")
endif()
file(READ "${written}" ptx)
if(NOT ptx MATCHES "\\.entry _Z5scalePffi" OR NOT ptx MATCHES "\\.target sm_75")
  message(FATAL_ERROR "the extracted PTX is not the fixture's:\n${ptx}")
endif()

execute_process(COMMAND ${WARPSIM} ptx extract ${FATBIN}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "compute_75" OR NOT out MATCHES "\\.entry _Z3addPKiS0_Pii")
  message(FATAL_ERROR "extract to stdout failed (${rc}):\n${out}${err}")
endif()

# An ELF without device code (the warpsim binary itself), and not an ELF at all.
execute_process(COMMAND ${WARPSIM} ptx extract ${WARPSIM}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "no device code")
  message(FATAL_ERROR "a program without device code: (${rc}) ${err}")
endif()
execute_process(COMMAND ${WARPSIM} ptx extract ${CMAKE_CURRENT_LIST_FILE}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "not an ELF file")
  message(FATAL_ERROR "a text file: (${rc}) ${err}")
endif()
message(STATUS "ptx extract: ok")
