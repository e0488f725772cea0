# `warpsim noc run` end to end: a run on the ideal network (every packet
# exactly its latency; the table and the JSON agree), and bad input, each
# refused with a message naming the problem and exit status 2.
#   cmake -DWARPSIM=<warpsim> -DOUT=<dir> -P noc_run_test.cmake
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")
set(json "${OUT}/noc.json")
execute_process(COMMAND ${WARPSIM} noc run --nodes 16 --set interconnect.topology=ideal
                        --set interconnect.ideal.latency=7 --sweep 0.05,0.2 --packet-flits 2
                        --sample-period 500 --json ${json}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "noc run on the ideal network failed (${rc}):\n${out}${err}")
endif()
if(NOT out MATCHES "network: ideal, 16 nodes \\(16 Core, 0 Memory\\)"
   OR NOT out MATCHES "0\\.05 +0\\.1000 +7\\.00 +7\\.00 "
   OR NOT out MATCHES "0\\.2 +0\\.4000 +7\\.00 +7\\.00 "
   OR NOT out MATCHES "zero-load latency: 7\\.00 cycles")
  message(FATAL_ERROR "unexpected table:\n${out}")
endif()
file(READ "${json}" text)
string(JSON points LENGTH "${text}" points)
string(JSON latency GET "${text}" points 1 packet_latency)
string(JSON stable GET "${text}" points 1 stable)
string(JSON topology GET "${text}" network topology)
if(NOT points EQUAL 2 OR NOT latency EQUAL 7 OR NOT stable STREQUAL "ON" OR NOT topology STREQUAL "ideal")
  message(FATAL_ERROR "unexpected JSON (${points} points, latency ${latency}, stable ${stable}):\n${text}")
endif()

# Bad input: arguments (| between them) and the expected message, a regular
# expression (. for a semicolon, which would split the list).
set(cases
  "--traffic|tornado|--rate|0.1" "unknown traffic pattern 'tornado' \\(one of: uniform,"
  "--rate|0" "--rate 0: a rate is packets per node per cycle, more than 0 and at most 1"
  "--rate|1.5" "--rate 1.5: a rate is packets per node per cycle"
  "--rate|fast" "--rate 'fast' is not a number"
  "--nodes|12|--traffic|transpose|--rate|0.1" "transpose needs a square number of nodes \\(a k x k grid\\). 12 is not a square"
  "--nodes|64|--traffic|hotspot|--hotspot|64|--rate|0.1" "node 64 is out of range \\(the network has 64 nodes, 0 to 63\\)"
  "--nodes|64|--traffic|hotspot|--rate|0.1" "the hotspot pattern needs --hotspot"
  "--nodes|64|--traffic|bitcomp|--rate|0.1|--hotspot|3" "--hotspot applies to the hotspot pattern only"
  "--nodes|8" "give --rate R or --sweep"
  "--nodes|8|--rate|0.1|--sweep" "give either --rate or --sweep, not both"
  "--nodes|8|--sweep|0.1,2" "--sweep 2: a rate is"
  "--nodes|8|--rate|0.1|--packet-flits|0" "packet size '0' is not a number of flits"
  "--nodes|8|--traffic|many-to-few|--rate|0.1" "many-to-few needs Core and Memory nodes. these 8 nodes have 8 Core and 0 Memory"
  "--nodes|8|--rate|0.1|--max-samples|5" "max samples \\(5\\) counts the warm-up periods"
  "--nodes|many|--rate|0.1" "--nodes 'many' is not a whole number"
  "--rate|0.1|--set|interconnect.topology=hypercube" "unknown network topology 'hypercube'"
)
list(LENGTH cases n)
math(EXPR last "${n} - 1")
foreach(i RANGE 0 ${last} 2)
  math(EXPR j "${i} + 1")
  list(GET cases ${i} args)
  list(GET cases ${j} expected)
  string(REPLACE "|" ";" args "${args}")
  execute_process(COMMAND ${WARPSIM} noc run ${args}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 2 OR NOT err MATCHES "${expected}")
    message(FATAL_ERROR "noc run ${args}: expected exit status 2 and '${expected}', got (${rc}):\n${out}${err}")
  endif()
endforeach()
message(STATUS "noc run: ok")
