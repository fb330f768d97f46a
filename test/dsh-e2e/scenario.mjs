// The end-to-end scenario, run against each host composition (bridge.e2e.test.mjs).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { approvalAnswerer, hostImport } from './host.mjs';
import {
  approvePin, cli, countIn, everythingWorkspace, readDeclaration, serverProcesses, setTrustMode, waitFor,
} from './fixtures.mjs';

const ECHO = 'mcp__everything__echo';
const GET_ENV = 'mcp__everything__get-env';
const SECRET_A = 'sekret-value-A-41d7';
const SECRET_C = 'sekret-value-C-93b2';
const FROM_ENV = 'from-dsh-env-77e1';

/** Code-unit order, as dsh-system-prompt sorts tools when no toolOrder is configured. */
const sortedByCodeUnit = (names) => names.every((n, i) => i === 0 || names[i - 1] < n);
const mcpNames = (request) => request.tools.map((t) => t.name).filter((n) => n.startsWith('mcp__'));

export async function prepareWorkspaces(root, home) {
  process.env.BRIDGE_E2E_FROM_ENV = FROM_ENV;
  // DSH scrubs credential-shaped names from the inherited environment: this one must not
  // reach the server (it is not declared), while the declared EVERYTHING_API_KEY must.
  process.env.BRIDGE_E2E_UNDECLARED_TOKEN = 'undeclared-token-5c1e';
  const ws = {};
  ws.A = everythingWorkspace(root, 'A', { home, input: SECRET_A });
  ws.C = everythingWorkspace(root, 'C', { home, input: SECRET_C });
  ws.P = everythingWorkspace(root, 'P', { home, input: SECRET_A });
  ws.Q = everythingWorkspace(root, 'Q', { home, input: SECRET_A });
  ws.B = path.join(root, 'B');
  fs.mkdirSync(ws.B);
  // Tampered: an argument changed after the export (pin and digest no longer match).
  ws.T = everythingWorkspace(root, 'T', { home, input: SECRET_A });
  const tampered = readDeclaration(ws.T);
  tampered.servers[0].args.push('--extra');
  fs.writeFileSync(path.join(ws.T, '.dsh/declaration.json'), `${JSON.stringify(tampered, null, 2)}\n`);
  // Stale: the source changed after the export in what it gives a session (an argument added;
  // freshness is by content, so a whitespace-only edit would not count).
  ws.S = everythingWorkspace(root, 'S', { home, input: SECRET_A });
  const sFile = path.join(ws.S, '.vscode/mcp.json');
  const sMcp = JSON.parse(fs.readFileSync(sFile, 'utf8'));
  sMcp.servers.everything.args.push('--after-export');
  fs.writeFileSync(sFile, `${JSON.stringify(sMcp, null, 2)}\n`);
  // Missing input: exported, no value stored on this machine.
  ws.M = everythingWorkspace(root, 'M', { home });
  // A declaration that is a link out of its workspace (to A's valid one).
  ws.L = everythingWorkspace(root, 'L', { home, exportIt: false });
  fs.mkdirSync(path.join(ws.L, '.dsh'));
  fs.symlinkSync(path.join(ws.A, '.dsh/declaration.json'), path.join(ws.L, '.dsh/declaration.json'));
  // Duplicate keys (a later "servers" would win in JSON.parse): refused, never quoted.
  ws.D = everythingWorkspace(root, 'D', { home, input: SECRET_A });
  const dText = fs.readFileSync(path.join(ws.D, '.dsh/declaration.json'), 'utf8');
  fs.writeFileSync(path.join(ws.D, '.dsh/declaration.json'), dText.replace('"servers": [', '"servers": [], "note": "QUOTE-ME-NOT", "servers": ['));
  // Over-size (8 MiB limit).
  ws.Z = everythingWorkspace(root, 'Z', { home, input: SECRET_A });
  fs.appendFileSync(path.join(ws.Z, '.dsh/declaration.json'), ' '.repeat(9 * 1024 * 1024));
  // envFile edited after the export (a loader variable added): its content is signed, so stale.
  ws.E = everythingWorkspace(root, 'E', {
    home, input: SECRET_A,
    mutate: (entry, folder) => {
      entry.envFile = '${workspaceFolder}/.env';
      fs.writeFileSync(path.join(folder, '.env'), 'MODE=test\n');
    },
  });
  fs.appendFileSync(path.join(ws.E, '.env'), 'NODE_OPTIONS=--require /nonexistent/evil.js\n');
  // Rollback: after a newer export, the old source and its old (validly signed) declaration restored.
  ws.O = everythingWorkspace(root, 'O', { home, input: SECRET_A });
  const oldFiles = ['.vscode/mcp.json', '.dsh/declaration.json'].map((f) => /** @type {[string, Buffer]} */ ([f, fs.readFileSync(path.join(ws.O, f))]));
  fs.writeFileSync(path.join(ws.O, '.vscode/mcp.json'), fs.readFileSync(path.join(ws.O, '.vscode/mcp.json'), 'utf8').replace('"stdio"\n', '"stdio", "--newer"\n'));
  cli(home, ['export', '--workspace', ws.O]);
  for (const [f, bytes] of oldFiles) fs.writeFileSync(path.join(ws.O, f), bytes);
  // cwd replaced by a link out of the workspace after the export.
  ws.X = everythingWorkspace(root, 'X', {
    home, input: SECRET_A,
    mutate: (entry, folder) => {
      entry.cwd = '${workspaceFolder}/sub';
      fs.mkdirSync(path.join(folder, 'sub'));
    },
  });
  fs.rmSync(path.join(ws.X, 'sub'), { recursive: true });
  fs.mkdirSync(path.join(root, 'outside-of-the-workspaces'));
  fs.symlinkSync(path.join(root, 'outside-of-the-workspaces'), path.join(ws.X, 'sub'));
  // Wrong folder: A's declaration (and source) copied into another folder.
  ws.W = path.join(root, 'W');
  fs.cpSync(ws.A, ws.W, { recursive: true });
  return ws;
}

/**
 * Runs the whole scenario on a booted host. `h` = {root, logs, llm, kind}; `newSession(id, cwd,
 * model)` creates a session; `preexisting` = a session created before the plugin loaded;
 * `unloadPlugin()` removes the plugin row.
 */
export async function runScenario(t, { h, ws, home, newSession, preexisting, unloadPlugin }) {
  const { createUserMessage } = await hostImport('@deepseek-ai/dsh-llm');
  // Records, at the moment of asking, how many servers already run in that workspace (must be 0).
  const answers = approvalAnswerer(h.root, (req) => ({ running: countIn(req.agent.session.header.cwd) }));
  const say = (session, text = 'go') => session.agent.followup(createUserMessage({ content: [{ type: 'text', text }], source: { kind: 'user' } }));
  const turn = async (session, text) => {
    say(session, text);
    await session.agent.whenIdle();
  };
  const script = (model, steps) => h.llm.scripts.set(model, steps.slice());
  const requests = (model) => h.llm.requests.get(model) ?? [];
  const toolResult = (request) => {
    const block = request.messages.at(-1)?.content?.find((b) => b.type === 'tool-result');
    return block ? { text: block.content.map((c) => c.text ?? '').join(''), isError: block.isError === true } : undefined;
  };
  const askedFor = (session) => answers.asked.filter((a) => a.session === session);

  await t.test('a session that existed before the plugin loaded is covered', async () => {
    answers.answers.set(`${preexisting.agent.id} mcp__everything__*`, 'allowed-once');
    script(preexisting.model, [{ tool: ECHO, args: { message: 'hello P' } }, { text: 'ok' }]);
    await turn(preexisting);
    const [first, second] = requests(preexisting.model);
    assert.ok(mcpNames(first).includes(ECHO), 'first request lists the echo tool');
    assert.deepEqual(toolResult(second), { text: 'Echo: hello P', isError: false });
    if (preexisting.dispose) {
      await preexisting.dispose();
      await waitFor(() => countIn(ws.P) === 0, 15000, 'P server to stop');
    }
  });

  let A; let C;
  await t.test('A (approved), B (no declaration) and C (same serverName, other workspace) run at the same time', async () => {
    answers.answers.set('sA mcp__everything__*', 'allowed-once');
    answers.answers.set('sC mcp__everything__*', 'allowed-once');
    A = await newSession('sA', ws.A, 'mA');
    const B = await newSession('sB', ws.B, 'mB');
    C = await newSession('sC', ws.C, 'mC');
    script('mA', [{ tool: ECHO, args: { message: 'hello from A' } }, { tool: GET_ENV, args: {} }, { text: 'done A' }]);
    script('mB', [{ tool: ECHO, args: { message: 'hello from B' } }, { text: 'done B' }]);
    script('mC', [{ tool: ECHO, args: { message: 'hello from C' } }, { text: 'done C' }]);
    const started = Date.now();
    say(A);
    say(C);
    // B starts only once A's tools are mounted (A's first request lists them and its server runs),
    // so B's check below would see them if they leaked out of A's session.
    await waitFor(() => requests('mA').length > 0, 60000, "A's first request");
    assert.ok(mcpNames(requests('mA')[0]).includes(ECHO), `A sees ${ECHO} before B starts`);
    assert.equal(countIn(ws.A), 1, 'A server running before B starts');
    say(B);
    await Promise.all([A, B, C].map((s) => s.agent.whenIdle()));
    t.diagnostic(`three concurrent turns took ${Date.now() - started} ms`);

    // A: asked once inside the turn, before its server started; FIRST request has the tools.
    assert.equal(askedFor('sA').length, 1, 'A asked exactly once');
    assert.equal(askedFor('sA')[0].running, 0, 'asked before the server started');
    const [a1, a2, a3] = requests('mA');
    assert.ok(mcpNames(a1).includes(ECHO), `A's first request lists ${ECHO}`);
    assert.deepEqual(toolResult(a2), { text: 'Echo: hello from A', isError: false });
    const env = JSON.parse(toolResult(a3).text);
    assert.equal(env.EVERYTHING_API_KEY, SECRET_A, '${input:} value from the host store reached the server');
    assert.equal(env.BRIDGE_FROM_ENV, FROM_ENV, '${env:} value from the DSH process reached the server');
    assert.equal(env.BRIDGE_E2E_UNDECLARED_TOKEN, undefined, 'undeclared credential-shaped variable scrubbed');
    if (h.kind === 'base') assert.ok(sortedByCodeUnit(a1.tools.map((x) => x.name)), 'merged tools keep DSH order');

    // B: no declaration, never sees it, unknown tool when it tries.
    assert.equal(askedFor('sB').length, 0);
    const [b1, b2] = requests('mB');
    assert.deepEqual(mcpNames(b1), []);
    assert.match(toolResult(b2).text, /unknown tool/);
    assert.equal(toolResult(b2).isError, true);
    assert.equal(countIn(ws.B), 0);

    // C: same serverName at the same time, plain public names.
    const [c1, c2] = requests('mC');
    assert.ok(mcpNames(c1).includes(ECHO), `C's first request lists ${ECHO}`);
    assert.deepEqual(toolResult(c2), { text: 'Echo: hello from C', isError: false });
    assert.equal(countIn(ws.A), 1, 'A server running');
    assert.equal(countIn(ws.C), 1, 'C server running');
    await B.dispose();
  });

  await t.test('a subagent created through A is a session of its own; ending it leaves A alone', async () => {
    // rc.8 gives every agent its own scope (no parent link), so A's tools are not visible to it.
    answers.answers.set('sA-child mcp__everything__*', 'allowed-once');
    const child = await A.agent.ctx.agents.create({ sessionId: 'sA-child', meta: { cwd: ws.A }, agentOptions: { provider: 'fake', model: 'mAchild' } });
    script('mAchild', [{ tool: ECHO, args: { message: 'from the subagent' } }, { text: 'ok' }]);
    await turn({ agent: child.agent });
    const [k1, k2] = requests('mAchild');
    assert.ok(mcpNames(k1).includes(ECHO), "the subagent's first request lists the tools");
    assert.deepEqual(toolResult(k2), { text: 'Echo: from the subagent', isError: false });
    assert.equal(askedFor('sA-child').length, 1, 'asked in its own turn');
    assert.equal(countIn(ws.A), 2, 'its own server next to A');
    await child.dispose();
    await waitFor(() => countIn(ws.A) === 1, 15000, "the subagent's server to stop");
  });

  await t.test('ending A stops its server; C is unaffected', async () => {
    const before = serverProcesses().filter((p) => p.cwd === ws.A).map((p) => p.pid);
    assert.equal(before.length, 1);
    await A.dispose();
    await waitFor(() => countIn(ws.A) === 0, 15000, "A's server process to exit");
    assert.equal(countIn(ws.C), 1);
    script('mC', [{ tool: ECHO, args: { message: 'still here' } }, { text: 'ok' }]);
    const n = requests('mC').length;
    await turn(C);
    assert.deepEqual(toolResult(requests('mC')[n + 1]), { text: 'Echo: still here', isError: false });
    assert.equal(askedFor('sC').length, 1, 'C is not asked again for the same pin');
  });

  await t.test('rejected: nothing starts, and the rejection is remembered for the session', async () => {
    answers.answers.set('sR mcp__everything__*', 'rejected');
    const R = await newSession('sR', ws.A, 'mR');
    script('mR', [{ tool: ECHO, args: { message: 'x' } }, { text: 'ok' }, { text: 'again' }]);
    await turn(R);
    assert.equal(askedFor('sR').length, 1);
    const [r1, r2] = requests('mR');
    assert.deepEqual(mcpNames(r1), []);
    assert.match(toolResult(r2).text, /unknown tool/);
    assert.equal(countIn(ws.A), 0);
    await turn(R);
    assert.equal(askedFor('sR').length, 1, 'not asked again after rejected');
    assert.deepEqual(mcpNames(requests('mR')[2]), []);
    await R.dispose();
  });

  for (const [label, key, pattern] of /** @type {Array<[string, string, RegExp]>} */ ([
    ['tampered', 'T', /declaration refused \(tampered\)/],
    ['stale', 'S', /declaration refused \(stale\)/],
    ['wrong folder', 'W', /declaration refused \(wrong-folder\)/],
    ['missing input', 'M', /not started: Input "everything-key" has no value stored for .+ Fix: dsh-bridge inputs set everything-key --workspace /],
    ['declaration linked out of the workspace', 'L', /declaration refused \(unreadable\): .*outside-workspace/],
    ['duplicate keys', 'D', /declaration refused \(tampered\): the declaration has duplicate keys/],
    ['over-size declaration', 'Z', /declaration refused \(unreadable\): .*too-large/],
    ['envFile edited after the export', 'E', /declaration refused \(stale\): the envFile of server "everything" changed since the export/],
    ['old declaration restored after a newer export', 'O', /declaration refused \(rollback\)/],
    ['cwd replaced by a link out after the export', 'X', /not started: the cwd now resolves outside the workspace folder/],
  ])) {
    await t.test(`${label}: nothing starts, one clear log line`, async () => {
      const id = `s${key}`;
      answers.answers.set(`${id} mcp__everything__*`, 'allowed-once');
      const s = await newSession(id, ws[key], `m${key}`);
      script(`m${key}`, [{ text: 'ok' }, { text: 'ok' }]);
      await turn(s);
      await turn(s);
      assert.equal(askedFor(id).length, 0, 'never asked');
      for (const r of requests(`m${key}`)) assert.deepEqual(mcpNames(r), []);
      assert.equal(countIn(ws[key]), 0);
      // One line per reason, written once for the session (not again on the second turn).
      const lines = h.logs.filter((l) => l.includes(ws[key]));
      assert.ok(lines.some((l) => pattern.test(l)), `a "${pattern}" line for ${ws[key]}, got:\n${lines.join('\n')}`);
      assert.equal(new Set(lines).size, lines.length, `no line repeated:\n${lines.join('\n')}`);
      if (key === 'T') assert.equal(lines.length, 2, 'tampered: one line for the pin, one for the digest');
      else assert.equal(lines.length, 1, `exactly one line:\n${lines.join('\n')}`);
      await s.dispose();
    });
  }

  await t.test('an entry that leaves the declaration is unmounted', async () => {
    const mcpFile = path.join(ws.C, '.vscode/mcp.json');
    const mcp = JSON.parse(fs.readFileSync(mcpFile, 'utf8'));
    mcp.servers = {};
    fs.writeFileSync(mcpFile, `${JSON.stringify(mcp, null, 2)}\n`);
    cli(home, ['export', '--workspace', ws.C]);
    script('mC', [{ text: 'ok' }]);
    const n = requests('mC').length;
    await turn(C);
    assert.deepEqual(mcpNames(requests('mC')[n]), []);
    await waitFor(() => countIn(ws.C) === 0, 15000, "C's server to stop");
    await C.dispose();
  });

  await t.test('deny: nothing mounts and nobody is asked', async () => {
    setTrustMode(home, 'deny');
    const D = await newSession('sD', ws.A, 'mD');
    answers.answers.set('sD mcp__everything__*', 'allowed-once');
    script('mD', [{ text: 'ok' }]);
    await turn(D);
    assert.equal(askedFor('sD').length, 0);
    assert.deepEqual(mcpNames(requests('mD')[0]), []);
    assert.equal(countIn(ws.A), 0);
    await D.dispose();
  });

  await t.test('pinned: an approved pin starts without asking, any other pin asks', async () => {
    setTrustMode(home, 'pinned');
    const declA = readDeclaration(ws.A);
    approvePin(home, ws.A, 'everything', declA.servers[0].pin);
    // Q: approved for another pin only (a stale approval must not count).
    approvePin(home, ws.Q, 'everything', `sha256:${'0'.repeat(64)}`);
    const PA = await newSession('sPA', ws.A, 'mPA');
    const PP = await newSession('sPP', ws.Q, 'mPP');
    answers.answers.set('sPP mcp__everything__*', 'allowed-once');
    script('mPA', [{ tool: ECHO, args: { message: 'pinned' } }, { text: 'ok' }]);
    script('mPP', [{ text: 'ok' }]);
    await Promise.all([turn(PA), turn(PP)]);
    assert.equal(askedFor('sPA').length, 0, 'approved pin: not asked');
    assert.ok(mcpNames(requests('mPA')[0]).includes(ECHO));
    assert.deepEqual(toolResult(requests('mPA')[1]), { text: 'Echo: pinned', isError: false });
    assert.equal(askedFor('sPP').length, 1, 'other pin: asked');
    assert.ok(mcpNames(requests('mPP')[0]).includes(ECHO));
    assert.equal(countIn(ws.A), 1);
    assert.equal(countIn(ws.Q), 1);
  });

  await t.test('unloading the plugin stops every server it started', async () => {
    assert.ok(serverProcesses().length >= 2);
    await unloadPlugin();
    await waitFor(() => serverProcesses().length === 0, 15000, 'every server to stop').catch((error) => {
      throw new Error(`${error.message}; still running: ${JSON.stringify(serverProcesses())}\n${h.logs.slice(-15).join('\n')}`);
    });
  });

  await t.test('logs never quote input values or declaration content', () => {
    for (const secret of [SECRET_A, SECRET_C, 'QUOTE-ME-NOT']) {
      assert.equal(h.logs.filter((l) => l.includes(secret)).length, 0);
    }
  });
}
