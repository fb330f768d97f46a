// A DSH host composed from the published 0.1.0-rc.8 packages (installed in test/dsh-host by
// scripts/setup-dsh-host.sh), with a scripted fake LLM adapter: the only mock, because no
// model can run here. Everything else (agents, sessions, tools, approval, system prompt, the
// cordis Loader, dsh-mcp-client, the MCP server) is the real published code.
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const HERE = path.dirname(fileURLToPath(import.meta.url));
export const REPO = path.resolve(HERE, '../..');
export const HOST_DIR = path.join(REPO, 'test/dsh-host');
const hostRequire = createRequire(path.join(HOST_DIR, 'package.json'));
/** Imports a package as the test host installed it. */
export const hostImport = (name) => import(pathToFileURL(hostRequire.resolve(name)).href);

/** The fake model: each agent's model id names its script; records every request it receives. */
export async function makeFakeLlm() {
  const { LlmAdapter, CallId, isAgentLoopRequest } = await hostImport('@deepseek-ai/dsh-llm');
  const scripts = new Map(); // model -> array of steps: {text} | {tool, args}
  const requests = new Map(); // model -> GenerateOptions[] (agent-loop requests only)
  const sideRequests = [];
  class FakeAdapter extends LlmAdapter {
    resolveModel(provider, model) {
      return Promise.resolve({ provider, id: model, name: model, context: { contextWindow: 1000000 } });
    }

    async *stream(options) {
      if (!isAgentLoopRequest(options)) {
        // Side requests (dsh-base's session title): answered, not part of any script.
        sideRequests.push(options.model);
        yield { type: 'block-start', index: 0, blockType: 'text' };
        yield { type: 'text-delta', index: 0, text: 'title' };
        yield { type: 'block-end', index: 0, block: { type: 'text', text: 'title' } };
        yield { type: 'finish', reason: { kind: 'stop' } };
        return;
      }
      const log = requests.get(options.model) ?? [];
      requests.set(options.model, log);
      log.push({ ...structuredClone({ tools: options.tools ?? [], system: options.system, messages: options.messages }), at: Date.now() });
      const script = scripts.get(options.model) ?? [];
      const step = script.shift() ?? { text: 'done' };
      if (step.tool) {
        const id = CallId(`call-${options.model}-${log.length}`);
        const args = JSON.stringify(step.args ?? {});
        yield { type: 'block-start', index: 0, blockType: 'tool-call' };
        yield { type: 'tool-call-delta', index: 0, id, name: step.tool, argumentsDelta: args };
        yield { type: 'block-end', index: 0, block: { type: 'tool-call', id, name: step.tool, arguments: args } };
        yield { type: 'usage', usage: { inputTokens: 1, outputTokens: 1 } };
        yield { type: 'finish', reason: { kind: 'tool-calls' } };
      } else {
        yield { type: 'block-start', index: 0, blockType: 'text' };
        yield { type: 'text-delta', index: 0, text: step.text };
        yield { type: 'block-end', index: 0, block: { type: 'text', text: step.text } };
        yield { type: 'usage', usage: { inputTokens: 1, outputTokens: 1 } };
        yield { type: 'finish', reason: { kind: 'stop' } };
      }
    }
  }
  return { adapter: new FakeAdapter(), scripts, requests, sideRequests };
}

/** Answers `approval.request` from a table (toolName -> outcome), recording each request. */
/** @param {any} ctx @param {(req: any) => object} [onAsk] */
export function approvalAnswerer(ctx, onAsk = () => ({})) {
  const answers = new Map();
  const asked = [];
  let fallback = 'unavailable';
  ctx.on('approval/request', (req) => {
    asked.push({ session: req.agent.id, toolName: req.toolName, reason: req.reason, ...onAsk(req) });
    return Promise.resolve(answers.get(`${req.agent.id} ${req.toolName}`) ?? answers.get(req.toolName) ?? fallback);
  });
  return {
    answers, asked,
    setDefault(o) { fallback = o; },
  };
}

/** Collects every log line of the app (cordis only buffers logs until an exporter is attached). */
export function captureLogs(root) {
  const lines = [];
  root.logger.exporter({
    levels: { default: 3 },
    export(message) {
      const text = `${message.type} [${message.name}] ${message.args.map((a) => (a instanceof Error ? a.stack ?? a.message : typeof a === 'string' ? a : JSON.stringify(a))).join(' ')}`;
      lines.push(text);
      if (process.env.DSH_E2E_VERBOSE) process.stderr.write(`[dsh] ${text}\n`);
    },
  });
  return lines;
}

/**
 * The smallest host of dsh-host-rc8.md: SystemPrompt, ToolRuntime, LlmRuntime, SessionStore,
 * AgentRegistry, ApprovalService, AgentLoop and the cordis Loader, plus the fake adapter.
 */
/** @param {{ toolOrder?: string[], lspAndSkills?: boolean }} [options] */
export async function smallestHost({ toolOrder, lspAndSkills = false } = {}) {
  const { Context } = await hostImport('@deepseek-ai/cordis');
  const Loader = (await hostImport('@deepseek-ai/cordis-plugin-loader')).default;
  const SystemPrompt = (await hostImport('@deepseek-ai/dsh-system-prompt')).default;
  const ToolRuntime = (await hostImport('@deepseek-ai/dsh-tools')).default;
  const LlmRuntime = (await hostImport('@deepseek-ai/dsh-llm')).default;
  const SessionStore = (await hostImport('@deepseek-ai/dsh-session')).default;
  const AgentRegistry = (await hostImport('@deepseek-ai/dsh-agent')).default;
  const ApprovalService = (await hostImport('@deepseek-ai/dsh-user-approval')).default;
  const AgentLoop = (await hostImport('@deepseek-ai/dsh-agent-loop')).default;

  const root = new Context();
  const logs = captureLogs(root);
  root.baseUrl = pathToFileURL(HOST_DIR).href + '/';
  await root.plugin(Loader, { baseUrl: root.baseUrl });
  await root.plugin(SystemPrompt, toolOrder ? { toolOrder } : {});
  await root.plugin(ToolRuntime, {});
  await root.plugin(LlmRuntime);
  await root.plugin(SessionStore);
  await root.plugin(AgentRegistry);
  await root.plugin(ApprovalService, { policy: 'ask' });
  await root.plugin(AgentLoop, { agents: [] });
  if (lspAndSkills) {
    // What language servers and skills need: the host filesystem and subprocess services, and
    // DSH's skill rows as dsh-base mounts them (Loader rows, global).
    await root.plugin((await hostImport('@deepseek-ai/dsh-fs-local')).default, {});
    await root.plugin((await hostImport('@deepseek-ai/dsh-subprocess-local')).default);
    for (const [id, name] of [['skill', '@deepseek-ai/dsh-skill'], ['skill-filesystem', '@deepseek-ai/dsh-skill-filesystem'], ['tool-skill', '@deepseek-ai/dsh-tool-skill']]) {
      await root.loader.create({ id, name, config: {} });
    }
    await root.loader.await();
  }
  const llm = await makeFakeLlm();
  root.llm.registerAdapter(['fake'], llm.adapter);
  return { kind: 'smallest', root, logs, llm, async dispose() { await root.fiber.dispose(); } };
}

/**
 * The plugin config the tests run with unless a test sets its own: a first request that waits
 * long for the servers starting in it, so tests about what a request lists do not depend on how
 * fast a server starts on a loaded machine (startup.e2e.test.mjs tests the default wait).
 */
export const TEST_PLUGIN_CONFIG = { startWaitMs: 30000 };

/** Loads the plugin the way a deployment does: a Loader row naming the built bundle file. */
export async function loadPluginRow(root, file, config = {}) {
  await root.loader.create({ id: 'dsh-bridge', name: pathToFileURL(file).href, config: { ...TEST_PLUGIN_CONFIG, ...config } });
  await root.loader.await();
}

/**
 * The full `dsh-base` bundle boot, as `dsh` itself boots a profile (dsh 0.1.0-rc.8's
 * profile-boot): a profile folder in $DSH_HOME/profiles/<name> whose package.json lists the
 * bundles [@deepseek-ai/dsh-base, dsh-bridge-dsh], the installation's module fallback
 * ($DSH_HOME/profiles/node_modules, healed from the test host's package.json as the
 * installation anchor), the empty root cordis.yml, and `boot()` over bundle patches + the
 * profile patch + a test overlay (fake adapter row, config-declared agents).
 * Needs Node >= 22.19 with --expose-internals (dsh-base's HMR row).
 */
export async function baseHost({ home, bundleDir, profile = 'e2e', agents = [] }) {
  const fs = await import('node:fs');
  const boot = await hostImport('@deepseek-ai/dsh-app-boot');
  const installAnchor = path.join(HOST_DIR, 'package.json');
  const previousHome = process.env.DSH_HOME;
  process.env.DSH_HOME = home;
  const dir = boot.resolveProfileDir(profile, home);
  fs.mkdirSync(path.join(dir, 'node_modules'), { recursive: true });
  // What `dsh plugin --profile e2e add <dsh-bridge-dsh tarball>` leaves behind.
  fs.cpSync(bundleDir, path.join(dir, 'node_modules', 'dsh-bridge-dsh'), { recursive: true, dereference: true });
  boot.writeProfileManifest(dir, {
    name: `dsh-profile-${profile}`,
    private: true,
    dependencies: { 'dsh-bridge-dsh': '0.1.0' },
    dsh: { profile: { bundles: ['@deepseek-ai/dsh-base', 'dsh-bridge-dsh'] } },
  });
  boot.healProfilesModuleFallback(installAnchor, home);
  const loaded = boot.loadProfile('dsh', profile, installAnchor, home);
  const rootConfig = path.join(dir, 'cordis.yml');
  fs.writeFileSync(rootConfig, '[]\n');
  const llm = await makeFakeLlm();
  globalThis.__dshBridgeE2E = llm;
  const overlay = [
    { insert: [{ id: 'e2e-fake-llm', name: pathToFileURL(path.join(HERE, 'fake-llm-plugin.mjs')).href }] },
    { id: 'agent-loop', config: { agents } },
    { id: 'dsh-bridge', config: TEST_PLUGIN_CONFIG },
    { id: 'session-telemetry-otel', disabled: true },
  ];
  let logs;
  const root = await boot.boot('dsh', rootConfig, [...loaded.layers.flatMap((l) => l.patches), ...loaded.patches, ...overlay], (ctx) => {
    logs = captureLogs(ctx);
  });
  return {
    kind: 'base', root, logs, llm, profileDir: dir, layers: loaded.layers.map((l) => l.packageName),
    async dispose() {
      await root.fiber.dispose();
      if (previousHome === undefined) delete process.env.DSH_HOME; else process.env.DSH_HOME = previousHome;
    },
  };
}
