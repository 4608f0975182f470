#!/usr/bin/env python3
"""Start to ready: spawn `wayfarer serve` on a fresh world directory (new SQLite file, migrations,
bundled content, world generation) and poll /health every 2 ms until it answers 200.

Usage: python3 scripts/start_to_ready.py target/release/wayfarer [runs]
Prints each run's milliseconds and the median (BENCHMARKS.md, "Start to ready")."""

import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request


def one_run(binary: str, port: int) -> float:
    with tempfile.TemporaryDirectory() as world:
        env = dict(os.environ, PORT=str(port), WORLD=world, RUST_LOG="warn")
        started = time.perf_counter()
        server = subprocess.Popen([binary, "serve"], env=env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        try:
            while True:
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1) as r:
                        if r.status == 200:
                            return (time.perf_counter() - started) * 1000
                except OSError:
                    pass
                if server.poll() is not None:
                    raise SystemExit(f"the server exited with {server.returncode}")
                if time.perf_counter() - started > 30:
                    raise SystemExit("not ready within 30 s")
                time.sleep(0.002)
        finally:
            server.terminate()
            server.wait()


def main() -> None:
    binary = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    times = [one_run(binary, 5690 + i) for i in range(runs)]
    print(" ".join(f"{t:.0f}" for t in times), f"median {statistics.median(times):.0f} ms")


if __name__ == "__main__":
    main()
