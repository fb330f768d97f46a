// Conformance with DSH's own LSP code (contract section 7): the same maps give the same outcomes
// in the real @deepseek-ai/dsh-lsp@0.0.1-rc.1 registry and in the real dsh-lsp-stdio row as in
// src/core/lsp/lsp.ts. The oracle runs in a child process (test/oracle/lsp/oracle.mjs) so its own
// node_modules resolve; install it with scripts/setup-oracles.sh.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { toLspStdioConfig } from '../../../../src/core/lsp/lspRow';
import { lspDeclarationSection } from '../../../../src/core/lsp/lspSection';
import { validateLspServers } from '../../../../src/core/lsp/lspValidation';
import type { CommandResolver } from '../../../../src/core/lsp/lspCommand';
import type { LspServerConfig } from '../../../../src/core/lsp/lspModel';

const ORACLE_DIR = path.resolve(__dirname, '../../../oracle/lsp');
const installed = (pkg: string) => existsSync(path.join(ORACLE_DIR, 'node_modules', pkg, 'package.json'));
const SEED = Number(process.env.FC_SEED ?? 20261130);

type OracleCase =
  | { kind: 'registry'; servers: Record<string, Record<string, string>> }
  | { kind: 'row'; config: unknown; resolvable: Record<string, string> };
interface RegistryResult { outcomes: Record<string, string>; logs: string[] }
interface RowResult {
  ok: boolean;
  error?: { code?: string; message: string };
  routes: Record<string, { providerId: string; languageId: string }>;
  configs: Record<string, Record<string, unknown>>;
  logs: string[];
}

function runOracle<T>(cases: OracleCase[]): T[] {
  const node = process.env.DSH_ORACLE_NODE ?? process.execPath;
  const run = spawnSync(node, [path.join(ORACLE_DIR, 'oracle.mjs')], {
    cwd: ORACLE_DIR, input: JSON.stringify(cases), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`oracle failed (${run.status}): ${run.stderr}`);
  return JSON.parse(run.stdout) as T[];
}

const RESOLVABLE: Record<string, string> = { tsserver: '/usr/bin/tsserver', pylsp: '/usr/bin/pylsp', '/opt/bin/server': '/opt/bin/server' };
const resolveCommand: CommandResolver = (command) => RESOLVABLE[command];

// Extension keys chosen to hit every rule: case, missing dot, multi-segment, separators, empty,
// whitespace, non-ASCII case mapping (Turkish dotted I lowercases to two code units).
const extKey = fc.oneof(
  fc.constantFrom('.ts', 'TS', 'ts', '.Ts', '.d.ts', 'd.ts', '', '.', 'a/b', 'c\\d', '.js', 'JS', '.é', 'É', ' .x', '.x ', 'İ', '..', '.tar.gz', '.py', 'PY', 'x.'),
  fc.string({ unit: fc.constantFrom('a', 'B', '.', '/', ' ', 'z'), minLength: 0, maxLength: 4 }),
);
const languageId = fc.constantFrom('typescript', 'python', '', '  ', '\t', 'x');
const extMap = fc.dictionary(extKey, languageId, { minKeys: 0, maxKeys: 4 });
const providerId = fc.constantFrom('a', 'b', 'c', 'A', ' ', '', 'ts');
const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const limit = fc.constantFrom<unknown>(null, 1, 0, -1, 1.5, 2000, 2_147_483_647, 2_147_483_648, '5', 1e20);
const serverEntry = fc.record({
  command: fc.constantFrom<unknown>('tsserver', 'pylsp', 'nope', '', ' ', './bin/server', '/opt/bin/server', '/missing/server', 5, null),
  args: optional(fc.constantFrom<unknown>([], ['--stdio'], ['a', 1], 'x', null)),
  env: optional(fc.constantFrom<unknown>({}, { A: 'b' }, { A: 1 }, [], null)),
  extensions: fc.oneof(extMap, fc.constantFrom<unknown>(undefined, null, [], 'x')),
  initializationOptions: optional(fc.constantFrom<unknown>(null, { a: 1 }, [1, 2], 'x', 0)),
  configuration: optional(fc.constantFrom<unknown>(null, { b: true })),
  maxMessageBytes: optional(limit),
  maxStderrBytes: optional(limit),
  maxDocumentBytes: optional(limit),
  shutdownTimeoutMs: optional(limit),
  killGraceMs: optional(limit),
  cwd: optional(fc.constant('/ignored')),
}, { requiredKeys: ['command', 'extensions'] });
// Mostly valid entries too, or nearly every generated row would fail for several reasons at once.
const validEntry = fc.record({ command: fc.constantFrom('tsserver', 'pylsp'), extensions: fc.dictionary(fc.constantFrom('.ts', 'TS', '.py', 'js', '.JS', '.go', 'd.ts'), fc.constantFrom('typescript', 'python'), { minKeys: 1, maxKeys: 3 }) });
const settingsValue = fc.dictionary(providerId, fc.oneof({ weight: 4, arbitrary: validEntry }, { weight: 1, arbitrary: serverEntry }), { minKeys: 0, maxKeys: 3 });

/** The bridge's mapping of the setting into the row: `extensions` is DSH's `extensionToLanguage`. */
function rawRow(value: Record<string, Record<string, unknown>>): { servers: Record<string, unknown> } {
  const servers: Record<string, unknown> = {};
  for (const [id, entry] of Object.entries(value)) {
    const { extensions, ...rest } = entry;
    servers[id] = { ...rest, extensionToLanguage: extensions };
  }
  return JSON.parse(JSON.stringify({ servers })) as { servers: Record<string, unknown> };
}

function routesOf(servers: Record<string, LspServerConfig>): RowResult['routes'] {
  const routes: RowResult['routes'] = {};
  for (const [providerId, server] of Object.entries(servers)) {
    for (const [ext, languageId] of Object.entries(server.extensionToLanguage)) routes[ext] = { providerId, languageId };
  }
  return routes;
}

/** The row-config fields DSH resolved, as our normalized entry carries them. */
function comparable(config: Record<string, unknown>): Record<string, unknown> {
  const keys = ['command', 'args', 'env', 'maxMessageBytes', 'maxStderrBytes', 'maxDocumentBytes', 'shutdownTimeoutMs', 'killGraceMs'];
  const out: Record<string, unknown> = Object.fromEntries(keys.map((k) => [k, config[k]]));
  out.initializationOptions = config.initializationOptions ?? null;
  out.configuration = config.configuration ?? null;
  return out;
}

describe('lsp conformance with @deepseek-ai/dsh-lsp (oracle)', function () {
  this.timeout(120_000);
  if (!installed('@deepseek-ai/dsh-lsp')) {
    it.skip('SKIPPED: LSP oracle not installed; run scripts/setup-oracles.sh (test/oracle/lsp)');
    return;
  }

  const handWritten: Array<Record<string, Record<string, string>>> = [
    { ts: { '.ts': 'typescript', '.tsx': 'typescriptreact' } },
    { ts: { '.ts': 'typescript', '.d.ts': 'typescript' } },
    { js: { '.js': 'javascript', '.JS': 'javascript' } },
    { a: { '.ts': 'typescript' }, b: { TS: 'typescript' } },
    { a: { '.d.ts': 'x', '.ts': 'y' }, b: { '.ts': 'typescript' } },
    { a: { '.ts': '' }, b: { ts: 'typescript' } },
    { a: {}, b: { '.x': 'x' } },
    { '': { '.x': 'x' }, ' ': { '.y': 'y' } },
    { a: { 'İ': 'x' }, b: { '.i̇': 'y' } },
  ];

  it(`registerProvider gives the same accept / LSP_INVALID_PROVIDER / LSP_CONFLICT per server (hand-written + 400 generated maps, seed ${SEED})`, async () => {
    const generated = fc.sample(fc.dictionary(providerId, extMap, { minKeys: 1, maxKeys: 4 }), { seed: SEED, numRuns: 400 });
    const maps = [...handWritten, ...generated];
    const results = runOracle<RegistryResult>(maps.map((servers) => ({ kind: 'registry', servers })));
    const seen = new Set<string>();
    for (const [i, servers] of maps.entries()) {
      const settings = Object.fromEntries(Object.entries(servers).map(([id, extensions]) => [id, { command: 'tsserver', extensions }]));
      const ours = await validateLspServers(settings, { resolveCommand });
      assert.deepEqual(ours.registry, results[i].outcomes, `map ${JSON.stringify(servers)}`);
      for (const outcome of Object.values(results[i].outcomes)) seen.add(outcome);
    }
    // The sample must exercise every outcome, or this comparison proves little.
    assert.deepEqual([...seen].sort(), ['LSP_CONFLICT', 'LSP_INVALID_PROVIDER', 'accepted']);
  });

  describe('the real dsh-lsp-stdio row', () => {
    if (!installed('@deepseek-ai/dsh-lsp-stdio')) {
      it.skip('SKIPPED: dsh-lsp-stdio not in test/oracle/lsp; run scripts/setup-oracles.sh');
      return;
    }

    it(`accepts exactly the settings we accept, resolving the same entries and routes (300 generated, seed ${SEED})`, async () => {
      const values = fc.sample(settingsValue, { seed: SEED, numRuns: 300 }) as Array<Record<string, Record<string, unknown>>>;
      const results = runOracle<RowResult>(values.map((value) => ({ kind: 'row', config: rawRow(value), resolvable: RESOLVABLE })));
      let accepted = 0;
      for (const [i, value] of values.entries()) {
        const ours = await validateLspServers(JSON.parse(JSON.stringify(value)), { resolveCommand });
        const dsh = results[i];
        const label = `settings ${JSON.stringify(value)} -> DSH ${dsh.ok ? 'ok' : dsh.error?.message}; ours ${JSON.stringify(ours.problems.map((p) => p.code))}`;
        assert.equal(ours.registersAll, dsh.ok, label);
        if (!dsh.ok) continue;
        accepted++;
        assert.deepEqual(routesOf(ours.servers), dsh.routes, label);
        for (const [id, config] of Object.entries(dsh.configs)) {
          const { extensionToLanguage: _ignored, ...rest } = ours.servers[id];
          assert.deepEqual(comparable(rest as unknown as Record<string, unknown>), comparable(config), label);
        }
      }
      assert.ok(accepted >= 20 && accepted <= 280, `the sample should mix accepted (${accepted}) and refused rows`);
    });

    it('the row we export loads in DSH and routes like the settings', async () => {
      const values = fc.sample(settingsValue, { seed: SEED + 1, numRuns: 300 }) as Array<Record<string, Record<string, unknown>>>;
      const valid = [];
      for (const value of values) {
        const ours = await validateLspServers(JSON.parse(JSON.stringify(value)), { resolveCommand });
        if (ours.registersAll) valid.push(ours);
      }
      assert.ok(valid.length > 20);
      // The product's path: the declaration's lsp section, rendered on the DSH side with the
      // environment the settings gave (a credential-named variable comes from the DSH process).
      const rows = valid.map((ours) => {
        const section = lspDeclarationSection(ours);
        const servers: Record<string, LspServerConfig> = {};
        for (const [id, settings] of Object.entries(ours.servers)) {
          const env = (name: string) => (Object.hasOwn(settings.env, name) ? settings.env[name] : undefined);
          const row = toLspStdioConfig({ ...section, servers: { [id]: section.servers[id] } }, { input: () => undefined, env });
          assert.ok(row.ok, JSON.stringify(row));
          Object.defineProperty(servers, id, { value: row.config.servers[id], enumerable: true });
        }
        assert.deepEqual(servers, ours.servers);
        return { servers };
      });
      const results = runOracle<RowResult>(rows.map((config) => ({ kind: 'row', config: JSON.parse(JSON.stringify(config)), resolvable: RESOLVABLE })));
      for (const [i, ours] of valid.entries()) {
        assert.equal(results[i].ok, true, `${JSON.stringify(ours.servers)}: ${results[i].error?.message}`);
        assert.deepEqual(results[i].routes, routesOf(ours.servers));
      }
    });

    it('refuses what we refuse, for the documented cases', async () => {
      const cases: Array<Record<string, Record<string, unknown>>> = [
        {},
        { ts: { command: 'tsserver', extensions: { '.d.ts': 'typescript' } } },
        { ts: { command: 'nope', extensions: { '.ts': 'typescript' } } },
        { ts: { command: './bin/server', extensions: { '.ts': 'typescript' } } },
        { ts: { command: 'tsserver', extensions: { '.ts': 'typescript' }, shutdownTimeoutMs: 2_147_483_648 } },
        { ts: { command: 'tsserver', extensions: { '.ts': 'typescript' }, maxMessageBytes: 0 } },
        { a: { command: 'tsserver', extensions: { '.ts': 'typescript' } }, b: { command: 'pylsp', extensions: { TS: 'x' } } },
      ];
      const results = runOracle<RowResult>(cases.map((value) => ({ kind: 'row', config: rawRow(value), resolvable: RESOLVABLE })));
      for (const [i, value] of cases.entries()) {
        const ours = await validateLspServers(value, { resolveCommand });
        assert.equal(results[i].ok, false, JSON.stringify(value));
        assert.equal(ours.registersAll, false, JSON.stringify(value));
      }
    });
  });
});
