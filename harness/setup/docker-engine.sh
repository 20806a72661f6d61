#!/usr/bin/env bash
# Docker Engine 28 (docker.io, docker-cli, docker-buildx) and Compose v2 (docker-compose) from
# Debian's sid suite, on a bookworm machine, for the Docker tests (harness/test/docker-*.test.js).
# They pull only tini-static from sid; bookworm's containerd and runc serve them (sid's runc needs a
# newer libc, which this never installs). Idempotent: does nothing when they are there. Package
# scripts start no service here: the tests start a private dockerd of their own.
set -euo pipefail

plugins=/usr/libexec/docker/cli-plugins
engine_ok() {
  command -v dockerd >/dev/null 2>&1 && [ -x "$plugins/docker-compose" ] && [ -x "$plugins/docker-buildx" ] &&
    dockerd --version | grep -Eq 'version (2[89]|[3-9][0-9])\.'
}
engine_ok && exit 0

if ! command -v apt-get >/dev/null 2>&1 || [ ! -r /etc/os-release ] || ! grep -q '^ID=debian' /etc/os-release; then
  echo "setup: no Docker Engine 28 and Compose v2 here (they come from Debian's sid suite); install them yourself, or the Docker tests are skipped." >&2
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "setup: Docker Engine 28 and Compose v2 not installed (needs root: sudo $0); the Docker tests are skipped until then." >&2
  exit 0
fi

# The sid suite from the same archive this machine's apt already uses, kept at a low priority so
# that nothing but the packages named below ever comes from it. Its Release file may be past its
# Valid-Until on a mirror or snapshot, hence Check-Valid-Until: no.
sources=/etc/apt/sources.list.d/scaling-lab-sid.sources
if [ ! -e "$sources" ]; then
  archive=$("$(dirname "$0")/debian-archive.sh")
  if [ -z "$archive" ]; then
    echo "setup: no Debian archive found in apt's sources; Docker Engine 28 not installed, the Docker tests are skipped." >&2
    exit 0
  fi
  printf 'Types: deb\nURIs: %s\nSuites: sid\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\nCheck-Valid-Until: no\n' \
    "$archive" > "$sources"
  printf 'Package: *\nPin: release n=sid\nPin-Priority: 100\n' > /etc/apt/preferences.d/scaling-lab-sid
fi

echo "setup: installing Docker Engine 28 and Compose v2 from Debian sid"
apt-get update -qq
. /etc/os-release
pkgs=(docker.io/sid docker-cli/sid docker-buildx/sid docker-compose/sid
  "containerd/$VERSION_CODENAME" "runc/$VERSION_CODENAME")
# Refuse a plan that would take anything else from sid (the C library above all).
plan=$(apt-get -s install -y --no-install-recommends "${pkgs[@]}")
if grep -E '^Inst .*unstable' <<<"$plan" | grep -Ev '^Inst (docker\.io|docker-cli|docker-buildx|docker-compose|tini-static) '; then
  echo "setup: installing Docker from sid would also take the packages above from it; not done, the Docker tests are skipped." >&2
  exit 0
fi
policy=/usr/sbin/policy-rc.d created_policy=0
if [ ! -e "$policy" ]; then printf '#!/bin/sh\nexit 101\n' > "$policy"; chmod +x "$policy"; created_policy=1; fi
trap '[ $created_policy -eq 1 ] && rm -f "$policy"' EXIT
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
echo "setup: installed $(dockerd --version), $(docker compose version)"
