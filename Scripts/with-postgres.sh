#!/usr/bin/env bash
# Runs a command with a private PostgreSQL server: installs PostgreSQL from Debian's packages if
# it is missing, creates a cluster in a temporary directory owned by an unprivileged user, starts
# it on a loopback port, exports OPERATION_POSTGRES_URL (and PGHOST, PGPORT, PGUSER, PGDATABASE
# for psql), runs the command, and stops the cluster and removes its directory however the
# command ends.
#
#   Scripts/with-postgres.sh swift test --filter OperationPostgresTests
#
# OPERATION_POSTGRES_PORT picks the port (55432 by default).
set -euo pipefail

port="${OPERATION_POSTGRES_PORT:-55432}"

find_bin() {
  local dir
  for dir in /usr/lib/postgresql/*/bin; do
    if [[ -x "$dir/initdb" && -x "$dir/pg_ctl" ]]; then
      echo "$dir"
      return 0
    fi
  done
  return 1
}

bin="$(find_bin || true)"
if [[ -z "$bin" ]]; then
  echo "== installing PostgreSQL from Debian's packages =="
  if [[ "$(id -u)" -ne 0 ]]; then
    echo "PostgreSQL is not installed and this script is not root: run 'sudo apt-get install postgresql'." >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq postgresql >/dev/null
  bin="$(find_bin)"
fi

# NB: initdb and postgres refuse to run as root, so the cluster belongs to an unprivileged user
# (Debian's package creates `postgres`); a user who is not root runs it as themselves.
if [[ "$(id -u)" -eq 0 ]]; then
  owner=postgres
  id "$owner" >/dev/null 2>&1 || useradd --system --no-create-home "$owner"
  as_owner() { runuser -u "$owner" -- "$@"; }
else
  owner="$(id -un)"
  as_owner() { "$@"; }
fi

dir="$(mktemp -d /tmp/operation-postgres.XXXXXX)"
chmod 755 "$dir"
chown "$owner" "$dir"
data="$dir/data"

stop_cluster() {
  as_owner "$bin/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap stop_cluster EXIT

as_owner "$bin/initdb" -D "$data" -U operation --auth=trust --no-sync -E UTF8 >/dev/null
# NB: Loopback only; the socket lives in the cluster's own directory. fsync is off: the
# cluster is thrown away after the run, and the tests kill processes, not the machine.
as_owner "$bin/pg_ctl" -D "$data" -w -l "$dir/server.log" \
  -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c max_connections=300" \
  start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }

export PGHOST=127.0.0.1 PGPORT="$port" PGUSER=operation PGDATABASE=postgres
export OPERATION_POSTGRES_URL="postgres://operation@127.0.0.1:$port/postgres"
echo "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port ($dir)"

"$@"
