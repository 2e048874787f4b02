#!/usr/bin/env bash
# The benchmark of the hot paths (docs/performance.md): builds, starts a FerretDB of its own
# (.data/ferretdb-bench, port BENCH_FERRET_PORT or 27029), runs tests/bench/run.ts, which starts every
# service as its own process behind the gateway under names of its own, creates 200 approved publishers
# and the campaigns it needs through the API, drives load with autocannon, times the workspace's
# activate/pause calls with 10,000 campaigns stored, seeds 1,000,000 counted facts through the counting
# code and times the stats calls, and prints the figures with their targets. 15 to 20 minutes (5 of them the folding of the seeded history). Not part
# of the test command. Needs RabbitMQ and Redis like start.sh.
# Settings: BENCH_PHASES, BENCH_PROFILE, BENCH_TRACING (1: every process traces, to an OTLP sink), BENCH_DURATION, BENCH_WARMUP, BENCH_CONNECTIONS, BENCH_TRIALS,
# BENCH_FACTS, BENCH_FOLD_WAIT, ... (see tests/bench/run.ts and docs/performance.md).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/ensure-tools.sh"
run_on_own_ferretdb ferretdb-bench "${BENCH_FERRET_PORT:-27029}" BENCH_FERRETDB_PID tests/bench/run.ts
