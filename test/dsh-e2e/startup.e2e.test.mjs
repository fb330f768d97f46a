// End-to-end, smallest rc.8 host: what a session's servers look like to the user when they start
// (the approval text), and how they start (in parallel with a bounded wait, no retry storm, the
// pool of dsh-mcp-client copies), with the real server-everything and MCP SDK fixture servers.
// Run: DSH_E2E_SUITE=startup npm run test:dsh
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { approvalAnswerer, HERE, HOST_DIR, hostImport, smallestHost } from './host.mjs';
import { approvePin, CLI, cli, countIn, everythingWorkspace, liveChildren, readDeclaration, SERVER_JS, setTrustMode, startHttpFixture, tempRoot, waitFor } from './fixtures.mjs';
import { session, withSmallest } from './smallest.mjs';

// Smallest host only: DSH_E2E_HOST=base skips this file.
const SKIP = process.env.DSH_E2E_HOST === 'base' ? 'smallest host only' : false;
const FIXTURE = path.join(HERE, 'mcp-fixture-server.mjs');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const mcpNames = (request) => request.tools.map((x) => x.name).filter((n) => n.startsWith('mcp__'));
const toolResult = (request) => {
  const block = request.messages.at(-1)?.content?.find((b) => b.type === 'tool-result');
  return block ? { text: block.content.map((c) => c.text ?? '').join(''), isError: block.isError === true } : undefined;
};

/** A workspace whose .vscode/mcp.json declares `servers` (and `inputs`), exported by our CLI. */
/** @param {any} tmp @param {string} name @param {{ servers: object, inputs?: object[], settings?: object }} content */
function workspace(tmp, name, { servers, inputs = [], settings }) {
  const folder = path.join(tmp.root, name);
  fs.mkdirSync(path.join(folder, '.vscode'), { recursive: true });
  fs.writeFileSync(path.join(folder, '.vscode/mcp.json'), `${JSON.stringify({ inputs, servers }, null, 2)}\n`);
  if (settings) fs.writeFileSync(path.join(folder, '.vscode/settings.json'), JSON.stringify(settings));
  cli(tmp.home, ['export', '--workspace', folder]);
  return folder;
}

/** The SDK fixture over stdio, named `name`, answering initialize after `delayMs`. */
const fixtureServer = (name, delayMs = 0) => ({ type: 'stdio', command: process.execPath, args: [FIXTURE, 'stdio'], env: { FIXTURE_NAME: name, FIXTURE_DELAY_MS: String(delayMs) } });

/** Live child processes of this process running the SDK fixture. */
function fixtureProcesses() {
  return liveChildren().filter((p) => p.argv.includes(FIXTURE)).map((p) => p.pid);
}

const SECRET = 'sekret-review-5d2a';

test('DSH rc.8: the in-turn approval shows the full launch, cwd, env names (no values), danger highlights and the pin', { timeout: 180000, skip: SKIP }, (t) => withSmallest(async ({ h, tmp, turn }) => {
  const A = everythingWorkspace(tmp.root, 'A', {
    home: tmp.home, input: SECRET,
    mutate: (entry, folder) => {
      fs.mkdirSync(path.join(folder, 'sub'));
      entry.cwd = '${workspaceFolder}/sub';
      // A variable that changes which code node loads: the review highlights it.
      entry.env.NODE_OPTIONS = '--max-old-space-size=256';
    },
  });
  const server = readDeclaration(A).servers[0];
  const answers = approvalAnswerer(h.root);
  answers.setDefault('allowed-once');
  const s = await session(h, 'sR', A, 'mR');
  await turn(s);
  assert.equal(answers.asked.length, 1);
  const { reason, toolName } = answers.asked[0];
  t.diagnostic(`the approval DSH shows:\n${reason}`);
  assert.equal(toolName, 'mcp__everything__*');
  const lines = reason.split('\n');
  assert.equal(lines[0], `Start MCP server "everything" from ${path.join(A, '.dsh', 'declaration.json')}?`);
  assert.ok(lines.includes(`    ${process.execPath} ${SERVER_JS} stdio`), 'the full command line, untruncated');
  assert.ok(lines.includes(`  Working folder: ${path.join(A, 'sub')}`), 'the working folder');
  assert.ok(lines.includes('  Environment variables (names only): EVERYTHING_API_KEY, BRIDGE_FROM_ENV, NODE_OPTIONS'), 'env names');
  assert.ok(lines.some((l) => l.startsWith('  DANGER: Sets NODE_OPTIONS')), 'the loader variable is highlighted');
  assert.ok(lines.includes(`  Pin: ${server.pin}`), 'the full pin');
  for (const value of [SECRET, 'x', '--max-old-space-size=256']) assert.ok(!lines.some((l) => l.includes(`=${value}`) || l.endsWith(` ${value}`)), `no value (${value})`);
  assert.ok(!reason.includes(SECRET));
  // Approved: it starts, and the first request lists its tools.
  assert.ok(h.llm.requests.get('mR')[0].tools.some((x) => x.name === 'mcp__everything__echo'));
  await s.dispose();
}));

test('DSH rc.8: a failed start (failOnStartupError) is retried only after the entry\'s reconnect backoff, at most maxAttempts times, without asking again', { timeout: 180000, skip: SKIP }, (t) => withSmallest(async ({ h, tmp, turn }) => {
  const spawns = path.join(tmp.root, 'spawns.txt');
  fs.mkdirSync(path.join(tmp.root, 'F'));
  fs.writeFileSync(path.join(tmp.root, 'F', 'fail.js'), `require('node:fs').appendFileSync(${JSON.stringify(spawns)}, Date.now() + '\\n'); process.exit(3);\n`);
  const F = workspace(tmp, 'F', {
    servers: { flaky: { type: 'stdio', command: process.execPath, args: ['${workspaceFolder}/fail.js'] } },
    settings: { 'dsh.export.failOnStartupError': true, 'dsh.export.reconnect': { enabled: true, initialDelayMs: 2000, maxDelayMs: 2000, maxAttempts: 2 } },
  });
  const server = readDeclaration(F).servers[0];
  assert.equal(server.failOnStartupError, true);
  assert.deepEqual(server.reconnect, { enabled: true, initialDelayMs: 2000, maxDelayMs: 2000, maxAttempts: 2 });
  const count = () => (fs.existsSync(spawns) ? fs.readFileSync(spawns, 'utf8').split('\n').filter(Boolean).length : 0);
  const answers = approvalAnswerer(h.root);
  answers.setDefault('allowed-once');
  const s = await session(h, 'sF', F, 'mF');
  // Each turn: three model steps (two tool calls), each with its own assembly.
  const threeSteps = async () => {
    h.llm.scripts.set('mF', [{ tool: 'no_such_tool', args: {} }, { tool: 'no_such_tool', args: {} }, { text: 'done' }]);
    await turn(s);
  };
  const seen = [];
  for (let i = 0; i < 4; i++) {
    if (i > 0) await sleep(2300); // past the 2 s backoff
    await threeSteps();
    seen.push(count());
  }
  t.diagnostic(`spawns after each of 4 turns (3 steps each, 2.3 s apart): ${seen.join(', ')}`);
  // First start and its one diagnosing run (the session record's exit and stderr: core/app/failedStart.ts),
  // then one retry per elapsed backoff, then no more after maxAttempts (2) retries.
  assert.deepEqual(seen, [2, 3, 4, 4]);
  assert.equal(h.llm.requests.get('mF').length, 12);
  assert.equal(answers.asked.length, 1, 'asked once: a retry does not ask again');
  const lines = h.logs.filter((l) => l.includes('"flaky"') && l.includes('failed to start'));
  assert.equal(lines.filter((l) => l.startsWith('warn')).length, 2, `the first failure and the last one are warnings:\n${lines.join('\n')}`);
  assert.ok(lines.some((l) => /failed to start: .*; retried at the first model step after \d+ ms/.test(l)), lines.join('\n'));
  assert.ok(lines.some((l) => /failed to start 3 times: .*not retried in this session until the declaration or its pin changes/.test(l)), lines.join('\n'));
  await s.dispose();
}));

test('DSH rc.8: servers start in parallel; the first request waits at most startWaitMs, a slow server joins a later step (5 servers, one slow: serial vs parallel)', { timeout: 180000, skip: SKIP }, async (t) => {
  const SLOW_MS = 6000;
  const servers = {
    f1: fixtureServer('f1'), f2: fixtureServer('f2'), f3: fixtureServer('f3'), f4: fixtureServer('f4'),
    slow: fixtureServer('slow', SLOW_MS),
  };
  const figures = {};
  for (const mode of ['serial', 'parallel']) {
    await withSmallest(async ({ h, tmp, turn }) => {
      const W = workspace(tmp, 'W', { servers });
      const answers = approvalAnswerer(h.root);
      answers.setDefault('allowed-once');
      const s = await session(h, `s-${mode}`, W, `m-${mode}`);
      const started = new Map(); // serverName -> when its "started" line was logged
      h.root.logger.exporter({
        levels: { default: 3 },
        export(message) {
          const m = /started "(\w+)"/.exec(message.args.map(String).join(' '));
          if (m) started.set(m[1], Date.now());
        },
      });
      h.llm.scripts.set(`m-${mode}`, [{ text: 'ok' }]);
      const sent = Date.now();
      await turn(s);
      const [first] = h.llm.requests.get(`m-${mode}`);
      figures[mode] = first.at - sent;
      assert.equal(answers.asked.length, 5, 'asked once per server');
      const all = ['f1', 'f2', 'f3', 'f4', 'slow'].map((n) => `mcp__${n}__ping`);
      if (mode === 'serial') {
        assert.deepEqual(mcpNames(first), all, 'serial: the first request waited for all five');
      } else {
        // What was up when the bounded wait ended is in; the slow one is not. (Which fast servers
        // made it depends on the machine's load: each is in the request if and only if it started first.)
        const inFirst = mcpNames(first);
        figures.inFirst = inFirst.length;
        assert.ok(!inFirst.includes('mcp__slow__ping'), 'the slow server is not in the first request');
        for (const name of inFirst) assert.ok(started.get(/^mcp__(\w+)__/.exec(name)[1]) <= first.at, `${name} was up before the request`);
        await waitFor(() => started.size === 5, 30000, 'all five servers to be up');
        h.llm.scripts.set(`m-${mode}`, [{ tool: 'mcp__slow__ping', args: {} }, { text: 'ok' }]);
        await turn(s);
        const [next, after] = h.llm.requests.get(`m-${mode}`).slice(1);
        assert.deepEqual(mcpNames(next), all, 'the others joined the next step');
        assert.deepEqual(toolResult(after), { text: 'pong from slow', isError: false });
        assert.equal(answers.asked.length, 5, 'not asked again');
        for (const n of ['f1', 'f2', 'f3', 'f4', 'slow']) assert.equal(h.logs.filter((l) => l.includes(`started "${n}"`)).length, 1, `${n} started once`);
      }
      assert.equal(fixtureProcesses().length, 5);
      await s.dispose();
      await waitFor(() => fixtureProcesses().length === 0, 15000, 'the fixture servers to stop');
      // The product's default wait (3000 ms), not the tests' long one.
    }, { pluginConfig: mode === 'serial' ? { parallelStart: false } : { startWaitMs: 3000 } });
  }
  t.diagnostic(`first-request latency, 5 servers (one answers initialize after ${SLOW_MS} ms): serial ${figures.serial} ms, parallel (startWaitMs 3000) ${figures.parallel} ms with ${figures.inFirst} of the 4 fast servers in it`);
  assert.ok(figures.parallel < figures.serial, `parallel ${figures.parallel} ms < serial ${figures.serial} ms`);
  assert.ok(figures.serial >= SLOW_MS, 'serial waited for the slow server');
  assert.ok(figures.parallel < SLOW_MS, 'parallel did not wait for the slow server');
});

/** The dsh-mcp-client copy a session's server was started through (the plugin's "started" line; 0 = the host's own). */
function copyOf(logs, sessionId) {
  const pattern = new RegExp(`started "everything" \\(pin [^)]*\\) for session ${sessionId} after \\d+\\.\\d s(?: \\(mcp-client instance (\\d+)\\))?$`);
  const found = logs.map((l) => pattern.exec(l)).filter(Boolean).at(-1);
  assert.ok(found, `no start line for ${sessionId}`);
  return found[1] === undefined ? 0 : Number(found[1]);
}

/** The plugin's child fiber under a session's context (cordis registry, by the config it was given). */
function bridgeSessionFiber(root, sessionId) {
  for (const runtime of root.registry.values()) {
    if (runtime.name !== 'dsh-bridge-session') continue;
    for (const fiber of runtime.fibers) if (fiber.config?.sessionId === sessionId) return fiber;
  }
  return undefined;
}

test('DSH rc.8: dsh-mcp-client copies are pooled; a session context disposed without agent/disposed frees its copy for the next session', { timeout: 180000, skip: SKIP }, (t) => withSmallest(async ({ h, tmp, turn }) => {
  const A = everythingWorkspace(tmp.root, 'A', { home: tmp.home, input: 'v' });
  const answers = approvalAnswerer(h.root);
  answers.setDefault('allowed-once');
  const disposedEvents = [];
  h.root.on('agent/disposed', ({ agent }) => disposedEvents.push(agent.id));
  const s = {};
  for (const id of ['s1', 's2', 's3']) s[id] = await session(h, id, A, `m-${id}`);
  await Promise.all(['s1', 's2', 's3'].map((id) => turn(s[id])));
  await waitFor(() => countIn(A) === 3 && h.logs.filter((l) => l.includes('started "everything"')).length === 3, 30000, 'three servers up');
  const copies = Object.fromEntries(['s1', 's2', 's3'].map((id) => [id, copyOf(h.logs, id)]));
  t.diagnostic(`three concurrent sessions, one serverName: copies ${JSON.stringify(copies)}`);
  assert.deepEqual(Object.values(copies).sort(), [0, 1, 2], 'one copy each: the host\'s own and two more');
  assert.equal(countIn(A), 3);

  // The session holding copy 1 loses its context without agent/disposed (its agent lives on).
  const victim = Object.keys(copies).find((id) => copies[id] === 1);
  const fiber = bridgeSessionFiber(h.root, victim);
  assert.ok(fiber, `the plugin's fiber of ${victim}`);
  await fiber.dispose();
  await waitFor(() => countIn(A) === 2, 15000, `the server of ${victim} to stop`);
  assert.deepEqual(disposedEvents, [], 'no agent/disposed was emitted');
  assert.ok(h.root.agents.list().some((a) => a.id === victim), `${victim} is still a live agent`);
  assert.ok(h.logs.some((l) => l.includes(`session ${victim}: stopped "everything" (session context disposed)`)), 'the stop is logged with its cause');

  // The next session reuses the freed copy 1; after a normal end, copy 0 is reused too.
  s.s4 = await session(h, 's4', A, 'm-s4');
  await turn(s.s4);
  assert.equal(copyOf(h.logs, 's4'), 1, 's4 reuses the freed copy 1');
  const holder0 = Object.keys(copies).find((id) => copies[id] === 0);
  await s[holder0].dispose();
  await waitFor(() => countIn(A) === 2, 15000, `the server of ${holder0} to stop`);
  s.s5 = await session(h, 's5', A, 'm-s5');
  await turn(s.s5);
  assert.equal(copyOf(h.logs, 's5'), 0, 's5 reuses copy 0');
  const used = h.logs.map((l) => /\(mcp-client instance (\d+)\)$/.exec(l)?.[1]).filter(Boolean).map(Number);
  assert.equal(Math.max(...used), 2, 'five sessions, at most three at once: no fourth copy');
  assert.equal(countIn(A), 3);

  // Memory per copy: what one more instance of the host's dsh-mcp-client file costs this process
  // (its dependencies are the host's, shared), measured the way the plugin opens one.
  if (typeof globalThis.gc === 'function') {
    const url = pathToFileURL(createRequire(path.join(HOST_DIR, 'package.json')).resolve('@deepseek-ai/dsh-mcp-client')).href;
    const N = 20;
    const settle = async () => { for (let i = 0; i < 3; i++) { globalThis.gc(); await sleep(20); } const m = process.memoryUsage(); return m.heapUsed + m.external; };
    await import(`${url}?dsh-bridge-measure=warmup`);
    const before = await settle();
    const keep = [];
    for (let i = 0; i < N; i++) keep.push(await import(`${url}?dsh-bridge-measure=${i}`));
    const after = await settle();
    const perCopy = Math.round((after - before) / N / 1024);
    t.diagnostic(`memory per dsh-mcp-client copy: ${perCopy} KiB (heap + external, ${N} copies, after gc)`);
    assert.ok(keep.every((ns) => typeof ns.apply === 'function'));
    assert.ok(perCopy > 0 && perCopy < 4096, `${perCopy} KiB`);
  } else {
    t.diagnostic('memory per copy not measured: run with --expose-gc (test/dsh-e2e/run.sh does)');
  }
  for (const id of ['s1', 's2', 's3', 's4', 's5']) if (id !== holder0) await s[id].dispose();
}));

test('DSH rc.8: a changed entry (a new pin) is stopped and asked about again; the new one starts', { timeout: 180000, skip: SKIP }, (t) => withSmallest(async ({ h, tmp, turn }) => {
  const A = everythingWorkspace(tmp.root, 'A', { home: tmp.home, input: 'v' });
  const answers = approvalAnswerer(h.root);
  answers.setDefault('allowed-once');
  const s = await session(h, 'sP', A, 'mP');
  await turn(s);
  const pin1 = readDeclaration(A).servers[0].pin;
  assert.equal(answers.asked.length, 1);
  assert.ok(answers.asked[0].reason.includes(`Pin: ${pin1}`));
  await turn(s);
  assert.equal(answers.asked.length, 1, 'the same pin is not asked again');
  const mcpFile = path.join(A, '.vscode/mcp.json');
  const mcp = JSON.parse(fs.readFileSync(mcpFile, 'utf8'));
  mcp.servers.everything.env.EXTRA_SETTING = 'on';
  fs.writeFileSync(mcpFile, JSON.stringify(mcp, null, 2));
  cli(tmp.home, ['export', '--workspace', A]);
  const pin2 = readDeclaration(A).servers[0].pin;
  assert.notEqual(pin2, pin1);
  const n = h.llm.requests.get('mP').length;
  await turn(s);
  assert.equal(answers.asked.length, 2, 'the new pin is asked about');
  assert.ok(answers.asked[1].reason.includes(`Pin: ${pin2}`) && answers.asked[1].reason.includes('EXTRA_SETTING'), answers.asked[1].reason);
  assert.ok(h.logs.some((l) => l.includes(`${A}: stopped "everything" (its entry changed)`)));
  assert.ok(mcpNames(h.llm.requests.get('mP')[n]).includes('mcp__everything__echo'), 'the new entry\'s tools are in that request');
  await waitFor(() => countIn(A) === 1, 15000, 'one server (the new entry\'s) running');
  t.diagnostic(`pins ${pin1.slice(0, 19)} -> ${pin2.slice(0, 19)}`);
  await s.dispose();
}));

test('DSH rc.8: a streamable-http server end to end (MCP SDK fixture): reviewed by URL and header names, header value from the host store, tools callable', { timeout: 180000, skip: SKIP }, async (t) => {
  const KEY = 'http-key-value-7f3c';
  const { server, port: listening } = startHttpFixture('web', KEY);
  try {
    const port = await listening;
    await withSmallest(async ({ h, tmp, turn }) => {
      const url = `http://127.0.0.1:${port}/mcp`;
      const W = workspace(tmp, 'W', {
        inputs: [{ id: 'fixture-key', type: 'promptString', description: 'The fixture key', password: true }],
        servers: { web: { type: 'http', url, headers: { 'x-fixture-key': '${input:fixture-key}' } } },
      });
      cli(tmp.home, ['inputs', 'set', 'fixture-key', '--workspace', W], KEY);
      const decl = readDeclaration(W).servers[0];
      assert.equal(decl.transport, 'streamable-http');
      const answers = approvalAnswerer(h.root);
      answers.setDefault('allowed-once');
      const s = await session(h, 'sW', W, 'mW');
      h.llm.scripts.set('mW', [{ tool: 'mcp__web__ping', args: {} }, { text: 'ok' }]);
      await turn(s);
      const lines = answers.asked[0].reason.split('\n');
      t.diagnostic(`the approval DSH shows:\n${answers.asked[0].reason}`);
      assert.ok(lines.includes('  It will connect to this URL with your user\'s privileges:'));
      assert.ok(lines.includes(`    ${url}`));
      assert.ok(lines.includes('  Headers (names only): x-fixture-key'));
      assert.ok(lines.includes(`  Pin: ${decl.pin}`));
      const [first, second] = h.llm.requests.get('mW');
      assert.deepEqual(mcpNames(first), ['mcp__web__ping']);
      assert.deepEqual(toolResult(second), { text: 'pong from web over http', isError: false }, 'the header value reached the server (it answers 401 without it)');
      assert.equal(h.logs.filter((l) => l.includes(KEY)).length, 0, 'the header value is never logged');
      assert.ok(!answers.asked[0].reason.includes(KEY));
      await s.dispose();
    });
  } finally {
    server.kill();
  }
});

test('DSH rc.8: an envFile is loaded inside DSH when the server starts (declared env wins), and the review names its variables', { timeout: 180000, skip: SKIP }, (t) => withSmallest(async ({ h, tmp, turn }) => {
  const E = everythingWorkspace(tmp.root, 'E', {
    home: tmp.home, input: 'v',
    mutate: (entry, folder) => {
      entry.envFile = '${workspaceFolder}/.env';
      fs.writeFileSync(path.join(folder, '.env'), 'FROM_ENV_FILE=from-the-env-file-81c4\nBRIDGE_FROM_ENV=the-file-loses\n');
    },
  });
  const answers = approvalAnswerer(h.root);
  answers.setDefault('allowed-once');
  const s = await session(h, 'sE', E, 'mE');
  h.llm.scripts.set('mE', [{ tool: 'mcp__everything__get-env', args: {} }, { text: 'ok' }]);
  await turn(s);
  const env = JSON.parse(toolResult(h.llm.requests.get('mE')[1]).text);
  assert.equal(env.FROM_ENV_FILE, 'from-the-env-file-81c4', 'the envFile variable reached the server');
  assert.equal(env.BRIDGE_FROM_ENV, 'x', 'the declared env wins over the envFile');
  const reason = answers.asked[0].reason;
  assert.ok(reason.includes(`\n  Environment file: ${path.join(E, '.env')}\n`), reason);
  assert.ok(reason.includes('\n  Variables it sets (names only): FROM_ENV_FILE, BRIDGE_FROM_ENV'), reason);
  assert.ok(!reason.includes('from-the-env-file-81c4') && !h.logs.some((l) => l.includes('from-the-env-file-81c4')), 'no envFile value shown or logged');
  t.diagnostic(`get-env saw FROM_ENV_FILE and BRIDGE_FROM_ENV=${env.BRIDGE_FROM_ENV}`);
  await s.dispose();
}));

test('DSH rc.8: a session that ends while a server is still starting: the server is stopped once its start completes, never mounted', { timeout: 180000, skip: SKIP }, (t) => withSmallest(async ({ h, tmp, turn }) => {
  const DELAY = 5000;
  const W = workspace(tmp, 'W', { servers: { slow: fixtureServer('slow', DELAY) } });
  const answers = approvalAnswerer(h.root);
  answers.setDefault('allowed-once');
  const s = await session(h, 'sS', W, 'mS');
  await turn(s);
  assert.deepEqual(mcpNames(h.llm.requests.get('mS')[0]), [], 'not up within the wait');
  assert.equal(fixtureProcesses().length, 1, 'still starting');
  const ending = Date.now();
  await s.dispose();
  // rc.8's cordis finishes a fiber's pending start before running its disposal, so the process
  // lives until it answers initialize; then the plugin sees the session ended and stops it.
  await waitFor(() => fixtureProcesses().length === 0, DELAY + 15000, 'the starting server to stop');
  t.diagnostic(`the starting server was gone ${Date.now() - ending} ms after the session ended (it answers initialize after ${DELAY} ms)`);
  await sleep(300);
  assert.ok(!h.logs.some((l) => l.includes('started "slow"')), 'never mounted after the end');
  assert.ok(!h.root.tools.schemas().some((x) => x.name.startsWith('mcp__slow__')), 'no tool left registered');
}, { pluginConfig: { startWaitMs: 1000 } }));

test('DSH rc.8: the plugin\'s cost on a session\'s first request (no declaration; a declaration whose server is approved), against the same host without the plugin', { timeout: 180000, skip: SKIP }, async (t) => {
  const { createUserMessage } = await hostImport('@deepseek-ai/dsh-llm');
  const N = 9;
  const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  /** First-request latency of N fresh sessions, each in a fresh project folder (`prepare` fills it). */
  const firstRequests = async (h, root, label, prepare = (/** @type {string} */ _folder) => undefined) => {
    const times = [];
    for (let i = 0; i < N; i++) {
      const folder = path.join(root, `${label}-${i}`);
      fs.mkdirSync(path.join(folder, '.git'), { recursive: true });
      prepare(folder);
      const handle = await h.root.agents.create({ sessionId: `${label}-${i}`, meta: { cwd: folder }, agentOptions: { provider: 'fake', model: `${label}-${i}` } });
      const sent = Date.now();
      handle.agent.followup(createUserMessage({ content: [{ type: 'text', text: 'go' }], source: { kind: 'user' } }));
      await handle.agent.whenIdle();
      times.push(h.llm.requests.get(`${label}-${i}`)[0].at - sent);
      await handle.dispose();
    }
    return times;
  };
  const bare = await smallestHost();
  const tmpBare = tempRoot();
  let without;
  try {
    without = await firstRequests(bare, tmpBare.root, 'bare');
  } finally {
    await bare.dispose();
    tmpBare.cleanup();
  }
  /** @type {number[]} */
  let withPlugin = [];
  /** @type {number[]} */
  let approved = [];
  await withSmallest(async ({ h, tmp }) => {
    withPlugin = await firstRequests(h, tmp.root, 'plain');
    // A folder whose one server is approved (pinned): the first request also waits for its start.
    setTrustMode(tmp.home, 'pinned');
    const template = everythingWorkspace(tmp.root, 'template', { home: tmp.home, exportIt: false });
    approved = await firstRequests(h, tmp.root, 'declared', (folder) => {
      fs.cpSync(path.join(template, '.vscode'), path.join(folder, '.vscode'), { recursive: true });
      cli(tmp.home, ['export', '--workspace', folder]);
      cli(tmp.home, ['inputs', 'set', 'everything-key', '--workspace', folder], 'v');
      approvePin(tmp.home, folder, 'everything', readDeclaration(folder).servers[0].pin);
    });
  });
  t.diagnostic(`first request, median of ${N} sessions: without the plugin ${median(without)} ms; with it, no declaration ${median(withPlugin)} ms; with an approved server-everything ${median(approved)} ms (all: ${without.join(',')} / ${withPlugin.join(',')} / ${approved.join(',')})`);
  assert.ok(median(withPlugin) - median(without) < 250, `the plugin adds ${median(withPlugin) - median(without)} ms to a first request without a declaration`);
});

/** A workspace with one slow fixture server, approved in trust mode pinned (it starts without asking). */
function slowWorkspace(tmp, delayMs) {
  const W = workspace(tmp, 'W', { servers: { slow: fixtureServer('slow', delayMs) } });
  setTrustMode(tmp.home, 'pinned');
  const [server] = readDeclaration(W).servers;
  approvePin(tmp.home, W, server.serverName, server.pin);
  return { W, pin: server.pin };
}

/** What the plugin writes to this process's stderr (a headless run's notices), while `body` runs. */
async function capturingStderr(body) {
  const lines = [];
  const write = process.stderr.write;
  process.stderr.write = function (chunk, ...rest) {
    const text = String(chunk);
    if (text.startsWith('dsh-bridge:')) lines.push(...text.split('\n').filter(Boolean));
    return write.call(this, chunk, ...rest);
  };
  try {
    await body(lines);
  } finally {
    process.stderr.write = write;
  }
  return lines;
}

/** dsh-headless provides `headlessStartup` (its one task): how the plugin knows a run is headless. */
const asHeadless = (h) => h.root.provide('headlessStartup', { task: 'go' });

test('DSH rc.8: a request that goes without a server still starting says so in the log, with the server and how long it has been starting; doctor says it from the plugin\'s record (the session and doctor in a linked path of the folder)', { timeout: 180000, skip: SKIP }, (t) => withSmallest(async ({ h, tmp, turn }) => {
  const { W } = slowWorkspace(tmp, 6000);
  // The session runs in a link to the folder: the record is kept where the plan keeps the
  // folder's values (the declaration's folder), and doctor finds it from the link as from the folder.
  const linked = path.join(tmp.root, 'W-link');
  fs.symlinkSync(W, linked, 'dir');
  const s = await session(h, 'sSlow', linked, 'mSlow');
  await turn(s);
  const [first] = h.llm.requests.get('mSlow');
  assert.ok(!mcpNames(first).includes('mcp__slow__ping'), 'still starting: not in the first request');
  const line = h.logs.find((l) => l.includes('is still starting after'));
  t.diagnostic(line ?? 'no line');
  assert.match(line ?? '', /dsh-bridge: .*: server "slow" \(pin sha256:[0-9a-f]{12}\u2026\) is still starting after (\d+\.\d) s: this request goes without its tools \(a request waits 1\.5 s for the servers starting in its step: startWaitMs\); they join the first request after it is up/);
  assert.ok(Number(/after (\d+\.\d) s/.exec(line)[1]) >= 1.5, 'how long it has been starting, at least the wait');
  await waitFor(() => h.logs.some((l) => /server "slow" \(pin [^)]+\) is up after \d+\.\d s: its tools join the next request/.test(l)), 30000, 'the up line');
  // Exit 1 here (no DSH installed for the CLI to find); its text is what counts. The record of
  // the server's start time is written just after the up line is logged.
  const doctorText = (folder) => spawnSync(process.execPath, [CLI, 'doctor', '--workspace', folder], { env: { ...process.env, DSH_HOME: tmp.home }, encoding: 'utf8' }).stdout;
  let doctor = '';
  await waitFor(() => (doctor = doctorText(W)).includes('it was up after'), 15000, 'doctor to read the up time').catch(() => undefined);
  for (const folder of [W, linked]) {
    doctor = doctorText(folder);
    t.diagnostic(doctor);
    assert.match(doctor, /\u26a0 slow: in the last DSH session here \(.+\), the request that started it went without it: it was still starting after \d+\.\d s \(the request waited 1\.5 s\); it was up after \d+\.\d s\./, `doctor --workspace ${folder}`);
    assert.match(doctor, /^Would mount: slow \(not in the first request of the last session: still starting after \d+\.\d s\); would not: none\.$/m, `doctor --workspace ${folder}`);
  }
  await turn(s);
  assert.ok(mcpNames(h.llm.requests.get('mSlow')[1]).includes('mcp__slow__ping'), 'joined the next request');
  await s.dispose();
}, { pluginConfig: { startWaitMs: 1500 } }));

test('DSH rc.8: a headless one-shot run waits for its approved servers up to their start timeout, not startWaitMs', { timeout: 180000, skip: SKIP }, (t) => withSmallest(async ({ h, tmp, turn }) => {
  const DELAY = 5000;
  const { W } = slowWorkspace(tmp, DELAY);
  const stderr = await capturingStderr(async () => {
    const s = await session(h, 'sHeadless', W, 'mHeadless');
    h.llm.scripts.set('mHeadless', [{ tool: 'mcp__slow__ping', args: {} }, { text: 'ok' }]);
    const sent = Date.now();
    await turn(s);
    const [first, second] = h.llm.requests.get('mHeadless');
    t.diagnostic(`first request after ${first.at - sent} ms`);
    assert.ok(mcpNames(first).includes('mcp__slow__ping'), 'the one request has the slow server\'s tool');
    assert.ok(first.at - sent >= DELAY - 500, 'it waited for the server, past startWaitMs');
    assert.deepEqual(toolResult(second), { text: 'pong from slow', isError: false });
    await s.dispose();
  });
  assert.ok(!stderr.some((l) => l.includes('still starting')), stderr.join('\n'));
}, { pluginConfig: { startWaitMs: 1000 }, beforePlugin: asHeadless }));

test('DSH rc.8: a headless run whose server is still starting when its wait ends says so on stderr, naming the server and how long it has been starting', { timeout: 180000, skip: SKIP }, (t) => withSmallest(async ({ h, tmp, turn }) => {
  const { W } = slowWorkspace(tmp, 8000);
  const stderr = await capturingStderr(async () => {
    const s = await session(h, 'sHeadlessLate', W, 'mHeadlessLate');
    await turn(s);
    const [first] = h.llm.requests.get('mHeadlessLate');
    assert.ok(!mcpNames(first).includes('mcp__slow__ping'));
    await s.dispose();
  });
  t.diagnostic(stderr.join('\n'));
  const line = stderr.find((l) => l.includes('still starting'));
  assert.match(line ?? '', /^dsh-bridge: .*: server "slow" \(pin sha256:[0-9a-f]{12}\u2026\) is still starting after (\d+\.\d) s: this headless run goes on without its tools \(it waits 2\.0 s for its servers: headlessStartWaitMs\)$/);
  assert.ok(Number(/after (\d+\.\d) s/.exec(line)[1]) >= 2, 'how long it has been starting');
}, { pluginConfig: { headlessStartWaitMs: 2000 }, beforePlugin: asHeadless }));
