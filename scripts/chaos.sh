#!/usr/bin/env bash
# The chaos run for long runs (docs/operations.md, "The chaos run"):
#
#   scripts/chaos.sh MINUTES KILLS
#
# Builds the release binaries (or takes the server's from BIN=), then plays the whole economy with
# 12 players for MINUTES while killing the server with SIGKILL KILLS times at random moments and
# restarting it on the same world. SQLite in a fresh world folder by default; PostgreSQL with
# DATABASE_URL (an empty database of its own: the run's books are that database's). Prints the
# seed, each kill's checks and a summary; exits non-zero on any imbalance. SEED= replays a run's
# choices, PLAYERS= changes the count, WORLD= keeps the world folder.
set -euo pipefail

minutes="${1:?usage: scripts/chaos.sh MINUTES KILLS}"
kills="${2:?usage: scripts/chaos.sh MINUTES KILLS}"
cd "$(dirname "$0")/.."

if [[ -n "${BIN:-}" ]]; then
  # Absolute: the server runs in its world folder.
  server="$(realpath "$BIN")"
  chaos="$(dirname "$server")/wayfarer-chaos"
  if [[ ! -x "$chaos" ]]; then
    cargo build --release -p wayfarer-bench --bin wayfarer-chaos
    chaos="target/release/wayfarer-chaos"
  fi
else
  cargo build --release -p wayfarer-server --bin wayfarer -p wayfarer-bench --bin wayfarer-chaos
  server="$PWD/target/release/wayfarer"
  chaos="target/release/wayfarer-chaos"
fi

args=(--bin "$server" --minutes "$minutes" --kills "$kills")
[[ -n "${SEED:-}" ]] && args+=(--seed "$SEED")
[[ -n "${PLAYERS:-}" ]] && args+=(--players "$PLAYERS")
[[ -n "${WORLD:-}" ]] && args+=(--world "$WORLD")
# DATABASE_URL, when set, is read by wayfarer-chaos itself and handed to the server.
exec "$chaos" "${args[@]}"
