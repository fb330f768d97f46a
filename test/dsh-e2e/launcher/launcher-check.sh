#!/usr/bin/env bash
# Manual check with the real `dsh` launcher (not part of npm run test:dsh: it needs the full
# @deepseek-ai/dsh@0.1.0-rc.8 install and pnpm). Installs the packed dsh-bridge-dsh bundle with
# `dsh plugin --profile headless add <tarball>`, checks --dump-config, then runs one headless
# task in an exported workspace with a scripted fake model (the only mock) and trust `pinned`.
#   DSH_LAUNCHER_DIR: a folder where `npm install --ignore-scripts --legacy-peer-deps
#   @deepseek-ai/dsh@0.1.0-rc.8 pnpm@10 @deepseek-ai/cordis-plugin-hmr@1.0.16` was run, plus the
#   rc.8 peers npm then lacks (dsh-invariants, dsh-scope, dsh-fs, dsh-atomic-write, dsh-shell,
#   dsh-bash-local, dsh-sandbox, dsh-compaction, dsh-workflow, dsh-code-runtime, dsh-timeout,
#   dsh-session-telemetry, dsh-anonymous-user-id, dsh-output-retention, dsh-session-title-llm,
#   dsh-spill, dsh-subagent-in-process-driver, all @0.1.0-rc.8, and cordis-plugin-group@1.0.4).
#   Without --legacy-peer-deps, npm 11 spent 18 minutes resolving and was stopped.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
PROBE="${DSH_LAUNCHER_DIR:-${DSH_BRIDGE_CACHE:-$HOME/.cache/dsh-bridge}/dsh-cli-probe}"
NODE="$(bash "$ROOT/scripts/setup-dsh-host.sh")"
# DSH_NODE_FLAGS (default --expose-internals; set it empty to rely on node-addon-require-builtin).
read -r -a FLAGS <<<"${DSH_NODE_FLAGS---expose-internals}"
DSH=("$NODE" "${FLAGS[@]}" "$PROBE/node_modules/@deepseek-ai/dsh/lib/bin.js")
export PATH="$(dirname "$NODE"):$PROBE/node_modules/.bin:$PATH"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/dsh-launcher-XXXXXX")"
[ -n "${KEEP_TMP:-}" ] || trap 'rm -rf "$TMP"' EXIT
export DSH_HOME="$TMP/home"
mkdir -m 700 "$DSH_HOME"

(cd "$ROOT" && npm run --silent build)
(cd "$ROOT/packages/dsh-bridge-dsh" && npm pack --silent --pack-destination "$TMP" >/dev/null)
echo "==> dsh plugin --profile headless add dsh-bridge-dsh-0.1.0.tgz"
(cd "$TMP" && "${DSH[@]}" plugin --profile headless add "$TMP/dsh-bridge-dsh-0.1.0.tgz")
node -e 'console.log("bundles:", JSON.stringify(require(process.argv[1]).dsh.profile.bundles))' "$DSH_HOME/profiles/headless/package.json"
"${DSH[@]}" --profile headless --dump-config | grep -B1 -A1 "name: dsh-bridge-dsh"

WS="$TMP/ws"
mkdir -p "$WS/.vscode"
cat > "$WS/.vscode/mcp.json" <<JSON
{ "inputs": [{ "id": "key", "type": "promptString", "description": "key", "password": true }],
  "servers": { "everything": { "type": "stdio", "command": "$NODE",
    "args": ["$ROOT/test/dsh-host/node_modules/@modelcontextprotocol/server-everything/dist/index.js", "stdio"],
    "env": { "EVERYTHING_API_KEY": "\${input:key}" } } } }
JSON
node "$ROOT/dist/cli.js" export --workspace "$WS"
printf 'launcher-secret' | node "$ROOT/dist/cli.js" inputs set key --workspace "$WS"
# Trust pinned + this pin approved (what the editor writes; headless DSH has no one to ask).
node -e '
  const fs = require("fs"), path = require("path"), crypto = require("crypto");
  const [home, ws] = process.argv.slice(1);
  const decl = JSON.parse(fs.readFileSync(path.join(ws, ".dsh/declaration.json"), "utf8"));
  fs.writeFileSync(path.join(home, "bridge/settings.json"), JSON.stringify({ version: 1, trustMode: "pinned" }), { mode: 0o600 });
  const file = path.join(home, "bridge/folders", crypto.createHash("sha256").update(ws).digest("hex") + ".json");
  const rec = JSON.parse(fs.readFileSync(file, "utf8"));
  rec.approvals = [{ serverName: "everything", pin: decl.servers[0].pin }];
  fs.writeFileSync(file, JSON.stringify(rec), { mode: 0o600 });
' "$DSH_HOME" "$WS"
sed "s#\${FAKE_ROW_URL}#file://$ROOT/test/dsh-e2e/launcher/fake-llm-row.mjs#" "$ROOT/test/dsh-e2e/launcher/overlay.yml" > "$TMP/overlay.yml"
echo "==> cd ws && dsh --profile headless --patch overlay.yml \"use the echo tool\""
OUT="$(cd "$WS" && "${DSH[@]}" --profile headless --patch "$TMP/overlay.yml" "use the echo tool" 2>"$TMP/stderr")" || { cat "$TMP/stderr" >&2; exit 1; }
echo "$OUT"
grep -q "RESULT: Echo: hello from the dsh launcher; FIRST_REQUEST_HAD_ECHO=true" <<<"$OUT" || { echo "FAIL" >&2; cat "$TMP/stderr" >&2; exit 1; }
if { echo "$OUT"; cat "$TMP/stderr"; } | grep -q "launcher-secret"; then echo "FAIL: a stored value was printed" >&2; exit 1; fi
sleep 1
if pgrep -f "server-everything/dist/index.js" >/dev/null; then echo "FAIL: a server outlived dsh" >&2; exit 1; fi
echo "PASS: real dsh launcher + dsh-bridge-dsh bundle"
