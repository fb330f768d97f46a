import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { analyzeSource } from '../../src/core/mcp/analyze';
import { serializeDeclaration } from '../../src/core/declaration/declaration';
import { buildDeclarationBody } from '../../src/core/app/export';
import { main } from '../../src/cli/main';
import { fixtureTrees, mutatedFixture, sourceFixtureFiles } from './fuzz.mutate';
import { mergeSources } from '../../src/core/mcp/mergeSources';
import { DEVCONTAINER_SOURCE, DOT_MCP_SOURCE, VSCODE_SOURCE, type SourceSpec } from '../../src/core/mcp/sources';
import { makeProblem } from '../../src/core/problems/problems';
import { options, rawHidden } from './helpers';
import { HostStore } from '../../src/core/node/hostStore';
import { MAX_MESSAGE_BYTES } from '../../src/core/node/probe/jsonRpcSession';
import { probeRow } from '../../src/core/node/probe/probeClient';
import { secretMask } from '../../src/core/tools/maskSecrets';
import { reviewLines } from '../../src/core/mcp/launchReview';

/**
 * Fuzz over mutated shipped fixtures (deep nesting, "__proto__"/"constructor"/"prototype" keys,
 * lone surrogates, duplicate keys, wrong types anywhere, input ids that name Object.prototype
 * members) and hostile option files. CI runs 1500 core and 300 CLI cases;
 * `npm run fuzz:long` runs the same properties with DSH_FUZZ_RUNS cases each.
 */
const RUNS = Number(process.env.DSH_FUZZ_RUNS) || 0;
const SEED = process.env.DSH_FUZZ_SEED === undefined ? undefined : Number(process.env.DSH_FUZZ_SEED);
const trees = fixtureTrees();
const sourceTrees = [...trees, ...fixtureTrees(sourceFixtureFiles())];
const SPECS: SourceSpec[] = [VSCODE_SOURCE, DOT_MCP_SOURCE, DEVCONTAINER_SOURCE, { path: '/ws/multi.code-workspace', dialect: 'code-workspace' }];

function settings(defaultRuns: number): fc.Parameters<unknown> {
  return { numRuns: RUNS || defaultRuns, ...(SEED === undefined ? {} : { seed: SEED }), endOnFailure: true };
}

/** Runs `main` in-process (the CLI's own code path) and returns its exit code and stdout lines. */
async function cli(args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out, err };
}

function oneJsonObject(out: string[]): Record<string, unknown> {
  assert.equal(out.length, 1, `expected one line of JSON, got ${out.length}`);
  const value = JSON.parse(out[0]);
  assert.ok(value && typeof value === 'object' && !Array.isArray(value), 'not a JSON object');
  return value;
}

describe('fuzz: mutated fixtures (fast-check)', function () {
  this.timeout(0);
  const counts = { cases: 0, exported: 0, refused: 0 };
  let savedAgents: string | undefined;
  before(() => {
    assert.ok(trees.length >= 5, 'the fixtures were not found');
    savedAgents = process.env.DSH_AGENTS_HOME;
  });
  after(() => {
    if (savedAgents === undefined) delete process.env.DSH_AGENTS_HOME;
    else process.env.DSH_AGENTS_HOME = savedAgents;
    // The figures asked for in a report: how many cases ran, and how they split.
    console.log(`      fuzz: ${counts.cases} CLI cases (${counts.exported} exported and verified, ${counts.refused} refused and not verifying)`);
  });

  it('the core never throws and whatever it accepts serializes', () => {
    fc.assert(fc.property(mutatedFixture(trees), (text) => {
      const analysis = analyzeSource(Buffer.from(text, 'utf8'), options());
      if (analysis.usable) serializeDeclaration(buildDeclarationBody(analysis, '/w'), Buffer.alloc(32));
      for (const p of analysis.problems) assert.ok(p.range.start.line >= 0 && p.range.end.character >= 0);
    }), settings(1500));
  });

  it('what the launch review and the problems show has no raw control, bidi or invisible character', () => {
    fc.assert(fc.property(mutatedFixture(trees), (text) => {
      const analysis = analyzeSource(Buffer.from(text, 'utf8'), options());
      const shown = [
        ...analysis.servers.flatMap((s) => reviewLines(s)),
        ...analysis.problems.flatMap((p) => [p.message, ...(p.related ?? []).map((r) => r.message)]),
      ];
      for (const line of shown) assert.equal(rawHidden(line), undefined);
    }), settings(1500));
  });

  it('every kind of source file: the core never throws, and a merge of two serializes', () => {
    assert.ok(sourceFixtureFiles().length >= 4, 'the source fixtures were not found');
    fc.assert(fc.property(mutatedFixture(sourceTrees), mutatedFixture(sourceTrees), fc.nat(SPECS.length - 1), (first, second, which) => {
      const spec = SPECS[which];
      const a = analyzeSource(Buffer.from(first, 'utf8'), options(), spec);
      for (const p of a.problems) assert.ok(p.file === spec.path && p.range.start.line >= 0 && p.range.end.character >= 0);
      const b = analyzeSource(Buffer.from(second, 'utf8'), options(), VSCODE_SOURCE);
      const merged = mergeSources([{ spec: VSCODE_SOURCE, analysis: b }, { spec, analysis: a }], makeProblem('missing-source', '.vscode/mcp.json', a.problems[0]?.range ?? { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }));
      if (merged.usable) serializeDeclaration(buildDeclarationBody(merged, '/w'), Buffer.alloc(32));
      assert.ok(new Set(merged.servers.map((s) => s.serverName)).size === merged.servers.length, 'one DSH name once');
    }), settings(800));
  });

  it('hostile option files (--user-settings, --code-workspace): a FIFO, a device, a folder, a huge or mutated file; one JSON object, never a hang', async function () {
    if (process.platform === 'win32') this.skip();
    const base = mkdtempSync(path.join(existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'dsh-bridge-fuzz-options-'));
    const folder = path.join(base, 'ws');
    mkdirSync(path.join(folder, '.vscode'), { recursive: true });
    writeFileSync(path.join(folder, '.vscode/mcp.json'), '{"servers": {"a": {"command": "node"}}}');
    const fifo = path.join(base, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const huge = path.join(base, 'huge.json');
    writeFileSync(huge, `{"x": "${'a'.repeat(1024 * 1024)}"}`);
    const kinds = ['fifo', 'device', 'folder', 'huge', 'missing', 'mutated'] as const;
    await fc.assert(fc.asyncProperty(fc.constantFrom(...kinds), fc.constantFrom('--user-settings', '--code-workspace'), mutatedFixture(sourceTrees), fc.constantFrom('export', 'check', 'verify'), async (kind, option, text, command) => {
      const file = { fifo, device: '/dev/zero', folder: base, huge, missing: path.join(base, 'nope'), mutated: path.join(base, 'mutated.json') }[kind];
      if (kind === 'mutated') writeFileSync(file, text);
      const r = await cli([command, '--workspace', folder, '--dsh-home', path.join(base, 'home'), option, file, '--json']);
      const report = oneJsonObject(r.out);
      assert.ok(!String(report.error ?? '').startsWith('internal error'), String(report.error));
      if (kind === 'mutated') assert.ok(r.code === 0 || r.code === 1 || r.code === 2, `exit ${r.code}`);
      else assert.equal(r.code, 2, `${kind}: exit ${r.code}`);
    }), settings(60)).finally(() => rmSync(base, { recursive: true, force: true }));
  });

  it('the CLI prints its JSON object, and export and verify agree', async () => {
    // Each case writes and fsyncs real files: on a memory file system when there is one (same code, ~10x faster).
    const base = mkdtempSync(path.join(existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'dsh-bridge-fuzz-'));
    const home = path.join(base, 'home');
    const folder = path.join(base, 'ws');
    process.env.DSH_AGENTS_HOME = path.join(home, 'agents');
    mkdirSync(path.join(folder, '.vscode'), { recursive: true });
    await fc.assert(fc.asyncProperty(mutatedFixture(trees), async (text) => {
      writeFileSync(path.join(folder, '.vscode/mcp.json'), text);
      const common = ['--workspace', folder, '--dsh-home', home, '--json'];
      const exported = await cli(['export', ...common]);
      const report = oneJsonObject(exported.out);
      assert.ok(exported.code === 0 || exported.code === 1, `exit ${exported.code}`);
      assert.ok(!String(report.error ?? '').startsWith('internal error'), String(report.error));
      // Every referenced input gets a value in the host store (ids such as "__proto__" included):
      // each is listed as stored, and forgetting one leaves the others.
      const listed = () => cli(['inputs', 'list', ...common]).then((r) => oneJsonObject(r.out).inputs as Array<{ id: string; stored: boolean; referenced: boolean }>);
      const referenced = (await listed()).filter((i) => i.referenced).map((i) => i.id);
      const store = new HostStore(home, { log: () => undefined });
      for (const id of referenced) await store.setInput(folder, id, `value of ${id}`);
      assert.deepEqual((await listed()).filter((i) => !i.stored).map((i) => i.id), [], 'a stored value is listed as missing');
      if (referenced.length) {
        await store.forgetInput(folder, referenced[0]);
        assert.deepEqual((await listed()).filter((i) => !i.stored).map((i) => i.id), [referenced[0]]);
      }
      await store.forgetInput(folder);
      // What a terminal gets: the human text of check and approve (the review of each server) hides nothing.
      for (const command of ['check', 'approve']) {
        const human = await cli([command, '--workspace', folder, '--dsh-home', home]);
        for (const line of [...human.out, ...human.err]) assert.equal(rawHidden(line), undefined, `${command}: ${line.slice(0, 200)}`);
      }
      const verified = await cli(['verify', ...common]);
      const verdict = oneJsonObject(verified.out).verify as { ok: boolean; reasons: Array<{ code: string }> };
      counts.cases++;
      if (exported.code === 0) {
        counts.exported++;
        assert.equal(report.declaration, '.dsh/declaration.json');
        assert.deepEqual(verdict.reasons, [], 'export wrote a declaration its own verify refuses');
        assert.equal(verified.code, 0);
      } else {
        counts.refused++;
        assert.equal(verdict.ok, false, 'an unusable source left a declaration that verifies');
      }
    }), settings(300)).finally(() => rmSync(base, { recursive: true, force: true }));
  });
});

/** One answer shape of a hostile Streamable HTTP server (every request of a case gets it). */
interface HttpShape {
  status: number;
  type: string | undefined;
  session: boolean;
  kind: 'valid' | 'random' | 'json' | 'oversized' | 'endless' | 'events' | 'silent' | 'truncated';
  text: string;
}

const CANARY = 'canary-fuzz-0123456789abcdef';
const httpShape: fc.Arbitrary<HttpShape> = fc.record({
  status: fc.constantFrom(200, 200, 200, 202, 204, 301, 400, 404, 500),
  type: fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/event-stream', 'text/html', undefined),
  session: fc.boolean(),
  kind: fc.constantFrom('valid', 'random', 'json', 'oversized', 'endless', 'events', 'silent', 'truncated'),
  // Text the server repeats (descriptions, error pages, event data): sometimes with the secret in it.
  text: fc.oneof(fc.string({ maxLength: 200 }), fc.string({ maxLength: 50 }).map((t) => `${t}${CANARY}${t}`), fc.string({ unit: 'binary', maxLength: 300 })),
});

/** The answer a well-behaved server would give `message`, with the shape's text in it. */
function validAnswer(message: { id?: unknown; method?: string; params?: { protocolVersion?: string } }, text: string): object {
  const result = message.method === 'initialize'
    ? { protocolVersion: message.params?.protocolVersion ?? '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: text, version: '1' } }
    : { tools: [{ name: 'look', description: text, inputSchema: { type: 'object', properties: { [text]: { type: 'string', description: text } } } }] };
  return { jsonrpc: '2.0', id: message.id, result };
}

async function serveShape(shape: HttpShape, oversized: Buffer, req: IncomingMessage, res: ServerResponse): Promise<void> {
  res.on('error', () => undefined);
  let body = '';
  for await (const chunk of req) body += chunk;
  if (req.method === 'DELETE') return void res.writeHead(200).end();
  if (req.method === 'GET' && shape.kind !== 'endless' && shape.kind !== 'events') return void res.writeHead(405).end();
  let message: { id?: unknown; method?: string } = {};
  try { message = JSON.parse(body); } catch { /* a GET */ }
  if (req.method === 'POST' && message.id === undefined) return void res.writeHead(202).end();
  const sse = shape.type === 'text/event-stream';
  const headers: Record<string, string> = {
    ...(shape.type ? { 'content-type': shape.type } : {}),
    ...(shape.session ? { 'mcp-session-id': 'session-1' } : {}),
    ...(shape.status === 301 ? { location: `/moved?${encodeURIComponent(shape.text)}` } : {}),
  };
  res.writeHead(shape.status, headers);
  if (shape.status === 204) return void res.end(); // no body: Node drops what is written (write() says true)
  const answer = JSON.stringify(validAnswer(message, shape.text));
  switch (shape.kind) {
    case 'valid': return void res.end(sse ? `event: message\ndata: ${answer}\n\n` : answer);
    case 'random': return void res.end(shape.text);
    case 'json': return void res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -1, message: shape.text } }));
    case 'oversized': return void res.end(oversized);
    case 'truncated': return void res.end(answer.slice(0, answer.length >> 1));
    case 'events': return void res.end(Array.from({ length: 50 }, () => `data: ${shape.text.replace(/[\r\n]/g, ' ')}\n\n`).join(''));
    case 'silent': return void res.flushHeaders();
    case 'endless': {
      const more = () => {
        if (res.destroyed) return;
        if (res.write(oversized.subarray(0, 65536))) setImmediate(more);
        else res.once('drain', more);
      };
      res.write(sse ? 'data: ' : '{"jsonrpc":"2.0","result":"');
      return more();
    }
  }
}

describe('fuzz: the probe client against hostile HTTP servers (in process)', function () {
  this.timeout(0);
  // Each case is a real exchange that may last its timeout: fewer cases than the pure properties.
  const runs = RUNS ? Math.max(30, Math.floor(RUNS / 100)) : 30;
  const oversized = Buffer.alloc(MAX_MESSAGE_BYTES + 1, 'x');
  let shape: HttpShape;
  const server = createServer((req, res) => void serveShape(shape, oversized, req, res).catch(() => res.destroy()));
  let url = '';
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  it('never throws, never reads a message past the cap, ends by its timeout, and repeats no secret', async () => {
    const row = { serverName: 's', toolCallTimeoutMs: 60000, failOnStartupError: false, reconnect: { enabled: false, initialDelayMs: 500, maxDelayMs: 30000, maxAttempts: 1 }, transport: 'streamable-http' as const, url, headers: {} };
    await fc.assert(fc.asyncProperty(httpShape, async (s) => {
      shape = s;
      // Time to read a message past the cap from a server in this same process; others go on to the timeout quickly.
      const timeoutMs = s.kind === 'oversized' || s.kind === 'endless' ? 3000 : 300;
      const started = Date.now();
      const result = await probeRow(row, { timeoutMs, parentEnv: {}, mask: secretMask([CANARY]) });
      const elapsed = Date.now() - started;
      // The timeout, then at most the session's DELETE (2 s) and the stop.
      assert.ok(elapsed < timeoutMs + 2500, `took ${elapsed} ms`);
      // The tools are as listed (their pins are of the real definitions); every text about the server is masked.
      assert.ok(!JSON.stringify({ ...result, tools: undefined }).includes(CANARY.slice(0, 8)), JSON.stringify(result));
      if (result.ok) assert.ok(s.kind === 'valid' && s.status === 200, JSON.stringify(s));
      const json = s.type === 'text/event-stream' || s.type?.startsWith('application/json');
      if (s.status === 200 && json && (s.kind === 'oversized' || s.kind === 'endless')) {
        assert.equal(!result.ok && result.failure, 'not-mcp', JSON.stringify(result));
        assert.match(!result.ok ? result.detail : '', /more than \d+ bytes/);
      }
    }), { ...settings(runs), numRuns: runs });
  });
});

