# The energy model end to end: `warpsim run` prints energy and writes power.*
# statistics and a power trace; `warpsim power` prices the statistics file
# again offline and gets the run's own figures bit for bit (total and per
# kernel), and other coefficients change them.
#   -DWARPSIM=... -DPROGRAM=... -DOUT=<scratch dir>
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
set(stats ${OUT}/stats.json)
set(trace ${OUT}/trace.csv)
execute_process(COMMAND ${WARPSIM} run --config gtx480 --stats ${stats} --power-trace ${trace}
                        --set power.trace_interval=2000 -- ${PROGRAM}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "warpsim run failed (${rc}):\n${out}\n${err}")
endif()
if(NOT err MATCHES "energy +[0-9.]+ [mun]?J \\([0-9.]+ [mun]?J dynamic, [0-9.]+ [mun]?J static\\): sm [0-9.]+%, l2 [0-9.]+%, noc [0-9.]+%, mc [0-9.]+%, dram [0-9.]+%, constant [0-9.]+%")
  message(FATAL_ERROR "no energy line in the summary:\n${err}")
endif()
if(NOT err MATCHES "power +[0-9.]+ W average; EDP [0-9.e+-]+ J\\*s, ED2P [0-9.e+-]+ J\\*s\\^2")
  message(FATAL_ERROR "no power line in the summary:\n${err}")
endif()
file(READ ${stats} json)
string(JSON total GET "${json}" power total_energy_J)
string(JSON kernel_total GET "${json}" kernels 0 power total_energy_J)
string(JSON clock GET "${json}" power machine core_clock_mhz)
if(NOT clock EQUAL 1401)
  message(FATAL_ERROR "power.machine.core_clock_mhz is ${clock}, not gtx480's 1401")
endif()

# The trace: a header, then consecutive rows covering the launches.
file(STRINGS ${trace} rows)
list(LENGTH rows n)
list(GET rows 0 header)
if(NOT header STREQUAL "launch,kernel,first_cycle,end_cycle,seconds,sm_W,l2_W,noc_W,mc_W,dram_W,constant_W,total_W,warp_instructions")
  message(FATAL_ERROR "power trace header: ${header}")
endif()
if(n LESS 3)
  message(FATAL_ERROR "power trace has ${n} lines:\n${rows}")
endif()

# Offline, with the run's own coefficients: the same figures, bit for bit.
execute_process(COMMAND ${WARPSIM} power ${stats} --json ${OUT}/again.json
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "the same as the run's own estimate")
  message(FATAL_ERROR "warpsim power (${rc}) did not reproduce the run:\n${out}\n${err}")
endif()
file(READ ${OUT}/again.json again)
string(JSON again_total GET "${again}" power total_energy_J)
string(JSON again_kernel GET "${again}" kernels 0 power total_energy_J)
if(NOT again_total STREQUAL total OR NOT again_kernel STREQUAL kernel_total)
  message(FATAL_ERROR "offline ${again_total} / ${again_kernel} vs in-run ${total} / ${kernel_total}")
endif()

# Other coefficients: without constant power the total drops.
execute_process(COMMAND ${WARPSIM} power ${stats} --set power.constant_W=0
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "the run's own estimate: [0-9.]+ [mun]?J, -[0-9.]+%")
  message(FATAL_ERROR "warpsim power --set power.constant_W=0 (${rc}):\n${out}\n${err}")
endif()
# Another config's coefficients on the same counters.
execute_process(COMMAND ${WARPSIM} power ${stats} --config v100
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "the coefficients of v100")
  message(FATAL_ERROR "warpsim power --config v100 (${rc}):\n${out}\n${err}")
endif()
# Only [power] keys can change offline; a file without power statistics is refused.
execute_process(COMMAND ${WARPSIM} power ${stats} --set timing.l1d.ways=8
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "only \\[power\\] keys")
  message(FATAL_ERROR "a non-power --set was accepted (${rc}):\n${out}\n${err}")
endif()
file(WRITE ${OUT}/empty.json "{}")
execute_process(COMMAND ${WARPSIM} power ${OUT}/empty.json RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "no power.machine")
  message(FATAL_ERROR "a stats file without power statistics was accepted (${rc}):\n${out}\n${err}")
endif()
