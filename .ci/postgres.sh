#!/usr/bin/env bash
# Loopback PostgreSQL server for kgground's tests (mirrors in PostgreSQL).
#
#   bash .ci/postgres.sh start DATA_DIR   # a fresh cluster in DATA_DIR, on 127.0.0.1 only
#   bash .ci/postgres.sh stop DATA_DIR
#
# start writes DATA_DIR/env (KGGROUND_POSTGRES_URL=postgresql://postgres@127.0.0.1:PORT/postgres)
# for `source`; tests create and drop their own databases on that server.
# Port: POSTGRES_PORT (default 15432). Trust authentication: loopback and tests only.
set -euo pipefail

PORT="${POSTGRES_PORT:-15432}"

say() { echo "postgres.sh: $*" >&2; }
die() { say "error: $*"; exit 1; }
usage() { die "usage: $0 start DATA_DIR | stop DATA_DIR"; }

bindir() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }

install_postgres() {
  [ -n "$(bindir)" ] && return
  [ "$(id -u)" = 0 ] || die "PostgreSQL is missing and this is not root: apt-get install postgresql"
  say "installing postgresql with apt-get"
  # Keep the postinst from starting the packaged cluster on 5432.
  local added_policy=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && added_policy=1
  fi
  local rc=0
  { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql; } </dev/null >&2 || rc=$?
  [ -n "$added_policy" ] && rm -f /usr/sbin/policy-rc.d
  [ "$rc" = 0 ] || die "apt-get install postgresql failed (exit $rc)"
  [ -n "$(bindir)" ] || die "no /usr/lib/postgresql/*/bin after the install"
}

# PostgreSQL refuses to run as root: as root, run its tools as the postgres user.
as_owner() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

start_server() {
  local dir="$1" bin
  install_postgres
  bin="$(bindir)"
  mkdir -p "$dir"
  [ "$(id -u)" = 0 ] && chown postgres "$dir"
  if [ -f "$dir/data/postmaster.pid" ]; then
    say "a server already runs from $dir; stopping it first"
    as_owner "$bin/pg_ctl" -D "$dir/data" -m fast stop >/dev/null || true
  fi
  rm -rf "$dir/data"
  as_owner "$bin/initdb" -D "$dir/data" -A trust -U postgres >"$dir/initdb.log" 2>&1 \
    || die "initdb failed; see $dir/initdb.log"
  as_owner "$bin/pg_ctl" -D "$dir/data" -w -t 60 -l "$dir/server.log" \
    -o "-p $PORT -k $dir -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null \
    || die "the server did not start (is port $PORT taken? set POSTGRES_PORT); see $dir/server.log"
  echo "KGGROUND_POSTGRES_URL=postgresql://postgres@127.0.0.1:$PORT/postgres" > "$dir/env"
  say "running on 127.0.0.1:$PORT ($dir/env)"
}

stop_server() {
  local dir="$1" bin
  bin="$(bindir)"
  if [ -z "$bin" ] || [ ! -f "$dir/data/postmaster.pid" ]; then say "no server running for $dir"; return; fi
  as_owner "$bin/pg_ctl" -D "$dir/data" -m fast stop >/dev/null
  say "stopped"
}

[ $# -eq 2 ] || usage
case "$1" in
  start) start_server "$(cd "$2" 2>/dev/null && pwd || echo "$2")" ;;
  stop) stop_server "$(cd "$2" 2>/dev/null && pwd || echo "$2")" ;;
  *) usage ;;
esac
