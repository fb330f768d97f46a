// `npm test`: builds the bundles once, then runs the four tiers, each as `npm run test:<tier>`
// runs it alone, in two lanes: unit then e2e, integration then DSH. One tier at a time left most
// of a 2-core machine idle while the real-editor and DSH tiers waited on their editors and
// servers (docs/testing.md, "Time per tier"). The tiers are told the bundles are fresh
// (DSH_BRIDGE_BUILT=1), so none builds again.
//
// Each tier's output goes to its own log (.test-runs/npm-test-<time>-<random>/<tier>.log) and is printed
// whole when the tier ends, so two tiers never interleave; a line every minute says what runs.
// After a tier fails no further tier starts; the ones running finish and are printed; the exit
// code is the first failure's. DSH_BRIDGE_TEST_LANES=1 runs the tiers one after the other with
// their output live. Prints each tier's time at the end, the figures docs/testing.md reports.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { newRunFolder } from '../test/harness/lib.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const LANES = [['unit', 'e2e'], ['integration', 'dsh']];
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const serial = process.env.DSH_BRIDGE_TEST_LANES === '1';
const seconds = (t0) => ((performance.now() - t0) / 1000).toFixed(0);

const times = [];
const t0 = performance.now();
const build = spawnSync(npm, ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
times.push(`build ${seconds(t0)} s`);
let failure = build.status === 0 ? 0 : (build.status ?? 1);

const env = { ...process.env, DSH_BRIDGE_BUILT: '1' };
let logDir;
const running = new Map(); // tier -> { child, started }

/** Runs one tier; resolves to its exit status. Its output is live when serial, else logged and printed at its end. */
function runTier(tier) {
  return new Promise((resolve) => {
    const started = performance.now();
    const logFile = serial ? undefined : path.join(logDir, `${tier}.log`);
    const out = logFile ? fs.openSync(logFile, 'w') : 'inherit';
    // Its own process group, so that a signal to npm test reaches the tier's editors and servers too.
    const child = spawn(npm, ['run', `test:${tier}`], { cwd: ROOT, env, stdio: ['ignore', out, out], detached: !serial });
    if (typeof out === 'number') fs.closeSync(out);
    running.set(tier, { child, started });
    if (!serial) console.log(`[npm test] ${tier} started (output: ${path.relative(ROOT, logFile)})`);
    child.on('close', (code, signal) => {
      running.delete(tier);
      const status = code ?? (signal ? 128 : 1);
      const time = seconds(started);
      times.push(`${tier} ${time} s`);
      if (!serial) {
        console.log(`\n==== [npm test] ${tier}: ${status === 0 ? 'passed' : `failed (exit ${status})`} in ${time} s; its output follows ====`);
        process.stdout.write(fs.readFileSync(logFile));
        console.log(`==== [npm test] end of ${tier} ====\n`);
      }
      resolve(status);
    });
  });
}

async function runLane(tiers) {
  for (const tier of tiers) {
    if (failure) return;
    const status = await runTier(tier);
    if (status !== 0 && !failure) failure = status;
  }
}

function stopAll(signal) {
  for (const { child } of running.values()) {
    try { process.kill(serial ? child.pid : -child.pid, signal); } catch { /* already gone */ }
  }
  process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
}
process.on('SIGINT', () => stopAll('SIGINT'));
process.on('SIGTERM', () => stopAll('SIGTERM'));

if (!failure) {
  if (serial) {
    await runLane(LANES.flat());
  } else {
    logDir = newRunFolder('npm-test');
    const beat = setInterval(() => {
      const now = [...running].map(([tier, { started }]) => `${tier} ${seconds(started)} s`).join(', ');
      if (now) console.log(`[npm test] ${seconds(t0)} s: running ${now}`);
    }, 60000);
    await Promise.all(LANES.map(runLane));
    clearInterval(beat);
  }
}
console.log(`[npm test] ${failure === 0 ? 'passed' : `failed (exit ${failure})`} in ${seconds(t0)} s; times: ${times.join(', ')}`);
process.exit(failure);
