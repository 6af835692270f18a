#!/usr/bin/env bash
# Installs the Debian 12 packages tendyn needs, only those missing.
# Usage: scripts/install-deps.sh [run|build|test|all]
#        scripts/install-deps.sh mujoco3 [PREFIX]
#   run  : compiler, CMake and the C++ libraries the library and the program link against (without Ceres).
#   build: run + test/benchmark libraries, MuJoCo (cross-checks), pybind11 (Python module).
#   test : build + everything the test suite uses (Octave for lsqnonneg cross-checks, Python, Chromium, ...).
#   all  : test + benchmark peers (DART) + clang for the libFuzzer runs (fuzz/README.md) + PyTorch + doxygen.
#   mujoco3: only when asked (not part of test.sh or CI): builds MuJoCo 3.12.0, the benchmark peer of
#          the tensegrity_*_mujoco3 programs, offline from the kit in ../shared/peers/mujoco (or the
#          directory in TENDYN_MUJOCO3_KIT; its build.sh, ~5 min on 2 cores) into PREFIX, outside the
#          source tree (default: $HOME/opt/mujoco-3.12.0); nothing is done when PREFIX already holds
#          3.12.0. Then configure with -DTENDYN_MUJOCO3_PREFIX=PREFIX (docs/BENCHMARKS.md).
set -euo pipefail
level="${1:-build}"
case "$level" in
  run|build|test|all|mujoco3) ;;
  *) echo "install-deps: unknown level '$level' (valid: run, build, test, all, mujoco3 [PREFIX])" >&2; exit 2 ;;
esac
root="$(cd "$(dirname "$0")/.." && pwd)"

if [[ "$level" == mujoco3 ]]; then
  prefix="$(realpath -m "${2:-$HOME/opt/mujoco-3.12.0}")"
  kit="${TENDYN_MUJOCO3_KIT:-$root/../shared/peers/mujoco}"
  if [[ "$prefix/" == "$root/"* ]]; then
    echo "install-deps: mujoco3 prefix $prefix is inside the source tree $root; choose one outside it" >&2
    exit 2
  fi
  if [[ -f "$prefix/lib/libmujoco.so.3.12.0" ]] &&
     grep -q '^#define mjVERSION_HEADER 3012000$' "$prefix/include/mujoco/mujoco.h" 2>/dev/null; then
    echo "install-deps: MuJoCo 3.12.0 already installed in $prefix"
    exit 0
  fi
  if [[ ! -x "$kit/build.sh" || ! -f "$kit/mujoco-3.12.0-src.tar.xz" ]]; then
    echo "install-deps: no MuJoCo 3.12.0 kit in $kit (expected build.sh and mujoco-3.12.0-src.tar.xz;" \
         "set TENDYN_MUJOCO3_KIT to its directory)" >&2
    exit 2
  fi
fi

# mujoco3: what the kit's build.sh and its find_package smoke test need (OpenGL: mujocoConfig.cmake).
if [[ "$level" == mujoco3 ]]; then
  pkgs=(build-essential cmake ninja-build xz-utils libgl-dev libopengl-dev)
else
  # run: what the library and the program need, nothing else (scripts/run.sh): g++ and make rather
  # than build-essential, whose dpkg-dev brings Perl (6 packages) that nothing here uses.
  pkgs=(g++ make cmake ninja-build pkg-config
        libeigen3-dev libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libcpp-httplib-dev zlib1g-dev)
fi
if [[ "$level" != run && "$level" != mujoco3 ]]; then
  pkgs+=(libceres-dev  # identification (run.sh builds without it: ~30 packages less)
        build-essential libfmt-dev libgtest-dev libgmock-dev googletest libbenchmark-dev libmujoco-dev
         liburdfdom-dev libtinyxml2-dev
         python3 python3-dev pybind11-dev python3-pybind11 python3-numpy)
fi
if [[ "$level" == test || "$level" == all ]]; then
  pkgs+=(octave python3-scipy python3-matplotlib python3-pytest python3-distributed chromium curl
        dpkg-dev file  # dpkg-shlibdeps for the Debian package test (install.deb)
        python3-venv python3-pip python3-setuptools python3-wheel  # pip install test (python/tests/test_install.py)
        clang-format clang-tidy)  # scripts/lint.sh (ctest label lint)
fi
if [[ "$level" == all ]]; then
  pkgs+=(libdart-dev clang libclang-rt-14-dev)
  pkgs+=(doxygen)  # the API reference (cmake --build build --target doc; cmake/doc.cmake)
  # the optional PyTorch bridge (python/tendyn/torch.py; its tests skip without it): not in `test`,
  # it pulls ~120 packages (OpenCV, GDAL, FFmpeg) through libtorch-test
  pkgs+=(python3-torch)
fi

# Node.js + npm bundle the web viewer (web/); Debian's packages unless a node is already installed.
if [[ "$level" != run && "$level" != mujoco3 ]] && ! command -v npm >/dev/null 2>&1; then
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

if [[ "$level" == mujoco3 ]]; then
  # build.sh unpacks and builds in WORKDIR: a temporary directory, never the source tree
  work="$(mktemp -d "${TMPDIR:-/tmp}/tendyn-mujoco3.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  echo "install-deps: building MuJoCo 3.12.0 from $kit into $prefix (log: $work/build.log until it ends)"
  if ! (cd "$work" && WORKDIR="$work/src" "$kit/build.sh" "$prefix" >"$work/build.log" 2>&1); then
    tail -n 30 "$work/build.log" >&2
    echo "install-deps: the MuJoCo 3.12.0 build failed (last lines above)" >&2
    exit 1
  fi
  grep -E '^== (build took|done)' "$work/build.log"
  if [[ ! -f "$prefix/lib/libmujoco.so.3.12.0" ]]; then
    echo "install-deps: $kit/build.sh ended but $prefix/lib/libmujoco.so.3.12.0 is missing" >&2
    exit 1
  fi
  echo "install-deps: configure tendyn with -DTENDYN_MUJOCO3_PREFIX=$prefix for the tensegrity_*_mujoco3 benchmarks"
  exit 0
fi

# Front-end packages (three, uplot, esbuild, playwright-core) at the versions of web/package-lock.json.
web="$(dirname "$0")/../web"
if [[ "$level" == run ]]; then exit 0; fi
if [[ ! -f "$web/node_modules/.package-lock.json" || "$web/package-lock.json" -nt "$web/node_modules/.package-lock.json" ]]; then
  echo "install-deps: npm ci in web/"
  (cd "$web" && npm ci --no-audit --no-fund --loglevel=error)
fi
