# Shared by the scripts that start a server of their own (scripts/*.sh, .ci/*.sh): source it.

# wait_healthy BASE_URL [SECONDS]: waits until BASE_URL/health answers, up to SECONDS (default
# 30); returns 1 if it never did.
wait_healthy() {
  local base=$1 tries=$((${2:-30} * 10))
  for _ in $(seq 1 "$tries"); do
    curl -fsS "$base/health" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  return 1
}

# stop_server_on_exit PID WORLD_DIR: on exit, stops the server and removes its world folder.
stop_server_on_exit() {
  # Expanded now, not at exit: the caller's variables may change or be local.
  # shellcheck disable=SC2064
  trap "kill $1 2>/dev/null || true; wait $1 2>/dev/null || true; rm -rf '$2'" EXIT
}
