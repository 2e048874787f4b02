#!/usr/bin/env bash
# Runs the whole system on this machine: installs what is missing, builds, starts FerretDB (unless
# MONGO_URL points at a MongoDB server) and every service behind the gateway, waits until the gateway
# reports every upstream ready and prints where to open it. Ctrl-C stops everything.
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

status=0
node scripts/run-system.mjs "$@" || status=$?
exit "$status"
