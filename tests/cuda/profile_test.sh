#!/usr/bin/env bash
# `warpsim profile` and libwarpsim_profile.so without a GPU: the timer is
# preloaded in front of warpsim's own libcudart (a user's LD_PRELOAD comes
# before the shim), so its CUDA-event times must be the simulated timeline's
# kernel durations, launch by launch; `warpsim correlate` joins the two files.
# On this machine `warpsim profile` itself finds no GPU and says so; with a
# GPU it writes the file.
#   profile_test.sh WARPSIM PROFILER_LIB PROGRAM STATIC_PROGRAM WORK_DIR
set -euo pipefail
warpsim=$1
lib=$2
program=$3
static_program=$4
work=$5
python=/usr/bin/python3
rm -rf "$work"
mkdir -p "$work"
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
# In a sanitized build warpsim itself runs with the (unsanitized) timer
# preloaded before the ASan runtime; it intercepts nothing warpsim calls.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"

# 1. In front of warpsim's runtime, timing mode.
LD_PRELOAD="$lib" WARPSIM_PROFILE_OUT="$work/gpu.json" \
  "$warpsim" run --config gtx480 --stats "$work/sim.json" -- "$program" > run.log 2>&1 || { cat run.log; fail "run"; }
grep -q PASS run.log || { cat run.log; fail "the program did not pass with the timer in front"; }
"$python" - "$work/gpu.json" "$work/sim.json" <<'PY' || fail "profile JSON"
import json, sys
gpu, sim = (json.load(open(p)) for p in sys.argv[1:3])
assert gpu["warpsim"]["mode"] == "profile", gpu["warpsim"]
assert gpu["warpsim"]["gpu"] == sim["warpsim"]["gpu"], gpu["warpsim"]
assert gpu["warpsim"]["core_clock_mhz"] == sim["warpsim"]["core_clock_mhz"] == 1401.0
g, s = gpu["launches"], [l for l in sim["launches"] if not l["device_side"]]
assert len(g) == len(s) > 3, (len(g), len(s))
kernels = set()
for a, b in zip(g, s):
    for key in ("kernel", "grid", "block"):
        assert a[key] == b[key], (key, a, b)
    assert abs(a["duration_ns"] - b["duration_ns"]) <= 1e-3 * b["duration_ns"] + 1, (a, b)
    kernels.add(a["kernel"])
assert len(kernels) >= 2, kernels
assert sum(k["launches"] for k in gpu["kernels"]) == len(g)
print(f"{len(g)} launches of {len(kernels)} kernels timed as simulated")
PY

# A process other than the one `warpsim profile` started writes nothing.
LD_PRELOAD="$lib" WARPSIM_PROFILE_OUT="$work/child.json" WARPSIM_PROFILE_PID=1 \
  "$warpsim" run --quiet --mode functional -- "$program" > child.log 2>&1 || { cat child.log; fail "run (child)"; }
[ ! -e child.json ] || fail "a process that is not the profiled one wrote the file"

# 2. correlate: simulated time is cycles / clock, the events also span the
# runtime's 2 us launch cost, so each error is exactly -2000 ns / duration.
"$warpsim" correlate gpu.json sim.json -o corr > corr.log 2>&1 || { cat corr.log; fail "correlate"; }
"$python" - corr/pairs.csv gpu.json <<'PY' || fail "correlate's pairs"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
launches = json.load(open(sys.argv[2]))["launches"]
assert len(rows) == len(launches), (len(rows), len(launches))
for r in rows:
    expected = -2000.0 / float(r["measured_ns"])
    assert abs(float(r["error"]) - expected) < 2e-4, (r, expected)
PY
[ -s corr/correlation.png ] || fail "no plot"

# 3. The static runtime is refused with the fix.
set +e
"$warpsim" profile -- "$static_program" > static.log 2>&1
rc=$?
set -e
[ "$rc" = 2 ] && grep -q "static CUDA runtime.*-cudart shared" static.log || { cat static.log; fail "static runtime: rc $rc"; }

# 4. An output that cannot be written is refused before the program runs.
set +e
"$warpsim" profile -o "$work/no/such/dir/x.json" -- "$program" > badout.log 2>&1
rc=$?
set -e
[ "$rc" = 2 ] && ! grep -q PASS badout.log || { cat badout.log; fail "unwritable -o: rc $rc"; }

# 5. On the real runtime: here, no GPU (nothing written, the reason given);
# with one, the file.
set +e
"$warpsim" profile -o real.json -- "$program" > real.log 2>&1
rc=$?
set -e
if nvidia-smi -L > /dev/null 2>&1; then
  [ "$rc" = 0 ] && [ -s real.json ] || { cat real.log; fail "profile on a GPU: rc $rc"; }
else
  [ "$rc" != 0 ] && [ ! -e real.json ] && grep -q "no kernel launch was timed" real.log \
    || { cat real.log; fail "profile without a GPU: rc $rc"; }
fi
echo PASS
