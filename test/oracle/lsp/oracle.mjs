// Test-only oracle: runs DSH's own LSP code on JSON cases read from stdin, prints JSON results.
//   registry: dsh-lsp@0.0.1-rc.1 `registerProvider`, one server after another in the given order
//             -> { outcomes: { id: 'accepted' | <LspError code> } }
//   row:      the real dsh-lsp-stdio plugin (schema, validateServerConfig, resolveExecutable through
//             a fake ctx.subprocess that knows exactly `resolvable`, then registerProvider)
//             -> { ok, error?, routes: { ext: { providerId, languageId } }, configs: { id: config } }
// Run by test/unit/lsp.oracle.test.ts; installed by scripts/setup-oracles.sh.
import { Context, Service } from '@deepseek-ai/cordis';
import Lsp from '@deepseek-ai/dsh-lsp';
import * as LspStdio from '@deepseek-ai/dsh-lsp-stdio';

class FakeFs extends Service {
  constructor(ctx) { super(ctx, 'fs'); }
}

function fakeSubprocess(resolvable) {
  return class FakeSubprocess extends Service {
    constructor(ctx) { super(ctx, 'subprocess'); }
    async resolveExecutable(command) {
      if (Object.hasOwn(resolvable, command)) return resolvable[command];
      throw new Error(`executable not found: ${command}`);
    }
    spawn() { throw new Error('the oracle never spawns'); }
  };
}

function newContext() {
  const root = new Context();
  const logs = [];
  // Without an exporter, plugin failures are silent.
  root.logger.exporter({ levels: { default: 3 }, export: (m) => logs.push(`${m.type} ${m.name}: ${m.args.map(String).join(' ')}`) });
  return { root, logs };
}

async function registry(servers) {
  const { root, logs } = newContext();
  await root.plugin(Lsp);
  const lsp = root.get('lsp');
  const outcomes = {};
  for (const [id, extensionToLanguage] of Object.entries(servers)) {
    try {
      lsp.registerProvider({ id, extensionToLanguage, query() { throw new Error('unused'); } });
      outcomes[id] = 'accepted';
    } catch (error) {
      outcomes[id] = error?.code ?? `untyped: ${error}`;
    }
  }
  await root.registry.dispose?.();
  return { outcomes, logs };
}

async function row(config, resolvable) {
  const { root, logs } = newContext();
  await root.plugin(Lsp);
  await root.plugin(FakeFs);
  await root.plugin(fakeSubprocess(resolvable));
  let error;
  try {
    await root.plugin(LspStdio, config);
  } catch (e) {
    error = { code: e?.code, message: String(e?.message ?? e) };
  }
  const lsp = root.get('lsp');
  const routes = {};
  const configs = {};
  for (const [ext, route] of lsp.routes) {
    routes[ext] = { providerId: route.provider.id, languageId: route.languageId };
    configs[route.provider.id] = route.provider.config;
  }
  return { ok: error === undefined, ...(error ? { error } : {}), routes, configs, logs };
}

let input = '';
for await (const chunk of process.stdin) input += chunk;
const cases = JSON.parse(input);
const results = [];
for (const c of cases) {
  if (c.kind === 'registry') results.push(await registry(c.servers));
  else if (c.kind === 'row') results.push(await row(c.config, c.resolvable ?? {}));
  else throw new Error(`unknown case kind ${c.kind}`);
}
process.stdout.write(JSON.stringify(results));
process.exit(0);
