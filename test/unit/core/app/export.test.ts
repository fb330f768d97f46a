import { strict as assert } from 'node:assert';
import { existsSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { HostStore } from '../../../../src/core/node/hostStore';
import { tempDir, workspace, analyze, exportFolder, folderIdentityOf, testPorts } from '../../helpers';
import { SOURCE, exported } from './export.fixture';
import { reviewLaunch } from '../../../../src/core/mcp/launchReview';
import { verifyFolder } from '../../../../src/core/app/verify';

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

describe('export: consent holds (hardening regressions 1, 2)', () => {
  describe('1: the envFile is pinned (its content is signed)', () => {
    const mcp = '{"servers": {"s": {"command": "node", "envFile": "${workspaceFolder}/.env"}}}';
    const run = (folder: string, home: string) => exportFolder(testPorts(home), folder);

    it('an edit of the envFile after export makes verify fail as stale; a new export pins a new entry', async () => {
      const folder = workspace(mcp, { '.env': 'API_URL=https://api.example\n' });
      const home = tempDir();
      const first = await run(folder, home);
      const server = first.analysis.servers[0];
      assert.ok(server.transport === 'stdio');
      assert.match(String(server.envFileSha256), /^[0-9a-f]{64}$/);
      assert.deepEqual(server.envFileNames, ['API_URL']);
      assert.equal((await verifyFolder(testPorts(home), folder)).ok, true);

      writeFileSync(path.join(folder, '.env'), 'API_URL=https://api.example\nNODE_OPTIONS=--require /tmp/evil.js\nLD_PRELOAD=/tmp/evil.so\n');
      const stale = await verifyFolder(testPorts(home), folder);
      assert.equal(stale.ok, false);
      assert.deepEqual(stale.reasons.map((r) => r.code), ['stale']);
      assert.match(stale.reasons[0].message, /envFile of server "s" changed since the export/);

      const second = await run(folder, home);
      assert.notEqual(second.analysis.servers[0].pin, server.pin, 'a changed envFile is a new entry: pinned approvals ask again');
      const review = reviewLaunch(second.analysis.servers[0]);
      assert.deepEqual(review.envFileNames, ['API_URL', 'NODE_OPTIONS', 'LD_PRELOAD']);
      assert.deepEqual(review.dangers[0], { code: 'loader-variable', token: 'NODE_OPTIONS, LD_PRELOAD' });
    });

    it('a declared loader variable is shown the same way', () => {
      const a = analyze('{"servers": {"s": {"command": "node", "env": {"PATH": "/tmp/bin"}}}}');
      assert.deepEqual(reviewLaunch(a.servers[0]).dangers[0], { code: 'loader-variable', token: 'PATH' });
    });

    it('an envFile that cannot be read at export: the server is refused with a located problem', async () => {
      const folder = workspace('{"servers": {"s": {"command": "node",\n "envFile": "${workspaceFolder}/missing.env"}, "t": {"command": "node"}}}');
      const result = await run(folder, tempDir());
      assert.deepEqual(result.analysis.servers.map((s) => s.name), ['t']);
      assert.deepEqual(result.analysis.rejected, [{ name: 's', codes: ['env-file-unreadable'] }]);
      const problem = result.analysis.problems.find((p) => p.code === 'env-file-unreadable')!;
      assert.equal(problem.range.start.line, 1);
      assert.match(problem.message, /does not exist/);
    });

    it('an envFile path known only at start cannot be pinned: refused', async () => {
      const folder = workspace('{"inputs": [{"id": "f", "type": "promptString", "description": "d"}], "servers": {"s": {"command": "node", "envFile": "${input:f}"}}}');
      const result = await run(folder, tempDir());
      assert.deepEqual(result.analysis.rejected, [{ name: 's', codes: ['env-file-unpinnable'] }]);
      assert.deepEqual(result.analysis.inputs, [], 'an input only the refused server used is not declared');
    });
  });

  describe('2: no rollback in the pinned mode', () => {
    const run = (folder: string, home: string) => exportFolder(testPorts(home), folder);
    const OLD = '{"servers": {"old": {"command": "node", "args": ["old.js"]}, "kept": {"command": "node"}}}';
    const NEW = '{"servers": {"kept": {"command": "node"}}}';

    it('approvals of servers that left are revoked at export; a restored old declaration is refused as a rollback', async () => {
      const folder = workspace(OLD);
      const home = tempDir();
      const store = new HostStore(home);
      const first = await run(folder, home);
      for (const s of first.analysis.servers) await store.approve(folder, s.serverName, s.pin);
      const oldDeclaration = readFileSync(path.join(folder, '.dsh/declaration.json'));
      assert.equal((await verifyFolder(testPorts(home), folder)).ok, true);

      writeFileSync(path.join(folder, '.vscode/mcp.json'), NEW);
      await run(folder, home);
      const record = await store.readFolder(folder);
      assert.deepEqual(record.approvals.map((a) => a.serverName), ['kept']);
      assert.equal(await store.exportSeq(folder), 2);

      // The attacker restores the old mcp.json with its old, validly signed declaration.
      writeFileSync(path.join(folder, '.vscode/mcp.json'), OLD);
      writeFileSync(path.join(folder, '.dsh/declaration.json'), oldDeclaration);
      const verdict = await verifyFolder(testPorts(home), folder);
      assert.equal(verdict.ok, false);
      assert.deepEqual(verdict.reasons.map((r) => r.code), ['rollback']);
      assert.equal(await store.isApproved(folder, 'old', first.analysis.servers[0].pin), false);
    });

    it('a server refused by a policy keeps its approval (for its pin only): allowed again with the same definition, it starts as approved', async () => {
      const folder = workspace(OLD);
      const home = tempDir();
      const store = new HostStore(home);
      const first = await run(folder, home);
      const old = first.analysis.servers.find((s) => s.serverName === 'old')!;
      await store.approve(folder, 'old', old.pin);
      const denied = await exportFolder(testPorts(home), folderIdentityOf(folder, { 'chat.mcp.deniedServers': [{ serverName: 'old' }] }));
      assert.deepEqual(denied.analysis.rejected.map((r) => [r.name, r.codes]), [['old', ['policy-denied']]]);
      assert.equal(await store.isApproved(folder, 'old', old.pin), true, 'refused for now, still in the source: the approval stays');
      await run(folder, home);
      assert.equal(await store.isApproved(folder, 'old', old.pin), true);
      // Gone from the source: revoked.
      writeFileSync(path.join(folder, '.vscode/mcp.json'), NEW);
      await run(folder, home);
      assert.equal(await store.isApproved(folder, 'old', old.pin), false);
    });

    it('an export that changes nothing keeps the count (and says unchanged); a changed pin loses its approval', async () => {
      const folder = workspace(NEW);
      const home = tempDir();
      const store = new HostStore(home);
      const first = await run(folder, home);
      await store.approve(folder, 'kept', first.analysis.servers[0].pin);
      const again = await run(folder, home);
      assert.equal(again.unchanged, true);
      assert.equal(await store.exportSeq(folder), 1);
      assert.equal(await store.isApproved(folder, 'kept', first.analysis.servers[0].pin), true);
      writeFileSync(path.join(folder, '.vscode/mcp.json'), NEW.replace('"node"', '"node2"'));
      await run(folder, home);
      assert.deepEqual((await store.readFolder(folder)).approvals, []);
      assert.equal((await verifyFolder(testPorts(home), folder)).ok, true);
    });
  });
});
