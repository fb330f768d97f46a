// Scan time per definition: every captured clean tool (test/fixtures/poisoning/clean) and every
// poisoned case, each scanned as the probe and the DSH plugin scan it; the median of 7 rounds.
//   npx tsx scripts/bench-scan.ts
import { scanTool } from '../src/core/scan/scan';
import { capturedServers, poisonedCases, scanCase } from '../test/unit/core/scan/corpus.fixture';

const clean = capturedServers().flatMap((s) => s.tools.map((tool) => ({ tool, context: { serverName: s.serverName, ownTools: s.tools.map((t) => t.name) } })));
const poisoned = poisonedCases();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

function round(): { clean: number; poisoned: number } {
  let t = performance.now();
  for (const { tool, context } of clean) scanTool(tool, context);
  const c = (performance.now() - t) / clean.length;
  t = performance.now();
  for (const p of poisoned) scanCase(p);
  return { clean: c, poisoned: (performance.now() - t) / poisoned.length };
}

round(); // warm-up
const rounds = Array.from({ length: 7 }, round);
const ms = (x: number) => `${(x * 1000).toFixed(0)} µs`;
process.stdout.write(`clean tools (${clean.length}): ${ms(median(rounds.map((r) => r.clean)))} per definition\n`);
process.stdout.write(`poisoned cases (${poisoned.length}, padded ones included): ${ms(median(rounds.map((r) => r.poisoned)))} per definition\n`);
