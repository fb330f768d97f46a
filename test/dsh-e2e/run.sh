#!/usr/bin/env bash
# npm run test:dsh — the DSH end-to-end tests: installs the test host (once), builds the
# extension/CLI/plugin bundles, packs the plugin into packages/dsh-bridge-dsh, then runs the
# end-to-end tests on Node 24 with --expose-internals (dsh-base's HMR row needs it); the plugin's
# unit tests run in the unit tier (test/unit/dsh-plugin). DSH_E2E_HOST=smallest|base runs one host; DSH_E2E_VERBOSE=1
# prints the DSH log.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
NODE="$(bash scripts/setup-dsh-host.sh)"
node scripts/build.mjs --unless-built   # npm test built once already (DSH_BRIDGE_BUILT=1)
node packages/dsh-bridge-dsh/scripts/copy-plugin.mjs
# DSH_E2E_SUITE=mcp|startup|tools|lsp-skills|plan|user|sessions|keychain|load runs one file; the files run one after the other (CPU is scarce).
case "${DSH_E2E_SUITE:-all}" in
  mcp) FILES=(test/dsh-e2e/bridge.e2e.test.mjs) ;;
  lsp-skills) FILES=(test/dsh-e2e/lsp-skills.e2e.test.mjs) ;;
  startup) FILES=(test/dsh-e2e/startup.e2e.test.mjs) ;;
  tools) FILES=(test/dsh-e2e/tools.e2e.test.mjs) ;;
  plan) FILES=(test/dsh-e2e/plan.e2e.test.mjs) ;;
  user) FILES=(test/dsh-e2e/user.e2e.test.mjs) ;;
  load) FILES=(test/dsh-e2e/load.e2e.test.mjs) ;;
  sessions) FILES=(test/dsh-e2e/sessions.e2e.test.mjs) ;;
  keychain) FILES=(test/dsh-e2e/keychain.e2e.test.mjs) ;;
  *) FILES=(test/dsh-e2e/bridge.e2e.test.mjs test/dsh-e2e/startup.e2e.test.mjs test/dsh-e2e/tools.e2e.test.mjs test/dsh-e2e/lsp-skills.e2e.test.mjs test/dsh-e2e/plan.e2e.test.mjs test/dsh-e2e/sessions.e2e.test.mjs test/dsh-e2e/user.e2e.test.mjs test/dsh-e2e/keychain.e2e.test.mjs test/dsh-e2e/load.e2e.test.mjs) ;;
esac
for f in "${FILES[@]}"; do
  "$NODE" --expose-internals --expose-gc --test-reporter=spec "$f"
done
