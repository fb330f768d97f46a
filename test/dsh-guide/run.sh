#!/usr/bin/env bash
# npm run test:guide — runs docs/dsh-side.md as a new DSH user would, on a clean machine state:
# a fresh DSH home, a fresh npm prefix for `npm link`, and (unless GUIDE_NPM_CACHE=keep) a fresh
# npm cache, so `dsh-bridge dsh install` downloads the pinned DSH for real. Every ```bash block
# preceded by `<!-- guide:run -->` runs, in order, in one bash (set -e); `<!-- guide:run answer=y -->`
# runs its block on a pseudo-terminal answering "y" to each question. Then it checks what the guide
# promises: the try-it session lists the mounted tools and calls one, doctor says "would mount",
# a second `dsh install` changes nothing, and refusals reach a headless run's stderr.
#   Needs: network to the npm registry, util-linux `script`. Node 24 from scripts/ensure-node24.sh
#   is put first on PATH (DSH rc.8 needs Node >= 22.19). 1.5 to 4 minutes.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
NODE24="$(bash "$ROOT/scripts/setup-dsh-host.sh")"   # Node 24, and server-everything as the project's MCP server
TMP="$(mktemp -d "${TMPDIR:-/tmp}/dsh-guide-XXXXXX")"
[ -n "${KEEP_TMP:-}" ] || trap 'rm -rf "$TMP"' EXIT
export DSH_HOME="$TMP/dsh-home" NPM_CONFIG_PREFIX="$TMP/npm-prefix"
[ "${GUIDE_NPM_CACHE:-clean}" = keep ] || export npm_config_cache="$TMP/npm-cache"
export PATH="$NPM_CONFIG_PREFIX/bin:$(dirname "$NODE24"):$PATH"
mkdir -p "$NPM_CONFIG_PREFIX"

# The user's project: one MCP server (the real server-everything) that needs an input.
export PROJECT="$TMP/project" GITHUB_TOKEN="guide-canary-value"
mkdir -p "$PROJECT/.vscode"
cat > "$PROJECT/.vscode/mcp.json" <<JSON
{ "inputs": [{ "id": "github-token", "type": "promptString", "description": "GitHub token", "password": true }],
  "servers": { "everything": { "type": "stdio", "command": "$NODE24",
    "args": ["$ROOT/test/dsh-host/node_modules/@modelcontextprotocol/server-everything/dist/index.js", "stdio"],
    "env": { "GITHUB_TOKEN": "\${input:github-token}" } } } }
JSON
# ... and one language server (the real typescript-language-server) for its .ts files.
TLS="$ROOT/test/dsh-host/node_modules/typescript-language-server/lib/cli.mjs"
cat > "$PROJECT/.vscode/settings.json" <<JSON
{ "dsh.lsp.servers": { "ts": { "command": "$NODE24", "args": ["$TLS", "--stdio"], "extensions": { ".ts": "typescript" } } } }
JSON
printf 'export const x = 1;\n' > "$PROJECT/main.ts"
# ... and one project skill, which the guide trusts before the session can see it.
mkdir -p "$PROJECT/.dsh/skills/hello"
printf -- '---\nname: hello\ndescription: Greets from the project.\n---\nSay hello from the project'"'"'s own skill.\n' > "$PROJECT/.dsh/skills/hello/SKILL.md"

# The guide's blocks, as a script.
node - "$ROOT/docs/dsh-side.md" "$TMP/guide.sh" <<'JS'
const fs = require('fs');
const [doc, out] = process.argv.slice(2);
const text = fs.readFileSync(doc, 'utf8');
// Blocks sit in list items: the fence and its lines are indented as much as the marker.
const blocks = [...text.matchAll(/^([ \t]*)<!-- guide:run( answer=y)? -->\n+\1```bash\n([^]*?)\n\1```/gm)]
  .map(([, indent, answer, body]) => [null, answer, body.split('\n').map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l)).join('\n')]);
if (blocks.length < 5) { console.error(`only ${blocks.length} guide:run blocks in ${doc}`); process.exit(1); }
// One shell for every block (a block's cd or export holds for the next ones, as in a terminal).
const lines = ['set -euo pipefail', 'exec > >(tee -a "$GUIDE_OUT") 2> >(tee -a "$GUIDE_ERR" >&2)'];
blocks.forEach(([, answer, body], i) => {
  lines.push(`echo "==> guide step ${i + 1}" >&2`);
  if (answer) {
    for (const command of body.split('\n').filter((l) => l.trim() && !l.trim().startsWith('#'))) {
      lines.push(`printf 'y\\n%.0s' 1 2 3 4 5 6 7 8 | script -qec ${JSON.stringify(command.replace(/\s+#.*$/, ''))} /dev/null`);
    }
  } else lines.push(body.trimEnd());
});
fs.writeFileSync(out, `${lines.join('\n')}\n`);
console.error(`${blocks.length} guide steps`);
JS
export GUIDE_OUT="$TMP/guide.out" GUIDE_ERR="$TMP/guide.err"
start=$(date +%s)
(cd "$ROOT" && bash "$TMP/guide.sh") || { echo "FAIL: a guide step failed" >&2; tail -40 "$GUIDE_ERR" >&2; exit 1; }
echo "guide steps: $(( $(date +%s) - start )) s" >&2

fail() { echo "FAIL: $*" >&2; echo "--- stdout" >&2; cat "$GUIDE_OUT" >&2; echo "--- stderr" >&2; tail -30 "$GUIDE_ERR" >&2; exit 1; }
grep -q "MCP tools in the first request (13): mcp__everything__echo" "$GUIDE_OUT" || fail "the try-it session did not list the mounted tools in its first request"
grep -q "Called mcp__everything__echo: Echo: hello from dsh-bridge" "$GUIDE_OUT" || fail "the try-it session did not call the echo tool"
grep -q "Language-server tool in the first request: lsp" "$GUIDE_OUT" || fail "the try-it session's first request had no lsp tool (the language server did not mount)"
grep -q "Would mount: everything, lsp (ts); would not: none." "$GUIDE_OUT" || fail "doctor did not say the server and the language server would mount"
grep -q "^Skill root $PROJECT/.dsh/skills (project-dsh)" "$GUIDE_OUT" || fail "skills trust .dsh/skills --workspace did not trust the project's root"
grep -q "Called lsp (hover main.ts:1:14): .*const x" "$GUIDE_OUT" || fail "the try-it session did not call the language server's hover"
grep -q "Called skill (hello): .*Say hello from the project's own skill" "$GUIDE_OUT" || fail "the try-it session did not load the trusted project skill"
if grep -rq "guide-canary-value" "$GUIDE_OUT" "$GUIDE_ERR" "$PROJECT"; then fail "a stored value was printed or written into the project"; fi

# The checks below run in this shell: give it the PATH step 2 of the guide gives the user's.
export PATH="$DSH_HOME/launcher/bin:$PATH"

# Idempotent: a second install changes nothing and says so.
again="$(dsh-bridge dsh install)"
grep -q "already installed" <<<"$again" && grep -q "already in the profile" <<<"$again" && grep -q "already on" <<<"$again" || fail "a second dsh install was not a no-op: $again"

# Refusals reach a headless run's stderr, once: no approval in ask mode, then a stale declaration.
TRY="$DSH_HOME/profiles/headless/node_modules/dsh-bridge-dsh/try/overlay.yml"
dsh-bridge trust ask >/dev/null
(cd "$PROJECT" && dsh --profile headless --patch "$TRY" "try" >"$TMP/ask.out" 2>"$TMP/ask.err") || true
grep -q "nothing can answer DSH's approval in this session" "$TMP/ask.err" || fail "ask mode in a headless run said nothing on stderr: $(cat "$TMP/ask.err")"
[ "$(grep -c "nothing can answer" "$TMP/ask.err")" = 1 ] || fail "the ask-mode line was not printed once"
grep -q "MCP tools in the first request (0)" "$TMP/ask.out" || fail "ask mode mounted something headless"
grep -q "Language-server tool in the first request: none" "$TMP/ask.out" || fail "ask mode mounted the language server headless"
dsh-bridge trust pinned >/dev/null
# An edit that changes what the server gets (a comment alone does not make the declaration stale).
sed -i 's/"stdio"\]/"stdio", "--edited"]/' "$PROJECT/.vscode/mcp.json"
grep -q -- '"--edited"' "$PROJECT/.vscode/mcp.json" || fail "the guide's edit of mcp.json did not apply"
(cd "$PROJECT" && dsh --profile headless --patch "$TRY" "try" >"$TMP/stale.out" 2>"$TMP/stale.err") || true
grep -q "declaration refused (stale)" "$TMP/stale.err" || fail "a stale declaration was silent in a headless run: $(cat "$TMP/stale.err")"
doctor="$(dsh-bridge doctor --workspace "$PROJECT" || true)"
grep -qE "would not: everything, lsp \(ts\) \(The declaration .* is stale: .*; fix: dsh-bridge export --workspace " <<<"$doctor" || fail "doctor did not explain the stale declaration: $doctor"
# A user who already has DSH rc.8 on PATH: --bundle-only checks that dsh (version, peers) and adds
# only the bundle, to a second DSH home. npm's own bin link of the launcher stands for "their" dsh.
HOME2="$TMP/dsh-home-2"
PATH2="$DSH_HOME/launcher/node_modules/.bin:$NPM_CONFIG_PREFIX/bin:$(dirname "$NODE24"):/usr/bin:/bin"
bundle_only="$(PATH="$PATH2" dsh-bridge dsh install --bundle-only --dsh-home "$HOME2" 2>&1)" || fail "dsh install --bundle-only failed: $bundle_only"
grep -q "DSH launcher: using $DSH_HOME/launcher/node_modules/.bin/dsh (0.1.0-rc.8, peers match the lockfile)" <<<"$bundle_only" || fail "--bundle-only did not check the dsh on PATH: $bundle_only"
grep -q "bridge bundle: added dsh-bridge-dsh" <<<"$bundle_only" || fail "--bundle-only did not add the bundle: $bundle_only"
[ ! -e "$HOME2/launcher/bin/dsh" ] || fail "--bundle-only installed a launcher"
doctor2="$(PATH="$PATH2" dsh-bridge doctor --dsh-home "$HOME2" --workspace "$PROJECT" || true)"
grep -q "DSH 0.1.0-rc.8 at $DSH_HOME/launcher/node_modules/.bin/dsh: its packages match" <<<"$doctor2" || fail "doctor did not check the dsh on PATH: $doctor2"
grep -q 'Profile "headless" loads dsh-bridge-dsh' <<<"$doctor2" || fail "doctor did not see the bundle added by --bundle-only: $doctor2"

sleep 1
if pgrep -f "$ROOT/test/dsh-host/node_modules/@modelcontextprotocol/server-everything/dist/index.js stdio" >/dev/null; then fail "a server outlived dsh"; fi
echo "PASS: docs/dsh-side.md, run as written ($(( $(date +%s) - start )) s)"
