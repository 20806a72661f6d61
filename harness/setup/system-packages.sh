#!/usr/bin/env bash
# Installs the Debian packages that local runs, tests and the benchmark need. Idempotent: does
# nothing when they are all there. Says what to do where it can't install (not root, not Debian).
set -euo pipefail

need=()
have() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ]; }
have nginx          || need+=(nginx)
have wrk            || need+=(wrk)
have mmdebstrap     || need+=(mmdebstrap) # root filesystems of the Docker tests' stand-in images
have sqlite3        || need+=(sqlite3)
have haproxy        || need+=(haproxy)
# The samples' metrics profile on the processes engine (COMPOSE_PROFILES=metrics make up).
have prometheus     || need+=(prometheus)
have prometheus-nginx-exporter || need+=(prometheus-nginx-exporter)
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || need+=(postgresql)
compgen -G "/usr/lib/*/libatomic.so.1" >/dev/null || need+=(libatomic1) # Node 26 from npm links it
here=$(dirname "$0")
if [ ${#need[@]} -eq 0 ]; then exec "$here/docker-engine.sh"; fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup: missing ${need[*]} and this is not a Debian/Ubuntu machine: install them with your package manager, then run make again." >&2
  exit 1
fi
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if sudo -n true 2>/dev/null; then sudo=(sudo); else
    echo "setup: missing Debian packages: ${need[*]}. Run: sudo apt-get install -y ${need[*]}   then run make again." >&2
    exit 1
  fi
fi

echo "setup: installing Debian packages: ${need[*]}"
# Keep the packages' post-install scripts from starting system-wide nginx/PostgreSQL/HAProxy
# services (port 80, 5432): the runner and tests start their own on loopback ports.
policy=/usr/sbin/policy-rc.d
created_policy=0
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee "$policy" >/dev/null
  "${sudo[@]}" chmod +x "$policy"
  created_policy=1
fi
trap '[ $created_policy -eq 1 ] && "${sudo[@]}" rm -f "$policy"' EXIT
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
echo "setup: installed ${need[*]}"
"$here/docker-engine.sh"
