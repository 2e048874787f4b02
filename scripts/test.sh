#!/usr/bin/env bash
# The whole test suite: install, build (type check), lint, dependency rules, unit tests, then
# integration and end-to-end tests against real RabbitMQ, Redis and a FerretDB started for the run.
# Leaves nothing running. Pass mocha arguments to run a subset: scripts/test.sh services/campaign/test
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/ensure-tools.sh"
cd "$REPO_ROOT"
ensure_tools

# A subset (scripts/test.sh <mocha spec...>) reuses a long-lived FerretDB named ferretdb-dev-test, so
# several subsets can run side by side (stop it with: scripts/infra.sh down ferretdb-dev-test). The
# whole suite starts its own FerretDB and stops it at the end.
if [[ $# -gt 0 ]]; then
  # Services import the shared packages from their build output.
  pnpm exec tsc --build packages/*/
  export MONGO_URL="${MONGO_URL:-$(bash scripts/infra.sh up ferretdb-dev-test "${TEST_FERRET_PORT:-27028}")}"
  npx mocha --config .mocharc.base.cjs "$@"
  exit $?
fi

cleanup() {
  bash scripts/infra.sh down ferretdb-test >/dev/null 2>&1 || true
  node scripts/purge-test-broker.cjs || true
}
trap cleanup EXIT
log "build and type check"; pnpm run -s build
log "type check of the tests"; pnpm run -s typecheck:tests
log "lint"; pnpm run -s lint
# Unused files and dependencies, unlisted dependencies and binaries (knip.json). Unused exports are not
# checked: dozens of constants are exported for their tests.
log "unused files and dependencies (knip)"; pnpm run -s knip
log "dependency rules"; pnpm run -s depcheck
log "unit tests"; pnpm run -s test:unit
log "browser for the frontend tests"; bash services/web/scripts/ensure-chromium.sh
log "python-telegram-bot for the guide's bot snippet"; bash scripts/lib/ensure-python-telegram-bot.sh
if [[ -z "${MONGO_URL:-}" ]]; then
  bash scripts/infra.sh down ferretdb-test && rm -rf .data/ferretdb-test   # every full run starts empty
  MONGO_URL="$(bash scripts/infra.sh up ferretdb-test "${TEST_FERRET_PORT:-27027}")"
fi
export MONGO_URL
node scripts/purge-test-broker.cjs || true
log "integration and end-to-end tests (MongoDB at $MONGO_URL)"
pnpm run -s test:integration
log "all tests passed"
