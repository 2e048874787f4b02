#!/usr/bin/env bash
# Installs what the project needs on a fresh machine: pnpm 9, the workspace's packages, and the
# FerretDB binary (built from its module with the Go toolchain). Idempotent; sourced by the other scripts.
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TOOLS_DIR="$REPO_ROOT/.tools"
FERRETDB_VERSION="v1.24.2"
FERRETDB_BIN="$TOOLS_DIR/ferretdb-$FERRETDB_VERSION"

log() { printf '\033[1m[pilot]\033[0m %s\n' "$*" >&2; }

ensure_node() {
  if ! command -v node >/dev/null; then
    log "Node.js 20 is required but 'node' is not on PATH."; exit 1
  fi
  local major; major="$(node -p 'process.versions.node.split(".")[0]')"
  if [[ "$major" != "20" ]]; then log "Node.js 20 is required (found $(node -v))."; exit 1; fi
}

ensure_pnpm() {
  if command -v pnpm >/dev/null && [[ "$(pnpm --version)" == 9.* ]]; then return; fi
  log "installing pnpm 9 with npm"
  npm install -g pnpm@9 >/dev/null 2>&1 || npm install -g --prefix "$TOOLS_DIR/npm-global" pnpm@9 >/dev/null
  if ! command -v pnpm >/dev/null; then export PATH="$TOOLS_DIR/npm-global/bin:$PATH"; fi
}

ensure_packages() {
  (cd "$REPO_ROOT" && pnpm install --frozen-lockfile --reporter=silent)
}

# `go install ...@v1.24.2` is refused by the module proxy here (no @v/list), so the module is
# downloaded at that exact version and built from its directory.
ensure_ferretdb() {
  if [[ -n "${MONGO_URL:-}" ]]; then return; fi
  if [[ -x "$FERRETDB_BIN" ]]; then return; fi
  if ! command -v go >/dev/null; then
    log "Go is required to build FerretDB $FERRETDB_VERSION (or set MONGO_URL to a MongoDB server)."; exit 1
  fi
  log "building FerretDB $FERRETDB_VERSION (first run only)"
  mkdir -p "$TOOLS_DIR"
  if GOBIN="$TOOLS_DIR/gobin" go install "github.com/FerretDB/FerretDB/cmd/ferretdb@$FERRETDB_VERSION" >/dev/null 2>&1; then
    mv "$TOOLS_DIR/gobin/ferretdb" "$FERRETDB_BIN"; return
  fi
  local module_dir work
  module_dir="$(go mod download -json "github.com/FerretDB/FerretDB@$FERRETDB_VERSION" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).Dir))')"
  work="$(mktemp -d)"
  cp -r "$module_dir/." "$work/"
  chmod -R u+w "$work"
  echo "$FERRETDB_VERSION" > "$work/build/version/version.txt"
  (cd "$work" && go build -o "$FERRETDB_BIN" ./cmd/ferretdb)
  rm -rf "$work"
}

ensure_tools() {
  ensure_node
  ensure_pnpm
  ensure_packages
  ensure_ferretdb
}

# For the benchmark and the soak: install, build, start a FerretDB of their own under `name` on `port`
# (stopped again on exit), export MONGO_URL and `pid_var` (its process id, for CPU figures), run `entry`.
run_on_own_ferretdb() {
  local name="$1" port="$2" pid_var="$3" entry="$4"
  cd "$REPO_ROOT"
  ensure_tools
  log "building"
  pnpm run -s build
  MONGO_URL="$(bash scripts/infra.sh up "$name" "$port")"
  export MONGO_URL
  trap "bash scripts/infra.sh down $name" EXIT
  export "$pid_var"="$(cat ".data/$name/ferretdb.pid" 2>/dev/null || true)"
  node --import tsx "$entry"
}
