#!/usr/bin/env bash
# Fuzzes the live REST API against its own description: starts `wayfarer serve` (own port, temporary
# world, SQLite, rate limits off), makes a guest account with a character and the admin role, and runs
# schemathesis on the server's GET /api/openapi.json with that bearer token. Fails on any 5xx
# (`not_a_server_error`), on any response that does not match its documented schema
# (`response_schema_conformance`), and on a status or content type the document does not give for
# the operation. Bounded: a few examples per operation and an overall timeout.
#
# schemathesis comes from PyPI into a virtual environment this script creates. Without python3's
# venv or PyPI the run is skipped with the reason, except under CI=true, where that is a failure.
set -euo pipefail
# shellcheck source=../scripts/lib.sh
. "$(dirname "$0")/../scripts/lib.sh"
cd "$(dirname "$0")/.."

# Pinned so that a new release's checks cannot fail a commit that did not change.
SCHEMATHESIS_VERSION="4.32.5"
MAX_EXAMPLES="${SCHEMATHESIS_MAX_EXAMPLES:-15}"
TIME_LIMIT_SECS="${SCHEMATHESIS_TIME_LIMIT_SECS:-600}"
venv="${SCHEMATHESIS_VENV:-${TMPDIR:-/tmp}/wayfarer-schemathesis-venv}"

unavailable() {
  if [ "${CI:-}" = "true" ]; then
    echo "schemathesis: $1 (required under CI=true)" >&2
    exit 1
  fi
  echo "skipped: schemathesis: $1"
  exit 0
}

if [ ! -x "$venv/bin/schemathesis" ] \
  || [ "$("$venv/bin/schemathesis" --version 2>/dev/null | awk '{print $NF}')" != "$SCHEMATHESIS_VERSION" ]; then
  python3 -m venv "$venv" >/dev/null 2>&1 || unavailable "python3 -m venv failed (install python3-venv)"
  "$venv/bin/pip" install -q --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION" \
    || unavailable "pip could not install schemathesis==$SCHEMATHESIS_VERSION from PyPI"
fi

# `bash .ci/schemathesis.sh install` stops here (.ci/run installs it beside the Rust build).
if [ "${1:-}" = install ]; then exit 0; fi

# .ci/run passes the binary its build stage made; alone, build it.
if [ -z "${WAYFARER_BIN:-}" ]; then
  cargo build -q -p wayfarer-server --bin wayfarer
fi
bin="${WAYFARER_BIN:-${CARGO_TARGET_DIR:-target}/debug/wayfarer}"
world=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"

# Voice and the identity provider configured (with throwaway credentials and a fresh key), so their
# routes answer as in production instead of with the 503 of a server without them.
openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null | openssl ec -pubout -out "$world/idp.pem" 2>/dev/null
WORLD="$world" PORT="$port" HOST=127.0.0.1 DISABLE_RATE_LIMIT=true RUST_LOG=warn \
  VOICE_API_KEY=schemathesis VOICE_API_SECRET=schemathesis-voice-secret VOICE_URL=wss://voice.invalid \
  PUBLIC_IDP_APP_ID=schemathesis IDP_APP_SECRET=schemathesis-idp-secret IDP_VERIFICATION_KEY="$world/idp.pem" \
  "$bin" serve >"$world/server.log" 2>&1 &
server=$!
stop_server_on_exit "$server" "$world"

wait_healthy "$base" 30 || { echo "the server did not start"; cat "$world/server.log"; exit 1; }

# A guest account with a character, so the character routes answer 200 as well as their errors,
# and the admin role, so the admin routes do too. POST /api/admin/ban is left out of the run: the
# fuzzer reuses account ids it has seen and, as an admin, bans its own account, which turns every
# later request into a 403 (tests/api cover the route). POST /api/auth/logout and
# /api/admin/accounts/{id}/revoke-tokens are left out for the same reason: they revoke the fuzzer's
# own token, and every later request would be a 401 (tests/api/logout.rs covers them).
guest=$(curl -fsS -X POST -H 'Content-Type: application/json' -d '{"name":"Schemathesis"}' "$base/api/auth/guest")
token=$(printf '%s' "$guest" | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
account=$(printf '%s' "$guest" | python3 -c 'import json,sys; print(json.load(sys.stdin)["accountId"])')
curl -fsS -X POST -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
  -d '{"name":"Fuzzer"}' "$base/api/v1/player" >/dev/null
WORLD="$world" RUST_LOG=warn "$bin" admin grant-role "$account" admin >/dev/null

# One worker: with several threads, the Python 3.11 of CI machines can fail inside Hypothesis
# ("AST constructor recursion depth mismatch"), a runtime error that is no finding about the server.
echo "schemathesis $SCHEMATHESIS_VERSION against $base/api/openapi.json (at most $MAX_EXAMPLES examples an operation, ${TIME_LIMIT_SECS}s)"
set +e
# From the temporary world: schemathesis keeps a cache of its findings in its working directory.
(cd "$world" && timeout "$TIME_LIMIT_SECS" "$venv/bin/schemathesis" run "$base/api/openapi.json" \
  --checks not_a_server_error,response_schema_conformance,status_code_conformance,content_type_conformance \
  --header "Authorization: Bearer $token" \
  --exclude-path /api/admin/ban \
  --exclude-path /api/auth/logout \
  --exclude-path '/api/admin/accounts/{id}/revoke-tokens' \
  --phases examples,coverage,fuzzing \
  --max-examples "$MAX_EXAMPLES" \
  --workers 1 \
  --seed 17 \
  --generation-database none \
  --request-timeout 10 \
  --no-color)
status=$?
set -e
if [ "$status" -eq 124 ]; then
  echo "schemathesis did not finish within ${TIME_LIMIT_SECS}s" >&2
fi
if [ "$status" -ne 0 ]; then
  echo "schemathesis failed (exit $status); server log:" >&2
  tail -50 "$world/server.log" >&2
fi
exit "$status"
