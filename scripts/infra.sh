#!/usr/bin/env bash
# Local infrastructure for runs and tests.
#   scripts/infra.sh up [name] [port]   start FerretDB (data in .data/<name>), check RabbitMQ and Redis
#   scripts/infra.sh down [name]        stop the FerretDB started under that name
# Prints the MONGO_URL to use. When MONGO_URL is already set, that server is used and nothing is started.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/ensure-tools.sh"

command="${1:-up}"
name="${2:-ferretdb}"
port="${3:-27017}"
data_dir="$REPO_ROOT/.data/$name"
pid_file="$data_dir/ferretdb.pid"

port_open() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

check_service() {
  local label="$1" host="$2" port="$3" how="$4"
  if ! port_open "$host" "$port"; then
    log "$label does not answer on $host:$port. Start it with: $how"; exit 1
  fi
}

ferretdb_running() { [[ -f "$pid_file" ]] && kill -0 "$(cat "$pid_file")" 2>/dev/null; }

up() {
  check_service RabbitMQ 127.0.0.1 5672 "rabbitmq-server -detached"
  check_service Redis 127.0.0.1 6379 "redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save '' --appendonly no"
  if [[ -n "${MONGO_URL:-}" ]]; then echo "$MONGO_URL"; return; fi
  ensure_ferretdb
  mkdir -p "$data_dir"
  # One left running under this name on another port (a run that died before its "down") is stopped first.
  if ferretdb_running && [[ "$(cat "$data_dir/ferretdb.port" 2>/dev/null)" != "$port" ]]; then down; fi
  if ! ferretdb_running; then
    if port_open 127.0.0.1 "$port"; then log "port $port is taken by another process; pass another port"; exit 1; fi
    # synchronous(normal): SQLite syncs its write-ahead log at checkpoints, not at every commit. A commit
    # survives the process being killed; only a crash of the machine may lose the last ones, as a standalone
    # MongoDB acknowledges a write (w:1, j:false) before its journal, synced every 100 ms, is on disk.
    # --test-batch-size: an insert command's documents go into SQLite 1,000 to a statement and a commit
    # (FerretDB's default is 100): the folder inserts a month's new day documents 1,000 a command (decision 0061).
    nohup "$FERRETDB_BIN" --handler=sqlite --sqlite-url="file:$data_dir/?_pragma=synchronous(normal)" --state-dir="$data_dir" \
      --listen-addr="127.0.0.1:$port" --debug-addr=127.0.0.1:0 --telemetry=disable --log-level=warn --test-batch-size=1000 \
      >"$data_dir/ferretdb.log" 2>&1 &
    echo $! > "$pid_file"
    echo "$port" > "$data_dir/ferretdb.port"
    for _ in $(seq 1 100); do port_open 127.0.0.1 "$port" && break; sleep 0.1; done
    if ! port_open 127.0.0.1 "$port"; then log "FerretDB did not start; see $data_dir/ferretdb.log"; exit 1; fi
    log "FerretDB $FERRETDB_VERSION listening on 127.0.0.1:$port (data in .data/$name)"
  fi
  echo "mongodb://127.0.0.1:$port/"
}

down() {
  if ferretdb_running; then
    local pid; pid="$(cat "$pid_file")"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$pid_file"
}

case "$command" in
  up) up ;;
  down) down ;;
  *) log "usage: scripts/infra.sh up|down [name] [port]"; exit 2 ;;
esac
