#!/usr/bin/env bash
# `warpsim sweep --backend slurm` against a real single-node Slurm cluster
# (slurm-wlm with munge) that this test starts and stops itself: the sweep
# is submitted as a job array, followed to its end, and gives the same
# statistics as the same sweep run here; a task that dies leaves its runs
# recorded as errors with the task's log, and --resume --retry-failed
# resubmits exactly those.
#   sweep_slurm_test.sh WARPSIM BENCHMARKS_DIR WORK_DIR
# Exit status 77 (skipped) when Slurm or munge is not installed, or not as root.
set -euo pipefail
warpsim=$1
bench=$2
work=$3
here=$(cd "$(dirname "$0")" && pwd)
python=/usr/bin/python3
for tool in /usr/sbin/slurmctld /usr/sbin/slurmd /usr/sbin/munged sbatch squeue; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed (apt-get install slurm-wlm munge)"; exit 77; }
done
# slurmd starts job steps as their owner, which needs root.
[ "$(id -u)" = 0 ] || { echo "SKIP: a local Slurm cluster needs root"; exit 77; }
rm -rf "$work"
mkdir -p "$work"
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

cluster="$work/cluster"
trap '"$here/local-slurm.sh" stop "$cluster" >/dev/null 2>&1 || true' EXIT
unset SLURM_CONF
env=$("$here/local-slurm.sh" start "$cluster") || fail "the local cluster did not start"
eval "$env"
[ -n "${SLURM_CONF:-}" ] || fail "the local cluster did not start"

cat > spec.toml <<EOF
name = "slurm"
programs = ["micro/vecadd-aligned", "micro/copy-aligned"]
preset = "tiny"
suites_file = "$bench/suites.toml"
configs = ["gtx480"]
[[axis]]
name = "policy"
key = "timing.sm.warp_policy"
values = ["gto", "lrr", "two-level"]
EOF

# The same sweep here and on the cluster (3 runs per array task: 2 tasks).
"$warpsim" sweep spec.toml --out local -j 2 2> local.log || { cat local.log; fail "local sweep"; }
"$warpsim" sweep spec.toml --out cluster --backend slurm --runs-per-task 3 --poll 0.5 2> cluster.log ||
  { cat cluster.log; cat cluster/slurm/*.out 2>/dev/null; fail "slurm sweep"; }
grep -q "submitted job array [0-9]* (2 tasks, 6 runs)" cluster.log || { cat cluster.log; fail "submission"; }
grep -q "6 of 6 runs passed" cluster.log || { cat cluster.log; fail "slurm results"; }
grep -q '^#SBATCH --array=0-1$' cluster/slurm/sweep-0.sbatch || fail "job script: $(cat cluster/slurm/sweep-0.sbatch)"

"$python" - local/results.json cluster/results.json <<'EOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
def table(doc):
    out = {}
    for r in doc["rows"]:
        out[(r["point"], r["program"], r.get("kernel_index"))] = {
            c: v for c, v in r.items() if "wall_seconds" not in c and c != "warpsim.simulation_seconds"}
    return out
ta, tb = table(a), table(b)
assert ta.keys() == tb.keys(), (ta.keys(), tb.keys())
for k in ta:
    diff = {c for c in set(ta[k]) | set(tb[k]) if ta[k].get(c) != tb[k].get(c)}
    assert not diff, (k, diff)
print("slurm and local results agree:", len(ta), "rows")
EOF

# A task that dies: its runs become errors naming the task log; the retry resubmits only them.
# A task that dies before it records anything (here: the nodes' warpsim is missing).
"$warpsim" sweep spec.toml --out broken --backend slurm --poll 0.5 --warpsim /nonexistent/warpsim 2> broken.log || true
grep -q "0 of 6 runs passed, 6 did not" broken.log || { cat broken.log; fail "a dead task's runs"; }
"$python" - broken/results.json <<'EOF'
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))["rows"] if r["row"] == "program"]
assert len(rows) == 6
for r in rows:
    assert r["status"] == "error", r
    assert "without recording this run" in r["reason"] and "-task-" in r["reason"], r
    # squeue still knows the finished tasks (sacct needs slurmdbd, which this cluster has not).
    assert "(FAILED" in r["reason"], r
EOF
# Retried with the real warpsim: only the 6 error runs are resubmitted, and they pass.
"$warpsim" sweep spec.toml --out broken --backend slurm --poll 0.5 --resume --runs-per-task 6 2> retry.log ||
  { cat retry.log; fail "retry"; }
grep -q "submitted job array [0-9]* (1 task, 6 runs)" retry.log && grep -q "6 of 6 runs passed" retry.log || { cat retry.log; fail "retry"; }
echo "sweep_slurm_test: OK"
