#!/usr/bin/env bash
# The soak (issue 50 item 7): 2,000 `mixed` players for MINUTES (default 60) against one release
# server, its resident memory sampled every 30 s, checked at the end: RSS growth after the first
# 10 minutes <= 5 %, 0 late ticks. A leak that a 5-minute run hides shows here.
#
#   scripts/soak.sh [MINUTES]        BIN=dir to use dir/wayfarer and dir/wayfarer-load
#
# Writes its reports into a fresh temporary folder (printed): load.json, rss.tsv (seconds, RSS KiB,
# the allocator's live and free KiB from /status's heapInUseBytes/heapFreeBytes): live memory
# growing is a leak, free memory growing is the allocator's slack.
# Growth compares the median of the first five samples after the settling time with the median of
# the last five, so one sample taken mid-burst does not decide it.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
minutes=${1:-60}
port=${PORT:-5631}
key=soak
if [ -z "${BIN:-}" ]; then
  cargo build --release -q --bin wayfarer --bin wayfarer-load
  BIN=target/release
fi
out=$(mktemp -d)
echo "reports in $out"
mkdir -p "$out/world"
PORT=$port WORLD=$out/world LOAD_TEST_KEY=$key RUST_LOG=warn "$BIN/wayfarer" serve >"$out/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; kill $sampler 2>/dev/null || true' EXIT
wait_healthy "http://127.0.0.1:$port" 30
started=$SECONDS
(
  while kill -0 "$server" 2>/dev/null; do
    rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$server/status" 2>/dev/null || true)
    heap=$(curl -fsS "http://127.0.0.1:$port/status" 2>/dev/null |
      python3 -c 'import json,sys; s=json.load(sys.stdin); p=s.get("process") or s
print(int(p.get("heapInUseBytes",0))//1024, int(p.get("heapFreeBytes",0))//1024)' 2>/dev/null || echo "0 0")
    [ -n "$rss" ] && printf '%d\t%s\t%s\n' $((SECONDS - started)) "$rss" "${heap/ /$'\t'}" >>"$out/rss.tsv"
    sleep 30
  done
) &
sampler=$!
"$BIN/wayfarer-load" --url "http://127.0.0.1:$port" --key "$key" --json "$out/load.json" \
  --bots 2000 --seconds $((minutes * 60)) --ramp 40 --scenario mixed >"$out/load.log" 2>&1 || {
  echo "the load run failed (see $out/load.log)"
  exit 2
}
python3 - "$out" "$minutes" <<'PY'
import json, sys
out, minutes = sys.argv[1], int(sys.argv[2])
report = json.load(open(f"{out}/load.json"))
import statistics
rows = [tuple(map(int, line.split())) for line in open(f"{out}/rss.tsv")]
settle = min(600, minutes * 60 // 6)
after = [r for r in rows if r[0] >= settle]
def growth_of(col):
    first = statistics.median(r[col] for r in after[:5])
    last = statistics.median(r[col] for r in after[-5:])
    return first, last, (100.0 * (last - first) / first if first else 0.0)
base, last, growth = growth_of(1)
peak = max(r[1] for r in after)
server = report.get("server") or {}
late = server.get("lateTicks")
print(f"{report['connected']} connected, {report['failedConnects']} failed, {report['disconnects']} disconnected, "
      f"{report['errors']} errors")
print(f"RSS at {settle} s {base / 1024:.1f} MiB, at the end {last / 1024:.1f} MiB, peak {peak / 1024:.1f} MiB: "
      f"growth {growth:+.2f} % (target <= 5 %)")
if len(after[0]) >= 4:
    for name, col in (("live heap", 2), ("free heap", 3)):
        a, b, g = growth_of(col)
        print(f"{name}: {a / 1024:.1f} MiB -> {b / 1024:.1f} MiB ({g:+.2f} %)")
print(f"late ticks {late} (target 0); tick p99 at the peak {server.get('atPeak', {}).get('tickP99Ms')} ms, "
      f"worst p99 {server.get('worstTickP99Ms')} ms")
sys.exit(0 if growth <= 5.0 and late == 0 else 1)
PY
