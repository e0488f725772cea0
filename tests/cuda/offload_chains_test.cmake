# The offload_chains compile pass end to end, on vector_add (c = a + b and
# c = a - b: pattern 1 chains; c = a * b + 1: none, see below):
#  - without passes, the statistics hold nothing of the compiler;
#  - with it, the program still passes, the pass's static counters and the
#    executed counts are published, per kernel too;
#  - functional and timing mode count the same executed chains;
#  - `warpsim ptx offload-chains` lists the chains of the program.
#   -DWARPSIM=... -DPROGRAM=... -DOUT=<scratch dir>
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})

function(run_program name)
  execute_process(COMMAND ${WARPSIM} run --quiet --stats ${OUT}/${name}.json ${ARGN} -- ${PROGRAM}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "PASS vector_add")
    message(FATAL_ERROR "${name}: warpsim run failed (${rc}):\n${out}\n${err}")
  endif()
  file(READ ${OUT}/${name}.json json)
  set(json "${json}" PARENT_SCOPE)
endfunction()

run_program(off --mode functional)
string(JSON compiler ERROR_VARIABLE missing GET "${json}" compiler)
if(NOT missing)
  message(FATAL_ERROR "without passes the statistics have a compiler section: ${compiler}")
endif()
string(JSON kernel0 GET "${json}" kernels 0)
if(kernel0 MATCHES "offload_chains")
  message(FATAL_ERROR "without passes a kernel has offload counts: ${kernel0}")
endif()

run_program(functional --mode functional --set compiler.passes=offload_chains)
string(JSON chains GET "${json}" compiler offload_chains chains)
string(JSON pattern1 GET "${json}" compiler offload_chains chains_by_pattern 1)
if(chains LESS 2 OR NOT pattern1 EQUAL chains)
  message(FATAL_ERROR "expected pattern-1 chains in both kernels: ${chains} chains, ${pattern1} of pattern 1")
endif()
string(JSON f_tagged GET "${json}" compiler offload_chains executed tagged_thread_instructions)
string(JSON f_accesses GET "${json}" compiler offload_chains executed global_accesses)
string(JSON f_fraction GET "${json}" compiler offload_chains executed tagged_access_fraction)
if(f_tagged EQUAL 0 OR f_fraction LESS_EQUAL 0 OR f_fraction GREATER_EQUAL 1)
  message(FATAL_ERROR "executed counts: ${f_tagged} tagged instructions, access fraction ${f_fraction}")
endif()
# Per kernel: add_1d's accesses are all in its chain; fma_stride's
# c = a * b + 1 is fma(a, b, 1), (a * b) + i, which is none of the nine
# shapes (pattern 9 is a + b * i): no chain.
string(JSON kernels LENGTH "${json}" kernels)
math(EXPR last "${kernels} - 1")
set(seen "")
foreach(k RANGE ${last})
  string(JSON name GET "${json}" kernels ${k} name)
  string(JSON access GET "${json}" kernels ${k} offload_chains tagged_access_fraction)
  string(JSON instructions GET "${json}" kernels ${k} offload_chains tagged_instruction_fraction)
  if(name MATCHES "add_1d")
    if(NOT access EQUAL 1 OR instructions LESS_EQUAL 0.1)
      message(FATAL_ERROR "add_1d: access fraction ${access}, instruction fraction ${instructions}")
    endif()
    string(APPEND seen "add_1d ")
  elseif(name MATCHES "fma_stride")
    if(NOT access EQUAL 0)
      message(FATAL_ERROR "fma_stride has tagged accesses (${access}): (a * b) + i is no Table 1 shape")
    endif()
    string(APPEND seen "fma_stride ")
  endif()
endforeach()
if(NOT seen MATCHES "add_1d" OR NOT seen MATCHES "fma_stride")
  message(FATAL_ERROR "kernels add_1d and fma_stride not both in the statistics: ${seen}")
endif()

run_program(timing --set compiler.passes=offload_chains)
string(JSON t_tagged GET "${json}" compiler offload_chains executed tagged_thread_instructions)
string(JSON t_accesses GET "${json}" compiler offload_chains executed global_accesses)
if(NOT t_tagged EQUAL f_tagged OR NOT t_accesses EQUAL f_accesses)
  message(FATAL_ERROR "timing mode counted ${t_tagged} tagged instructions and ${t_accesses} accesses, "
                      "functional mode ${f_tagged} and ${f_accesses}")
endif()

execute_process(COMMAND ${WARPSIM} ptx offload-chains ${PROGRAM}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "chain [0-9]+: pattern 1" OR NOT out MATCHES "\ntotal: [0-9]+ kernels")
  message(FATAL_ERROR "warpsim ptx offload-chains (${rc}):\n${out}\n${err}")
endif()
