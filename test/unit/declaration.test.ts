import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { verifyFolder } from '../../src/core/app/verify';
import { DECLARATION_PATH } from '../../src/core/declaration/declarationModel';
import { HostStore, resolveDshHome } from '../../src/core/node/hostStore';
import { readWorkspaceFile } from '../../src/core/node/reader';
import { exportFolder, folderIdentityOf, testPorts, tempDir, workspace } from './helpers';

const SOURCE = `// demo
{
  "inputs": [{ "type": "promptString", "id": "tok", "description": "API token", "password": true }],
  "servers": {
    "everything": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything@2026.1.26"], "env": { "API_TOKEN": "\${input:tok}" } },
    "remote": { "type": "http", "url": "https://x.dev/mcp", "headers": { "Authorization": "Bearer \${input:tok}" } },
    "old": { "type": "sse", "url": "https://x.dev/sse" },
  },
}
`;

async function exported(source = SOURCE) {
  const folder = workspace(source);
  const dshHome = tempDir('dsh-home-');
  const ports = testPorts(dshHome);
  const result = await exportFolder(ports, folder);
  return { folder, dshHome, ports, result, file: path.join(folder, DECLARATION_PATH) };
}

describe('declaration: export', () => {
  it('writes a signed declaration, a .gitignore naming only it (with its schema and temp files), and a 0600 key outside the workspace', async () => {
    const { folder, dshHome, result, file } = await exported();
    assert.equal(result.written, true);
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    assert.equal(doc.version, 1);
    assert.equal(doc.source.path, '.vscode/mcp.json');
    assert.deepEqual(doc.servers.map((s: { serverName: string }) => s.serverName), ['everything', 'remote']);
    assert.deepEqual(doc.rejected, [{ name: 'old', codes: ['unsupported-transport'] }]);
    assert.deepEqual(doc.inputs, [{ id: 'tok', type: 'promptString', description: 'API token', password: true }]);
    assert.match(doc.signature, /^hmac-sha256:[0-9a-f]{64}$/);
    assert.equal(readFileSync(path.join(folder, '.dsh/.gitignore'), 'utf8').split('\n').filter((l) => l && !l.startsWith('#')).join(), 'declaration.json,declaration.schema.json,.*.tmp');
    assert.equal(doc.$schema, './declaration.schema.json');
    assert.equal(JSON.parse(readFileSync(path.join(folder, '.dsh/declaration.schema.json'), 'utf8')).title, 'DSH Bridge declaration');
    const key = path.join(dshHome, 'bridge', 'signing.key');
    assert.equal(statSync(key).mode & 0o777, 0o600);
    assert.ok(!readFileSync(file, 'utf8').includes(readFileSync(key, 'utf8').trim()));
  });

  it('gives the same bytes for the same input and skips the write', async () => {
    const { ports, folder, result, file } = await exported();
    const before = statSync(file).mtimeMs;
    const again = await exportFolder(ports, folder);
    assert.equal(again.text, result.text);
    assert.equal(again.written, false);
    assert.equal(again.unchanged, true);
    assert.equal(statSync(file).mtimeMs, before);
  });

  it('keeps the previous declaration when the source becomes unusable; verify then says stale', async () => {
    const { folder, dshHome, ports, result, file } = await exported();
    writeFileSync(path.join(folder, '.vscode/mcp.json'), '{"servers": {"a": {"command": "x"}');
    const broken = await exportFolder(ports, folder);
    assert.equal(broken.written, false);
    assert.equal(broken.analysis.usable, false);
    assert.equal(readFileSync(file, 'utf8'), result.text);
    const v = await verifyFolder(testPorts(dshHome), folder);
    assert.deepEqual(v.reasons.map((r) => r.code), ['stale']);
  });

  it('never writes through a .dsh link that leaves the workspace', async () => {
    const folder = workspace(SOURCE);
    const outside = tempDir('outside-');
    symlinkSync(outside, path.join(folder, '.dsh'));
    await assert.rejects(exportFolder(testPorts(tempDir()), folder), /leaves the workspace/);
    assert.equal(existsSync(path.join(outside, 'declaration.json')), false);
  });

  it('refuses export options DSH would refuse, and carries valid ones into every row', async () => {
    const folder = workspace(SOURCE);
    const ports = testPorts(tempDir());
    // Each value valid, together refused by DSH 0.2 (the first delay longer than the longest).
    await assert.rejects(exportFolder(ports, folderIdentityOf(folder, { 'dsh.export.reconnect': { initialDelayMs: 900, maxDelayMs: 500 } })), /invalid export options \(reconnect\)/);
    // A value of the wrong shape is reported and its default used (the settings reader's rule).
    for (const bad of [{ 'dsh.export.toolCallTimeoutMs': 0 }, { 'dsh.export.toolCallTimeoutMs': 1.5 }, { 'dsh.export.reconnect': { jitter: 1 } }]) {
      const reported: string[] = [];
      const r = await exportFolder(ports, folderIdentityOf(folder, bad, { invalidSetting: (k) => reported.push(k) }), { dryRun: true });
      assert.deepEqual(reported, Object.keys(bad), JSON.stringify(bad));
      assert.ok(r.analysis.servers.every((s) => s.toolCallTimeoutMs === 60000 && s.reconnect.maxAttempts === 10));
    }
    const r = await exportFolder(ports, folderIdentityOf(folder, { 'dsh.export.toolCallTimeoutMs': 5000, 'dsh.export.failOnStartupError': true, 'dsh.export.reconnect': { maxAttempts: 3 } }));
    for (const s of r.analysis.servers) {
      assert.equal(s.toolCallTimeoutMs, 5000);
      assert.equal(s.failOnStartupError, true);
      assert.deepEqual(s.reconnect, { enabled: true, initialDelayMs: 500, maxDelayMs: 30000, maxAttempts: 3 });
    }
  });

  it('dry run computes the text and writes nothing', async () => {
    const folder = workspace(SOURCE);
    const dshHome = tempDir();
    const r = await exportFolder(testPorts(dshHome), folder, { dryRun: true });
    assert.ok(r.text?.includes('"everything"'));
    assert.equal(existsSync(path.join(folder, '.dsh')), false);
    assert.equal(existsSync(path.join(dshHome, 'bridge')), false);
  });
});

describe('declaration: verify', () => {
  it('accepts a fresh export', async () => {
    const { folder, dshHome } = await exported();
    const v = await verifyFolder(testPorts(dshHome), folder);
    assert.deepEqual(v.reasons, []);
    assert.equal(v.ok, true);
  });

  it('reports each kind of damage precisely', async () => {
    const cases: Array<[string, (doc: any, text: string) => string, string[]]> = [
      ['a changed field', (doc) => { doc.servers[0].args.push('--evil'); return JSON.stringify(doc); }, ['tampered', 'tampered']],
      ['a re-pinned field (digest still old)', (doc) => {
        doc.servers[0].command = 'sh';
        const { canonicalHash } = require('../../src/core/json/canonicalJson');
        const { pin, ...rest } = doc.servers[0];
        doc.servers[0].pin = canonicalHash(rest);
        return JSON.stringify(doc);
      }, ['tampered']],
      ['a removed signature', (doc) => { delete doc.signature; return JSON.stringify(doc); }, ['unsigned']],
      ['a forged signature', (doc) => { doc.signature = `hmac-sha256:${'0'.repeat(64)}`; return JSON.stringify(doc); }, ['bad-signature']],
      ['another folder', (doc) => { doc.folder = '/elsewhere'; return JSON.stringify(doc); }, ['tampered', 'wrong-folder']],
      ['a duplicate key', (_doc, text) => text.replace('"version": 1,', '"version": 1, "version": 1,'), ['tampered']],
      ['not JSON', () => '{', ['tampered']],
    ];
    for (const [label, damage, expected] of cases) {
      const { folder, dshHome, file } = await exported();
      const text = readFileSync(file, 'utf8');
      writeFileSync(file, damage(JSON.parse(text), text));
      const v = await verifyFolder(testPorts(dshHome), folder);
      assert.deepEqual(v.reasons.map((r) => r.code), expected, label);
      assert.equal(v.ok, false);
    }
  });

  it('checks the lsp and skills sections through the model: shape, lsp pin, digest', async () => {
    // The sections as the export makes them: dsh.lsp.servers from the settings (its command found
    // by the PATH port) and the folder's project skill root, untrusted.
    const settings = {
      'dsh.lsp.servers': { ts: { command: '/usr/bin/tsserver', args: ['--stdio'], env: { API_TOKEN: 'canary-1' }, extensions: { '.ts': 'typescript' }, configuration: { a: 1 } } },
    };
    const withSections = async () => {
      const folder = workspace(SOURCE, { '.dsh/skills/a/SKILL.md': '---\nname: a\ndescription: A skill\n---\nBody.\n' });
      const dshHome = tempDir('dsh-home-');
      await exportFolder(testPorts(dshHome, { resolveCommand: (command) => command }), folderIdentityOf(folder, settings));
      return { folder, dshHome, file: path.join(folder, DECLARATION_PATH) };
    };
    const base = await withSections();
    const fresh = await verifyFolder(testPorts(base.dshHome), base.folder);
    assert.deepEqual(fresh.reasons, []);
    assert.equal(fresh.declaration?.lsp?.servers.ts.command, '/usr/bin/tsserver', 'typed, no cast');
    assert.deepEqual(fresh.declaration?.skills?.roots.map((r) => r.trust), ['untrusted']);

    const cases: Array<[string, (doc: any) => void, string[]]> = [
      ['a changed lsp server (pin and digest)', (doc) => { doc.lsp.servers.ts.args = ['--evil']; }, ['tampered', 'tampered']],
      ['an lsp env value of the wrong type', (doc) => { doc.lsp.servers.ts.env.X = 1; }, ['tampered']],
      ['an lsp server field outside the model', (doc) => { doc.lsp.servers.ts.shell = true; }, ['tampered']],
      ['a skills root trust outside the model', (doc) => { doc.skills.roots[0].trust = 'maybe'; }, ['tampered']],
      ['a changed skills root (digest)', (doc) => { doc.skills.roots[0].trust = 'trusted'; }, ['tampered']],
      ['a top-level section outside the model', (doc) => { doc.mounts = []; }, ['tampered']],
    ];
    for (const [label, damage, expected] of cases) {
      const { folder, dshHome, file } = await withSections();
      const doc = JSON.parse(readFileSync(file, 'utf8'));
      damage(doc);
      writeFileSync(file, JSON.stringify(doc));
      const v = await verifyFolder(testPorts(dshHome), folder);
      assert.deepEqual(v.reasons.map((r) => r.code), expected, label);
    }
  });

  it('a declaration signed by another user\'s key is a bad signature', async () => {
    const { folder } = await exported();
    const v = await verifyFolder(testPorts(tempDir('other-home-')), folder);
    assert.deepEqual(v.reasons.map((r) => r.code), ['bad-signature']);
  });

  it('missing declaration', async () => {
    const v = await verifyFolder(testPorts(tempDir()), workspace(SOURCE));
    assert.deepEqual(v.reasons.map((r) => r.code), ['missing']);
  });
});

describe('reader', () => {
  it('refuses a FIFO without hanging, a link out of the folder, and an over-size file', async () => {
    const folder = workspace(undefined);
    mkdirSync(path.join(folder, '.vscode'));
    execFileSync('mkfifo', [path.join(folder, '.vscode', 'mcp.json')]);
    const fifo = await readWorkspaceFile(folder, '.vscode/mcp.json');
    assert.deepEqual(fifo, { ok: false, failure: { kind: 'not-a-regular-file' } });

    const outside = tempDir();
    writeFileSync(path.join(outside, 'mcp.json'), '{}');
    const linked = workspace(undefined);
    symlinkSync(outside, path.join(linked, '.vscode'));
    assert.deepEqual(await readWorkspaceFile(linked, '.vscode/mcp.json'), { ok: false, failure: { kind: 'outside-workspace' } });

    const big = workspace(`{"x": "${'a'.repeat(1024 * 1024)}"}`);
    const r = await readWorkspaceFile(big, '.vscode/mcp.json');
    assert.equal(r.ok, false);
    assert.equal(!r.ok && r.failure.kind, 'too-large');

    assert.deepEqual(await readWorkspaceFile(workspace(undefined), '.vscode/mcp.json'), { ok: false, failure: { kind: 'missing' } });
    const dirAsFile = workspace(undefined, { '.vscode/mcp.json/x': '' });
    assert.deepEqual(await readWorkspaceFile(dirAsFile, '.vscode/mcp.json'), { ok: false, failure: { kind: 'not-a-regular-file' } });
  });

  it('follows a link that stays inside the folder', async () => {
    const folder = workspace(undefined, { 'config/mcp.json': '{"servers": {}}' });
    mkdirSync(path.join(folder, '.vscode'));
    symlinkSync(path.join(folder, 'config/mcp.json'), path.join(folder, '.vscode/mcp.json'));
    const r = await readWorkspaceFile(folder, '.vscode/mcp.json');
    assert.equal(r.ok, true);
  });
});

describe('host store', () => {
  it('resolves the DSH home as DSH does', () => {
    assert.equal(resolveDshHome('/x', { DSH_HOME: '/y' }, '/home/u'), '/x');
    assert.equal(resolveDshHome('', { DSH_HOME: '/y' }, '/home/u'), '/y');
    assert.equal(resolveDshHome(undefined, { DSH_HOME: '  ' }, '/home/u'), '/home/u/.dsh');
  });

  it('keeps values, approvals and trust mode in 0600 files keyed by folder', async () => {
    const home = tempDir();
    const store = new HostStore(home);
    await store.setInput('/w/a', 'tok', 'canary-1');
    await store.setInput('/w/b', 'tok', 'canary-2');
    await store.approve('/w/a', 'srv', 'sha256:1');
    assert.deepEqual((await store.readFolder('/w/a')).inputs, new Map([['tok', 'canary-1']]));
    assert.equal(await store.isApproved('/w/a', 'srv', 'sha256:1'), true);
    assert.equal(await store.isApproved('/w/a', 'srv', 'sha256:2'), false);
    assert.equal(await store.isApproved('/w/b', 'srv', 'sha256:1'), false);
    assert.equal(statSync(store.folderFile('/w/a')).mode & 0o777, 0o600);
    assert.equal(statSync(path.join(home, 'bridge')).mode & 0o777, 0o700);
    await store.forgetInput('/w/a', 'tok');
    assert.deepEqual((await store.readFolder('/w/a')).inputs, new Map());
    assert.equal(await store.trustMode(), 'ask');
    await store.setTrustMode('deny');
    assert.equal(await store.trustMode(), 'deny');
  });
});
