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
# The npm-only pieces (oracles, language pack) install while the real editor's setup runs: from
# empty caches that setup is mostly code-server compiling its native addons, which leaves the
# network and the disk idle. Their output is printed after it, so the two never interleave.
npm_only="$(mktemp)"
trap 'rm -f "$npm_only"' EXIT
( bash "$ROOT/scripts/setup-oracles.sh" && bash "$ROOT/scripts/setup-language-pack.sh" ) >"$npm_only" 2>&1 &
npm_pid=$!
editor_status=0
bash "$ROOT/scripts/setup-real-editor.sh" || editor_status=$?
npm_status=0
wait "$npm_pid" || npm_status=$?
cat "$npm_only"
[ "$editor_status" = 0 ] || exit "$editor_status"
[ "$npm_status" = 0 ] || { echo "!! installing the oracles or the language pack failed (exit $npm_status)" >&2; exit "$npm_status"; }
# After the real editor's setup: it installs Node 24, which the DSH host's setup uses.
bash "$ROOT/scripts/setup-dsh-host.sh" >/dev/null
bash "$ROOT/scripts/setup-secret-service.sh"
