#!/usr/bin/env bash
# ctest install.deb: builds the Debian package with CPack from the build's CPackConfig.cmake into a
# temporary directory, checks its control fields (Depends from dpkg-shlibdeps and the explicit
# -dev and Python dependencies) and contents, unpacks it with `dpkg -x` and runs the unpacked
# program (which must find its data in ../share/tendyn) and imports the unpacked Python package.
# Also: every shared library the installed CMake targets name belongs to a package in Depends, the
# installed --help names the installed docs, a model name resolves against the installed models,
# and the maintainer scripts remove the byte code an import wrote (nothing left after removal).
# Usage: deb.sh BUILD_DIR VERSION
set -euo pipefail
build="$1" version="$2"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tendyn-deb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
unset TENDYN_DATA_DIR PYTHONDONTWRITEBYTECODE
fail() { echo "FAILED: $*"; exit 1; }

cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/pkg" >"$tmp/cpack.log" 2>&1 || { cat "$tmp/cpack.log"; fail "cpack"; }
deb="$tmp/pkg/tendyn_${version}_$(dpkg --print-architecture).deb"
[[ -f "$deb" ]] || { ls "$tmp/pkg"; fail "no $deb"; }

dpkg-deb --info "$deb" >"$tmp/info"
cat "$tmp/info"
grep -q '^ Package: tendyn$' "$tmp/info" || fail "package name"
grep -q "^ Version: $version\$" "$tmp/info" || fail "version"
depends=$(sed -n 's/^ Depends: //p' "$tmp/info")
for d in 'libyaml-cpp0\.[0-9]' 'libstdc\+\+6' 'libc6' libeigen3-dev libyaml-cpp-dev nlohmann-json3-dev python3-numpy 'python3 \(>= 3\.[0-9]+\)'; do
  [[ "$depends" =~ $d ]] || fail "Depends lacks $d: $depends"
done

dpkg-deb --contents "$deb" | awk '{print $6}' >"$tmp/contents"
for f in ./usr/bin/tendyn ./usr/include/tendyn/tensegrity/simulate.hpp ./usr/lib/cmake/tendyn/tendynConfig.cmake \
         ./usr/lib/cmake/tendyn/tendynTargets.cmake ./usr/lib/python3/dist-packages/tendyn/__init__.py \
         ./usr/share/tendyn/models/three_bar.yaml ./usr/share/tendyn/scripts/plot.py; do
  grep -qxF "$f" "$tmp/contents" || fail "$f not in the package"
done
grep -qE '^\./usr/lib/libtendyn\.(a|so)$' "$tmp/contents" || fail "no libtendyn in the package"
grep -qE '^\./usr/lib/python3/dist-packages/tendyn/_tendyn\..*\.so$' "$tmp/contents" || fail "no extension module in the package"

root="$tmp/root"
dpkg -x "$deb" "$root"
mkdir "$tmp/work"
cd "$tmp/work"
"$root/usr/bin/tendyn" --version | grep -qF "$version" || fail "tendyn --version"
"$root/usr/bin/tendyn" simulate --duration 0.2 -o sim >sim.log || { cat sim.log; fail "simulate"; }
[[ -s sim/summary.json ]] || fail "simulate wrote no summary.json"
# a shipped model, found through ../share/tendyn (the default model of cdpr-experiment or plan)
"$root/usr/bin/tendyn" plan --duration 0.06 -o plan --quiet 2>plan.log || { cat plan.log; fail "plan with its default model"; }
[[ -s plan/summary.json ]] || fail "plan wrote no summary.json"
# a model by name, and the documentation the --help names
"$root/usr/bin/tendyn" validate three_bar >validate.log 2>&1 || { cat validate.log; fail "validate three_bar (a model name)"; }
"$root/usr/bin/tendyn" --help >help.log 2>&1 || fail "--help"
grep -qF "Documentation: $root/usr/share/doc/tendyn" help.log || { cat help.log; fail "--help does not name the installed docs"; }
[[ -f "$root/usr/share/doc/tendyn/CLI.md" ]] || fail "docs not installed"

# every library file the exported CMake targets name comes from a package the package depends on
for lib in $(grep -ohE '/usr/lib/[^";$<>]*\.(so|a)' "$root"/usr/lib/cmake/tendyn/tendynTargets*.cmake | sort -u); do
  owner=$(dpkg -S "$lib" 2>/dev/null | head -1 | cut -d: -f1) || true
  [[ -n "$owner" ]] || fail "the CMake targets name $lib, which no installed package owns"
  [[ ", $depends," == *", $owner,"* || ", $depends," == *", $owner ("* ]] || fail "the CMake targets name $lib (package $owner), not in Depends: $depends"
  echo "CMake targets name $lib: $owner is in Depends"
done
PYTHONPATH="$root/usr/lib/python3/dist-packages" /usr/bin/python3 -c "
import tendyn, sys
assert tendyn.__file__.startswith('$root/'), tendyn.__file__
assert tendyn.__version__ == '$version', tendyn.__version__
s = tendyn.tensegrity.simulate
print('import tendyn', tendyn.__version__, 'from', tendyn.__file__)
" || fail "python import"

# the import wrote byte code into the package directory; the maintainer scripts remove it
pydir=/usr/lib/python3/dist-packages/tendyn
find "$root$pydir" -name __pycache__ | grep -q . || fail "the import wrote no __pycache__ (test cannot check the removal)"
dpkg-deb -e "$deb" "$tmp/control"
for s in prerm postrm; do
  [[ -x "$tmp/control/$s" ]] || fail "no executable $s in the package"
  sed "s|$pydir|$root$pydir|g" "$tmp/control/$s" >"$tmp/$s.local"
done
sh "$tmp/prerm.local" remove || fail "prerm remove"
# what dpkg removes: the package's files, then postrm
sed -n 's|^\./|/|p' "$tmp/contents" | while read -r f; do [[ -f "$root$f" || -L "$root$f" ]] && rm -f "$root$f"; done
sh "$tmp/postrm.local" remove || fail "postrm remove"
left=$(find "$root$pydir" -type f 2>/dev/null || true)
[[ -z "$left" ]] || fail "files left in $pydir after removal: $left"
echo "removal leaves nothing in $pydir"
echo "package $(basename "$deb"): $(stat -c %s "$deb") bytes"
