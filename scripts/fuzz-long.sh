#!/usr/bin/env bash
# The unit tier's fuzz tests (test/unit/**/*.fuzz.test.ts) with many more cases (default 100000 per property); on demand, not in CI.
#   npm run fuzz:long [-- <runs> [<seed>]]
set -euo pipefail
cd "$(dirname "$0")/.."
export DSH_FUZZ_RUNS="${1:-100000}"
[ -n "${2:-}" ] && export DSH_FUZZ_SEED="$2"
exec npx mocha --no-config --node-option import=tsx --timeout 0 'test/unit/**/*.fuzz.test.ts'
