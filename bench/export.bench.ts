/**
 * npm run bench: the export pipeline against its floor, jsonc-parser's parse() of the same
 * text, measured in the same run and interleaved so machine noise hits both alike. Reports
 * ratios (not absolute times), growth with size, where the time goes, the CLI's cold start
 * against a bare node start, and zod's weight in the bundle.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse } from 'jsonc-parser';
import { buildSync } from 'esbuild';
import { analyzeSource } from '../src/core/mcp/analyze';
import type { AnalyzeOptions } from '../src/core/mcp/analyzeOptions';
import { withPin } from '../src/core/json/canonicalJson';
import { serializeDeclaration } from '../src/core/declaration/declaration';
import { buildDeclarationBody, commitExport, reviewExport } from '../src/core/app/export';
import { planSession } from '../src/core/app/plan';
import { nodePorts } from '../src/core/node/ports';
import { journaledEnv } from '../src/core/node/readJournal';
import { KeptWhileUnchanged } from '../src/core/node/keptWhileUnchanged';
import { settingsViewFromFiles } from '../src/core/settings/folderSettings';
import { parseJsonc } from '../src/core/json/jsonTree';
import { generate } from './generate';

const ROOT = path.resolve(__dirname, '..');
const KEY = Buffer.alloc(32, 7);

const options = (count: number): AnalyzeOptions => ({
  folder: '/home/dev/app', folderName: 'app', userHome: '/home/dev', pathSeparator: '/', limits: { maxServers: Math.max(512, count) },
});

function exportOnce(bytes: Buffer, opts: AnalyzeOptions): string {
  const analysis = analyzeSource(bytes, opts);
  return serializeDeclaration(buildDeclarationBody(analysis, opts.folder), KEY);
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/**
 * Interleaved timing of several functions: each round runs every function `batch` times in a
 * row and records the mean, so each pays for the garbage it makes itself (steady-state
 * throughput, collections included) rather than for its neighbour's. Returns the median ms.
 */
function race(fns: Record<string, () => unknown>, rounds: number, batch = 5): Record<string, number> {
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(fns).map((k) => [k, []]));
  for (const fn of Object.values(fns)) for (let i = 0; i < 3; i++) fn(); // warm up
  for (let r = 0; r < rounds; r++) {
    for (const [name, fn] of Object.entries(fns)) {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < batch; i++) fn();
      samples[name].push(Number(process.hrtime.bigint() - t0) / 1e6 / batch);
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
}

const fmt = (n: number) => n.toFixed(2);
const lines: string[] = [];
const out = (s = '') => {
  lines.push(s);
  console.log(s);
};

out('## Export vs parse (ratio = median export / median jsonc-parser parse, same run, interleaved)');
out('');
out('| servers | bytes | export / parse | parseTree / parse | analysis / parse | pins / parse | declaration / parse | export per server vs 10 |');
out('|---:|---:|---:|---:|---:|---:|---:|---:|');
let perServer10 = 0;
for (const count of (process.env.BENCH_SIZES ?? '10,100,500,5000').split(',').map(Number)) {
  const text = generate(count);
  const bytes = Buffer.from(text, 'utf8');
  const opts = options(count);
  const analysis = analyzeSource(bytes, opts);
  if (analysis.servers.length !== count) throw new Error(`bench input broken: ${analysis.servers.length} of ${count} exported`);
  const body = buildDeclarationBody(analysis, opts.folder);
  const rounds = count >= 5000 ? 7 : count >= 500 ? 15 : 40;
  const t = race({
    parse: () => parse(text, [], { allowTrailingComma: true }),
    parseTree: () => parseJsonc(text),
    export: () => exportOnce(bytes, opts),
    analysis: () => analyzeSource(bytes, opts),
    pins: () => analysis.servers.forEach(({ pin, ...rest }) => withPin(rest)),
    declaration: () => serializeDeclaration(body, KEY),
  }, rounds);
  const perServer = t.export / count;
  if (count === 10) perServer10 = perServer;
  out(`| ${count} | ${bytes.length} | **${fmt(t.export / t.parse)}** | ${fmt(t.parseTree / t.parse)} | ${fmt(t.analysis / t.parse)} | ${fmt(t.pins / t.parse)} | ${fmt(t.declaration / t.parse)} | ${fmt(perServer / perServer10)} |`);
}
out('');
out('analysis includes parseTree (and the per-server pins); declaration = digest + HMAC + JSON text.');

/** As race(), for async functions: each round runs every function `batch` times in a row; returns the median ms. */
async function raceAsync(fns: Record<string, () => Promise<unknown>>, rounds: number, batch = 3): Promise<Record<string, number>> {
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(fns).map((k) => [k, []]));
  for (const fn of Object.values(fns)) for (let i = 0; i < 3; i++) await fn(); // warm up
  for (let r = 0; r < rounds; r++) {
    for (const [name, fn] of Object.entries(fns)) {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < batch; i++) await fn();
      samples[name].push(Number(process.hrtime.bigint() - t0) / 1e6 / batch);
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
}

// Cold start of the CLI against a bare node process, same run, interleaved.
const cli = path.join(ROOT, 'dist/cli.js');
const demo = path.join(ROOT, 'examples/demo');
const cold = race({
  node: () => spawnSync(process.execPath, ['-e', '0']),
  version: () => spawnSync(process.execPath, [cli, '--version']),
  check: () => spawnSync(process.execPath, [cli, 'check', '--workspace', demo, '--json']),
}, 15, 1);
out('');
out('## CLI cold start (median of 15, interleaved)');
out('');
out(`| what | / bare \`node -e 0\` |`);
out('|---|---:|');
out(`| \`dsh-bridge --version\` | ${fmt(cold.version / cold.node)} |`);
out(`| \`dsh-bridge check\` on examples/demo | ${fmt(cold.check / cold.node)} |`);

// zod's weight: the same small schema bundled from zod/mini and from zod (classic).
function bundleSize(contents: string): number {
  const r = buildSync({ stdin: { contents, resolveDir: ROOT, loader: 'ts' }, bundle: true, minify: true, write: false, platform: 'node', format: 'cjs', mainFields: ['module', 'main'] });
  return r.outputFiles[0].contents.length;
}
const schema = 'z.object({ a: z.string(), b: z.optional(z.array(z.number())) })';
const mini = bundleSize(`import * as z from 'zod/mini'; console.log(${schema}.safeParse({}))`);
const classic = bundleSize(`import * as z from 'zod'; console.log(${schema}.safeParse({}))`);
execFileSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs'), '--release'], { cwd: ROOT });
out('');
out('## Bundle');
out('');
out(`- zod/mini vs zod (classic), same schema, minified: ${(mini / 1024).toFixed(1)} KiB vs ${(classic / 1024).toFixed(1)} KiB (${fmt(classic / mini)}x)`);
out(`- dist/cli.js (release build): ${(statSync(cli).size / 1024).toFixed(1)} KiB`);
execFileSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs')], { cwd: ROOT });

// The session plan against the export of the same folder, on disk, warm: the plan is what the
// DSH plugin computes at a model step after a change of what it read (without skills and tools:
// its skill gate and tool gate run apart; an unchanged step keeps the last plan), and what
// verify, doctor and the editor show (with skills). Every server approved and its values stored:
// the plan renders every row, its most expensive path.
async function planVsExport(): Promise<void> {
  out('');
  out('## Session plan vs export (same folder on disk, warm; ratio = median plan / median export, same run, interleaved)');
  out('');
  out('| servers | export ms | the plugin\'s step, nothing changed (its kept plan alone) / export (ms) | plan at a model step, computed (the plan alone, no read journal) / export (ms) | the same, servers running / export (ms) | full plan (tools, skills) / export |');
  out('|---:|---:|---:|---:|---:|---:|');
  for (const count of (process.env.BENCH_PLAN_SIZES ?? '50,500').split(',').map(Number)) {
    const base = mkdtempSync(path.join(os.tmpdir(), 'dsh-bench-plan-'));
    try {
      const folder = path.join(base, 'app');
      mkdirSync(path.join(folder, '.vscode'), { recursive: true });
      mkdirSync(path.join(folder, '.git'));
      for (let i = 0; i < count; i++) mkdirSync(path.join(folder, 'tools', String(i)), { recursive: true });
      writeFileSync(path.join(folder, '.vscode/mcp.json'), generate(count));
      // As the plugin builds its ports: the environment read through a journaled view.
      const ports = nodePorts({ dshHome: path.join(base, 'dsh-home'), home: base, env: journaledEnv(process.env), log: () => undefined });
      const identity = { folder, folderName: 'app', userHome: base, settings: settingsViewFromFiles([{ level: 'user', kind: 'settings', text: JSON.stringify({ 'dsh.export.toolCallTimeoutMs': 60000 }) }]) };
        const exported = await commitExport(ports, await reviewExport(ports, identity));
      if (exported.analysis.servers.length !== count) throw new Error(`bench input broken: ${exported.analysis.servers.length} of ${count} exported`);
      await ports.store.setTrustMode('pinned');
      await ports.store.setInput(folder, 'token', 'bench');
      for (const s of exported.analysis.servers) await ports.store.approve(folder, s.serverName, s.pin);
      const check = await planSession(ports, { cwd: folder, skills: false });
      if (check.plan.servers.filter((s) => s.outcome === 'starts').length !== count) throw new Error(`bench plan broken: ${JSON.stringify(check.plan.servers.find((s) => s.outcome !== 'starts'))}`);
      // The plugin's step once its servers run: their rows are kept while their values stay.
      const running = new Map(exported.analysis.servers.map((s) => [s.serverName, s.pin]));
      // What the plugin's step does: the last plan, kept while nothing it read changes (keptWhileUnchanged.ts).
      const kept = new KeptWhileUnchanged<unknown>(ports.env);
      const keptStep = () => kept.get(folder, () => planSession(ports, { cwd: folder, skills: false, tools: false, running, policyWithoutDeclaration: false }));
      await keptStep();
      if (!kept.keeping()) throw new Error('bench kept plan broken: nothing kept');
      const t = await raceAsync({
        export: async () => commitExport(ports, await reviewExport(ports, identity)),
        kept: keptStep,
        step: () => planSession(ports, { cwd: folder, skills: false, tools: false, policyWithoutDeclaration: false }),
        running: () => planSession(ports, { cwd: folder, skills: false, tools: false, running, policyWithoutDeclaration: false }),
        full: () => planSession(ports, { cwd: folder }),
      }, count >= 500 ? 9 : 15);
      if (kept.computed !== 1) throw new Error(`bench kept plan broken: planned ${kept.computed} times while nothing changed`);
      kept.close();
      out(`| ${count} | ${fmt(t.export)} | **${(t.kept / t.export).toPrecision(2)}** (${(t.kept).toPrecision(2)}) | ${fmt(t.step / t.export)} (${fmt(t.step)}) | ${fmt(t.running / t.export)} (${fmt(t.running)}) | ${fmt(t.full / t.export)} |`);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  }
  out('');
  out('The export here is the use case on disk (read, analyze, sections, sign, write if changed); an unchanged declaration is not written again.');
}

planVsExport().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
