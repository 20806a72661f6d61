#!/usr/bin/env bash
# The official postgres image's entrypoint contract: on an empty $PGDATA, initdb with
# POSTGRES_USER (postgres) and POSTGRES_PASSWORD (or POSTGRES_PASSWORD_FILE), create POSTGRES_DB,
# run /docker-entrypoint-initdb.d/*.sh and *.sql against a server on its Unix socket only, then
# start the server for the network as the postgres user. Other commands run as they are.
set -Eeuo pipefail

file_env() { # VAR or VAR_FILE, not both
  local var=$1 file_var="${1}_FILE" default=${2:-}
  if [ -n "${!var:-}" ] && [ -n "${!file_var:-}" ]; then echo "error: both $var and $file_var are set" >&2; exit 1; fi
  local value=$default
  if [ -n "${!var:-}" ]; then value=${!var}; elif [ -n "${!file_var:-}" ]; then value=$(< "${!file_var}"); fi
  export "$var"="$value"; unset "$file_var"
}

if [ "${1:0:1}" = '-' ]; then set -- postgres "$@"; fi

if [ "$1" = postgres ] && [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" && chmod 00700 "$PGDATA" && chown -R postgres:postgres "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi

if [ "$1" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
  file_env POSTGRES_PASSWORD
  file_env POSTGRES_USER postgres
  file_env POSTGRES_DB "$POSTGRES_USER"
  file_env POSTGRES_INITDB_ARGS
  auth=${POSTGRES_HOST_AUTH_METHOD:-scram-sha-256}
  if [ -z "${POSTGRES_PASSWORD:-}" ] && [ "$auth" != trust ]; then
    echo "error: database is uninitialized and superuser password is not specified (POSTGRES_PASSWORD or POSTGRES_PASSWORD_FILE)" >&2
    exit 1
  fi
  initdb --username="$POSTGRES_USER" --pwfile=<(printf '%s\n' "${POSTGRES_PASSWORD:-}") $POSTGRES_INITDB_ARGS
  printf '\nhost all all all %s\n' "$auth" >> "$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -p 5432" -w start
  export PGPASSWORD="${POSTGRES_PASSWORD:-}"
  psql=(psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --no-password --no-psqlrc)
  if [ "$POSTGRES_DB" != postgres ]; then
    "${psql[@]}" --dbname postgres --set db="$POSTGRES_DB" <<<'CREATE DATABASE :"db" ;'
  fi
  psql+=(--dbname "$POSTGRES_DB")
  for f in /docker-entrypoint-initdb.d/*; do
    case "$f" in
      *.sh) if [ -x "$f" ]; then echo "$0: running $f"; "$f"; else echo "$0: sourcing $f"; . "$f"; fi ;;
      *.sql) echo "$0: running $f"; "${psql[@]}" -f "$f" ;;
      *.sql.gz) echo "$0: running $f"; gunzip -c "$f" | "${psql[@]}" ;;
      *) [ -e "$f" ] && echo "$0: ignoring $f" ;;
    esac
  done
  unset PGPASSWORD
  pg_ctl -D "$PGDATA" -m fast -w stop
  echo "$0: PostgreSQL init process complete; ready for start up."
fi

if [ "$1" = postgres ]; then set -- "$@" -c listen_addresses='*'; fi
exec "$@"
