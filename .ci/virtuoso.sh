#!/usr/bin/env bash
# Loopback Virtuoso SPARQL server for kgground's tests.
#
#   bash .ci/virtuoso.sh start DATA_DIR NT_FILE [GRAPH_IRI]   # fresh DB, NT_FILE (.nt or .nt.gz) loaded
#   bash .ci/virtuoso.sh stop DATA_DIR
#
# start writes DATA_DIR/env (KGGROUND_VIRTUOSO_URL=..., KGGROUND_VIRTUOSO_GRAPH=...) for `source`.
# Ports: VIRTUOSO_SQL_PORT (default 11111), VIRTUOSO_HTTP_PORT (default 18890); both bound to 127.0.0.1.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SQL_PORT="${VIRTUOSO_SQL_PORT:-11111}"
HTTP_PORT="${VIRTUOSO_HTTP_PORT:-18890}"
TIMEOUT=120
# files this script creates in DATA_DIR (a restart removes exactly these)
DB_FILES=(virtuoso.db virtuoso.log virtuoso.lck virtuoso.trx virtuoso.pxa virtuoso-temp.db virtuoso-temp.log
  virtuoso-temp.lck virtuoso-temp.trx virtuoso-temp.pxa virtuoso.ini virtuoso.out virtuoso.pid env)

say() { echo "virtuoso.sh: $*" >&2; }
die() { say "error: $*"; exit 1; }
usage() { die "usage: $0 start DATA_DIR NT_FILE [GRAPH_IRI] | stop DATA_DIR"; }

install_virtuoso() {
  command -v virtuoso-t >/dev/null && command -v isql-vt >/dev/null && command -v curl >/dev/null && return
  [ "$(id -u)" = 0 ] || die "virtuoso-t/isql-vt/curl missing and not root: apt-get install virtuoso-opensource curl"
  say "installing virtuoso-opensource with apt-get"
  # Empty DBA password: no debconf prompt; the packaged instance stays disabled.
  printf '%s\n' 'virtuoso-opensource-7 virtuoso-opensource-7/dba-password password' \
    'virtuoso-opensource-7 virtuoso-opensource-7/dba-password-again password' | debconf-set-selections
  # Keep the postinst from starting the packaged service on 1111/8890.
  local added_policy=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && added_policy=1
  fi
  local rc=0 pkgs=(virtuoso-opensource)
  command -v curl >/dev/null || pkgs+=(curl)
  { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${pkgs[@]}"; } </dev/null >&2 || rc=$?
  [ -n "$added_policy" ] && rm -f /usr/sbin/policy-rc.d
  [ "$rc" = 0 ] || die "apt-get install virtuoso-opensource failed (exit $rc)"
  command -v virtuoso-t >/dev/null || die "virtuoso-t still not on PATH after install"
}

# pid from DATA_DIR/virtuoso.pid if that process is still our virtuoso-t, else empty
our_pid() {
  local pid; pid="$(cat "$1/virtuoso.pid" 2>/dev/null || true)"
  [ -n "$pid" ] && tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF "virtuoso-t +configfile $1/virtuoso.ini" \
    && echo "$pid" || true
}

stop_server() {
  local dir="$1" pid
  pid="$(our_pid "$dir")"
  if [ -z "$pid" ]; then say "no server running for $dir"; rm -f "$dir/virtuoso.pid"; return; fi
  say "stopping virtuoso-t (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  if kill -0 "$pid" 2>/dev/null; then say "still alive after 30 s, sending KILL"; kill -KILL "$pid"; sleep 1; fi
  rm -f "$dir/virtuoso.pid"
  say "stopped"
}

sparql() {  # sparql QUERY [ACCEPT] -> response body on stdout
  curl -sS --fail --max-time 60 -H "Accept: ${2:-text/csv}" --data-urlencode "query=$1" \
    "http://127.0.0.1:$HTTP_PORT/sparql"
}

isql() { isql-vt "127.0.0.1:$SQL_PORT" dba dba VERBOSE=OFF BANNER=OFF PROMPT=OFF ECHO=OFF ERRORS=STDOUT exec="$1" </dev/null; }

start_server() {
  local dir="$1" nt="$2" graph="$3"
  [ -f "$nt" ] || die "N-Triples file not found: $nt"
  case "$nt" in *.nt|*.nt.gz) ;; *) die "expected a .nt or .nt.gz file, got: $nt" ;; esac
  [[ "$SQL_PORT" =~ ^[0-9]{2,5}$ && "$HTTP_PORT" =~ ^[0-9]{2,5}$ ]] || die "VIRTUOSO_SQL_PORT/VIRTUOSO_HTTP_PORT must be port numbers"
  [[ "$graph" =~ ^[a-zA-Z][a-zA-Z0-9+.-]*:[^[:space:]\<\>\"\'{}|\\^\`]+$ ]] || die "not an absolute IRI: $graph"
  install_virtuoso

  case "$dir" in /*) ;; *) dir="$PWD/$dir" ;; esac
  local load_dir load_file
  load_dir="$(cd "$(dirname "$nt")" && pwd -P)"
  load_file="$(basename "$nt")"
  [[ "$dir$load_dir$load_file" != *[\',\|\&]* ]] || die "DATA_DIR and NT_FILE paths may not contain ' , | &"
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"

  stop_server "$dir"   # a server from an earlier start in this DATA_DIR
  for f in "${DB_FILES[@]}"; do rm -f "$dir/$f"; done
  for port in "$SQL_PORT" "$HTTP_PORT"; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      die "port $port on 127.0.0.1 is already in use; set VIRTUOSO_SQL_PORT/VIRTUOSO_HTTP_PORT"
    fi
  done

  sed -e "s|@DATA_DIR@|$dir|g" -e "s|@LOAD_DIR@|$load_dir|g" \
      -e "s|@SQL_PORT@|$SQL_PORT|g" -e "s|@HTTP_PORT@|$HTTP_PORT|g" \
      "$HERE/virtuoso.ini" > "$dir/virtuoso.ini"

  local t0=$SECONDS pid
  (cd "$dir" && exec nohup virtuoso-t +configfile "$dir/virtuoso.ini" +foreground </dev/null >"$dir/virtuoso.out" 2>&1) &
  pid=$!
  echo "$pid" > "$dir/virtuoso.pid"
  say "virtuoso-t pid $pid, SQL 127.0.0.1:$SQL_PORT, HTTP 127.0.0.1:$HTTP_PORT, log $dir/virtuoso.log"

  until curl -sf --max-time 5 -o /dev/null "http://127.0.0.1:$HTTP_PORT/sparql?query=ASK%7B%7D"; do
    if ! kill -0 "$pid" 2>/dev/null || (( SECONDS - t0 > TIMEOUT )); then
      kill -0 "$pid" 2>/dev/null && { kill -KILL "$pid"; msg="no answer from /sparql within ${TIMEOUT}s"; } \
        || msg="virtuoso-t exited"
      say "last lines of $dir/virtuoso.log and virtuoso.out:"
      tail -n 25 "$dir/virtuoso.log" "$dir/virtuoso.out" >&2 2>/dev/null || true
      rm -f "$dir/virtuoso.pid"
      die "$msg"
    fi
    sleep 1
  done
  say "endpoint up after $((SECONDS - t0)) s; loading $nt into <$graph>"

  # from here on, a failure stops the server before exiting
  local t1=$SECONDS out=""
  out="$(isql "ld_dir('$load_dir', '$load_file', '$graph'); rdf_loader_run(); checkpoint;
    SELECT 'LOADERR', ll_file, ll_error FROM DB.DBA.LOAD_LIST WHERE ll_error IS NOT NULL;" 2>&1)" \
    || { stop_server "$dir"; die "isql-vt failed: $out"; }
  # isql-vt exits 0 even when a statement fails, hence the grep
  if grep -q -e LOADERR -e '\*\*\* Error' <<<"$out"; then stop_server "$dir"; die "bulk load failed: $out"; fi

  local n
  n="$(sparql "SELECT (COUNT(*) AS ?n) WHERE { GRAPH <$graph> { ?s ?p ?o } }" | tail -n 1 | tr -d '"\r')" || n=""
  [[ "$n" =~ ^[0-9]+$ && "$n" -gt 0 ]] || { stop_server "$dir"; die "graph <$graph> is empty after loading $nt (count: '$n')"; }
  say "loaded $n triples in $((SECONDS - t1)) s (total start $((SECONDS - t0)) s)"

  printf 'KGGROUND_VIRTUOSO_URL=%s\nKGGROUND_VIRTUOSO_GRAPH=%s\nKGGROUND_VIRTUOSO_TRIPLES=%s\n' \
    "http://127.0.0.1:$HTTP_PORT/sparql" "$graph" "$n" | tee "$dir/env"
}

case "${1:-}" in
  start) [ $# -ge 3 ] && [ $# -le 4 ] || usage; start_server "$2" "$3" "${4:-http://kgground.test/slice}" ;;
  stop)  [ $# -eq 2 ] || usage; stop_server "$(cd "$2" 2>/dev/null && pwd || echo "$2")" ;;
  *) usage ;;
esac
