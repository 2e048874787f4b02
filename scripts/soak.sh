#!/usr/bin/env bash
# The soak test (docs/reliability.md, "Soak"): builds, starts a FerretDB of its own
# (.data/ferretdb-soak, port SOAK_FERRET_PORT or 27031), runs tests/soak/run.ts, which starts every service
# as its own process behind the gateway (as the benchmark does) plus a second replica of allocation and of
# tracking, drives a realistic mix of traffic for SOAK_MINUTES (10), restarts one replica of each at half
# time, prints figures every minute and the checks (PASS or MISS) at the end, and removes what it created.
# Not part of the test command. Needs RabbitMQ and Redis like start.sh. Settings: SOAK_MINUTES,
# SOAK_PUBLISHERS (100), SOAK_REPLICAS (2), SOAK_FOLD_WAIT (s, 300).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/ensure-tools.sh"
run_on_own_ferretdb ferretdb-soak "${SOAK_FERRET_PORT:-27031}" SOAK_FERRETDB_PID tests/soak/run.ts
