#!/usr/bin/env bash
# The project's static checks; each is one ctest test labelled `lint` (tests/CMakeLists.txt).
# Usage: scripts/lint.sh [eslint|format|tidy|sizes|all] [BUILD_DIR]   (default: all, build)
#   eslint  ESLint on the web viewer's JavaScript (rules: web/eslint.config.js): web/src, the build
#           scripts and the browser tests. ESLint is a dev dependency in web/package-lock.json
#           (`cd web && npm ci`; the CMake build of the viewer runs that too).
#   format  clang-format (rules: .clang-format) on every tracked C/C++ file, no changes made: fails
#           on drift and lists the files (fix: `scripts/lint.sh format --fix`).
#   tidy    clang-tidy (checks: .clang-tidy) on src/core and src/io, with
#           BUILD_DIR/compile_commands.json (the program's sources are compiled in unity batches,
#           so the database has no entry of their own). The whole tree takes ~8 min of CPU on this
#           machine, too long for CI: `scripts/lint.sh tidy-all` runs it on every file of src/.
#   sizes   no function in src/ or apps/ over 120 lines except the ones scripts/function_sizes.py
#           allows with a reason.
# A check whose tool is missing says so and exits with 77 (ctest: skipped).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
what="${1:-all}"
build="${2:-build}"
fix=0
if [[ "${2:-}" == --fix ]]; then fix=1; build=build; fi
[[ "$build" = /* ]] || build="$root/$build"
cd "$root"

need() {  # need TOOL PACKAGE
  if ! command -v "$1" >/dev/null 2>&1; then
    echo "lint: $1 is not installed (Debian package $2); $what not run" >&2
    exit 77
  fi
}

run_eslint() {
  need node nodejs
  if [[ ! -x web/node_modules/.bin/eslint ]]; then
    echo "lint: ESLint is not installed in web/node_modules; install it with: (cd web && npm ci)" >&2
    exit 77
  fi
  (cd web && node_modules/.bin/eslint --max-warnings 0 .)
  echo "lint: eslint clean (web/src, web/*.mjs, web/tests)"
}

cxx_files() { git ls-files '*.cpp' '*.hpp' '*.h' '*.c' ':!:web/*'; }

run_format() {
  need clang-format clang-format
  if ((fix)); then
    cxx_files | xargs clang-format -i
    echo "lint: clang-format applied"
    return
  fi
  local bad=()
  while IFS= read -r f; do
    if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then bad+=("$f"); fi
  done < <(cxx_files)
  if ((${#bad[@]})); then
    echo "lint: ${#bad[@]} file(s) differ from .clang-format (fix: scripts/lint.sh format --fix):" >&2
    printf '  %s\n' "${bad[@]}" >&2
    exit 1
  fi
  echo "lint: clang-format clean ($(cxx_files | wc -l) files)"
}

run_tidy() {  # run_tidy FILE...
  need clang-tidy clang-tidy
  if [[ ! -f "$build/compile_commands.json" ]]; then
    echo "lint: $build/compile_commands.json is missing (configure with CMake first); clang-tidy not run" >&2
    exit 77
  fi
  # -Wno-unknown-warning-option: the database carries GCC-only warning flags
  clang-tidy -p "$build" --quiet --extra-arg=-Wno-unknown-warning-option "$@"
  echo "lint: clang-tidy clean ($# files)"
}

case "$what" in
  eslint) run_eslint ;;
  format) run_format ;;
  tidy) run_tidy src/core/*.cpp src/io/*.cpp ;;
  tidy-all) mapfile -t files < <(git ls-files 'src/*.cpp'); run_tidy "${files[@]}" ;;  # (apps/: configure with -DTENDYN_CLI_UNITY=OFF and add them)
  sizes) python3 scripts/function_sizes.py ;;
  all) "$0" eslint; "$0" format; "$0" tidy "$build"; "$0" sizes ;;
  *) echo "lint: unknown check '$what' (eslint, format, tidy, tidy-all, sizes, all)" >&2; exit 2 ;;
esac
