#!/usr/bin/env bash
# Installs the test-only DSH oracles (contract section 7): each folder under test/oracle/ has its
# own package.json + package-lock.json and installs alone, never into the extension.
# Idempotent: a folder whose node_modules matches its lockfile is left alone.
#   scripts/setup-oracles.sh            install every folder listed below
#   scripts/setup-oracles.sh lsp        install only test/oracle/lsp
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# One line per oracle folder (relative to test/oracle/).
ORACLES=(
  lsp      # @deepseek-ai/dsh-lsp@0.0.1-rc.1 (+ dsh-lsp-stdio@0.0.1-rc.5 via .npmrc legacy-peer-deps)
  skills   # @deepseek-ai/dsh-skill + dsh-skill-filesystem@0.1.0-rc.8
  mcp      # @deepseek-ai/dsh-mcp-client + dsh-subprocess + dsh-home-paths@0.1.0-rc.8 (Config() oracle)
  servers  # real MCP servers from npm: the clean side of the poisoning corpus (test/unit/core/scan/scan.corpus.test.ts)
  clean-servers  # 30 more real MCP servers from npm, started once by scripts/capture-clean-tools.ts (test/fixtures/poisoning/clean)
)

install_oracle() {
  local dir="$ROOT/test/oracle/$1"
  [ -f "$dir/package.json" ] || { echo "==> no oracle folder $dir" >&2; return 1; }
  # npm writes node_modules/.package-lock.json; identical to the lockfile's packages = up to date.
  if [ -f "$dir/node_modules/.package-lock.json" ] && [ -f "$dir/package-lock.json" ] &&
     node -e '
       const [a, b] = process.argv.slice(1).map((f) => require(f).packages);
       delete b[""];
       const strip = (p) => Object.fromEntries(Object.entries(p).map(([k, v]) => [k, v.version]));
       process.exit(JSON.stringify(strip(a)) === JSON.stringify(strip(b)) ? 0 : 1);
     ' "$dir/node_modules/.package-lock.json" "$dir/package-lock.json"; then
    echo "==> test/oracle/$1 up to date" >&2
    return 0
  fi
  echo "==> installing test/oracle/$1" >&2
  (cd "$dir" && npm install --ignore-scripts --no-audit --no-fund --loglevel=error)
}

if [ "$#" -gt 0 ]; then targets=("$@"); else targets=("${ORACLES[@]}"); fi
for name in "${targets[@]}"; do install_oracle "$name"; done
