#!/bin/sh
# The app's entry point in the image and under the local runner: PROCESS_MANAGER chooses what runs
# the serving processes. Each branch execs, so the chosen program gets the signals itself.
cd "$(dirname "$0")/.." || exit 1
case "${PROCESS_MANAGER:-cluster}" in
  cluster) exec node src/primary.js ;;
  reuseport) exec node src/reuseport.js ;;
  pm2)
    # No daily call to PM2's version-check server.
    export PM2_DISABLE_VERSION_CHECK="${PM2_DISABLE_VERSION_CHECK:-true}"
    exec node node_modules/pm2/bin/pm2-runtime ecosystem.config.cjs ;;
  *)
    echo "PROCESS_MANAGER must be cluster, reuseport or pm2, got \"$PROCESS_MANAGER\"" >&2
    exit 2 ;;
esac
