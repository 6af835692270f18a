#!/usr/bin/env bash
# Builds the tendyn program (installing the missing Debian packages it needs) and runs the main
# job: a simulation of the built-in default model (document 000's 3-prism). Only the library and
# the program are built, with the tensegrity module only: no tests, benchmarks, Python module, web
# viewer, CDPR or tree module (they were 40 % of the compile time; `tendyn tension`, `tendyn cdpr`,
# `tendyn tree` then say so, exit 2), and without identification (no Ceres Solver to install:
# `tendyn identify` says so). scripts/build.sh and scripts/test.sh build everything, in the
# same ./build; TENDYN_RUN_FULL=1 makes this script build everything too. Extra arguments go to
# `tendyn simulate`. Usage: scripts/run.sh [simulate options...]
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ "${TENDYN_RUN_FULL:-0}" == 1 ]]; then
  scripts/install-deps.sh build
  scripts/build.sh build
else
  scripts/install-deps.sh run
  generator=()
  if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
  launcher=()
  if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
  if [[ ! -f build/CMakeCache.txt ]]; then
    # a first configure: the program only (a later scripts/build.sh or scripts/test.sh switches the rest on)
    cmake -S . -B build "${generator[@]}" "${launcher[@]}" -DCMAKE_BUILD_TYPE=Release -DTENDYN_BUILD_TESTS=OFF \
      -DTENDYN_BUILD_BENCH=OFF -DTENDYN_BUILD_PYTHON=OFF -DTENDYN_WITH_VIEWER=OFF -DTENDYN_BUILD_PACKAGE=OFF \
      -DTENDYN_WITH_CDPR=OFF -DTENDYN_WITH_TREE=OFF -DTENDYN_WITH_IDENTIFY=OFF
  fi
  cmake --build build -j"$(nproc)" --target tendyn_cli
fi
./build/tendyn simulate "$@"
