# `warpsim bench` end to end on a suite made for the test: a passing program,
# a failing one, one that is not built, one that is not a CUDA program and one
# that runs past --timeout; the suite must go on past each and report them.
#
#   cmake -DWARPSIM=<warpsim> -DTRIAD=<built shoc/triad> -DDIR=<scratch dir> -P bench_test.cmake
file(REMOVE_RECURSE ${DIR})
file(MAKE_DIRECTORY ${DIR}/shoc ${DIR}/fake)
file(CREATE_LINK ${TRIAD} ${DIR}/shoc/triad SYMBOLIC)
file(CREATE_LINK ${TRIAD} ${DIR}/shoc/slow SYMBOLIC)
file(CREATE_LINK ${TRIAD} ${DIR}/shoc/badargs SYMBOLIC)
file(CREATE_LINK /bin/true ${DIR}/fake/notcuda SYMBOLIC)
file(WRITE ${DIR}/suites.toml [=[
[suite.test]
description = "the bench test"
programs = ["shoc/triad", "shoc/badargs", "fake/missing", "fake/notcuda", "shoc/slow"]

[[program]]
suite = "shoc"
name = "triad"
description = "passes"

[[program]]
suite = "shoc"
name = "badargs"
description = "fails: unknown argument"
args.tiny = ["tiny", "--bogus"]

[[program]]
suite = "fake"
name = "missing"
description = "not built"

[[program]]
suite = "fake"
name = "notcuda"
description = "refused by warpsim run"

[[program]]
suite = "shoc"
name = "slow"
description = "the large input, killed by the timeout"
args.tiny = ["large"]
]=])

execute_process(
  COMMAND ${WARPSIM} bench --suites ${DIR}/suites.toml --suite test --preset tiny --jobs 2
          --timeout 4 --out ${DIR}/out
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300)
set(problems "")
if(NOT rc EQUAL 1)
  string(APPEND problems "exit status ${rc}, expected 1 (some programs failed)\n")
endif()
foreach(f results.csv results.json results.md logs/shoc_triad.out logs/shoc_triad.stats.json)
  if(NOT EXISTS ${DIR}/out/${f})
    string(APPEND problems "${f} was not written\n")
  endif()
endforeach()
file(READ ${DIR}/out/results.csv csv)
foreach(expect
    # Timing mode (the default): cycles and IPC of the passing program.
    "\nshoc/triad,pass,0,4,1441792,47104,[1-9][0-9]*,[0-9]+\\.[0-9]+,"
    "\nshoc/badargs,fail,2,0,0,0,0,0\\.0000,[^\n]*bad argument '--bogus'"
    "\nfake/missing,missing,-1,[^\n]*not built: "
    "\nfake/notcuda,fail,2,[^\n]*does not use the CUDA runtime"
    "\nshoc/slow,timeout,-1,[^\n]*killed after 4 s")
  if(NOT csv MATCHES "${expect}")
    string(APPEND problems "results.csv lacks ${expect}\n")
  endif()
endforeach()
file(READ ${DIR}/out/results.md md)
if(NOT md MATCHES "1 of 5 programs passed")
  string(APPEND problems "results.md lacks the pass count\n")
endif()
if(NOT err MATCHES "1 of 5 programs passed")
  string(APPEND problems "the closing line is missing\n")
endif()
if(problems)
  message(FATAL_ERROR "${problems}--- results.csv ---\n${csv}--- stderr ---\n${err}")
endif()
