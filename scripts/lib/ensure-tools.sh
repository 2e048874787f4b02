#!/usr/bin/env bash
# Installs what the project needs on a fresh machine: pnpm 9, the workspace's packages, and the
# FerretDB binary (built from its module with the Go toolchain). Idempotent; sourced by the other scripts.
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TOOLS_DIR="$REPO_ROOT/.tools"
FERRETDB_MODULE="github.com/FerretDB/FerretDB"
FERRETDB_VERSION="v1.24.2"
FERRETDB_BIN=""   # set by ensure_ferretdb

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

# The local store: FerretDB built one way only, from its Go module at the pinned version with its version
# file written and the patches in scripts/ferretdb/ applied (docs/storage.md). The binary's name carries the
# patches' digest, so a changed patch builds anew. A binary is used only once it prints its version; one that
# does not (half-built, broken, an earlier build's) is removed and built again, never kept.
ferretdb_binary_path() {
  local digest
  digest="$(cat "$REPO_ROOT"/scripts/ferretdb/*.patch | sha256sum | cut -c1-12)"
  echo "$TOOLS_DIR/ferretdb-$FERRETDB_VERSION-$digest"
}

ferretdb_starts() {
  [[ -x "$1" ]] && [[ "$(timeout 20 "$1" --version 2>/dev/null | head -1)" == "version: $FERRETDB_VERSION" ]]
}

ferretdb_build_failed() {
  rm -rf "${work:-}" "${candidate:-}"
  log "$1"
  log "Or set MONGO_URL to a MongoDB server (e.g. MONGO_URL=mongodb://127.0.0.1:27017/) and nothing is built."
  exit 1
}

ensure_ferretdb() {
  if [[ -n "${MONGO_URL:-}" ]]; then return; fi
  FERRETDB_BIN="$(ferretdb_binary_path)"
  if ferretdb_starts "$FERRETDB_BIN"; then return; fi
  rm -f "$FERRETDB_BIN"
  command -v go >/dev/null || ferretdb_build_failed "Go is needed to build the local store (FerretDB $FERRETDB_VERSION) and 'go' is not on PATH."
  log "building FerretDB $FERRETDB_VERSION with its patches (first run only, about two minutes)"
  mkdir -p "$TOOLS_DIR"
  local build_log="$TOOLS_DIR/ferretdb-build.log" module_json module_dir patch
  work="" candidate=""
  : >"$build_log"
  module_json="$(timeout 300 go mod download -json "$FERRETDB_MODULE@$FERRETDB_VERSION" 2>>"$build_log")" ||
    ferretdb_build_failed "The Go module proxy did not serve $FERRETDB_MODULE@$FERRETDB_VERSION: $(tail -c 400 <<<"$module_json") (see $build_log)."
  module_dir="$(node -e 'const m = JSON.parse(require("fs").readFileSync(0, "utf8")); if (m.Error || !m.Dir) process.exit(1); console.log(m.Dir)' <<<"$module_json")" ||
    ferretdb_build_failed "The Go module proxy answered without the module's directory: $(tail -c 400 <<<"$module_json")."
  work="$(mktemp -d)"
  candidate="$TOOLS_DIR/.ferretdb-building-$$"
  cp -r "$module_dir/." "$work/"
  chmod -R u+w "$work"
  echo "$FERRETDB_VERSION" >"$work/build/version/version.txt"
  for patch in "$REPO_ROOT"/scripts/ferretdb/*.patch; do
    (cd "$work" && GIT_CEILING_DIRECTORIES="$(dirname "$work")" git apply --verbose "$patch") >>"$build_log" 2>&1 ||
      ferretdb_build_failed "The patch scripts/ferretdb/$(basename "$patch") does not apply to FerretDB $FERRETDB_VERSION (see $build_log)."
  done
  (cd "$work" && timeout 1200 go build -trimpath -o "$candidate" ./cmd/ferretdb) >>"$build_log" 2>&1 ||
    ferretdb_build_failed "Building FerretDB failed (see $build_log)."
  rm -rf "$work"
  ferretdb_starts "$candidate" || ferretdb_build_failed "The FerretDB just built does not start (see $build_log)."
  local old
  for old in "$TOOLS_DIR"/ferretdb-v*; do [[ "$old" == "$FERRETDB_BIN" ]] || rm -f "$old"; done
  mv -f "$candidate" "$FERRETDB_BIN"
  log "FerretDB $FERRETDB_VERSION built: $FERRETDB_BIN"
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
