#!/usr/bin/env bash
# Lints the web viewer's JavaScript with ESLint (rules: web/eslint.config.js): web/src (browser
# code), the build scripts and the browser tests. Extra arguments go to eslint (e.g. --fix).
# ESLint is a dev dependency in web/package-lock.json: `cd web && npm ci` installs it (the CMake
# build of the viewer runs that too). Without node or ESLint this says so and exits with 77, which
# ctest reports as skipped (the test `lint.eslint`).
set -euo pipefail
cd "$(dirname "$0")/../web"
if ! command -v node >/dev/null 2>&1; then
  echo "lint: node is not installed (Debian package nodejs); ESLint not run" >&2
  exit 77
fi
if [[ ! -x node_modules/.bin/eslint ]]; then
  echo "lint: ESLint is not installed in web/node_modules; install it with: (cd web && npm ci)" >&2
  exit 77
fi
node_modules/.bin/eslint --max-warnings 0 "$@" .
echo "lint: eslint clean (web/src, web/*.mjs, web/tests)"
