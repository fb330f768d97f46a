// node bench/top.mjs DIR [N] [--inclusive]: the functions with the most self (or inclusive)
// time in the newest .cpuprofile of DIR.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
const [dir, n = '30'] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const inclusive = process.argv.includes('--inclusive');
const file = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).map((f) => path.join(dir, f)).sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
const label = (node) => `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.split('/').slice(-2).join('/')}:${node.callFrame.lineNumber + 1}`;
const time = new Map();
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = inclusive ? parent.get(cur) : undefined) {
    const key = label(byId.get(cur));
    if (!seen.has(key)) time.set(key, (time.get(key) ?? 0) + dt);
    seen.add(key);
  }
});
const total = profile.samples.reduce((a, _, i) => a + (profile.timeDeltas[i] ?? 0), 0);
for (const [key, t] of [...time].sort((a, b) => b[1] - a[1]).slice(0, Number(n))) console.log(`${((100 * t) / total).toFixed(1).padStart(5)}%  ${key}`);
