#!/usr/bin/env bash
# Sampled simulation end to end: runs a suite of the workload suite at `small`
# in full and sampled (SETTING, default timing.sample=true; or
# timing.sample_ctas=N), and checks with scripts/sample-accuracy.py that every
# program passes in both, that at least one launch was sampled, and that
# every program's cycles are within MAX_ERROR percent.
#   sample_accuracy.sh WARPSIM WORK_DIR [SUITE] [MAX_ERROR] [SETTING]
set -euo pipefail
warpsim=$1
work=$2
suite=${3:-sample-check}
max_error=${4:-5}
setting=${5:-timing.sample=true}
here=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$work"
mkdir -p "$work"

fail() { echo "FAIL: $*" >&2; exit 1; }

"$warpsim" bench --suite "$suite" --preset small --out "$work/full" > "$work/full.log" 2>&1 \
  || { cat "$work/full.log"; fail "the full run"; }
"$warpsim" bench --suite "$suite" --preset small --set "$setting" --out "$work/sampled" \
  > "$work/sampled.log" 2>&1 || { cat "$work/sampled.log"; fail "the sampled run"; }
python3 "$here/scripts/sample-accuracy.py" "$work/full" "$work/sampled" --max-error "$max_error" --min-within 1 \
  | tee "$work/accuracy.md"
# Every sampled launch is marked in the run's launch list, with the scheme
# the setting chose, and the run as a whole is marked too.
sampled=$(python3 -c '
import json, sys
kind = {"timing.sample": "extrapolated", "timing.sample_ctas": "scale-model"}[sys.argv[2].split("=")[0]]
n = 0
for r in json.load(open(sys.argv[1]))["programs"]:
    s = json.load(open(r["log"] + ".stats.json"))
    count = s.get("timing", {}).get("sampled_launches", 0)
    marked = [l["sampled"] for l in s["launches"] if "sampled" in l]
    assert len(marked) == count, (r["program"], len(marked), count)
    assert set(marked) <= {kind}, (r["program"], set(marked))
    assert s["warpsim"]["sampled"] == (count > 0), r["program"]
    n += count
print(n)' "$work/sampled/results.json" "$setting")
[ "$sampled" -gt 0 ] || fail "no launch was sampled"
echo "PASS: $sampled sampled launches, every program within $max_error% of the full run"
