#!/usr/bin/env bash
# Makes sure a PostgreSQL server is running on 127.0.0.1:5432 with a `wayfarer` role (allowed to create
# databases: every test makes its own) and a `wayfarer_test` database, then prints the TEST_DATABASE_URL.
# Idempotent: safe to run when everything is already there. Installs Debian's postgresql when missing.
set -euo pipefail

log() { echo "[postgres] $*" >&2; }

if ! ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; then
  log "installing Debian's postgresql"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq postgresql >&2
fi

if ! pg_isready -q -h 127.0.0.1 -p 5432; then
  if command -v pg_ctlcluster >/dev/null 2>&1 && [ -n "$(pg_lsclusters -h 2>/dev/null)" ]; then
    read -r ver cluster _ < <(pg_lsclusters -h | head -n 1)
    log "starting cluster $ver/$cluster"
    pg_ctlcluster "$ver" "$cluster" start >&2 || true
  else
    ver=$(ls /usr/lib/postgresql | sort -V | tail -n 1)
    log "creating cluster $ver/main"
    pg_createcluster "$ver" main --start >&2
  fi
  for _ in $(seq 1 30); do
    pg_isready -q -h 127.0.0.1 -p 5432 && break
    sleep 1
  done
fi
pg_isready -h 127.0.0.1 -p 5432 >&2

as_pg() { (cd / && runuser -u postgres -- "$@"); }
as_pg psql -q -v ON_ERROR_STOP=1 -d postgres >&2 <<'SQL'
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'wayfarer') THEN
    CREATE ROLE wayfarer LOGIN CREATEDB PASSWORD 'wayfarer';
  ELSE
    ALTER ROLE wayfarer LOGIN CREATEDB PASSWORD 'wayfarer';
  END IF;
END $$;
SQL
if ! as_pg psql -tAc "SELECT 1 FROM pg_database WHERE datname = 'wayfarer_test'" | grep -q 1; then
  as_pg createdb -O wayfarer wayfarer_test
fi
echo "postgres://wayfarer:wayfarer@127.0.0.1:5432/wayfarer_test"
