#!/usr/bin/env bash
# Everything `npm test` needs beyond `npm install`, installed once and cached (idempotent; about a
# second when everything is in place). Runs as `pretest`, so the README's `npm test` works on a
# fresh machine:
#   - the DSH oracle packages (test/oracle/*, test-only, never shipped)
#   - a real VS Code: Node 24 + code-server from npm, Debian chromium and build tools
#     (cache: ${DSH_BRIDGE_CACHE:-~/.cache/dsh-bridge})
#   - the test DSH host (test/dsh-host: published rc.8 packages + a real MCP server)
#   - a Secret Service for the keychain tests (Debian gnome-keyring, dbus-daemon, secret-tool)
# DSH_BRIDGE_SKIP_SETUP=1 skips it (when the pieces are known to be in place).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ "${DSH_BRIDGE_SKIP_SETUP:-}" = 1 ] && exit 0
echo "==> test dependencies (idempotent; cache ${DSH_BRIDGE_CACHE:-$HOME/.cache/dsh-bridge})"
bash "$ROOT/scripts/setup-oracles.sh"
bash "$ROOT/scripts/setup-real-editor.sh"
bash "$ROOT/scripts/setup-language-pack.sh"
bash "$ROOT/scripts/setup-dsh-host.sh" >/dev/null
bash "$ROOT/scripts/setup-secret-service.sh"
