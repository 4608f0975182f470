#!/usr/bin/env python3
"""Embedded agents' cost (BENCHMARKS.md, "Embedded agents"): tick percentiles and memory per agent
with N built-in-planner agents inside one server at the real tick.

Usage: python3 scripts/embedded_agents.py target/release/wayfarer N SECONDS [PORT]

Runs the server twice on fresh temporary worlds (SQLite, bundled content, WORLD_SEED=1,
TICK_MS=600): once empty (the baseline: the same duration, capped at 60 s) and once with
EMBEDDED_AGENTS=N. Each run waits until /status answers (and, with agents, until N players are
online), then samples /status every 5 s for SECONDS. Prints per run: players, tick p50/p95/p99
(the server's own window: the last 1,000 ticks, so for a pure steady-state p99 give SECONDS >= 600),
the worst p99 seen, late ticks, and RSS (mean and max of the samples, and the mean of their last
tenth); then RSS per agent = (mean RSS with N - mean RSS empty) / N, and the same at the end. Exits non-zero if the agents never all get in.
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

SAMPLE_EVERY_S = 5


def status(port: int):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/status", timeout=5) as r:
            return json.load(r)
    except (OSError, ValueError):
        return None


def wait_for(what: str, limit_s: float, check):
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.5)
    raise SystemExit(f"error: {what} not within {limit_s:.0f} s")


def run(binary: str, agents: int, seconds: int, port: int) -> dict:
    with tempfile.TemporaryDirectory() as world:
        env = dict(
            os.environ,
            PORT=str(port),
            HOST="127.0.0.1",
            WORLD=world,
            WORLD_SEED="1",
            TICK_MS="600",
            EMBEDDED_AGENTS=str(agents),
            RUST_LOG=os.environ.get("RUST_LOG", "info,sqlx=warn"),
        )
        log_path = os.path.join(world, "server.log")
        with open(log_path, "w") as log:
            server = subprocess.Popen([binary, "serve"], env=env, stdout=log, stderr=log)
        try:
            started = time.monotonic()
            wait_for("/status", 60, lambda: status(port))
            # 20 agents start per tick (0.6 s): N/33 s, plus entering and a margin.
            in_limit = 60 + agents * 0.6 / 20 * 2
            wait_for(
                f"{agents} players online",
                in_limit,
                lambda: (s := status(port)) and s["playersOnline"] >= agents,
            )
            ramp_s = time.monotonic() - started
            samples = []
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                time.sleep(SAMPLE_EVERY_S)
                s = status(port)
                if s:
                    samples.append(s)
            if not samples:
                raise SystemExit("error: /status never answered while sampling")
            last = samples[-1]
            rss = [s["process"]["rssBytes"] for s in samples if s.get("process")]
            return {
                "agents": agents,
                "ready_s": round(ramp_s, 1),
                "players_min": min(s["playersOnline"] for s in samples),
                "tick_p50_ms": last["tick"]["p50Ms"],
                "tick_p95_ms": last["tick"]["p95Ms"],
                "tick_p99_ms": last["tick"]["p99Ms"],
                "tick_p99_worst_ms": max(s["tick"]["p99Ms"] for s in samples),
                "late_ticks": last["tick"]["lateTicks"],
                "cpu_percent": last.get("process", {}).get("cpuPercent"),
                "rss_mean_bytes": statistics.mean(rss) if rss else 0,
                "rss_max_bytes": max(rss) if rss else 0,
                # Mean of the last tenth of the samples: whether memory still grew at the end.
                "rss_end_bytes": statistics.mean(rss[-max(1, len(rss) // 10):]) if rss else 0,
            }
        except SystemExit:
            with open(log_path) as log:
                sys.stderr.write("".join(log.readlines()[-20:]))
            raise
        finally:
            server.terminate()
            try:
                server.wait(timeout=60)
            except subprocess.TimeoutExpired:
                server.kill()


def main():
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    binary, agents, seconds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    port = int(sys.argv[4]) if len(sys.argv) > 4 else 5599
    if agents < 1:
        raise SystemExit("error: N must be at least 1")
    empty = run(binary, 0, min(seconds, 60), port)
    loaded = run(binary, agents, seconds, port)
    mib = 1024 * 1024
    for r in (empty, loaded):
        cpu = "?" if r["cpu_percent"] is None else f"{r['cpu_percent']:.0f}%"
        print(
            f"agents={r['agents']:>5} ready={r['ready_s']}s players(min)={r['players_min']} "
            f"tick p50/p95/p99={r['tick_p50_ms']:.2f}/{r['tick_p95_ms']:.2f}/{r['tick_p99_ms']:.2f} ms "
            f"(worst p99 {r['tick_p99_worst_ms']:.2f}) late={r['late_ticks']} cpu={cpu} "
            f"rss mean/max/end={r['rss_mean_bytes'] / mib:.1f}/{r['rss_max_bytes'] / mib:.1f}/"
            f"{r['rss_end_bytes'] / mib:.1f} MiB"
        )
    per_agent = (loaded["rss_mean_bytes"] - empty["rss_mean_bytes"]) / agents
    print(f"RSS per agent: {per_agent / 1024:.1f} KiB ((mean RSS at {agents} - empty) / {agents})")
    at_end = (loaded["rss_end_bytes"] - empty["rss_mean_bytes"]) / agents
    print(f"RSS per agent at the end: {at_end / 1024:.1f} KiB (the last tenth of the samples)")
    print(f"tick p99 at {agents} agents: {loaded['tick_p99_ms']:.2f} ms")


if __name__ == "__main__":
    main()
