#!/usr/bin/env bash
# `warpsim sweep` end to end on this machine: a 3-config x 2-value x
# 3-program sweep (one program fails on purpose) runs to completion; the
# same sweep interrupted half-way and resumed re-runs no finished run and
# ends with the same statistics; the results table has the rows and
# columns docs/sweep.md promises; a bad spec is refused with its location.
#   sweep_local_test.sh WARPSIM BENCHMARKS_DIR WORK_DIR
set -euo pipefail
warpsim=$1
bench=$2
work=$3
here=$(cd "$(dirname "$0")" && pwd)
python=/usr/bin/python3
rm -rf "$work"
mkdir -p "$work"
cd "$work"

fail() { echo "FAIL: $*" >&2; exit 1; }

cat > spec.toml <<EOF
name = "local"
programs = ["micro/vecadd-aligned", "micro/copy-aligned"]
preset = "tiny"
suites_file = "$bench/suites.toml"

[[program]]
name = "not-cuda"
command = ["/bin/true"]

[[config]]
label = "gto"
name = "gtx480"
set = ["timing.sm.warp_policy=gto"]
[[config]]
label = "lrr"
name = "gtx480"
set = ["timing.sm.warp_policy=lrr"]
[[config]]
label = "two-level"
name = "gtx480"
set = ["timing.sm.warp_policy=two-level"]

[[axis]]
name = "l1"
key = "timing.l1d.size"
values = ["16KiB", "32KiB"]
EOF

# 1. The whole sweep: 18 runs, 12 pass, the 6 of /bin/true fail with a reason.
set +e
"$warpsim" sweep spec.toml --out full -j 2 2> full.log
rc=$?
set -e
[ "$rc" = 1 ] || { cat full.log; fail "a sweep with failing runs exits 1, not $rc"; }
grep -q "12 of 18 runs passed, 6 did not" full.log || { cat full.log; fail "counts"; }

# 2. Interrupted after a few runs, then resumed.
"$warpsim" sweep spec.toml --out part -j 1 2> part.log &
pid=$!
for _ in $(seq 1 600); do
  n=$( (find part/runs -name "*.result.json" 2>/dev/null || true) | wc -l)
  [ "$n" -ge 5 ] && break
  sleep 0.05
done
kill -INT $pid
set +e
wait $pid
rc=$?
set -e
[ "$rc" = 130 ] || { cat part.log; fail "an interrupted sweep exits 130, not $rc"; }
grep -q "interrupted; .*--resume. continues it" part.log || { cat part.log; fail "no resume advice"; }
pgrep -f "warpsim run.*$work/part/runs" >/dev/null && fail "a program of the interrupted sweep is still running"
finished=$(ls part/runs/*/*.result.json | wc -l)
[ "$finished" -ge 5 ] && [ "$finished" -lt 18 ] || fail "$finished runs finished before the interrupt"
# Remember the finished ones' result files: resuming must not touch them.
stat -c '%n %Y %s' part/runs/*/*.result.json | sort > before.txt
"$warpsim" sweep spec.toml --out part -j 2 --resume 2> resume.log || true
grep -q "($finished already done, $((18 - finished)) to run)" resume.log || { cat resume.log; fail "resume plan"; }
stat -c '%n %Y %s' $(cut -d' ' -f1 before.txt) | sort > after.txt
cmp -s before.txt after.txt || fail "resuming re-ran finished runs"
# A second resume has nothing to do; --retry-failed re-runs the 6 failures only.
"$warpsim" sweep spec.toml --out part --resume 2> again.log || true
grep -q "(18 already done, 0 to run)" again.log || { cat again.log; fail "second resume"; }
"$warpsim" sweep spec.toml --out part --resume --retry-failed 2> retry.log || true
grep -q "(12 already done, 6 to run)" retry.log || { cat retry.log; fail "retry-failed"; }
# Without --resume an existing sweep folder is refused, not overwritten.
set +e
"$warpsim" sweep spec.toml --out part 2> refuse.log
rc=$?
set -e
[ "$rc" = 2 ] && grep -q "already holds a sweep" refuse.log || fail "an existing sweep folder was not refused"

# 3. The tables: the same statistics either way, and the promised shape.
"$python" - full/results.json part/results.json full/results.csv <<'EOF'
import csv, json, sys
full, part = (json.load(open(p)) for p in sys.argv[1:3])
rows = full["rows"]
programs = [r for r in rows if r["row"] == "program"]
kernels = [r for r in rows if r["row"] == "kernel"]
assert len(programs) == 18, len(programs)
assert len(kernels) == 12, len(kernels)  # one kernel per CUDA program run
assert full["parameters"] == ["config", "mode", "preset", "l1"], full["parameters"]
for r in programs:
    if r["program"] == "not-cuda":
        assert r["status"] == "fail" and "does not use the CUDA runtime" in r["reason"], r
    else:
        assert r["status"] == "pass", r
        assert r["cycles"] > 0 and r["ipc"] == r["thread_instructions"] / r["cycles"], r
        assert r["L1D_total_cache_accesses"] > 0 and r["energy_J"] > 0, r
for r in kernels:
    assert r["kernel"] in ("vecadd(float const*, float const*, float*, int)", "copy(float const*, float*, int)"), r
    assert r["kernel_index"] == 0 and r["cycles"] > 0
assert {(r["config"], r["l1"]) for r in programs} == {(c, l) for c in ("gto", "lrr", "two-level") for l in ("16KiB", "32KiB")}
# Deterministic: the interrupted-and-resumed sweep has the same statistics.
def key(r): return (r["point"], r["program"], r.get("kernel_index"))
skip = {"wall_seconds", "warpsim.wall_seconds", "warpsim.simulation_seconds", "stat.wall_seconds"}
a = {key(r): r for r in rows}
b = {key(r): r for r in part["rows"]}
assert a.keys() == b.keys()
for k in a:
    da = {c: v for c, v in a[k].items() if c not in skip and "wall_seconds" not in c and "reason" != c}
    db = {c: v for c, v in b[k].items() if c not in skip and "wall_seconds" not in c and "reason" != c}
    assert da == db, (k, {c for c in da if da.get(c) != db.get(c)})
# The CSV has the JSON's columns and rows.
with open(sys.argv[3]) as f:
    table = list(csv.DictReader(f))
assert list(table[0].keys()) == full["columns"]
assert len(table) == len(rows)
assert table[0]["point"] == "p000" and table[0]["config"] == "gto"
print("tables OK:", len(programs), "program rows,", len(kernels), "kernel rows,", len(full["columns"]), "columns")
EOF

# 4. A bad spec: located, nothing written.
printf 'programs = ["micro/copy-aligned"]\n[[axis]]\nkey = "timing.l1d.size"\nvalues = ["16KiB"]\nlabel = "x"\n' > bad.toml
set +e
"$warpsim" sweep bad.toml --out bad 2> bad.log
rc=$?
set -e
[ "$rc" = 2 ] && grep -q "bad.toml:2:1: error: unknown key 'label' in \[\[axis\]\] (did you mean 'labels'?)" bad.log ||
  { cat bad.log; fail "bad spec"; }
[ ! -e bad ] || fail "a bad spec wrote its output folder"
# A value the configuration refuses: named with its point before anything runs.
sed -i 's/"16KiB"\]/"-1KiB"]/; /^label/d' bad.toml
set +e
"$warpsim" sweep bad.toml --out bad 2> bad.log
rc=$?
set -e
[ "$rc" = 2 ] && grep -q "point p000 (.*) has no valid configuration" bad.log || { cat bad.log; fail "bad value"; }

# 5. The figures and the report from the sweep's table: `warpsim plot` draws
# all five kinds, and the report's figures render in headless Chromium.
"$warpsim" plot full --kind bar --x program --y ipc --group config --where l1=32KiB --normalize-to gto \
  --mean geo --data bar.csv -o bar.png
"$warpsim" plot full --kind stacked --x program --y 'power.group.*.energy_J' --group config \
  --where l1=32KiB -o stacked.svg
"$warpsim" plot full --kind line --x l1 --y ipc --group program --where config=gto -o line.pdf
"$warpsim" plot full --kind scatter --x L1D_total_cache_miss_rate --y ipc --group config -o scatter.png
"$warpsim" plot full --kind heatmap --x config --y l1 --z ipc --where program=micro/copy-aligned -o heat.png
for f in bar.png scatter.png heat.png; do
  [ "$(head -c 8 "$f" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ] || fail "$f is not a PNG"
done
grep -q "<svg" stacked.svg || fail "stacked.svg is not SVG"
[ "$(head -c 5 line.pdf)" = "%PDF-" ] || fail "line.pdf is not a PDF"
# The plotted numbers: gto is 1.0 and the geometric mean bar is there.
grep -q "^micro/copy-aligned,gto,1.0$" bar.csv && grep -q "^GMEAN,lrr," bar.csv || { cat bar.csv; fail "bar data"; }
set +e
"$warpsim" plot full --kind bar --x program --y ipcc -o x.png 2> plot.log
rc=$?
set -e
[ "$rc" = 2 ] && grep -q "unknown --y column 'ipcc'" plot.log || { cat plot.log; fail "a bad column"; }
"$warpsim" report full -o report.html > /dev/null
grep -q "micro/vecadd-aligned" report.html || fail "the report lacks the summary table"
command -v chromium >/dev/null || fail "chromium is not installed (scripts/install-deps.sh installs it)"
"$here/../tools/report_browser_test.sh" "$PWD/report.html" || fail "the report did not render"

# 6. A study: its sweep, its figure and its rule, through `warpsim study run|check`.
mkdir -p tiny-study
cat > tiny-study/study.toml <<EOF2
title = "A tiny study"
paper = "none"
[sweep]
programs = ["micro/copy-aligned", "micro/vecadd-aligned"]
preset = "tiny"
suites_file = "$bench/suites.toml"
configs = ["gtx480"]
[[sweep.axis]]
name = "sched"
key = "timing.sm.warp_policy"
values = ["gto", "lrr"]
[[figure]]
file = "ipc.png"
kind = "bar"
x = "program"
y = "ipc"
group = "sched"
normalize_to = "gto"
mean = "geo"
[[expect]]
name = "geomean IPC, lrr over gto"
y = "ipc"
group = "sched"
value = "lrr"
baseline = "gto"
paper = 1.5
EOF2
"$warpsim" study run ./tiny-study --out study-out > study.log 2>&1 || { cat study.log; fail "study run"; }
grep -q "geomean IPC, lrr over gto *| 1.5 *| 0\.9[0-9]* *| differs" study.log || { cat study.log; fail "study table"; }
[ -s study-out/figures/ipc.png ] && grep -q "ipc.png" study-out/check.md || fail "study figure"
"$warpsim" study check ./tiny-study --out study-out > check.log 2>&1 || { cat check.log; fail "study check"; }
"$warpsim" study list | grep -q "wang-tc19-fig7" || fail "study list"
echo "sweep_local_test: OK"
