#!/usr/bin/env bash
# Runs a command (default: `npm test`) with MONGODB_URL pointing at a private FerretDB, so that every MongoDB leg
# of the tests runs: `npm run test:mongo` for developers, `.ci/run` in CI.
#
# - MONGODB_URL already set (a real MongoDB, say): the command runs against it; no FerretDB is started.
# - FerretDB is built once per machine from the Go module proxy and kept outside the repository
#   ($WATCHCAT_CACHE, default ~/.cache/watchcat); later runs skip the build.
# - No FerretDB binary and no Go toolchain: the command runs without MONGODB_URL and each MongoDB suite prints
#   what it skipped; under CI=true, which promises the MongoDB legs, it fails at once instead, saying why.
# FerretDB listens on a free loopback port, keeps its SQLite files in a fresh directory, sends no telemetry, and
# is stopped (its directory removed) when the command ends, whatever the outcome.
# - FERRETDB_BACKEND=postgresql: FerretDB's default backend instead, a fresh database (dropped at the end) on the
#   PostgreSQL server at FERRETDB_POSTGRESQL_SERVER (default postgres://postgres@127.0.0.1:5432, this machine's).
#   Its filters are handed to PostgreSQL; SQLite's judge every field but `_id` in FerretDB (bench/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
(($# > 0)) || set -- npm test

FERRETDB_VERSION=v1.24.2
cache="${WATCHCAT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/watchcat}"
ferretdb="$cache/ferretdb-$FERRETDB_VERSION/ferretdb"

if [ -n "${MONGODB_URL:-}" ]; then
  echo "with-ferretdb: MONGODB_URL is set; the MongoDB legs run against it, no FerretDB started"
  exec "$@"
fi

go_tool="$(command -v go || true)"
[ -n "$go_tool" ] || [ ! -x /usr/local/go/bin/go ] || go_tool=/usr/local/go/bin/go

if [ ! -x "$ferretdb" ]; then
  if [ -z "$go_tool" ]; then
    if [ "${CI:-}" = true ]; then
      echo "with-ferretdb: CI=true and the MongoDB legs cannot run: no FerretDB at $ferretdb and no Go toolchain to build it" >&2
      exit 1
    fi
    echo "with-ferretdb: no FerretDB at $ferretdb and no Go toolchain to build it:"
    echo "with-ferretdb: the MongoDB legs are SKIPPED (each MongoDB suite says so below)"
    exec "$@"
  fi
  echo "with-ferretdb: building FerretDB $FERRETDB_VERSION with $go_tool (once per machine, a few minutes)"
  # Built from the module's sources with the version file FerretDB's release build generates, not with `go install ...@version`: that one
  # also asks the proxy for the module's version list (some proxies refuse it), and its binary panics at start
  # because the module lacks the generated build/version/version.txt, written here.
  export GOTOOLCHAIN=local
  sources="$("$go_tool" mod download -json "github.com/FerretDB/FerretDB@$FERRETDB_VERSION" | node -e \
    'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.parse(s).Dir))')"
  build="$(mktemp -d)"
  trap 'rm -rf "$build"' EXIT
  cp -r "$sources/." "$build"
  chmod -R u+w "$build"
  echo "$FERRETDB_VERSION" >"$build/build/version/version.txt"
  mkdir -p "$(dirname "$ferretdb")"
  (cd "$build" && "$go_tool" build -o "$ferretdb.partial" ./cmd/ferretdb)
  mv "$ferretdb.partial" "$ferretdb"
  rm -rf "$build"
  trap - EXIT
fi

state="$(mktemp -d "${TMPDIR:-/tmp}/watchcat-ferretdb.XXXXXX")"
pid=""
backend="${FERRETDB_BACKEND:-sqlite}"
postgresql_server="${FERRETDB_POSTGRESQL_SERVER:-postgres://postgres@127.0.0.1:5432}"
database=""
stop_ferretdb() {
  if [ -n "$pid" ]; then
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  if [ -n "$database" ]; then dropdb --if-exists --maintenance-db="$postgresql_server/postgres" "$database" || true; fi
  rm -rf "$state"
}
trap stop_ferretdb EXIT

case "$backend" in
  sqlite) storage=(--handler=sqlite --sqlite-url="file:$state/") where="SQLite files in $state" ;;
  postgresql)
    database="watchcat_ferretdb_$$_$RANDOM"
    createdb --maintenance-db="$postgresql_server/postgres" "$database"
    storage=(--handler=postgresql --postgresql-url="$postgresql_server/$database")
    where="PostgreSQL database $database"
    ;;
  *) echo "with-ferretdb: FERRETDB_BACKEND must be sqlite or postgresql, not '$backend'" >&2; exit 2 ;;
esac

free_port() {
  node -e "const s = require('node:net').createServer().listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close(); })"
}

# A port picked free can be taken before FerretDB binds it: try again on another.
for attempt in 1 2 3; do
  port="$(free_port)"
  "$ferretdb" "${storage[@]}" --state-dir="$state" \
    --listen-addr="127.0.0.1:$port" --debug-addr=- --telemetry=disable --log-level=warn >"$state/ferretdb.log" 2>&1 &
  pid=$!
  if MONGODB_URL="mongodb://127.0.0.1:$port/" node --import tsx scripts/wait-for-mongodb.ts; then break; fi
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  pid=""
  if ((attempt == 3)); then
    echo "with-ferretdb: FerretDB did not start; its log:"
    cat "$state/ferretdb.log"
    exit 1
  fi
done

export MONGODB_URL="mongodb://127.0.0.1:$port/"
echo "with-ferretdb: FerretDB $FERRETDB_VERSION on $MONGODB_URL ($where); the MongoDB legs run against it"
status=0
"$@" || status=$?
# A failed run says whether FerretDB outlived it, and what it logged (its directory goes with it): a MongoDB leg's
# ECONNREFUSED is then told apart from a failure of the code under test.
if ((status != 0)); then
  if kill -0 "$pid" 2>/dev/null; then
    echo "with-ferretdb: the command failed (exit $status); FerretDB was still running"
  else
    wait "$pid" 2>/dev/null && ended=0 || ended=$?
    pid=""
    echo "with-ferretdb: the command failed (exit $status); FerretDB had stopped during it (exit $ended)"
  fi
  # A crash of the Go runtime begins with what it was (panic, fatal error, signal), then lists every goroutine.
  echo "with-ferretdb: FerretDB's log, its first crash report if any, else its end:"
  crash="$(grep -n -m1 -E '^(panic|fatal error|unexpected fault|SIGSEGV|SIGBUS)' "$state/ferretdb.log" | cut -d: -f1 || true)"
  if [ -n "$crash" ]; then sed -n "${crash},$((crash + 40))p" "$state/ferretdb.log"; else tail -n 40 "$state/ferretdb.log" || true; fi
fi
exit "$status"
