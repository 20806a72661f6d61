#!/usr/bin/env bash
# Thread-pool starvation, measured: one Kestrel process on SQLite, 200 connections of wrk on
#   1. /delay?ms=100           (await Task.Delay: the thread returns to the pool)
#   2. /delay/blocking?ms=100  (Task.Delay(..).Wait(): the thread is held)
#   3. the same with Runtime__MinWorkerThreads=200 (the stop-gap)
# For each: wrk's summary, one /api request timed 5 s into the run, and /api's threadPool after.
# Usage: dotnet-api/scripts/starvation-demo.sh [seconds] [connections]   (needs wrk, the .NET SDK)
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-10}
CONNECTIONS=${2:-200}
PORT=${PORT:-18092}
WORK=$(mktemp -d)
PID=
cleanup() { [[ -n "$PID" ]] && kill "$PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

dotnet publish src/Api -c Release -o out --nologo -v q >/dev/null
export ConnectionStrings__Default="Data Source=$WORK/demo.db"
dotnet out/Api.dll migrate >/dev/null

run() { # path min-threads
  PORT=$PORT Runtime__MinWorkerThreads=$2 dotnet out/Api.dll >"$WORK/app.log" 2>&1 &
  PID=$!
  for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT/health/live" >/dev/null && break; sleep 0.1; done
  echo "### GET $1 — Runtime__MinWorkerThreads=$2, $CONNECTIONS connections, ${DURATION}s"
  (sleep 5; curl -s -o /dev/null -w "one GET /api, 5 s into the run: %{time_total} s\n" --max-time 60 "http://127.0.0.1:$PORT/api") &
  wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --timeout 10s --latency "http://127.0.0.1:$PORT$1" \
    | grep -E "requests in|Requests/sec|Socket errors|Non-2xx| 50%| 99%"
  wait %2 2>/dev/null || true
  echo "after: $(curl -s "http://127.0.0.1:$PORT/api")"
  kill "$PID"; wait "$PID" 2>/dev/null || true; PID=
  echo
}

echo "$(date -u '+%Y-%m-%d %H:%M UTC') · $(nproc) CPUs · load average $(cut -d' ' -f1-3 /proc/loadavg) · $(dotnet --version)"
echo
run '/delay?ms=100' 0
run '/delay/blocking?ms=100' 0
run '/delay/blocking?ms=100' 200
