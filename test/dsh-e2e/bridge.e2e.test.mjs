// End-to-end: the built DSH plugin (dist/dsh-plugin.js, packaged as packages/dsh-bridge-dsh)
// in DSH hosts composed from the published 0.1.0-rc.8 packages, with the real
// @modelcontextprotocol/server-everything over stdio and declarations exported by our CLI.
// The LLM is the only mock (a scripted LlmAdapter). Run: npm run test:dsh
import { test } from 'node:test';
import * as path from 'node:path';
import { approvalAnswerer, baseHost, hostImport, loadPluginRow, REPO, smallestHost } from './host.mjs';
import assert from 'node:assert/strict';
import { everythingWorkspace, serverProcesses, tempRoot, waitFor } from './fixtures.mjs';
import { prepareWorkspaces, runScenario } from './scenario.mjs';

const PLUGIN = path.join(REPO, 'packages/dsh-bridge-dsh/dist/dsh-plugin.js');
const BUNDLE = path.join(REPO, 'packages/dsh-bridge-dsh');
const only = process.env.DSH_E2E_HOST; // 'smallest' | 'base' | undefined (both)

async function session(h, id, cwd, model) {
  const handle = await h.root.agents.create({ sessionId: id, meta: { cwd }, agentOptions: { provider: 'fake', model } });
  return { agent: handle.agent, model, dispose: () => handle.dispose() };
}

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
  test('DSH rc.8: merged MCP tools respect the deployment toolOrder', { timeout: 60000 }, async (t) => {
    const tmp = tempRoot();
    const previousHome = process.env.DSH_HOME;
    let h;
    try {
      process.env.BRIDGE_E2E_FROM_ENV = 'x';
      const A = everythingWorkspace(tmp.root, 'A', { home: tmp.home, input: 'v' });
      process.env.DSH_HOME = tmp.home;
      h = await smallestHost({ toolOrder: ['zeta_tool', '<unlisted-tools>', 'alpha_tool'] });
      const def = (name) => ({
        name, description: name, parameters: { type: 'object', properties: {} },
        output: { schema: { type: 'object' }, render: () => [{ type: 'text', text: '' }] },
        execute: async () => ({}),
      });
      for (const name of ['alpha_tool', 'zeta_tool', 'middle_tool']) h.root.tools.register(def(name));
      await loadPluginRow(h.root, PLUGIN);
      approvalAnswerer(h.root).setDefault('allowed-once');
      const s = await session(h, 'sO', A, 'mO');
      const { createUserMessage } = await hostImport('@deepseek-ai/dsh-llm');
      s.agent.followup(createUserMessage({ content: [{ type: 'text', text: 'go' }], source: { kind: 'user' } }));
      await s.agent.whenIdle();
      const names = h.llm.requests.get('mO')[0].tools.map((x) => x.name);
      const mcp = names.filter((n) => n.startsWith('mcp__'));
      assert.ok(mcp.length > 5);
      assert.deepEqual(names, ['zeta_tool', ...['middle_tool', ...mcp].sort(), 'alpha_tool']);
      t.diagnostic(names.join(' '));
      await s.dispose();
    } finally {
      if (h) await h.dispose().catch(() => undefined);
      await waitFor(() => serverProcesses().length === 0, 15000, 'no server process left').catch(() => undefined);
      if (previousHome === undefined) delete process.env.DSH_HOME; else process.env.DSH_HOME = previousHome;
      tmp.cleanup();
    }
  });
}
