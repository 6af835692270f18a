#!/usr/bin/env bash
# ctest install.relocated: the installed prefix works wherever it is copied. `cmake --install` into
# a temporary prefix, copy the prefix elsewhere and remove the original, then from an empty working
# directory (TENDYN_DATA_DIR unset) run simulate, plan, study, cdpr-experiment, view, plot and serve
# and check their exit codes and output files; the program must not contain the source path.
# Usage: relocated.sh SOURCE_DIR BUILD_DIR WITH_VIEWER(ON|OFF) WITH_CDPR(ON|OFF)
set -euo pipefail
src="$1" build="$2" viewer="$3" cdpr="$4"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tendyn-relocated.XXXXXX")
serve_pid=""
cleanup() {
  if [[ -n "$serve_pid" ]]; then kill "$serve_pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
unset TENDYN_DATA_DIR TENDYN_PYTHON
fail() { echo "FAILED: $*"; exit 1; }
# expect CODE COMMAND...: runs COMMAND (output in $tmp/last.log) and checks its exit code
expect() {
  local want="$1"; shift
  local code=0
  "$@" >"$tmp/last.log" 2>&1 || code=$?
  if [[ "$code" != "$want" ]]; then cat "$tmp/last.log"; fail "exit $code (expected $want): $*"; fi
}
has() { for f in "$@"; do [[ -s "$f" ]] || fail "missing or empty: $f"; done; }

cmake --install "$build" --prefix "$tmp/installed" >"$tmp/install.log"
cp -a "$tmp/installed" "$tmp/moved"
rm -rf "$tmp/installed"
T="$tmp/moved/bin/tendyn"
mkdir "$tmp/work"
cd "$tmp/work"

# The source path must not be compiled into the program (no __FILE__, no TENDYN_SOURCE_DIR).
n=$(grep -c -a -F "$src" "$T" || true)
[[ "$n" == 0 ]] || fail "$T contains the source path $src ($n lines)"

expect 0 "$T" --version
expect 0 "$T" simulate --duration 0.5 -o sim
has sim/results.csv sim/summary.json sim/scene.json
expect 0 "$T" plan --duration 0.12 -o plan
has plan/summary.json plan/schedule.csv plan/planned.yaml plan/plan.png
expect 0 "$T" study distributions --duration 0.06 -o study
has study/distributions.csv study/distributions.png
if [[ "$cdpr" == ON ]]; then
  expect 0 "$T" cdpr-experiment --out cdpr --dt 0.002 --control-dt 0.004
  has cdpr/stage1_without.csv cdpr/stage2_with.csv cdpr/summary.json cdpr/experiment.png cdpr/scene.json
fi
if [[ "$viewer" == ON ]]; then
  expect 0 "$T" view sim
  has sim/view.html
fi
expect 0 "$T" plot sim
ls sim/plots/*.png >/dev/null || fail "tendyn plot wrote no PNG"

# Plots without matplotlib: the data commands warn on stderr and succeed, `tendyn plot` fails (2).
printf '#!/bin/sh\nexec /usr/bin/python3 -S "$@"\n' >"$tmp/python-without-site"
chmod +x "$tmp/python-without-site"
TENDYN_PYTHON="$tmp/python-without-site" expect 0 "$T" study distributions --duration 0.06 -o study-nompl
grep -q "matplotlib is missing" "$tmp/last.log" || { cat "$tmp/last.log"; fail "no matplotlib warning"; }
has study-nompl/distributions.csv
TENDYN_PYTHON="$tmp/python-without-site" expect 2 "$T" plot sim
grep -q "matplotlib is missing" "$tmp/last.log" || { cat "$tmp/last.log"; fail "no matplotlib error"; }

# No data directory: a clear error naming the paths tried, exit 2.
mkdir "$tmp/lonely"
cp -a "$tmp/moved/bin" "$tmp/moved/lib" "$tmp/lonely/"  # (lib: libtendyn.so of a shared build)
expect 2 "$tmp/lonely/bin/tendyn" plan --duration 0.12 -o plan2
grep -q "data directory .* not found; tried '$tmp/lonely/share/tendyn'" "$tmp/last.log" || { cat "$tmp/last.log"; fail "unclear error"; }
# ... but a command given its model still runs, without the plot (a warning)
expect 0 "$tmp/lonely/bin/tendyn" plan "$tmp/moved/share/tendyn/models/three_bar.yaml" --duration 0.12 -o plan4
grep -q "warning: no plot .*data directory" "$tmp/last.log" || { cat "$tmp/last.log"; fail "no plot warning"; }
has plan4/summary.json
TENDYN_DATA_DIR="$tmp/moved/share/tendyn" expect 0 "$tmp/lonely/bin/tendyn" plan --duration 0.12 -o plan2 --quiet
TENDYN_DATA_DIR="$tmp/nowhere" expect 2 "$T" plan --duration 0.12 -o plan3
grep -q "TENDYN_DATA_DIR='$tmp/nowhere'" "$tmp/last.log" || { cat "$tmp/last.log"; fail "unclear TENDYN_DATA_DIR error"; }

# The studio on a free loopback port: /api/health answers, the shipped models are listed.
if [[ "$viewer" == ON ]]; then
  "$T" serve --port 0 >"$tmp/serve.log" 2>&1 &
  serve_pid=$!
  url=""
  for _ in $(seq 100); do
    line=$(sed -n 's|^tendyn studio: \(http://[^ ]*\) .*|\1|p' "$tmp/serve.log")  # http://HOST:PORT/?token=T
    url="${line%%\?*}"
    token="${line##*token=}"
    [[ -n "$url" ]] && break
    kill -0 "$serve_pid" 2>/dev/null || { cat "$tmp/serve.log"; fail "serve exited"; }
    sleep 0.1
  done
  [[ -n "$url" ]] || fail "serve printed no address"
  health=""
  for _ in $(seq 50); do
    health=$(curl -sf "${url}api/health" || true)
    [[ -n "$health" ]] && break
    sleep 0.1
  done
  [[ "$health" == *'"ok":true'* ]] || fail "health: '$health'"
  curl -sf -H "X-Tendyn-Token: $token" "${url}api/models" | grep -q '"three_bar"' || fail "studio lists no shipped model"
  kill "$serve_pid"
  wait "$serve_pid" || fail "serve did not stop cleanly on SIGTERM"
  serve_pid=""
fi
echo "relocated prefix: all commands ran from $tmp/moved"
