// kill -9 during writes, on demand (not in CI): `npm run kill-loop [-- <runs>]` (default 200 each).
// 1. `dsh-bridge export`, killed either the moment its temp file appears (mid-write) or at a random moment: the declaration is never partial
//    (absent or complete JSON with a digest), and the next export leaves no temp file behind.
// 2. `dsh-bridge inputs set`, killed likewise: after `inputs forget`, no canary secret is left
//    anywhere under the DSH home.
// Prints one JSON summary; exits 1 if any of those fails.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, watch, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = path.join(ROOT, 'dist/cli.js');
const RUNS = Number(process.argv[2]) || 200;
if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: npm run build');

const base = mkdtempSync(path.join(os.tmpdir(), 'dsh-bridge-kill-'));
const folder = path.join(base, 'ws');
const home = path.join(base, 'home');
mkdirSync(path.join(folder, '.vscode'), { recursive: true });

/** An mcp.json whose declaration differs on every run and is large enough to take a while to write. */
function source(i) {
  const servers = {};
  for (let s = 0; s < 150; s++) servers[`server-${s}`] = { command: 'node', args: [`run-${i}-${s}.js`, '--flag', 'x'.repeat(200)], env: { N: String(i) } };
  return JSON.stringify({ servers }, null, 2);
}

function runCli(args, input = '') {
  return spawnSync(process.execPath, [CLI, ...args, '--workspace', folder, '--dsh-home', home], { input, encoding: 'utf8' });
}

/**
 * Starts the CLI and kills it with SIGKILL: after `delayMs`, or (with `watchDir`) the moment a
 * temp file appears there, i.e. in the middle of a write. Resolves when it is gone.
 */
function killedRun(args, delayMs, input = '', watchDir) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args, '--workspace', folder, '--dsh-home', home], { stdio: ['pipe', 'ignore', 'ignore'] });
    child.stdin.end(input);
    const kill = () => child.kill('SIGKILL');
    const watcher = watchDir ? watch(watchDir, (_, name) => { if (String(name).endsWith('.tmp')) kill(); }) : undefined;
    const timer = watcher ? undefined : setTimeout(kill, delayMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      watcher?.close();
      resolve(signal === 'SIGKILL' ? 'killed' : 'finished');
    });
  });
}

function timeOf(fn) {
  const t = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
}

function files(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((f) => path.join(dir, f)).filter((f) => statSync(f).isFile());
}

const tempFiles = (dir) => files(dir).filter((f) => f.endsWith('.tmp'));

// --- export ---------------------------------------------------------------------------------
writeFileSync(path.join(folder, '.vscode/mcp.json'), source(-1));
const exportMs = timeOf(() => runCli(['export']));
const declaration = path.join(folder, '.dsh/declaration.json');
const exp = { runs: RUNS, killed: 0, partialDeclarations: 0, runsLeavingTempFiles: 0, tempFilesAfterNextExport: 0, verifyAfterNextExport: '' };
for (let i = 0; i < RUNS; i++) {
  writeFileSync(path.join(folder, '.vscode/mcp.json'), source(i));
  // Every other run is killed the moment its temp file appears (mid-write; it is made in the
  // workspace folder, not in .dsh: docs/declaration.md), the others at a random moment.
  const midWrite = i % 2 === 0 ? folder : undefined;
  if ((await killedRun(['export'], exportMs * (0.5 + Math.random() * 0.6), '', midWrite)) === 'killed') exp.killed++;
  if (existsSync(declaration)) {
    try {
      if (!JSON.parse(readFileSync(declaration, 'utf8')).digest) exp.partialDeclarations++;
    } catch {
      exp.partialDeclarations++;
    }
  }
  if (tempFiles(folder).length) exp.runsLeavingTempFiles++;
}
writeFileSync(path.join(folder, '.vscode/mcp.json'), source(RUNS));
runCli(['export']);
exp.tempFilesAfterNextExport = tempFiles(folder).length;
exp.verifyAfterNextExport = runCli(['verify']).status === 0 ? 'ok' : 'failed';

// --- inputs set -------------------------------------------------------------------------------
const setMs = timeOf(() => runCli(['inputs', 'set', 'token'], 'canary-warmup\n'));
const inp = { runs: RUNS, killed: 0, partialRecords: 0, runsLeavingTempFiles: 0, tempFilesWithSecretSeen: 0, secretsLeftAfterForget: 0, tempFilesLeftAfterForget: 0 };
const record = () => files(path.join(home, 'bridge/folders')).filter((f) => f.endsWith('.json'));
for (let i = 0; i < RUNS; i++) {
  const midWrite = i % 2 === 0 ? path.join(home, 'bridge/folders') : undefined;
  if ((await killedRun(['inputs', 'set', 'token'], setMs * (0.5 + Math.random() * 0.6), `canary-${i}-${Math.random().toString(36).slice(2)}\n`, midWrite)) === 'killed') inp.killed++;
  for (const f of record()) {
    try {
      JSON.parse(readFileSync(f, 'utf8'));
    } catch {
      inp.partialRecords++;
    }
  }
  if (tempFiles(path.join(home, 'bridge')).length) inp.runsLeavingTempFiles++;
  for (const f of tempFiles(path.join(home, 'bridge'))) if (readFileSync(f, 'utf8').includes('canary-')) inp.tempFilesWithSecretSeen++;
}
runCli(['inputs', 'forget']);
for (const f of files(home)) if (readFileSync(f, 'utf8').includes('canary-')) inp.secretsLeftAfterForget++;
inp.tempFilesLeftAfterForget = tempFiles(path.join(home, 'bridge')).length;

rmSync(base, { recursive: true, force: true });
const ok = exp.partialDeclarations === 0 && exp.tempFilesAfterNextExport === 0 && exp.verifyAfterNextExport === 'ok'
  && inp.partialRecords === 0 && inp.secretsLeftAfterForget === 0 && inp.tempFilesLeftAfterForget === 0;
console.log(JSON.stringify({ ok, timingsMs: { export: Math.round(exportMs), inputsSet: Math.round(setMs) }, export: exp, inputsSet: inp }, null, 2));
process.exitCode = ok ? 0 : 1;
