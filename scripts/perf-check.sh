#!/usr/bin/env bash
# The engine's figures in one command, for any change to the tick, the view or the sockets
# (BENCHMARKS.md, "Targets at a glance"): the 2,000-player `mixed` load and the 10,000-player
# idle join, each against a fresh release server on this machine with the load generator beside
# it, checked against the targets. Run it on a quiet machine (nothing else compiling), once
# before and once after a change, and write both into BENCHMARKS.md with a reason for any
# regression.
#
#   scripts/perf-check.sh            # 660 s mixed, the 10,000 join, 300 s spread (about 21 minutes)
#   scripts/perf-check.sh --quick    # 120 s mixed, the join, 150 s spread (about 8 minutes)
#   scripts/perf-check.sh --only spread [--quick]   # one of mixed, join, spread, wave
#   scripts/perf-check.sh --only wave               # the join wave on the 2,000 crowd (about 3 minutes)
#
# The spread run is 10,000 active players over the generated reference world, 100 joining each
# second (issue 52): it needs the reference manifests (REFERENCE_CONTENT, default
# ../shared/reference-content/hyperscape-manifests), served by scripts/local_cdn.py. Without
# them it is skipped with a printed reason (and fails under CI=true, as the tests do). Its
# figures: failed connects 0, connect p99 <= 2 s, tick p99 <= 150 ms, 0 late ticks, no answer
# 5xx and no pool time-out in the server's log.
#
# The wave run (issue 52, not in the default set: ask for it with --only wave) is a join wave on
# top of a playing crowd: 2,000 `mixed` players, and once they are all in, 3,000 more joining at
# 100 a second. Its figures: the wave's failed connects 0 and connect p99 <= 2 s, the crowd's late
# ticks 0, and nothing 5xx or timed out in the server's log.
#
# Why 660 s: the server's percentiles cover its last 1,000 ticks (600 s at 600 ms), and the mixed
# figure is read at the last moment all 2,000 are online, so a 660 s run's figure is 1,000 ticks of
# the whole crowd playing, all after the 40 s join ramp ("2,000 players wandering and chatting" in
# BENCHMARKS.md). A shorter run's window holds the ramp's ticks too (the quick run's mostly).

#   BIN=dir scripts/perf-check.sh    # use dir/wayfarer and dir/wayfarer-load instead of building
#
# Exit status: 0 when every figure meets its target, 1 when one does not, 2 on a failed run.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

mixed_seconds=660
spread_seconds=300
only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) mixed_seconds=120; spread_seconds=150 ;;
    --only) only=$2; shift ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
wanted() { [ -z "$only" ] || [ "$only" = "$1" ]; }
port=${PORT:-5621}
cdn_port=${CDN_PORT:-8096}
reference=${REFERENCE_CONTENT:-../shared/reference-content/hyperscape-manifests}
key=perf-check

if [ -z "${BIN:-}" ]; then
  cargo build --release -q --bin wayfarer --bin wayfarer-load
  BIN=target/release
fi
out=$(mktemp -d)
echo "reports in $out"

# The database's files every 2 s while the server runs (seconds, bytes of the file, of its
# write-ahead log) into NAME-files.tsv: a log that only grows is a checkpoint that never
# completes, and every read and commit pays for it. sample_files NAME WORLD SERVER_PID
sample_files() {
  local started=$SECONDS
  while kill -0 "$3" 2>/dev/null; do
    printf '%d\t%s\t%s\n' $((SECONDS - started)) "$(stat -c %s "$2/wayfarer.db" 2>/dev/null || echo 0)" \
      "$(stat -c %s "$2/wayfarer.db-wal" 2>/dev/null || echo 0)" >>"$out/$1-files.tsv"
    sleep 2
  done
}

# Runs one load against a fresh server: run NAME load-arguments...
run() {
  local name=$1
  shift
  local world="$out/$name-world"
  mkdir -p "$world"
  env PORT=$port WORLD=$world LOAD_TEST_KEY=$key RUST_LOG=warn ${SERVER_ENV:-} "$BIN/wayfarer" serve >"$out/$name-server.log" 2>&1 &
  local server=$!
  wait_healthy "http://127.0.0.1:$port" 30 || true
  sample_files "$name" "$world" "$server" &
  if ! "$BIN/wayfarer-load" --url "http://127.0.0.1:$port" --key "$key" --json "$out/$name.json" "$@" \
    >"$out/$name-load.log" 2>&1; then
    echo "$name: the load run failed (see $out/$name-load.log)"
    kill "$server" 2>/dev/null || true
    exit 2
  fi
  kill "$server"
  wait "$server" 2>/dev/null || true
}

# The wave: the crowd's load in the background, the joiners' beside it once the crowd is in.
run_wave() {
  local world="$out/wave-world"
  mkdir -p "$world"
  env PORT=$port WORLD=$world LOAD_TEST_KEY=$key RUST_LOG=warn "$BIN/wayfarer" serve >"$out/wave-server.log" 2>&1 &
  local server=$!
  wait_healthy "http://127.0.0.1:$port" 30 || true
  sample_files wave "$world" "$server" &
  "$BIN/wayfarer-load" --url "http://127.0.0.1:$port" --key "$key" --json "$out/wave-crowd.json" \
    --bots 2000 --seconds 150 --ramp 40 --scenario mixed >"$out/wave-crowd-load.log" 2>&1 &
  local crowd=$!
  sleep 60
  local status=0
  "$BIN/wayfarer-load" --url "http://127.0.0.1:$port" --key "$key" --json "$out/wave.json" \
    --bots 3000 --seconds 60 --ramp 30 --scenario idle >"$out/wave-load.log" 2>&1 || status=$?
  wait "$crowd" || status=$?
  kill "$server"
  wait "$server" 2>/dev/null || true
  if [ "$status" != 0 ]; then
    echo "wave: a load run failed (see $out/wave-load.log, $out/wave-crowd-load.log)"
    exit 2
  fi
}

if wanted mixed; then
  echo "== 2,000 players, mixed, ${mixed_seconds} s"
  run mixed --bots 2000 --seconds "$mixed_seconds" --ramp 40 --scenario mixed
fi
if wanted join; then
  echo "== 10,000 players joining over 30 s, idle"
  run join --bots 10000 --seconds 90 --ramp 30 --scenario idle
fi
if wanted spread; then
  if [ -d "$reference" ]; then
    python3 scripts/local_cdn.py "$reference" "$cdn_port" >"$out/cdn.log" 2>&1 &
    cdn=$!
    trap 'kill $cdn 2>/dev/null || true' EXIT
    # The server falls back to its bundled content when the CDN does not answer at start: wait.
    for _ in $(seq 1 100); do
      curl -fsS "http://127.0.0.1:$cdn_port/manifests/world-config.json" >/dev/null 2>&1 && break
      sleep 0.1
    done
    echo "== 10,000 players spread over the reference world, 100 joining a second, ${spread_seconds} s"
    SERVER_ENV="PUBLIC_CDN_URL=http://127.0.0.1:$cdn_port" \
      run spread --bots 10000 --seconds "$spread_seconds" --ramp 100 --scenario spread
  elif [ "${CI:-}" = "true" ]; then
    echo "spread: the reference manifests are not at $reference (CI=true: that is a failure)"
    exit 2
  else
    echo "spread: skipped, the reference manifests are not at $reference"
  fi
fi

if [ "$only" = wave ]; then
  echo "== a join wave: 3,000 joining at 100 a second on top of 2,000 mixed players"
  run_wave
fi

python3 - "$out" <<'PY'
import json, os, re, sys

out = sys.argv[1]
def load(name):
    path = os.path.join(out, name + ".json")
    return json.load(open(path)) if os.path.exists(path) else None
mixed, join, spread = load("mixed"), load("join"), load("spread")
wave, crowd = load("wave"), load("wave-crowd")
failed = False

def check(label, value, target, unit, ok):
    global failed
    verdict = "ok" if ok else "OVER TARGET"
    failed |= not ok
    print(f"  {label:<44} {value:>10} {unit:<5} target {target} {unit}  {verdict}")

for name, report in (("2,000 mixed", mixed), ("10,000 join", join), ("10,000 spread", spread),
                     ("the wave's 3,000", wave), ("the wave's crowd of 2,000", crowd)):
    if report is None:
        continue
    server = report.get("server") or {}
    peak = server.get("atPeak", {})
    print(f"{name}: {report['connected']} connected, {report['failedConnects']} failed, "
          f"{report['errors']} errors, {peak.get('playersOnline', 0)} online at the peak")

if mixed:
    s = mixed.get("server") or {}
    check("mixed: tick p99 at the peak (ms)", s.get("atPeak", {}).get("tickP99Ms"), 25, "ms",
          (s.get("atPeak", {}).get("tickP99Ms") or 1e9) <= 25)
    check("mixed: late ticks", s.get("lateTicks"), 0, "", s.get("lateTicks", 1) == 0)
if join:
    s = join.get("server") or {}
    check("join: worst tick p99 (ms)", s.get("worstTickP99Ms"), 100, "ms",
          (s.get("worstTickP99Ms") or 1e9) <= 100)
    check("join: late ticks", s.get("lateTicks"), 0, "", s.get("lateTicks", 1) == 0)
    connect = join.get("connectMs", {}).get("p99")
    check("join: connect p99 (ms)", connect, 2000, "ms", (connect or 1e9) <= 2000)
    per_player = s.get("bytesPerPlayer")
    kib = round(per_player / 1024, 1) if per_player else None
    check("join: server memory per idle player (KiB)", kib, 12, "KiB", (kib or 1e9) <= 12)
    check("join: failed connects", join["failedConnects"], 0, "", join["failedConnects"] == 0)
if spread:
    s = spread.get("server") or {}
    check("spread: worst tick p99 (ms)", s.get("worstTickP99Ms"), 150, "ms",
          (s.get("worstTickP99Ms") or 1e9) <= 150)
    check("spread: late ticks", s.get("lateTicks"), 0, "", s.get("lateTicks", 1) == 0)
    connect = spread.get("connectMs", {}).get("p99")
    check("spread: connect p99 (ms)", connect, 2000, "ms", (connect or 1e9) <= 2000)
    check("spread: failed connects", spread["failedConnects"], 0, "", spread["failedConnects"] == 0)
    # The store's stalls show in the server's log before they show in a figure: an answer 5xx
    # or a pool that timed out is a failed run even when every bot got in on a retry.
    log = open(os.path.join(out, "spread-server.log"), errors="replace").read()
    stalls = len(re.findall(r"pool timed out|internal error|time to acquire exceeded", log))
    check("spread: store stalls and 5xx in the server log", stalls, 0, "", stalls == 0)
    print(f"  (spread: {spread.get('busyRetries', 0)} calls waited out a 503 server_busy)")
if wave and crowd:
    connect = wave.get("connectMs", {}).get("p99")
    check("wave: connect p99 (ms)", connect, 2000, "ms", (connect or 1e9) <= 2000)
    check("wave: failed connects", wave["failedConnects"], 0, "", wave["failedConnects"] == 0)
    s = crowd.get("server") or {}
    check("wave: the crowd's late ticks", s.get("lateTicks"), 0, "", s.get("lateTicks", 1) == 0)
    log = open(os.path.join(out, "wave-server.log"), errors="replace").read()
    stalls = len(re.findall(r"pool timed out|internal error|time to acquire exceeded", log))
    check("wave: store stalls and 5xx in the server log", stalls, 0, "", stalls == 0)
for name in ("mixed", "join", "spread", "wave"):
    path = os.path.join(out, name + "-files.tsv")
    if os.path.exists(path):
        rows = [list(map(int, line.split())) for line in open(path) if line.strip()]
        if rows:
            peak = max(rows, key=lambda r: r[2])
            print(f"  ({name}: the write-ahead log peaked at {peak[2] / 2**20:.1f} MiB at {peak[0]} s, "
                  f"{rows[-1][2] / 2**20:.1f} MiB at the end; the database {rows[-1][1] / 2**20:.1f} MiB)")
sys.exit(1 if failed else 0)
PY
