import * as assert from 'node:assert/strict';
import { LSP_DEFAULT_LIMITS } from '../../../../src/core/lsp/lspModel';
import { LSP_PROBLEM_CODES } from '../../../../src/core/lsp/lspCodes';
import { validateLspServers } from '../../../../src/core/lsp/lspValidation';
import type { CommandResolver } from '../../../../src/core/lsp/lspCommand';

const known = new Set(['tsserver', 'pylsp', 'gopls']);
const resolveCommand: CommandResolver = (command) => (known.has(command) || command === '/opt/bin/server' ? `/usr/bin/${command}` : undefined);
const ts = (extra: Record<string, unknown> = {}) => ({ command: 'tsserver', extensions: { '.ts': 'typescript' }, ...extra });

describe('lsp: validateLspServers', () => {
  it('normalizes a valid entry with every default, keeping settings order', async () => {
    const result = await validateLspServers({
      py: { command: 'pylsp', extensions: { PY: 'python', '.pyi': 'python' }, initializationOptions: { a: 1 } },
      ts: ts({ args: ['--stdio'], env: { NODE_OPTIONS: '--max-old-space-size=4096' }, killGraceMs: 10, maxMessageBytes: null }),
    }, { resolveCommand });
    assert.deepEqual(result.problems, []);
    assert.equal(result.registersAll, true);
    assert.deepEqual(Object.keys(result.servers), ['py', 'ts']);
    assert.deepEqual(result.servers.py, {
      command: 'pylsp', args: [], env: {}, extensionToLanguage: { '.py': 'python', '.pyi': 'python' },
      initializationOptions: { a: 1 }, configuration: null, ...LSP_DEFAULT_LIMITS,
    });
    assert.equal(result.servers.ts.killGraceMs, 10);
    assert.equal(result.servers.ts.maxMessageBytes, LSP_DEFAULT_LIMITS.maxMessageBytes);
    assert.deepEqual(result.servers.ts.args, ['--stdio']);
    assert.deepEqual(result.registry, { py: 'accepted', ts: 'accepted' });
  });

  it('absent or empty setting: nothing to register, no problem', async () => {
    for (const value of [undefined, null, {}]) {
      const result = await validateLspServers(value);
      assert.deepEqual(result.problems, []);
      assert.equal(result.registersAll, false);
      assert.deepEqual(result.servers, {});
    }
  });

  type Case = { name: string; value: unknown; codes: Array<[string, ReadonlyArray<string | number>]>; registry?: Record<string, string> };
  const cases: Case[] = [
    { name: 'not an object', value: [1], codes: [['lsp-invalid-settings', ['dsh.lsp.servers']]] },
    { name: '.d.ts is invalid', value: { ts: ts({ extensions: { '.ts': 'typescript', '.d.ts': 'typescript' } }) },
      codes: [['lsp-invalid-extension', ['dsh.lsp.servers', 'ts', 'extensions', '.d.ts']], ['lsp-none-registered', ['dsh.lsp.servers']]],
      registry: { ts: 'LSP_INVALID_PROVIDER' } },
    { name: 'separators and the empty key are invalid', value: { s: ts({ extensions: { 'a/b': 'x', '': 'y', '.': 'z', 'c\\d': 'w' } }) },
      codes: [
        ['lsp-invalid-extension', ['dsh.lsp.servers', 's', 'extensions', 'a/b']],
        ['lsp-invalid-extension', ['dsh.lsp.servers', 's', 'extensions', '']],
        ['lsp-invalid-extension', ['dsh.lsp.servers', 's', 'extensions', '.']],
        ['lsp-invalid-extension', ['dsh.lsp.servers', 's', 'extensions', 'c\\d']],
        ['lsp-none-registered', ['dsh.lsp.servers']],
      ], registry: { s: 'LSP_INVALID_PROVIDER' } },
    { name: 'the same extension twice in one server', value: { js: { command: 'tsserver', extensions: { '.js': 'javascript', '.JS': 'javascript' } } },
      codes: [['lsp-extension-conflict', ['dsh.lsp.servers', 'js', 'extensions', '.JS']], ['lsp-none-registered', ['dsh.lsp.servers']]],
      registry: { js: 'LSP_INVALID_PROVIDER' } },
    { name: 'an extension claimed by two servers', value: { a: ts(), b: ts({ extensions: { TS: 'typescript', '.mts': 'typescript' } }) },
      codes: [['lsp-extension-conflict', ['dsh.lsp.servers', 'b', 'extensions', 'TS']], ['lsp-none-registered', ['dsh.lsp.servers']]],
      registry: { a: 'accepted', b: 'LSP_CONFLICT' } },
    { name: 'blank language id', value: { s: ts({ extensions: { '.ts': '  ' } }) },
      codes: [['lsp-blank-language-id', ['dsh.lsp.servers', 's', 'extensions', '.ts']], ['lsp-none-registered', ['dsh.lsp.servers']]],
      registry: { s: 'LSP_INVALID_PROVIDER' } },
    { name: 'no extensions', value: { s: { command: 'tsserver' }, t: ts({ extensions: {} }) },
      codes: [
        ['lsp-missing-extensions', ['dsh.lsp.servers', 's']],
        ['lsp-missing-extensions', ['dsh.lsp.servers', 't', 'extensions']],
        ['lsp-none-registered', ['dsh.lsp.servers']],
      ], registry: { s: 'LSP_INVALID_PROVIDER', t: 'LSP_INVALID_PROVIDER' } },
    { name: 'blank provider id', value: { ' ': ts() },
      codes: [['lsp-invalid-provider-id', ['dsh.lsp.servers', ' ']], ['lsp-none-registered', ['dsh.lsp.servers']]],
      registry: { ' ': 'LSP_INVALID_PROVIDER' } },
    { name: 'limits out of range', value: { s: ts({ shutdownTimeoutMs: 2_147_483_648, killGraceMs: 0, maxStderrBytes: 1.5, maxDocumentBytes: -1, maxMessageBytes: 1e20 }) },
      codes: [
        ['lsp-limit-out-of-range', ['dsh.lsp.servers', 's', 'shutdownTimeoutMs']],
        ['lsp-limit-out-of-range', ['dsh.lsp.servers', 's', 'killGraceMs']],
        ['lsp-limit-not-positive', ['dsh.lsp.servers', 's', 'maxStderrBytes']],
        ['lsp-limit-not-positive', ['dsh.lsp.servers', 's', 'maxDocumentBytes']],
        ['lsp-none-registered', ['dsh.lsp.servers']],
      ], registry: { s: 'accepted' } },
    { name: 'wrong types', value: { s: ts({ command: 5, args: ['a', 1], env: { A: 1 }, maxMessageBytes: '5' }) },
      codes: [
        ['lsp-invalid-type', ['dsh.lsp.servers', 's', 'command']],
        ['lsp-invalid-type', ['dsh.lsp.servers', 's', 'args']],
        ['lsp-invalid-type', ['dsh.lsp.servers', 's', 'env']],
        ['lsp-invalid-type', ['dsh.lsp.servers', 's', 'maxMessageBytes']],
        ['lsp-none-registered', ['dsh.lsp.servers']],
      ] },
    { name: 'missing, blank, relative and unknown commands', value: {
      a: { extensions: { '.a': 'a' } }, b: ts({ command: ' ', extensions: { '.b': 'b' } }),
      c: ts({ command: './bin/server', extensions: { '.c': 'c' } }), d: ts({ command: 'nope', extensions: { '.d': 'd' } }),
      e: ts({ command: '/opt/bin/server', extensions: { '.e': 'e' } }),
    }, codes: [
      ['lsp-missing-command', ['dsh.lsp.servers', 'a']],
      ['lsp-missing-command', ['dsh.lsp.servers', 'b', 'command']],
      ['lsp-relative-command', ['dsh.lsp.servers', 'c', 'command']],
      ['lsp-command-not-found', ['dsh.lsp.servers', 'd', 'command']],
      ['lsp-none-registered', ['dsh.lsp.servers']],
    ] },
    { name: 'unknown keys only warn', value: { s: ts({ cwd: '/x', extensionToLanguage: {} }) },
      codes: [['lsp-unknown-key', ['dsh.lsp.servers', 's', 'cwd']], ['lsp-unknown-key', ['dsh.lsp.servers', 's', 'extensionToLanguage']]],
      registry: { s: 'accepted' } },
    { name: 'a server that is not an object', value: { s: 'tsserver', t: ts() },
      codes: [['lsp-invalid-server', ['dsh.lsp.servers', 's']], ['lsp-none-registered', ['dsh.lsp.servers']]] },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const result = await validateLspServers(c.value, { resolveCommand });
      assert.deepEqual(result.problems.map((p) => [p.code, p.path]), c.codes);
      for (const p of result.problems) {
        assert.equal(p.severity, LSP_PROBLEM_CODES[p.code][0]);
        assert.ok(!/\{\w+\}/.test(p.message), `unfilled placeholder in ${p.message}`);
      }
      const errors = result.problems.some((p) => p.severity === 'error');
      assert.equal(result.registersAll, !errors);
      if (errors && !Array.isArray(c.value)) assert.equal(result.problems.at(-1)?.code, 'lsp-none-registered');
      if (c.registry) assert.deepEqual(result.registry, c.registry);
    });
  }

  it('a conflict names both servers and points at the first as related', async () => {
    const result = await validateLspServers({ a: ts(), b: ts({ extensions: { TS: 'typescript' } }) });
    const conflict = result.problems.find((p) => p.code === 'lsp-extension-conflict');
    assert.ok(conflict);
    assert.deepEqual(conflict.args, { extension: '.ts', server: 'b', key: 'TS', otherServer: 'a', otherKey: '.ts' });
    assert.deepEqual(conflict.related?.map((r) => r.path), [['dsh.lsp.servers', 'a', 'extensions', '.ts']]);
    assert.match(conflict.message, /"a"/);
    assert.match(conflict.message, /"b"/);
    const summary = result.problems.find((p) => p.code === 'lsp-none-registered');
    assert.deepEqual(summary?.args, { count: 2, invalid: 'b' });
    assert.deepEqual(Object.keys(result.servers), ['a']);
  });

  it('treats "__proto__" as an ordinary provider id and extension', async () => {
    const value = JSON.parse('{"__proto__": {"command": "tsserver", "extensions": {"__proto__": "x", ".ts": "typescript"}}}') as unknown;
    const result = await validateLspServers(value, { resolveCommand });
    assert.deepEqual(result.problems.map((p) => p.code), []);
    assert.deepEqual(Object.keys(result.servers), ['__proto__']);
    assert.deepEqual(Object.keys(result.servers.__proto__.extensionToLanguage), ['.__proto__', '.ts']);
    assert.equal(Object.getPrototypeOf(result.servers), Object.prototype);
  });

  it('passes the server env to the resolver (a server PATH decides)', async () => {
    const seen: Array<[string, Record<string, string>]> = [];
    await validateLspServers({ s: ts({ env: { PATH: '/custom' } }) }, { resolveCommand: (c, env) => { seen.push([c, { ...env }]); return '/custom/tsserver'; } });
    assert.deepEqual(seen, [['tsserver', { PATH: '/custom' }]]);
  });
});
