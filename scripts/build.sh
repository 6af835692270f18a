#!/usr/bin/env bash
# Configures and builds tendyn in ./build (Release), with every module (CDPR and tree too, also in a
# build directory scripts/run.sh configured without them; extra arguments can switch them off).
# Usage: scripts/build.sh [BUILD_DIR] [extra cmake args...]
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-build}"
shift || true
generator=()
if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
if [[ ! -f "$dir/CMakeCache.txt" ]]; then
  cmake -S . -B "$dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DTENDYN_WITH_CDPR=ON -DTENDYN_WITH_TREE=ON -DTENDYN_WITH_IDENTIFY=ON "$@"
else
  cmake -S . -B "$dir" -DTENDYN_WITH_CDPR=ON -DTENDYN_WITH_TREE=ON -DTENDYN_WITH_IDENTIFY=ON "$@" >/dev/null
fi
cmake --build "$dir" -j"$(nproc)"
