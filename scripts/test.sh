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

# Each phase of a full run is timed; the times are printed at the end, failed or not.
PHASE_TIMES=()
RUN_STARTED=$SECONDS
timed() {
  local name="$1" started=$SECONDS status=0
  shift
  log "$name"
  "$@" || status=$?
  PHASE_TIMES+=("$(printf '%6s  %s' "$(minutes $((SECONDS - started)))" "$name")")
  return $status
}
minutes() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }
summary() {
  [[ ${#PHASE_TIMES[@]} -gt 0 ]] || return 0
  printf '\nphase times (m:ss)\n' >&2
  printf '%s\n' "${PHASE_TIMES[@]}" >&2
  printf '%6s  in all\n' "$(minutes $((SECONDS - RUN_STARTED)))" >&2
}
cleanup() {
  summary
  bash scripts/infra.sh down ferretdb-test >/dev/null 2>&1 || true
  node scripts/purge-test-broker.cjs || true
}
trap cleanup EXIT
timed "build and type check" pnpm run -s build
timed "type check of the tests" pnpm run -s typecheck:tests
timed "lint" pnpm run -s lint
# Unused files and dependencies, unlisted dependencies and binaries (knip.json). Unused exports are not
# checked: dozens of constants are exported for their tests.
timed "unused files and dependencies (knip)" pnpm run -s knip
timed "dependency rules" pnpm run -s depcheck
timed "unit tests" pnpm run -s test:unit
timed "browser for the frontend tests" bash services/web/scripts/ensure-chromium.sh
timed "python-telegram-bot for the guide's bot snippet" bash scripts/lib/ensure-python-telegram-bot.sh
if [[ -z "${MONGO_URL:-}" ]]; then
  bash scripts/infra.sh down ferretdb-test && rm -rf .data/ferretdb-test   # every full run starts empty
  MONGO_URL="$(bash scripts/infra.sh up ferretdb-test "${TEST_FERRET_PORT:-27027}")"
fi
export MONGO_URL
node scripts/purge-test-broker.cjs || true
timed "integration and end-to-end tests (MongoDB at $MONGO_URL)" pnpm run -s test:integration
log "all tests passed"
