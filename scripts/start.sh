#!/usr/bin/env bash
# Runs the whole system on this machine: installs what is missing, builds, starts FerretDB (unless
# MONGO_URL points at a MongoDB server) and every service behind the gateway, waits until the gateway
# reports every upstream ready and prints where to open it. Ctrl-C, or a TERM to this script, stops everything.
# Extra arguments go to scripts/run-system.mjs, e.g.: scripts/start.sh --replicas allocation=2,tracking=2
# (or --bot-stand-in: the notification service sends to a local stand-in of the Bot API).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/ensure-tools.sh"
cd "$REPO_ROOT"
ensure_tools

log "building"
pnpm run -s build

started_ferretdb=""
if [[ -z "${MONGO_URL:-}" ]]; then
  MONGO_URL="$(bash scripts/infra.sh up dev "${DEV_FERRET_PORT:-27017}")"
  started_ferretdb="yes"
else
  bash scripts/infra.sh up >/dev/null
fi
export MONGO_URL
cleanup() { if [[ -n "$started_ferretdb" ]]; then bash scripts/infra.sh down dev; fi; }
trap cleanup EXIT

# The system runs as a child this script waits on and passes Ctrl-C or a TERM to (a process manager, kill),
# so that either stops the services before the store, instead of leaving them running without it.
node scripts/run-system.mjs "$@" &
system=$!
trap 'kill -TERM "$system" 2>/dev/null || true' INT TERM
status=0
wait "$system" || status=$?
# A signal ends the first wait early; the second waits until the system has stopped, and gives its status.
if kill -0 "$system" 2>/dev/null || (( status > 128 )); then status=0; wait "$system" || status=$?; fi
exit "$status"
