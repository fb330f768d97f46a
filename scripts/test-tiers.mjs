// `npm test`: builds the bundles once, then runs the four tiers in order, each as
// `npm run test:<tier>` runs it alone, and stops at the first that fails (its exit code is
// npm test's). The tiers are told the bundles are fresh (DSH_BRIDGE_BUILT=1), so none of them
// builds again (each built on its own before: four builds per npm test). Prints each tier's
// time at the end, the figures docs/testing.md reports.
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const TIERS = ['unit', 'integration', 'e2e', 'dsh'];
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

const times = [];
function step(name, args, env = process.env) {
  const t0 = performance.now();
  const r = spawnSync(npm, args, { cwd: ROOT, stdio: 'inherit', env });
  times.push(`${name} ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  return r.status ?? 1;
}

let status = step('build', ['run', 'build']);
const env = { ...process.env, DSH_BRIDGE_BUILT: '1' };
for (const tier of TIERS) {
  if (status !== 0) break;
  status = step(tier, ['run', `test:${tier}`], env);
}
console.log(`[npm test] ${status === 0 ? 'passed' : `failed (exit ${status})`}; times: ${times.join(', ')}`);
process.exit(status);
