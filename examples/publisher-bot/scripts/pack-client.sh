#!/bin/sh
# Puts @pilot/network-client at vendor/pilot-network-client.tgz: what package.json depends on. Run before
# `npm install`.
#   PILOT_BASE_URL=https://pilot.example sh scripts/pack-client.sh   downloads it from the network's site
#   sh scripts/pack-client.sh <folder of the client's sources>      packs it with the client's `npm run tarball`
#                                                                     (a staged copy; its dist/ is left alone)
# Got the tarball some other way? Put it at vendor/pilot-network-client.tgz yourself.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$here/vendor"
if [ $# -eq 0 ]; then
  if [ -z "${PILOT_BASE_URL:-}" ]; then
    echo "usage: PILOT_BASE_URL=<site> sh scripts/pack-client.sh, or sh scripts/pack-client.sh <folder of the client>" >&2
    exit 2
  fi
  curl -fsS -o "$here/vendor/pilot-network-client.tgz" "${PILOT_BASE_URL%/}/downloads/network-client.tgz"
else
  client=$(cd "$1" && pwd)
  packed=$(mktemp -d)
  (cd "$client" && npm run --silent tarball -- "$packed" >/dev/null)
  mv "$packed"/*.tgz "$here/vendor/pilot-network-client.tgz"
  rmdir "$packed"
fi
echo "$here/vendor/pilot-network-client.tgz"
