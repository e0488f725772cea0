#!/usr/bin/env bash
# Opens a `warpsim report` page in headless Chromium and checks that the
# browser drew every figure: the page's own script counts the figures that
# rendered into data-figures-rendered; the generator wrote how many it made
# into data-figures-expected.
#
#   tests/tools/report_browser_test.sh REPORT.html      (CHROMIUM=... to pick the browser)
set -euo pipefail

report=${1:?usage: report_browser_test.sh REPORT.html}
chromium=${CHROMIUM:-chromium}
if [[ ! -f $report ]]; then
  echo "report_browser_test: no such file: $report" >&2
  exit 2
fi
if ! command -v "$chromium" >/dev/null; then
  echo "report_browser_test: $chromium not found (set CHROMIUM)" >&2
  exit 2
fi

profile=$(mktemp -d)  # a fresh profile: no state from, or into, a user's browser
trap 'rm -rf "$profile"' EXIT

# --no-sandbox: Chromium refuses to run as root with its sandbox, as in CI containers.
if ! timeout 60 "$chromium" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
    --user-data-dir="$profile" --virtual-time-budget=10000 \
    --dump-dom "file://$(realpath "$report")" >"$profile/dom.html" 2>"$profile/stderr"; then
  echo "report_browser_test: chromium failed or timed out; its last messages:" >&2
  tail -n 20 "$profile/stderr" >&2
  exit 1
fi

attribute() {
  grep -o "data-$1=\"[0-9]*\"" "$profile/dom.html" | head -n 1 | grep -o '[0-9]\+' || true
}
expected=$(attribute figures-expected)
rendered=$(attribute figures-rendered)
echo "report_browser_test: $report: figures expected ${expected:-(none)}, rendered ${rendered:-(none)}"

if [[ -z $expected || -z $rendered ]]; then
  echo "report_browser_test: FAIL: the page does not carry both counts (did its script run?)" >&2
  exit 1
fi
if (( expected == 0 )); then
  echo "report_browser_test: FAIL: the page has no figures" >&2
  exit 1
fi
if (( rendered != expected )); then
  echo "report_browser_test: FAIL: $rendered of $expected figures rendered" >&2
  exit 1
fi
echo "report_browser_test: PASS"
