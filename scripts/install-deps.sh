#!/usr/bin/env bash
# Installs the Debian 12 packages tendyn needs, only those missing.
# Usage: scripts/install-deps.sh [run|build|test|all]
#   run  : compiler, CMake and the C++ libraries the library and the program link against.
#   build: run + test/benchmark libraries, MuJoCo (cross-checks), pybind11 (Python module).
#   test : build + everything the test suite uses (Octave for lsqnonneg cross-checks, Python, Chromium, ...).
#   all  : test + benchmark peers (DART) + clang for the libFuzzer runs (fuzz/README.md) + PyTorch.
set -euo pipefail
level="${1:-build}"

# run: what the library and the program need, nothing else (scripts/run.sh): g++ and make rather
# than build-essential, whose dpkg-dev brings Perl (6 packages) that nothing here uses.
pkgs=(g++ make cmake ninja-build pkg-config
      libeigen3-dev libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libceres-dev libcpp-httplib-dev)
if [[ "$level" != run ]]; then
  pkgs+=(build-essential libfmt-dev libgtest-dev libgmock-dev googletest libbenchmark-dev libmujoco-dev
         liburdfdom-dev libtinyxml2-dev
         python3 python3-dev pybind11-dev python3-pybind11 python3-numpy)
fi
if [[ "$level" == test || "$level" == all ]]; then
  pkgs+=(octave python3-scipy python3-matplotlib python3-pytest python3-distributed chromium curl
        dpkg-dev file  # dpkg-shlibdeps for the Debian package test (install.deb)
        python3-venv python3-pip python3-setuptools python3-wheel)  # pip install test (python/tests/test_install.py)
fi
if [[ "$level" == all ]]; then
  pkgs+=(libdart-dev clang libclang-rt-14-dev)
  # the optional PyTorch bridge (python/tendyn/torch.py; its tests skip without it): not in `test`,
  # it pulls ~120 packages (OpenCV, GDAL, FFmpeg) through libtorch-test
  pkgs+=(python3-torch)
fi

# Node.js + npm bundle the web viewer (web/); Debian's packages unless a node is already installed.
if [[ "$level" != run ]] && ! command -v npm >/dev/null 2>&1; then
  pkgs+=(nodejs npm)
fi

missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#pkgs[@]} packages present"
else
  echo "install-deps: installing ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  echo "install-deps: done"
fi

# Front-end packages (three, uplot, esbuild, playwright-core) at the versions of web/package-lock.json.
web="$(dirname "$0")/../web"
if [[ "$level" == run ]]; then exit 0; fi
if [[ ! -f "$web/node_modules/.package-lock.json" || "$web/package-lock.json" -nt "$web/node_modules/.package-lock.json" ]]; then
  echo "install-deps: npm ci in web/"
  (cd "$web" && npm ci --no-audit --no-fund --loglevel=error)
fi
