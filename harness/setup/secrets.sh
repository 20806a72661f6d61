#!/bin/sh
# Creates each sample's missing secret files: every `file: ./secrets/<name>.txt` its compose.yaml
# declares gets a random password (24 letters and digits, with upper case, lower case and a digit:
# SQL Server's policy, and nothing that needs quoting in a connection string). Existing files are
# left alone, so a password never changes under a database volume that was initialised with it.
#   harness/setup/secrets.sh [sample-dir ...]      (default: every folder with a compose.yaml)
# The files are git- and docker-ignored. They are world-readable (in an owner-only folder) because
# compose mounts file secrets with their host permissions, and the containers read them as
# non-root users (mongodb, mssql, the app's own user).
set -eu

cd "$(dirname "$0")/../.."

password() {
    while :; do
        candidate="$(head -c 512 /dev/urandom | LC_ALL=C tr -dc 'A-Za-z0-9' | cut -c 1-24)"
        case "$candidate" in *[A-Z]*) ;; *) continue ;; esac
        case "$candidate" in *[a-z]*) ;; *) continue ;; esac
        case "$candidate" in *[0-9]*) ;; *) continue ;; esac
        [ "${#candidate}" -eq 24 ] && break
    done
    printf '%s' "$candidate"
}

if [ "$#" -eq 0 ]; then
    set -- $(for compose in */compose.yaml; do dirname "$compose"; done)
fi

for sample in "$@"; do
    sample="${sample%/}"
    if [ ! -f "$sample/compose.yaml" ]; then
        echo "secrets: $sample has no compose.yaml" >&2
        exit 1
    fi
    for name in $(sed -n 's|^[[:space:]]*file:[[:space:]]*\./secrets/\([A-Za-z0-9_.-]*\)\.txt[[:space:]]*$|\1|p' "$sample/compose.yaml"); do
        file="$sample/secrets/$name.txt"
        [ -f "$file" ] && continue
        mkdir -p "$sample/secrets"
        chmod 700 "$sample/secrets"
        (umask 022 && password > "$file")
        echo "secrets: created $file"
    done
done
