import * as assert from 'node:assert/strict';
import { chmod, mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { LSP_DEFAULT_LIMITS } from '../../src/core/lsp/lspModel';
import { LSP_PROBLEM_CODES } from '../../src/core/lsp/lspCodes';
import { finalExtension, lspServerFor, normalizeLspExtension } from '../../src/core/lsp/lspRouting';
import { validateLspServers } from '../../src/core/lsp/lspValidation';
import type { CommandResolver } from '../../src/core/lsp/lspCommand';
import { placeSettingProblems, settingRange } from '../../src/core/settings/settingsFile';
import { createPathResolver } from '../../src/core/node/commandPath';
import { describeLspServers, lspReviewLines } from '../../src/core/lsp/lspRow';
import type { LspDeclarationSection } from '../../src/core/declaration/declarationModel';
import { rawHidden } from './helpers';

const known = new Set(['tsserver', 'pylsp', 'gopls']);
const resolveCommand: CommandResolver = (command) => (known.has(command) || command === '/opt/bin/server' ? `/usr/bin/${command}` : undefined);
const ts = (extra: Record<string, unknown> = {}) => ({ command: 'tsserver', extensions: { '.ts': 'typescript' }, ...extra });

describe('lsp: finalExtension and routing (DSH rule)', () => {
  const vectors: Array<[string, string]> = [
    ['foo.d.ts', '.ts'],
    ['Makefile', ''],
    ['archive.tar.GZ', '.gz'],
    ['.bashrc', ''],
    ['src/Foo.TS', '.ts'],
    ['C:\\src\\main.PY', '.py'],
    ['dir.with.dots/README', ''],
    ['trailing.', '.'],
    ['a/.hidden.md', '.md'],
  ];
  for (const [file, ext] of vectors) it(`${JSON.stringify(file)} -> ${JSON.stringify(ext)}`, () => assert.equal(finalExtension(file), ext));

  it('routes by the final extension to the server that claims it, in any case', () => {
    const servers = { ts: { extensionToLanguage: { TS: 'typescript', '.tsx': 'typescriptreact' } }, py: { extensionToLanguage: { py: 'python' } } };
    assert.deepEqual(lspServerFor('lib/foo.d.ts', servers), { providerId: 'ts', languageId: 'typescript', extension: '.ts' });
    assert.deepEqual(lspServerFor('x/App.TSX', servers), { providerId: 'ts', languageId: 'typescriptreact', extension: '.tsx' });
    assert.deepEqual(lspServerFor('main.py', servers), { providerId: 'py', languageId: 'python', extension: '.py' });
    assert.equal(lspServerFor('Makefile', servers), undefined);
    assert.equal(lspServerFor('a.rs', servers), undefined);
  });

  it('normalizeLspExtension lowercases and adds one dot', () => {
    assert.equal(normalizeLspExtension('TS'), '.ts');
    assert.equal(normalizeLspExtension('.JS'), '.js');
    assert.equal(normalizeLspExtension(''), '.');
    assert.equal(normalizeLspExtension('..x'), '..x');
  });

  it('property: a file whose name ends with a claimed extension routes there', () => {
    fc.assert(fc.property(fc.stringMatching(/^[a-z]{1,5}$/), fc.stringMatching(/^[A-Za-z0-9_-]{1,8}$/), (ext, stem) => {
      const route = lspServerFor(`dir/${stem}.${ext.toUpperCase()}`, { s: { extensionToLanguage: { [ext]: 'lang' } } });
      assert.deepEqual(route, { providerId: 's', languageId: 'lang', extension: `.${ext}` });
    }));
  });
});

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

describe('lsp: settingRange and placeSettingProblems', () => {
  const settings = [
    '{',
    '  // DSH language servers',
    '  "editor.tabSize": 2,',
    '  "dsh.lsp.servers": {',
    '    "ts": {',
    '      "command": "tsserver",',
    '      "extensions": { ".ts": "typescript", ".d.ts": "typescript", },',
    '    },',
    '  },',
    '}',
  ].join('\r\n');

  it('finds the key of an extension in a settings.json with comments, trailing commas and CRLF', () => {
    const range = settingRange(settings, 'settings', ['dsh.lsp.servers', 'ts', 'extensions', '.d.ts'], 'key');
    const col = '      "extensions": { ".ts": "typescript", '.length;
    assert.deepEqual(range, { start: { line: 6, character: col }, end: { line: 6, character: col + '".d.ts"'.length } });
  });

  it('finds a value, and falls back to the nearest existing ancestor', () => {
    assert.deepEqual(settingRange(settings, 'settings', ['dsh.lsp.servers', 'ts', 'command'])?.start, { line: 5, character: 17 });
    assert.deepEqual(settingRange(settings, 'settings', ['dsh.lsp.servers', 'ts', 'killGraceMs'], 'value'), {
      start: { line: 4, character: 4 }, end: { line: 4, character: 8 },
    });
    assert.equal(settingRange('{}', 'settings', ['dsh.lsp.servers', 'ts']), undefined);
  });

  it('reads a .code-workspace under "settings", the last duplicate winning', () => {
    const text = JSON.stringify({ folders: [{ path: '.' }], settings: { 'dsh.lsp.servers': { ts: ts() } } }, null, 2)
      .replace('"settings": {', '"settings": {\n    "dsh.lsp.servers": {"old": {}},');
    const range = settingRange(text, 'code-workspace', ['dsh.lsp.servers', 'ts'], 'key');
    assert.ok(range);
    const line = text.split('\n')[range.start.line];
    assert.equal(line.slice(range.start.character, range.end.character), '"ts"');
    assert.equal(settingRange(text, 'settings', ['dsh.lsp.servers', 'ts'], 'key'), undefined);
  });

  it('places problems and their related information in the file that defines each server', async () => {
    const user = JSON.stringify({ 'dsh.lsp.servers': { a: ts() } }, null, 2);
    const workspace = JSON.stringify({ 'dsh.lsp.servers': { b: ts({ extensions: { TS: 'typescript' } }) } }, null, 2);
    const result = await validateLspServers({ a: ts(), b: ts({ extensions: { TS: 'typescript' } }) });
    const placed = placeSettingProblems(result.problems, (p) => (p.length === 1 || p[1] === 'b'
      ? { file: '.vscode/settings.json', text: workspace, kind: 'settings' }
      : { file: '/home/u/.config/Code/User/settings.json', text: user, kind: 'settings' }));
    const conflict = placed.find((p) => p.code === 'lsp-extension-conflict');
    assert.ok(conflict);
    assert.equal(conflict.file, '.vscode/settings.json');
    assert.equal(workspace.split('\n')[conflict.range.start.line].slice(conflict.range.start.character, conflict.range.end.character), '"TS"');
    assert.equal(conflict.related?.[0].file, '/home/u/.config/Code/User/settings.json');
    const r = conflict.related![0].range;
    assert.equal(user.split('\n')[r.start.line].slice(r.start.character, r.end.character), '".ts"');
    assert.equal(conflict.server, 'b');
  });
});

describe('lsp: createPathResolver (this machine)', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'dsh-lsp-'));
    await mkdir(path.join(dir, 'bin'));
    await mkdir(path.join(dir, 'other'));
    await writeFile(path.join(dir, 'bin', 'srv'), '#!/bin/sh\n');
    await chmod(path.join(dir, 'bin', 'srv'), 0o755);
    await writeFile(path.join(dir, 'bin', 'plain'), 'not executable');
    await writeFile(path.join(dir, 'other', 'srv2'), '#!/bin/sh\n');
    await chmod(path.join(dir, 'other', 'srv2'), 0o755);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('finds bare names on PATH, honours a server PATH, verifies absolute paths', async function () {
    if (process.platform === 'win32') this.skip();
    const resolve = createPathResolver({ env: { PATH: `/nonexistent:${path.join(dir, 'bin')}` } });
    assert.equal(await resolve('srv', {}), path.join(dir, 'bin', 'srv'));
    assert.equal(await resolve('plain', {}), undefined);
    assert.equal(await resolve('srv2', {}), undefined);
    assert.equal(await resolve('srv2', { PATH: path.join(dir, 'other') }), path.join(dir, 'other', 'srv2'));
    assert.equal(await resolve(path.join(dir, 'bin', 'srv'), {}), path.join(dir, 'bin', 'srv'));
    assert.equal(await resolve(path.join(dir, 'bin'), {}), undefined);
    assert.equal(await resolve('bin/srv', {}), undefined);
  });
});

describe('lsp: the review of a declaration\'s language servers', () => {
  it('shows ids, command lines, extensions and env names on their lines with hidden characters escaped', () => {
    const section = {
      registersAll: true,
      pin: `sha256:${'0'.repeat(64)}`,
      servers: {
        'ts\u202e': { command: 'node', args: ['--import=data:x\r\u001b[2K', 'ls.js'], env: { 'TOKEN\u0007': 'x' }, extensionToLanguage: { '.ts\u2066': 'typescript' } },
      },
    } as unknown as LspDeclarationSection;
    const lines = lspReviewLines(section);
    for (const line of lines) assert.equal(rawHidden(line), undefined);
    assert.deepEqual(lines.slice(1, 4), [
      '  "ts\\u{202e}" for .ts\\u{2066}: it will run on this computer with your user\'s privileges:',
      "    node '--import=data:x\\r\\x1b[2K' ls.js",
      '    Environment variables (names only): TOKEN\\x07',
    ]);
    assert.equal(describeLspServers(section), '"ts\\u{202e}" (.ts\\u{2066})');
  });
});
