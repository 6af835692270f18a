#!/usr/bin/env bash
# The API reference (cmake/doc.cmake): a fresh configuration's target `doc` runs doxygen on
# include/tendyn, prints the warning count (never fatal), and `cmake --install` puts the HTML in
# <prefix>/share/doc/tendyn/api. Skipped (77) without doxygen (Debian's doxygen, install-deps.sh all).
# Usage: doc.sh SOURCE_DIR
set -euo pipefail
src=$1
command -v doxygen >/dev/null || { echo "doc.sh: doxygen not installed: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake -S "$src" -B "$work/build" -DTENDYN_BUILD_TESTS=OFF -DTENDYN_BUILD_BENCH=OFF -DTENDYN_BUILD_PYTHON=OFF \
  -DTENDYN_BUILD_FUZZ=OFF -DTENDYN_BUILD_CLI=OFF -DTENDYN_WITH_VIEWER=OFF >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; exit 1; }
# nothing to install yet: the reference is optional for cmake --install
cmake --install "$work/build" --prefix "$work/before" --component data >/dev/null
test ! -e "$work/before/share/doc/tendyn/api" || { echo "doc.sh: api/ installed although not built"; exit 1; }
cmake --build "$work/build" --target doc >"$work/doc.log" 2>&1 || { cat "$work/doc.log"; exit 1; }
grep -E "tendyn doc: [0-9]+ doxygen warnings, [0-9]+ of them undocumented public members" "$work/doc.log" ||
  { echo "doc.sh: no warning count in the output:"; cat "$work/doc.log"; exit 1; }
html=$work/build/doc/api/html
test -f "$html/index.html" || { echo "doc.sh: $html/index.html missing"; exit 1; }
# the umbrella header and a documented function reached the reference
grep -rlq "prepare_step" "$html" || { echo "doc.sh: prepare_step not in the reference"; exit 1; }
grep -rlq "tendyn_8hpp" "$html" || { echo "doc.sh: tendyn.hpp (the umbrella header) not in the reference"; exit 1; }
cmake --install "$work/build" --prefix "$work/prefix" --component data >/dev/null
test -f "$work/prefix/share/doc/tendyn/api/index.html" || { echo "doc.sh: api/index.html not installed"; exit 1; }
echo "doc.sh: ok ($(find "$html" -name '*.html' | wc -l) pages)"
