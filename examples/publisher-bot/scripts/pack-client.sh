#!/bin/sh
# Puts @pilot/network-client, packed with `npm pack` as a publisher receives it, at
# vendor/pilot-network-client.tgz: what package.json depends on. Run before `npm install`.
#   sh scripts/pack-client.sh [folder of the client]     (default: ../../packages/network-client)
# npm pack runs the client's prepack script, which builds it.
# Got the tarball some other way? Put it at vendor/pilot-network-client.tgz yourself.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
client=$(cd "${1:-$here/../../packages/network-client}" && pwd)
packed=$(mktemp -d)
(cd "$client" && npm pack --silent --pack-destination "$packed" >/dev/null)
mkdir -p "$here/vendor"
mv "$packed"/*.tgz "$here/vendor/pilot-network-client.tgz"
rmdir "$packed"
echo "$here/vendor/pilot-network-client.tgz"
