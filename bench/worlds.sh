#!/usr/bin/env bash
# Several worlds under load (issue 19, BENCHMARKS.md "Several worlds"): a nats-server, one fresh
# PostgreSQL database, WORLDS (3) `wayfarer serve` processes on it, and `wayfarer-load` spreading
# N bots per world over them round-robin. Prints each world's tick p99 (from its /status during
# the run) and the errors, and leaves the full report in $OUT (JSON) and the worlds' logs beside it.
#
#   bench/worlds.sh [bots-per-world=1000] [seconds=60]
#
# Environment: WORLDS (3), PROFILE (release; debug for a quick smoke), SCENARIO (mixed), RAMP
# (a third of the run), TICK_MS (the server default when unset), DATABASE_URL (a PostgreSQL
# server URL; default: .ci/postgres.sh's, on which a fresh database is made and dropped),
# CARGO_TARGET_DIR, OUT (a temporary directory). Many bots need many sockets: ulimit -n is raised
# as far as allowed.
set -euo pipefail
cd "$(dirname "$0")/.."

per_world=${1:-1000}
seconds=${2:-60}
worlds=${WORLDS:-3}
profile=${PROFILE:-release}
scenario=${SCENARIO:-mixed}
ramp=${RAMP:-$((seconds / 3))}
target=${CARGO_TARGET_DIR:-target}
out=${OUT:-$(mktemp -d)}
key="worlds-bench-key"
mkdir -p "$out"

log() { echo "[worlds] $*" >&2; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

command -v nats-server >/dev/null || { log "nats-server is missing: apt-get install nats-server"; exit 1; }
case "$profile" in
  release) cargo build -q --release -p wayfarer-server --bin wayfarer -p wayfarer-bench --bin wayfarer-load; bin=$target/release/wayfarer; load=$target/release/wayfarer-load ;;
  debug) cargo build -q -p wayfarer-server --bin wayfarer -p wayfarer-bench --bin wayfarer-load; bin=$target/debug/wayfarer; load=$target/debug/wayfarer-load ;;
  *) log "PROFILE must be release or debug, not $profile"; exit 2 ;;
esac
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

# One fresh database for the run, on the given (or the CI) PostgreSQL server.
server_url=${DATABASE_URL:-$(bash .ci/postgres.sh)}
database="wayfarer_worlds_bench_$$"
admin_url="${server_url%/*}/postgres"
psql -q "$admin_url" -c "CREATE DATABASE $database" >/dev/null
db_url="${server_url%/*}/$database"

pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  psql -q "$admin_url" -c "DROP DATABASE IF EXISTS $database" >/dev/null 2>&1 || true
}
trap cleanup EXIT

nats_port=$(free_port)
nats-server -a 127.0.0.1 -p "$nats_port" >"$out/nats.log" 2>&1 &
pids+=($!)

urls=()
for id in $(seq 1 "$worlds"); do
  port=$(free_port)
  dir="$out/world-$id"
  mkdir -p "$dir"
  env WORLD="$dir" PORT="$port" HOST=127.0.0.1 DATABASE_URL="$db_url" \
    NATS_URL="nats://127.0.0.1:$nats_port" WORLD_ID="$id" WORLD_NAME="Bench $id" WORLD_SEED=7 \
    JWT_SECRET=worlds-bench-secret-0123456789abcdef LOAD_TEST_KEY="$key" RUST_LOG=warn \
    ${TICK_MS:+TICK_MS=$TICK_MS} \
    "$bin" serve >"$dir/server.log" 2>&1 &
  pids+=($!)
  urls+=("http://127.0.0.1:$port")
done

# Every world up and listing all of them (so NATS links them) before any bot starts.
for url in "${urls[@]}"; do
  for attempt in $(seq 1 600); do
    listed=$(curl -fsS "$url/api/worlds" 2>/dev/null | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["worlds"]))' 2>/dev/null || echo 0)
    [ "$listed" = "$worlds" ] && break
    [ "$attempt" = 600 ] && { log "$url never listed $worlds worlds; see $out/world-*/server.log"; exit 1; }
    sleep 0.1
  done
done
log "$worlds worlds up (${urls[*]}); $per_world bots each for $seconds s, ramp $ramp s, scenario $scenario"

url_list=$(IFS=,; echo "${urls[*]}")
set +e
"$load" --url "$url_list" --bots $((per_world * worlds)) --seconds "$seconds" --ramp "$ramp" \
  --scenario "$scenario" --key "$key" --json "$out/load.json"
status=$?
set -e

python3 - "$out/load.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
print(f"\n{'world':<28}{'bots':>6}{'conn':>6}{'tick p99 peak':>15}{'worst p99':>11}{'late':>6}{'errors':>8}")
for w in report.get("worlds", []):
    s = w.get("server") or {}
    peak = (s.get("atPeak") or {}).get("tickP99Ms", float("nan"))
    print(f"{w['url']:<28}{w['bots']:>6}{w['connected']:>6}{peak:>13.2f} ms{s.get('worstTickP99Ms', float('nan')):>8.2f} ms"
          f"{s.get('lateTicks', 0):>6}{sum(w['errorsByCode'].values()):>8}")
errors = report["errorsByCode"]
print(f"errors in all: {report['errors']} {errors if errors else ''}; failed connects {report['failedConnects']}, disconnects {report['disconnects']}")
PY
log "report: $out/load.json; logs: $out/world-*/server.log"
exit "$status"
