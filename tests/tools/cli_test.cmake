# The `warpsim` command line's usage errors end to end: every one exits with
# status 2 (README.md, "Exit status") and names what is wrong; an unknown
# command is named with the commands there are; --help and --version exit 0.
#   cmake -DWARPSIM=<warpsim> -P cli_test.cmake

# expect(<status> <stderr regex> args...)
function(expect status pattern)
  execute_process(COMMAND ${WARPSIM} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL ${status})
    message(FATAL_ERROR "warpsim ${ARGN}: expected exit status ${status}, got ${rc}:\n${out}${err}")
  endif()
  if(NOT "${err}" MATCHES "${pattern}")
    message(FATAL_ERROR "warpsim ${ARGN}: stderr does not match '${pattern}':\n${err}")
  endif()
  # CLI11 prints an unbounded range in full (a double's maximum: 310 digits).
  if("${err}" MATCHES "[0-9]{40}")
    message(FATAL_ERROR "warpsim ${ARGN}: a number of 40 digits or more in the message:\n${err}")
  endif()
endfunction()

# Unknown commands, at the top and one level down.
expect(2 "warpsim: unknown command 'frobnicate' \\(commands: [a-z, -]*run, bench" frobnicate)
expect(2 "warpsim ptx: unknown command 'frob' \\(commands: check, print, info" ptx frob)
expect(2 "warpsim config: unknown command 'shwo' \\(commands: show, list, docs\\)" config shwo)
# The internal sweep-task runs but is not advertised.
expect(2 "unknown command 'nope' \\(commands: [^)]*sweep[,)]" nope)
execute_process(COMMAND ${WARPSIM} nope ERROR_VARIABLE err)
if(err MATCHES "sweep-task")
  message(FATAL_ERROR "the internal sweep-task command is listed:\n${err}")
endif()
expect(2 "warpsim: a command is required \\(commands: ptx, config, run")
expect(2 "warpsim noc: a command is required \\(commands: run, area\\)" noc)

# Options CLI11 rejects: all status 2, not its own 105-109.
expect(2 "warpsim run: .*--bogus" run --bogus -- true)
expect(2 "warpsim run: --cudart" run --cudart 10 -- true)
expect(2 "warpsim ptx check: .*files.*required" ptx check)
expect(2 "warpsim power: " power)

# Numeric options: the value and what the option takes.
expect(2 "--jobs: -5 is not a whole number from 1 to 1024" sweep spec.toml --jobs -5)
expect(2 "--jobs: 0 is not a whole number from 1 to 1024" sweep spec.toml --jobs 0)
expect(2 "--poll: nan is not a number of seconds from 0.1 to 3600" sweep spec.toml --poll nan)
expect(2 "--poll: -1 is not a number of seconds" sweep spec.toml --poll -1)
expect(2 "--max-running: -1 is not a whole number" sweep spec.toml --max-running -1)
expect(2 "--runs-per-task: 2.5 is not a whole number" sweep spec.toml --runs-per-task 2.5)
expect(2 "--jobs: -3 is not a whole number from 1 to 1024" study run x --jobs -3)
expect(2 "--error-limit: -1 is not a whole number from 1" ptx check x.ptx --error-limit -1)
expect(2 "--timeout: -5 is not a number of seconds" bench --timeout -5)
expect(2 "--jobs: 0 is not a whole number from 1 to 256" bench --jobs 0)
expect(2 "--progress: -1 is not a number of seconds" run --progress -1 -- true)
expect(2 "--threads: -1 is not a whole number from 0 to 1024" run --threads -1 -- true)
expect(2 "warpsim run: --threads 300 is more than 256, the most timing mode takes" run --threads 300 -- true)
expect(2 "warpsim run: --sample needs --mode timing" run --sample --mode functional -- true)
# A missing program is named as missing (no advice about --cudart).
expect(127 "warpsim run: ./no-such-program: no such file" run -- ./no-such-program)
expect(127 "no-such-program-anywhere: program not found" run -- no-such-program-anywhere)
# Output paths that must never be written, refused before anything runs.
expect(2 "--stats: '--' looks like an option" run --stats -- -- true)

# Configuration errors: status 2 in every command that loads one.
expect(2 "gpu.num_sms: 0 is out of range" config show --set gpu.num_sms=0)
expect(2 "gpu.num_sms: 0 is out of range" noc area --set gpu.num_sms=0)
expect(2 "gpu.num_sms: 0 is out of range" noc run --rate 0.1 --set gpu.num_sms=0)
expect(2 "gpu.num_sms: 0 is out of range" run --set gpu.num_sms=0 -- true)
# A check across sections names the file and line of a key it reads, and the
# override when one set it.
set(toml ${CMAKE_CURRENT_BINARY_DIR}/cli_test_cross_key.toml)
file(WRITE ${toml} "[gpu]\nnum_sms = 130\n\n[timing]\nsms_per_cluster = 4\n")
expect(2 "cli_test_cross_key.toml:5:[0-9]+: error: timing.sms_per_cluster: 4 does not divide gpu.num_sms \\(130\\)"
       config show --config ${toml})
expect(2 "--set:1:[0-9]+: error: timing.sms_per_cluster: 4 does not divide gpu.num_sms \\(130\\).*\n  timing.sms_per_cluster=4"
       config show --config ${toml} --set timing.sms_per_cluster=4)

# Help and version are not errors.
expect(0 "" --help)
expect(0 "" --version)
expect(0 "" run --help)
expect(0 "" ptx --help)
