#!/usr/bin/env bash
# ctest install.consumer: `cmake --install` into a fresh temporary prefix, then
#  1. no installed public header includes a private dependency (yaml-cpp, nlohmann_json, CLI11,
#     cpp-httplib, pybind11), and together they compile with only the prefix and Eigen added to the
#     include path;
#  2. examples/consumer (find_package(tendyn CONFIG REQUIRED)) configures, builds and runs against
#     the prefix: it loads the installed share/tendyn/models/prism3.yaml and checks energy and
#     momentum conservation;
#  3. examples/consumer/umbrella.cpp, which includes only <tendyn/tendyn.hpp>, builds and steps the
#     default 3-prism, with the cdpr and tree headers when the build has those modules.
# Usage: consumer.sh SOURCE_DIR BUILD_DIR CXX_COMPILER
set -euo pipefail
src="$1" build="$2" cxx="$3"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tendyn-consumer.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAILED: $*"; exit 1; }
prefix="$tmp/prefix"

cmake --install "$build" --prefix "$prefix" >"$tmp/install.log"
test -f "$prefix/lib/cmake/tendyn/tendynConfig.cmake"
test -f "$prefix/lib/cmake/tendyn/tendynConfigVersion.cmake"
test -f "$prefix/share/tendyn/models/prism3.yaml"

# 1. Public headers: no private dependency.
find "$prefix/include/tendyn" -name '*.hpp' | sort >"$tmp/headers"
n=$(wc -l <"$tmp/headers")
[[ $n -ge 10 ]] || { echo "only $n headers installed"; exit 1; }
if grep -l -E '#include *<(yaml-cpp|nlohmann|CLI|httplib|pybind11)' $(cat "$tmp/headers"); then
  fail "an installed header includes a private dependency (above)"
fi
# (yaml-cpp, nlohmann and the others live in /usr/include, on every compiler's default path, so
#  the grep is what catches them.) All headers in one translation unit, with only the prefix and
#  Eigen added to the include path: catches an installed header that includes a private one (src/).
# (One compile per header would check each alone but costs ~3 s per header on a loaded machine.)
sed "s|^$prefix/include/\(.*\)|#include <\1>|" "$tmp/headers" >"$tmp/all_headers.cpp"
"$cxx" -std=c++20 -fsyntax-only -I"$prefix/include" -I/usr/include/eigen3 "$tmp/all_headers.cpp" || fail "the installed headers do not compile"
echo "$n installed headers: no private dependency, compile with Eigen only"

# 2. The consumer project.
gen=()
if command -v ninja >/dev/null 2>&1; then gen=(-G Ninja); fi
launcher=()
if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S "$src/examples/consumer" -B "$tmp/consumer" "${gen[@]}" "${launcher[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/configure.log" || { cat "$tmp/configure.log"; exit 1; }
cmake --build "$tmp/consumer" >"$tmp/build.log" || { cat "$tmp/build.log"; exit 1; }
"$tmp/consumer/consumer" "$prefix/share/tendyn/models/prism3.yaml"
# the default model path comes from the package's tendyn_DATA_DIR
"$tmp/consumer/consumer" >/dev/null

# 3. The umbrella header alone, with the modules of this build (their macros come from the target).
"$tmp/consumer/umbrella" >"$tmp/umbrella.log" || { cat "$tmp/umbrella.log"; fail "umbrella"; }
cat "$tmp/umbrella.log"
modules="core io tensegrity viz"
grep -q '^TENDYN_WITH_CDPR:BOOL=ON' "$build/CMakeCache.txt" && modules+=" cdpr"
grep -q '^TENDYN_WITH_TREE:BOOL=ON' "$build/CMakeCache.txt" && modules+=" tree"
grep -qF "(modules: $modules)" "$tmp/umbrella.log" || fail "the umbrella header did not bring in: $modules"
