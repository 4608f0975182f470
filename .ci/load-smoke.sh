#!/usr/bin/env bash
# CI smoke run of the load generator: a fresh server (SQLite in a temporary world, bundled content)
# and `wayfarer-load` with 50 bots for 10 seconds; fails when any bot saw an error, a failed
# connect or a disconnect (the load command's exit code).
set -euo pipefail
# shellcheck source=../scripts/lib.sh
. "$(dirname "$0")/../scripts/lib.sh"
cd "$(dirname "$0")/.."

# .ci/run passes the binaries its build stage made (the server's tests and crates/bench/tests/cli.rs
# run them too); alone, build them.
if [ ! -x "${WAYFARER_BIN:-}" ] || [ ! -x "${WAYFARER_LOAD_BIN:-}" ]; then
  cargo build -q -p wayfarer-server --bin wayfarer -p wayfarer-bench --bin wayfarer-load
  WAYFARER_BIN=target/debug/wayfarer
  WAYFARER_LOAD_BIN=target/debug/wayfarer-load
fi
bin=$WAYFARER_BIN
load=$WAYFARER_LOAD_BIN
world=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo 5671)
key="ci-load-smoke-key"

WORLD="$world" PORT="$port" LOAD_TEST_KEY="$key" RUST_LOG=warn "$bin" serve >"$world/server.log" 2>&1 &
server=$!
stop_server_on_exit "$server" "$world"

wait_healthy "http://127.0.0.1:$port" 10 || true

set +e
"$load" --url "http://127.0.0.1:$port" --bots 50 --seconds 10 --ramp 2 --scenario mixed \
  --key "$key" --json "$world/load.json"
status=$?
set -e
if [ "$status" -ne 0 ]; then
  echo "load smoke run failed; server log:" >&2
  tail -50 "$world/server.log" >&2
fi
exit "$status"
