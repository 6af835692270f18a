#!/usr/bin/env bash
# Builds tendyn (installing missing Debian packages) and runs the main job: a simulation of the
# built-in default model (document 000's 3-prism). Extra arguments go to `tendyn simulate`.
# Usage: scripts/run.sh [simulate options...]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh build
scripts/build.sh build
./build/tendyn simulate "$@"
