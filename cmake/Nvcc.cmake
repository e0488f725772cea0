# Finds nvcc of CUDA 12 or later for the CUDA programs warpsim builds (tests/cuda,
# benchmarks/): the CUDA_HOME / /usr/local/cuda toolkit before whatever nvcc is first on PATH.
# Sets WARPSIM_NVCC (empty when there is none) and WARPSIM_NVCC_MAJOR.
if(DEFINED WARPSIM_NVCC_MAJOR)
  return()
endif()
find_program(WARPSIM_NVCC_PROGRAM nvcc HINTS ENV CUDA_HOME /usr/local/cuda PATH_SUFFIXES bin NO_CACHE)
set(WARPSIM_NVCC "")
set(WARPSIM_NVCC_MAJOR 0)
if(WARPSIM_NVCC_PROGRAM)
  execute_process(COMMAND ${WARPSIM_NVCC_PROGRAM} --version OUTPUT_VARIABLE v ERROR_QUIET)
  if(v MATCHES "release ([0-9]+)\\.")
    set(WARPSIM_NVCC_MAJOR ${CMAKE_MATCH_1})
  endif()
  if(WARPSIM_NVCC_MAJOR GREATER_EQUAL 12)
    set(WARPSIM_NVCC ${WARPSIM_NVCC_PROGRAM})
  endif()
endif()
