// End-to-end: the built DSH plugin (dist/dsh-plugin.js, packaged as packages/dsh-bridge-dsh)
// in DSH hosts composed from the published 0.1.0-rc.8 packages, with the real
// @modelcontextprotocol/server-everything over stdio and declarations exported by our CLI.
// The LLM is the only mock (a scripted LlmAdapter). Run: npm run test:dsh
import { test } from 'node:test';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { approvalAnswerer, baseHost, loadPluginRow, smallestHost } from './host.mjs';
import { BUNDLE, PLUGIN, session, withSmallest } from './smallest.mjs';
import assert from 'node:assert/strict';
import { cli, everythingWorkspace, readDeclaration, SERVER_JS, serverProcesses, tempRoot, waitFor } from './fixtures.mjs';
import { prepareWorkspaces, runScenario } from './scenario.mjs';

const only = process.env.DSH_E2E_HOST; // 'smallest' | 'base' | undefined (both)

async function withHost(t, kind) {
  const tmp = tempRoot();
  const previousHome = process.env.DSH_HOME;
  let h;
  try {
    const ws = await prepareWorkspaces(tmp.root, tmp.home);
    process.env.DSH_HOME = tmp.home;
    let preexisting;
    const started = Date.now();
    if (kind === 'smallest') {
      h = await smallestHost();
      // Created before the plugin loads.
      preexisting = await session(h, 'sP', ws.P, 'mP');
      await loadPluginRow(h.root, PLUGIN);
    } else {
      // An agent declared in config (created by the agent-loop row at startup).
      h = await baseHost({ home: tmp.home, bundleDir: BUNDLE, agents: [{ id: 'configured', provider: 'fake', model: 'mP', cwd: ws.P }] });
      const agent = h.root.agents.list().find((a) => a.options.model === 'mP');
      if (!agent) throw new Error('the configured agent was not created');
      preexisting = { agent, model: 'mP' };
      t.diagnostic(`profile layers: ${h.layers.join(', ')}`);
    }
    t.diagnostic(`${kind} host ready in ${Date.now() - started} ms`);
    await runScenario(t, {
      h, ws, home: tmp.home,
      newSession: (id, cwd, model) => session(h, id, cwd, model),
      preexisting,
      unloadPlugin: async () => {
        // The row's full id (under the profile's root include in the dsh-base boot).
        const entry = [...h.root.loader.entries()].find((e) => e.options.id === 'dsh-bridge');
        if (!entry) throw new Error('no dsh-bridge loader row');
        // Group-level removal, as a config reload dropping the row does. (cordis-plugin-loader
        // 1.0.5's loader.remove(fullId) finds a nested row but then looks the FULL id up in the
        // sub-group's store and silently removes nothing.)
        entry.parent.remove(entry.options.id);
        await h.root.loader.await();
      },
    });
  } finally {
    if (h) await h.dispose().catch(() => undefined);
    await waitFor(() => serverProcesses().length === 0, 15000, 'no server process left').catch(() => undefined);
    if (previousHome === undefined) delete process.env.DSH_HOME; else process.env.DSH_HOME = previousHome;
    tmp.cleanup();
  }
}

if (!only || only === 'smallest') {
  test('DSH rc.8, smallest host (SystemPrompt, ToolRuntime, LlmRuntime, SessionStore, AgentRegistry, ApprovalService, AgentLoop, Loader)', { timeout: 180000 }, (t) => withHost(t, 'smallest'));
}
if (!only || only === 'base') {
  test('DSH rc.8, full dsh-base bundle boot through a profile with the dsh-bridge-dsh bundle', { timeout: 180000 }, (t) => withHost(t, 'base'));
}

if (!only || only === 'smallest') {
  test('DSH rc.8: merged MCP tools respect the deployment toolOrder', { timeout: 60000 }, (t) => {
    const def = (name) => ({
      name, description: name, parameters: { type: 'object', properties: {} },
      output: { schema: { type: 'object' }, render: () => [{ type: 'text', text: '' }] },
      execute: async () => ({}),
    });
    return withSmallest(async ({ h, tmp, turn }) => {
      const A = everythingWorkspace(tmp.root, 'A', { home: tmp.home, input: 'v' });
      approvalAnswerer(h.root).setDefault('allowed-once');
      const s = await session(h, 'sO', A, 'mO');
      await turn(s);
      const names = h.llm.requests.get('mO')[0].tools.map((x) => x.name);
      const mcp = names.filter((n) => n.startsWith('mcp__'));
      assert.ok(mcp.length > 5);
      assert.deepEqual(names, ['zeta_tool', ...['middle_tool', ...mcp].sort(), 'alpha_tool']);
      t.diagnostic(names.join(' '));
      await s.dispose();
    }, {
      hostOptions: { toolOrder: ['zeta_tool', '<unlisted-tools>', 'alpha_tool'] },
      beforePlugin: (h) => { for (const name of ['alpha_tool', 'zeta_tool', 'middle_tool']) h.root.tools.register(def(name)); },
    });
  });
}

if (!only || only === 'smallest') {
  test('DSH rc.8: a session in a subfolder mounts the nearest declaration up to the project root, and says once where it looked when none', { timeout: 90000 }, (t) => withSmallest(async ({ h, tmp, turn }) => {
    // P: the project root (.git) holds the declaration; the session starts two folders down.
    const P = everythingWorkspace(tmp.root, 'P', { home: tmp.home, input: 'v' });
    fs.mkdirSync(path.join(P, '.git'));
    const deep = path.join(P, 'src', 'deep');
    fs.mkdirSync(deep, { recursive: true });
    // Q: a declaration above the project root Q/inner (.git) does not apply inside it.
    const Q = everythingWorkspace(tmp.root, 'Q', { home: tmp.home, input: 'v' });
    const inner = path.join(Q, 'inner');
    fs.mkdirSync(path.join(inner, '.git'), { recursive: true });
    const innerSub = path.join(inner, 'sub');
    fs.mkdirSync(innerSub);
    const answers = approvalAnswerer(h.root);
    answers.setDefault('allowed-once');
    const sDeep = await session(h, 'sDeep', deep, 'mDeep');
    await turn(sDeep);
    const deepTools = h.llm.requests.get('mDeep')[0].tools.map((x) => x.name);
    assert.ok(deepTools.some((n) => n.startsWith('mcp__everything__')), `tools in ${deep}: ${deepTools.join(' ')}`);
    assert.equal(answers.asked.filter((a) => a.session === 'sDeep').length, 1);
    assert.match(answers.asked[0].reason, new RegExp(`from ${path.join(P, '.dsh', 'declaration.json').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    await waitFor(() => serverProcesses().some((p) => p.cwd === P), 15000, 'the server running in the declaration folder');

    const sInner = await session(h, 'sInner', innerSub, 'mInner');
    await turn(sInner);
    await turn(sInner);
    const innerRequests = h.llm.requests.get('mInner');
    assert.equal(innerRequests.length, 2);
    for (const r of innerRequests) assert.equal(r.tools.filter((x) => x.name.startsWith('mcp__')).length, 0);
    assert.equal(answers.asked.filter((a) => a.session === 'sInner').length, 0);
    const looked = h.logs.filter((l) => l.startsWith('debug ') && l.includes(`dsh-bridge: ${innerSub}: no .dsh/declaration.json in`));
    assert.equal(looked.length, 1, h.logs.filter((l) => l.includes('dsh-bridge')).join('\n'));
    // Where it looked: the session's folder up to its project root (inner), not Q above it; Q is then
    // named as the folder whose MCP configuration a session started there would mount.
    const [folders, rest] = looked[0].split(' (looked up to the project root)');
    assert.ok(folders.includes(JSON.stringify(innerSub)) && folders.includes(JSON.stringify(inner)), looked[0]);
    assert.ok(!folders.includes(JSON.stringify(Q)), looked[0]);
    assert.ok(rest.includes(`the MCP configuration is in ${JSON.stringify(Q)} above: export that folder and start DSH in it`), looked[0]);
    t.diagnostic(looked[0]);
    await sDeep.dispose();
    await sInner.dispose();
  }));
}

if (!only || only === 'smallest') {
  test('DSH rc.8: the in-turn approval shows a name and an argument holding a carriage return, ANSI and bidi codes escaped, with the dangers they hid', { timeout: 60000 }, (t) => withSmallest(async ({ h, tmp, turn }) => {
    const attack = '--import=data:text/javascript,void 0\r\u001b[2K    node';
    const W = everythingWorkspace(tmp.root, 'W', {
      home: tmp.home, input: 'v', serverName: 'docs\u202etxt.exe',
      mutate: (entry) => { entry.args = [attack, ...entry.args]; },
    });
    const answers = approvalAnswerer(h.root);
    answers.setDefault('rejected');
    const s = await session(h, 'sW', W, 'mW');
    await turn(s);
    assert.equal(answers.asked.length, 1);
    const { reason } = answers.asked[0];
    t.diagnostic(reason);
    assert.ok(!/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/.test(reason), JSON.stringify(reason));
    assert.match(reason, /^Start MCP server "docs\\u\{202e\}txt\.exe" from /);
    assert.ok(reason.includes(`'--import=data:text/javascript,void 0\\r\\x1b[2K    node'`), reason);
    assert.match(reason, /^ {2}DANGER: Loads another module before the server's code \(node --import\)\.$/m);
    assert.match(reason, /^ {2}DANGER: Loads code from a data: URL on the command line\.$/m);
    assert.match(reason, /^ {2}DANGER: An argument holds characters that change how it is shown /m);
    await s.dispose();
  }));
}

if (!only || only === 'smallest') {
  test('DSH rc.8: "unavailable" and "cancelled" are asked again every turn but logged once per session', { timeout: 90000 }, (t) => withSmallest(async ({ h, tmp, turn }) => {
    const A = everythingWorkspace(tmp.root, 'A', { home: tmp.home, input: 'v' });
    const answers = approvalAnswerer(h.root);
    answers.answers.set('sU mcp__everything__*', 'unavailable');
    answers.answers.set('sX mcp__everything__*', 'cancelled');
    const sU = await session(h, 'sU', A, 'mU');
    const sX = await session(h, 'sX', A, 'mX');
    for (let i = 0; i < 3; i++) {
      await turn(sU);
      await turn(sX);
    }
    for (const [id, outcome] of [['sU', 'unavailable'], ['sX', 'cancelled']]) {
      assert.equal(answers.asked.filter((a) => a.session === id).length, 3, `${id} asked again at each of the 3 turns`);
      const lines = h.logs.filter((l) => l.includes(`not started: approval ${outcome}`));
      assert.equal(lines.length, 1, `one "${outcome}" line over 3 turns:\n${lines.join('\n')}`);
    }
    assert.equal(h.logs.filter((l) => l.includes('nothing can answer DSH\'s approval in this session')).length, 1);
    assert.equal(serverProcesses().length, 0);
    t.diagnostic(`${h.logs.filter((l) => l.includes('dsh-bridge')).length} dsh-bridge log lines over 6 turns`);
    await sU.dispose();
    await sX.dispose();
  }));

  test('DSH rc.8: a server with failOnStartupError that fails to start is not asked about or spawned again until its pin changes', { timeout: 90000 }, (t) => withSmallest(async ({ h, tmp, turn }) => {
    // The fixture command records each spawn, then exits before answering.
    const spawns = path.join(tmp.root, 'spawns.txt');
    const F = everythingWorkspace(tmp.root, 'F', {
      home: tmp.home,
      exportIt: false,
      mutate: (entry, folder) => {
        fs.writeFileSync(path.join(folder, 'fail.js'), `require('node:fs').appendFileSync(${JSON.stringify(spawns)}, 'spawn\\n'); process.exit(3);\n`);
        entry.args = [path.join(folder, 'fail.js')];
        entry.env = {};
      },
    });
    // reconnect off: no backoff retry either (startup.e2e.test.mjs covers the backoff).
    fs.writeFileSync(path.join(F, '.vscode/settings.json'), JSON.stringify({
      'dsh.export.failOnStartupError': true,
      'dsh.export.reconnect': { enabled: false, initialDelayMs: 500, maxDelayMs: 30000, maxAttempts: 10 },
    }));
    cli(tmp.home, ['export', '--workspace', F]);
    assert.equal(readDeclaration(F).servers[0].failOnStartupError, true);
    const count = () => (fs.existsSync(spawns) ? fs.readFileSync(spawns, 'utf8').split('\n').filter(Boolean).length : 0);
    const answers = approvalAnswerer(h.root);
    answers.setDefault('allowed-once');
    const s = await session(h, 'sF', F, 'mF');
    // Several model steps per turn (each tool call is a step with its own assembly), two turns.
    for (let i = 0; i < 2; i++) {
      h.llm.scripts.set('mF', [{ tool: 'no_such_tool', args: {} }, { tool: 'no_such_tool', args: {} }, { text: 'done' }]);
      await turn(s);
    }
    assert.equal(h.llm.requests.get('mF').length, 6, 'six model steps');
    // The start, and its one diagnosing run for the session record's exit and stderr (core/app/failedStart.ts).
    assert.equal(count(), 2, 'spawned once over six steps, plus the one diagnosing run');
    assert.equal(answers.asked.length, 1, 'asked once over six steps');
    assert.equal(h.logs.filter((l) => l.includes('failed to start')).length, 1);
    // A new pin (the entry changed and was exported again) is tried again, once.
    fs.writeFileSync(path.join(F, '.vscode/mcp.json'), fs.readFileSync(path.join(F, '.vscode/mcp.json'), 'utf8').replace('fail.js"', 'fail.js", "--again"'));
    cli(tmp.home, ['export', '--workspace', F]);
    h.llm.scripts.set('mF', [{ tool: 'no_such_tool', args: {} }, { text: 'done' }]);
    await turn(s);
    assert.equal(count(), 4, 'spawned again once after the pin changed (and diagnosed once)');
    assert.equal(answers.asked.length, 2, 'asked again once after the pin changed');
    t.diagnostic(`${count()} spawns over ${h.llm.requests.get('mF').length} model steps`);
    await s.dispose();
  }));
}

if (!only || only === 'smallest') {
  test('DSH rc.8: a server from the workspace\'s .mcp.json (Claude Code format) mounts; an edit of that file is refused as stale', { timeout: 90000 }, (t) => withSmallest(async ({ h, tmp, turn }) => {
    // No .vscode/mcp.json: the folder's servers are in .mcp.json only, as VS Code also runs them.
    const C = path.join(tmp.root, 'C');
    fs.mkdirSync(C);
    const dotMcp = `// Claude Code's project file\n{\n  "mcpServers": {\n    "everything": { "command": ${JSON.stringify(process.execPath)}, "args": [${JSON.stringify(SERVER_JS)}, "stdio"], },\n  },\n}\n`;
    fs.writeFileSync(path.join(C, '.mcp.json'), dotMcp);
    cli(tmp.home, ['export', '--workspace', C]);
    const declaration = readDeclaration(C);
    assert.equal(declaration.source.path, '.mcp.json');
    assert.deepEqual(declaration.servers.map((s) => s.serverName), ['everything']);
    const answers = approvalAnswerer(h.root);
    answers.setDefault('allowed-once');
    const s1 = await session(h, 'sC1', C, 'mC1');
    await turn(s1);
    const tools = h.llm.requests.get('mC1')[0].tools.map((x) => x.name);
    assert.ok(tools.some((n) => n.startsWith('mcp__everything__')), `tools: ${tools.join(' ')}`);
    await waitFor(() => serverProcesses().some((p) => p.cwd === C), 15000, 'the server from .mcp.json running in the folder');
    await s1.dispose();

    // Edited after the export: the declaration no longer says what VS Code would run.
    fs.writeFileSync(path.join(C, '.mcp.json'), dotMcp.replace('"stdio"]', '"stdio", "--extra"]'));
    const s2 = await session(h, 'sC2', C, 'mC2');
    await turn(s2);
    await turn(s2);
    for (const r of h.llm.requests.get('mC2')) assert.deepEqual(r.tools.filter((x) => x.name.startsWith('mcp__')).map((x) => x.name), []);
    const lines = h.logs.filter((l) => l.includes(C) && l.includes('declaration refused (stale)'));
    assert.ok(lines.some((l) => l.includes('the source .mcp.json changed since the export')), h.logs.filter((l) => l.includes('dsh-bridge')).join('\n'));
    t.diagnostic(lines[0]);
    await s2.dispose();
  }));
}

if (!only || only === 'smallest') {
  test('DSH rc.8: a declaration exported before the machine\'s DSH policy existed is withheld at mount once it is installed, the rule in the log', { timeout: 90000 }, (t) => withSmallest(async ({ h, tmp, turn }) => {
    const P = everythingWorkspace(tmp.root, 'Pol', { home: tmp.home, input: 'v' });
    const answers = approvalAnswerer(h.root);
    answers.setDefault('allowed-once');
    const mcpTools = (model) => h.llm.requests.get(model).flatMap((r) => r.tools.map((x) => x.name)).filter((n) => n.startsWith('mcp__'));
    const s1 = await session(h, 'sPol1', P, 'mPol1');
    await turn(s1);
    assert.ok(mcpTools('mPol1').some((n) => n.startsWith('mcp__everything__')), 'before the policy: mounted');
    await s1.dispose();

    // The administrator installs a policy (a root-owned file; DSH_BRIDGE_ADMIN_POLICY names it in
    // addition to /etc/dsh-bridge/policy.json, which the test does not touch). The declaration is
    // unchanged and still verifies: the plugin withholds the server on its resolved launch.
    const dir = fs.mkdtempSync(path.join(tmp.root, 'admin-'));
    const file = path.join(dir, 'policy.json');
    fs.writeFileSync(file, JSON.stringify({ deniedServers: [{ serverCommand: [process.execPath, SERVER_JS, 'stdio'] }] }));
    fs.chmodSync(file, 0o644);
    const previous = process.env.DSH_BRIDGE_ADMIN_POLICY;
    process.env.DSH_BRIDGE_ADMIN_POLICY = file;
    try {
      cli(tmp.home, ['verify', '--workspace', P]); // exit 0: the declaration itself is fine
      const s2 = await session(h, 'sPol2', P, 'mPol2');
      await turn(s2);
      await turn(s2);
      assert.deepEqual(mcpTools('mPol2'), [], 'after the policy: nothing of the server reaches the model');
      const lines = h.logs.filter((l) => l.includes(P) && l.includes('not started: Withheld by the DSH policy'));
      assert.equal(lines.length, 1, h.logs.filter((l) => l.includes('dsh-bridge')).join('\n'));
      assert.ok(lines[0].includes(file) && lines[0].includes('serverCommand'), lines[0]);
      t.diagnostic(lines[0]);
      await s2.dispose();
    } finally {
      if (previous === undefined) delete process.env.DSH_BRIDGE_ADMIN_POLICY; else process.env.DSH_BRIDGE_ADMIN_POLICY = previous;
    }
  }));

  test('DSH rc.8: GitHub Copilot managed settings (managed-settings.json) that deny a server withhold it at mount, though it was exported before the file existed; dsh-bridge policy names the channel', { timeout: 90000 }, (t) => withSmallest(async ({ h, tmp, turn }) => {
    const P = everythingWorkspace(tmp.root, 'Managed', { home: tmp.home, input: 'v' });
    const answers = approvalAnswerer(h.root);
    answers.setDefault('allowed-once');
    const mcpTools = (model) => h.llm.requests.get(model).flatMap((r) => r.tools.map((x) => x.name)).filter((n) => n.startsWith('mcp__'));
    const s1 = await session(h, 'sMs1', P, 'mMs1');
    await turn(s1);
    assert.ok(mcpTools('mMs1').some((n) => n.startsWith('mcp__everything__')), 'before the managed settings: mounted');
    await s1.dispose();

    // The enterprise deploys managed settings after the export. DSH_BRIDGE_MANAGED_SETTINGS names
    // the file in addition to /etc/github-copilot/managed-settings.json (which the test does not
    // touch); no ownership rule applies to it (it can only narrow), so no root is needed.
    const file = path.join(fs.mkdtempSync(path.join(tmp.root, 'managed-')), 'managed-settings.json');
    fs.writeFileSync(file, JSON.stringify({ deniedMcpServers: [{ serverName: 'everything' }] }));
    const previous = process.env.DSH_BRIDGE_MANAGED_SETTINGS;
    process.env.DSH_BRIDGE_MANAGED_SETTINGS = file;
    try {
      const s2 = await session(h, 'sMs2', P, 'mMs2');
      await turn(s2);
      await turn(s2);
      assert.deepEqual(mcpTools('mMs2'), [], 'after the managed settings: nothing of the server reaches the model');
      const lines = h.logs.filter((l) => l.includes(P) && l.includes('not started: Withheld by the managed settings (file: '));
      assert.equal(lines.length, 1, h.logs.filter((l) => l.includes('dsh-bridge')).join('\n'));
      assert.ok(lines[0].includes(file) && lines[0].includes('{"serverName":"everything"}'), lines[0]);
      t.diagnostic(lines[0]);
      // The declaration was made before the managed settings: the plugin says it is stale, and mounts it under them.
      const stale = h.logs.filter((l) => l.includes(P) && l.includes('the declaration is stale: GitHub Copilot\'s managed settings set MCP rules now, and none did at the export: export again; meanwhile DSH applies the managed settings in force at mount'));
      assert.equal(stale.length, 1, h.logs.filter((l) => l.includes('dsh-bridge')).join('\n'));
      await s2.dispose();
      // verify says so too (exit 1), and that DSH still mounts the declaration.
      let verified;
      try {
        cli(tmp.home, ['verify', '--json', '--workspace', P, '--managed-settings', file]);
        assert.fail('dsh-bridge verify exits 1 on a stale declaration');
      } catch (error) {
        verified = JSON.parse(/** @type {{stdout: string}} */ (error).stdout);
      }
      assert.deepEqual(verified.verify.reasons.map((r) => [r.code, r.enforcedAtMount]), [['stale', true]]);
      assert.deepEqual(verified.dsh.plan.notes.map((n) => n.code), ['declaration-stale-managed']);
      assert.deepEqual(verified.dsh.withheld, [{ serverName: 'everything', code: 'dsh-managed-denied' }]);
      // The CLI reads the same file (--managed-settings) and names the rule's channel.
      let report;
      try {
        cli(tmp.home, ['policy', '--json', '--workspace', P, '--managed-settings', file]);
        assert.fail('dsh-bridge policy exits 1 when something is withheld');
      } catch (error) {
        report = JSON.parse(/** @type {{stdout: string}} */ (error).stdout);
      }
      assert.deepEqual(report.dsh.withheld.map((w) => [w.serverName, w.code, w.channel, w.file]), [['everything', 'managed-denied', 'file', file]]);
    } finally {
      if (previous === undefined) delete process.env.DSH_BRIDGE_MANAGED_SETTINGS; else process.env.DSH_BRIDGE_MANAGED_SETTINGS = previous;
    }
  }));
}
