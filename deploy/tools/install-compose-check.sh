#!/usr/bin/env bash
# Builds compose-check (deploy/tools/compose-check) into .tools/ with the Go toolchain: it loads a
# Compose file with compose-go, the Compose Specification's reference library (the one Docker Compose
# uses), which validates it against the specification's JSON schema. Its modules come from the Go
# module proxy, pinned by deploy/tools/compose-check/go.sum. Idempotent; prints the binary's path.
# Used by tests/deploy/compose.test.ts; run it by hand with:
#   bash deploy/tools/install-compose-check.sh && .tools/compose-check docker-compose.yml
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source_dir="$repo_root/deploy/tools/compose-check"
binary="$repo_root/.tools/compose-check"
stamp="$(cat "$source_dir/go.mod" "$source_dir/go.sum" "$source_dir/main.go" | sha256sum | cut -c1-16)"
if [[ -x "$binary" && -f "$binary.stamp" && "$(cat "$binary.stamp")" == "$stamp" ]]; then
  echo "$binary"; exit 0
fi
if ! command -v go >/dev/null; then
  echo "Go is required to build compose-check (deploy/tools/compose-check)." >&2; exit 1
fi
mkdir -p "$repo_root/.tools"
(cd "$source_dir" && go build -trimpath -o "$binary" .)
echo "$stamp" > "$binary.stamp"
echo "$binary"
