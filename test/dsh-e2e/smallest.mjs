// The single-topic tests' harness: a smallest rc.8 host with the built plugin loaded as a Loader
// row, a fresh DSH home, and helpers to create sessions and run turns.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { hostImport, loadPluginRow, REPO, smallestHost } from './host.mjs';
import { serverProcesses, tempRoot, waitFor } from './fixtures.mjs';

// DSH_E2E_PLUGIN: another build of the plugin (e.g. an earlier commit's, to time both in one run).
export const PLUGIN = process.env.DSH_E2E_PLUGIN ? path.resolve(process.env.DSH_E2E_PLUGIN) : path.join(REPO, 'packages/dsh-bridge-dsh/dist/dsh-plugin.js');
export const BUNDLE = path.join(REPO, 'packages/dsh-bridge-dsh');

/**
 * What the loaded plugin holds now, per instance (the bundle's bookkeeping() export, from the
 * module instance the Loader row loaded: the same file URL). Left out: plansComputed, a count
 * that only grows (a test reads it where it means something).
 */
export async function pluginBookkeeping() {
  return (await bookkeepingRows()).map((b) => Object.fromEntries(Object.entries(b).filter(([key]) => key !== 'plansComputed')));
}

/** How many session plans the loaded plugin computed so far (an unchanged request computes none). */
export async function plansComputed() {
  return (await bookkeepingRows()).reduce((n, b) => n + b.plansComputed, 0);
}

async function bookkeepingRows() {
  const ns = await import(pathToFileURL(PLUGIN).href);
  const fn = ns.bookkeeping ?? ns.default?.bookkeeping;
  assert.equal(typeof fn, 'function', 'the bundle exports bookkeeping()');
  return fn();
}

export async function session(h, id, cwd, model) {
  const handle = await h.root.agents.create({ sessionId: id, meta: { cwd }, agentOptions: { provider: 'fake', model } });
  return { agent: handle.agent, model, dispose: () => handle.dispose() };
}

/**
 * A smallest host with the plugin loaded (`pluginConfig` = its row config; DSH_HOME and the host
 * cleaned up after). `body` gets `{h, tmp, turn}`; `turn(s)` sends one user message and waits.
 */
/** @param {(ctx: any) => Promise<void>} body @param {{ hostOptions?: any, beforePlugin?: any, pluginConfig?: any }} [options] */
export async function withSmallest(body, { hostOptions, beforePlugin, pluginConfig } = {}) {
  const tmp = tempRoot();
  const previousHome = process.env.DSH_HOME;
  let h;
  try {
    process.env.BRIDGE_E2E_FROM_ENV = 'x';
    process.env.DSH_HOME = tmp.home;
    h = await smallestHost(hostOptions);
    if (beforePlugin) beforePlugin(h);
    await loadPluginRow(h.root, PLUGIN, pluginConfig);
    const { createUserMessage } = await hostImport('@deepseek-ai/dsh-llm');
    const turn = async (s) => {
      s.agent.followup(createUserMessage({ content: [{ type: 'text', text: 'go' }], source: { kind: 'user' } }));
      await s.agent.whenIdle();
    };
    await body({ h, tmp, turn });
  } finally {
    if (h) await h.dispose().catch(() => undefined);
    await waitFor(() => serverProcesses().length === 0, 15000, 'no server process left').catch(() => undefined);
    if (previousHome === undefined) delete process.env.DSH_HOME; else process.env.DSH_HOME = previousHome;
    tmp.cleanup();
  }
}
