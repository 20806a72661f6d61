#!/usr/bin/env bash
# Prints the Debian archive this machine's apt already uses (its first bookworm or trixie source),
# so nothing here names a mirror of its own. Empty output: none found.
apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 2>/dev/null |
  awk '$2 ~ /^(bookworm|trixie|sid|unstable)$/ { sub(/\/$/, "", $1); print $1; exit }'
