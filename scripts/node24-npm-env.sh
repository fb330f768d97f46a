#!/usr/bin/env bash
# The environment in which npm installs packages under Node 24 (code-server's postinstall
# refuses any other major and reads the major from npm's user agent, not from PATH).
#
# Sourced by scripts/setup-real-editor.sh:
#   node24_npm_env NODE_HOME    exports PATH, npm_config_nodedir, ... for Node 24, and drops
#                               what an outer `npm run`/`npm test` exported about ITS node
#   node24_npm_check            runs a lifecycle script through that npm and fails unless the
#                               script sees Node 24 both in process.version and in the user agent
# Run directly (`bash scripts/node24-npm-env.sh --check`, used by the unit tier), it installs
# Node 24 if needed (scripts/ensure-node24.sh), enters the environment and runs the check.

# Variables an outer npm exports that name the node it runs on. npm treats an inherited
# npm_config_user_agent as configuration, so without this the inner npm keeps saying
# "node/v20..." to every lifecycle script even when Node 24 is first on PATH.
NODE24_DROP_VARS=(npm_config_user_agent npm_node_execpath NODE npm_config_node_gyp npm_config_nodedir
  npm_config_node_version npm_config_target npm_config_runtime npm_config_disturl)

node24_npm_env() {
  local home="$1" v
  for v in "${NODE24_DROP_VARS[@]}"; do unset "$v"; done
  export PATH="$home/bin:$PATH"
  export npm_config_nodedir="$home"   # node-gyp compiles against Node 24's own headers
  export npm_config_update_notifier=false npm_config_yes=true npm_config_fund=false npm_config_audit=false
  export NODE_DISABLE_COMPILE_CACHE=1
}

# Prints what a lifecycle script run by this npm sees; returns 1 unless it is Node 24.
node24_npm_check() {
  local dir out
  dir="$(mktemp -d)"
  printf '%s\n' '{"name":"node24-probe","private":true,"scripts":{"probe":"node -p \"process.version + '"'"' | '"'"' + process.env.npm_config_user_agent\""}}' >"$dir/package.json"
  out="$(cd "$dir" && npm run --silent probe 2>&1)" || { rm -rf "$dir"; echo "npm run failed: $out"; return 1; }
  rm -rf "$dir"
  echo "$out"
  case "$out" in
    v24.*" | "*" node/v24."*) return 0 ;;
    *) return 1 ;;
  esac
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  [ "${1:-}" = --check ] || { echo "usage: bash scripts/node24-npm-env.sh --check" >&2; exit 2; }
  node24="$(bash "$(dirname "${BASH_SOURCE[0]}")/ensure-node24.sh")"
  node24_npm_env "$(cd "$(dirname "$node24")/.." && pwd)"
  node24_npm_check
fi
