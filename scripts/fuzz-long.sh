#!/usr/bin/env bash
# The unit tier's property tests with many more cases (default 100000 per property); on demand, not in CI.
# Every test file that reads DSH_FUZZ_RUNS, itself or through test/unit/fuzz.mutate.ts (the *.fuzz.test.ts
# files, and the properties inside other files: visibleText, importPlan).
#   npm run fuzz:long [-- <runs> [<seed>]]
set -euo pipefail
cd "$(dirname "$0")/.."
export DSH_FUZZ_RUNS="${1:-100000}"
[ -n "${2:-}" ] && export DSH_FUZZ_SEED="$2"
mapfile -t FILES < <(grep -rlE 'DSH_FUZZ_RUNS|\bfuzzSettings\(|\bFUZZ_RUNS\b' test/unit --include='*.test.ts' | sort)
[ "${#FILES[@]}" -gt 0 ] || { echo "fuzz-long: no test reads DSH_FUZZ_RUNS" >&2; exit 1; }
echo "fuzz-long: ${DSH_FUZZ_RUNS} runs per property${DSH_FUZZ_SEED:+, seed $DSH_FUZZ_SEED}, in ${FILES[*]}"
exec npx mocha --no-config --node-option import=tsx --timeout 0 "${FILES[@]}"
