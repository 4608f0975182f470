#!/usr/bin/env bash
# CI for the browser client (web/): npm ci, the type check (tsc --noEmit), the unit tests (node's
# runner) and the browser tests (playwright-core driving Debian's chromium against a real server).
# The server never needs Node: this is the only place npm runs.
# `bash .ci/web.sh prepare` does what needs no server binary (chromium, npm ci, the type check, the
# unit tests), `bash .ci/web.sh browser` the browser tests; with no argument, both (.ci/run runs the
# first beside the Rust build and the second beside the Rust tests).
# Chromium comes from apt when missing (never a browser download); without it, a local run skips
# the browser tests with a printed reason and a CI run (CI=true) fails.
set -euo pipefail
cd "$(dirname "$0")/.."
part="${1:-all}"
case "$part" in all | prepare | browser) ;; *) echo "usage: $0 [prepare|browser]" >&2; exit 2 ;; esac

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  if [ "${CI:-}" = "true" ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
  else
    echo "web checks skipped: node and npm are not installed"
    exit 0
  fi
fi
if [ ! -x /usr/bin/chromium ] && [ "${CI:-}" = "true" ]; then
  echo "installing chromium with apt"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi

if [ "$part" != browser ]; then
  cd web
  echo "-- npm ci"
  npm ci --no-audit --no-fund --silent
  echo "-- tsc --noEmit"
  npx tsc --noEmit -p .
  echo "-- unit tests"
  node --test test/*.test.js
  cd ..
fi
if [ "$part" = prepare ]; then exit 0; fi

# .ci/run passes the binary its build stage made; alone, build it.
if [ -z "${WAYFARER_BIN:-}" ]; then
  cargo build -q -p wayfarer-server --bin wayfarer
  export WAYFARER_BIN="${CARGO_TARGET_DIR:-$PWD/target}/debug/wayfarer"
fi

cd web
if [ "$part" = browser ] && [ ! -d node_modules ]; then
  npm ci --no-audit --no-fund --silent
fi
echo "-- browser tests"
node browser/run.js
echo "screenshot of the playing client: web/browser/out/playing.png"
