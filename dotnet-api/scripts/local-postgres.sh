#!/bin/sh
# The sqlserver service's local stand-in (compose.yaml x-local): a real PostgreSQL server from the
# machine's packages, on a loopback port, with its data in the run folder. The superuser `postgres`
# gets the administrator's secret as its password, and every connection must give its password
# (scram-sha-256), so the app's least-privilege login is checked for real. It stays in the
# foreground (exec) so the runner's signals reach it: SIGTERM is PostgreSQL's own clean shutdown.
#   PGPORT, PGDATA_ROOT (the instance's data folder), RUN_DIR, POSTGRES_PASSWORD_FILE; PG_BIN optional
# PostgreSQL refuses to run as root: as root it runs as the `postgres` OS user (Debian's package
# creates it), which is given its data folder and may traverse (not read) the run folder.
set -eu

fail() {
    echo "local-postgres: $*" >&2
    exit 1
}

: "${PGPORT:?}" "${PGDATA_ROOT:?}" "${RUN_DIR:?}" "${POSTGRES_PASSWORD_FILE:?}"
bin="${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}"
[ -x "$bin/postgres" ] && [ -x "$bin/initdb" ] \
    || fail "no PostgreSQL server binaries in /usr/lib/postgresql/*/bin: run make setup (it installs Debian's postgresql), or set PG_BIN"
[ -r "$POSTGRES_PASSWORD_FILE" ] || fail "cannot read $POSTGRES_PASSWORD_FILE: run make secrets"

data="$PGDATA_ROOT/pgdata"
as_postgres=""
if [ "$(id -u)" -eq 0 ]; then
    id postgres >/dev/null 2>&1 || fail "run as root, PostgreSQL needs the postgres OS user (apt-get install postgresql creates it)"
    chmod o+x "$RUN_DIR" "$RUN_DIR/data"
    chown postgres:postgres "$PGDATA_ROOT"
    as_postgres="setpriv --reuid=postgres --regid=postgres --init-groups --"
fi

if [ ! -s "$data/PG_VERSION" ]; then
    pwfile="$PGDATA_ROOT/initdb-password"
    (umask 077 && cat "$POSTGRES_PASSWORD_FILE" > "$pwfile")
    [ -z "$as_postgres" ] || chown postgres "$pwfile"
    if ! $as_postgres "$bin/initdb" -D "$data" -U postgres --pwfile="$pwfile" -A scram-sha-256 -E UTF8 --no-sync \
        > "$PGDATA_ROOT/initdb.log" 2>&1; then
        rm -f "$pwfile"
        fail "initdb failed: $(tail -n 1 "$PGDATA_ROOT/initdb.log")"
    fi
    rm -f "$pwfile"
fi

# TCP on loopback only, no Unix socket; enough connections for several replicas' pools.
exec $as_postgres "$bin/postgres" -D "$data" -p "$PGPORT" -c listen_addresses=127.0.0.1 \
    -c unix_socket_directories= -c max_connections=200
