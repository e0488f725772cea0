# `warpsim noc area` end to end on the shipped configurations of Bakhoda's
# thesis (UBC 2014, Table 6.5): the router kinds and counts each network
# builds, and chip totals within 1% of the thesis's (the model's own
# agreement with every router of the table is tests/interconnect/
# noc_area_test.cpp); a topology without routers is refused with exit
# status 2 and a message.
#   cmake -DWARPSIM=<warpsim> -P noc_area_test.cmake
# config | expected lines (regular expressions, | between them) | thesis chip mm^2 (two decimals)
set(cases
  "bakhoda-thesis-6x6" "full +5x5 +36 |1 plane, 16 B flits" 295.60
  "bakhoda-thesis-6x6-cp-cr-2p" "full +5x5 +18 |half 2P +6x6 +8 |half +5x5 +10 " 294.88
  "bakhoda-thesis-6x6-dcie-2p" "2 planes, 8 B flits|full +5x5 +28 |half +5x5 +28 |full 2P +6x6 +8 |half 2P +6x6 +8 " 284.14)
list(LENGTH cases n)
math(EXPR last "${n} - 1")
foreach(i RANGE 0 ${last} 3)
  math(EXPR j "${i} + 1")
  math(EXPR k "${i} + 2")
  list(GET cases ${i} config)
  list(GET cases ${j} expected)
  list(GET cases ${k} thesis)
  execute_process(COMMAND ${WARPSIM} noc area --config ${config}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "noc area --config ${config} failed (${rc}):\n${out}${err}")
  endif()
  string(REPLACE "|" ";" lines "${expected}")
  foreach(line IN LISTS lines)
    if(NOT out MATCHES "${line}")
      message(FATAL_ERROR "noc area --config ${config}: no line matching '${line}':\n${out}")
    endif()
  endforeach()
  if(NOT out MATCHES "\nchip +([0-9.]+) mm\\^2")
    message(FATAL_ERROR "noc area --config ${config}: no chip total:\n${out}")
  endif()
  set(chip ${CMAKE_MATCH_1})
  # |chip - thesis| <= 1% of thesis, in integer hundredths.
  string(REPLACE "." "" c100 "${chip}")
  string(REPLACE "." "" t100 "${thesis}")
  math(EXPR diff "${c100} - ${t100}")
  math(EXPR bound "${t100} / 100")
  if(diff GREATER bound OR diff LESS -${bound})
    message(FATAL_ERROR "noc area --config ${config}: chip ${chip} mm^2, the thesis ${thesis} (more than 1% apart)")
  endif()
endforeach()

execute_process(COMMAND ${WARPSIM} noc area --config gtx480
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "has no routers")
  message(FATAL_ERROR "noc area on a crossbar: expected exit status 2 and 'has no routers', got (${rc}):\n${out}${err}")
endif()
