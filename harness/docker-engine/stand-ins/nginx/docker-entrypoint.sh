#!/bin/sh
# The official nginx image's entrypoint contract, as the samples use it: when the command is nginx,
# each /docker-entrypoint.d file runs in name order, *.envsh sourced (it may export variables) and
# *.sh run, only when executable; any failure stops the container.
set -e
say() { [ -n "${NGINX_ENTRYPOINT_QUIET_LOGS:-}" ] || echo "$0: $*" >&2; }

if [ "$1" = nginx ] || [ "$1" = nginx-debug ]; then
  for f in $(find /docker-entrypoint.d/ -follow -type f | sort); do
    case "$f" in
      *.envsh) if [ -x "$f" ]; then say "Sourcing $f"; . "$f"; else say "Ignoring $f, not executable"; fi ;;
      *.sh) if [ -x "$f" ]; then say "Launching $f"; "$f"; else say "Ignoring $f, not executable"; fi ;;
      *) say "Ignoring $f" ;;
    esac
  done
  say "Configuration complete; ready for start up"
fi
exec "$@"
