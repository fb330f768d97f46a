import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { main } from '../../src/cli/main';
import { verifyFolder } from '../../src/core/app/verify';
import { reviewLaunch } from '../../src/core/mcp/launchReview';
import { HostStore } from '../../src/core/node/hostStore';
import { analyze, codes, exportFolder, testPorts, tempDir, workspace } from './helpers';

/** Regression tests of issue "Hardening" (items 3, 4, 8-12), each reproduced as the attack run did. */

async function cliJson(args: string[]): Promise<{ code: number; json: Record<string, unknown> }> {
  const out: string[] = [];
  const code = await main([...args, '--json'], { out: (t) => out.push(t), err: () => undefined });
  assert.equal(out.length, 1, 'the CLI prints exactly one JSON object');
  return { code, json: JSON.parse(out[0]) };
}

async function exportAndVerify(folder: string, home: string) {
  const exported = await cliJson(['export', '--workspace', folder, '--dsh-home', home]);
  const verified = await cliJson(['verify', '--workspace', folder, '--dsh-home', home]);
  return { exported, verified };
}

describe('hardening: no crash, consent holds (regressions)', () => {
  it('3: a duplicated root "servers" exports nothing and marks both occurrences', async () => {
    const text = '{\n"servers": {"reviewed": {"command": "node"}},\n"servers": {"other": {"command": "evil"}}\n}';
    const a = analyze(text);
    assert.equal(a.usable, false);
    assert.deepEqual(a.servers, []);
    const dupes = a.problems.filter((p) => p.code === 'duplicate-key');
    assert.deepEqual(dupes.map((p) => p.range.start.line), [1, 2]);
    const folder = workspace(text);
    const { exported } = await exportAndVerify(folder, tempDir());
    assert.equal(exported.code, 1);
    assert.equal(exported.json.declaration, null);
    assert.ok(!existsSync(path.join(folder, '.dsh/declaration.json')));
  });

  it('3: a duplicated root "inputs" makes the file unusable too', () => {
    const a = analyze('{"inputs": [], "servers": {"s": {"command": "node"}}, "inputs": []}');
    assert.equal(a.usable, false);
    assert.equal(codes(a).filter((c) => c === 'duplicate-key').length, 2);
  });

  for (const key of ['__proto__', 'constructor', 'prototype']) {
    it(`4: env and header key "${key}" is refused with a located diagnostic, and export and verify agree`, async () => {
      const text = `{"servers": {"s": {"command": "node", "env": {"${key}": "x", "OK": "1"}}, "h": {"type": "http", "url": "https://e.example", "headers": {"${key}": "y"}}, "fine": {"command": "node"}}}`;
      const a = analyze(text);
      assert.deepEqual(a.rejected.map((r) => [r.name, r.codes]), [['s', ['reserved-key']], ['h', ['reserved-key']]]);
      const reserved = a.problems.filter((p) => p.code === 'reserved-key');
      assert.equal(reserved.length, 2);
      assert.ok(reserved.every((p) => p.message.includes(key)));
      const { exported, verified } = await exportAndVerify(workspace(text), tempDir());
      assert.equal(exported.code, 0);
      assert.deepEqual(verified.json.verify, { ok: true, reasons: [] });
    });
  }

  for (const type of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
    it(`8: input type "${type}" is an invalid input, never a look-up on the prototype`, async () => {
      const text = `{"inputs": [{"id": "a", "type": "${type}", "description": "d"}], "servers": {"s": {"command": "node", "args": ["\${input:a}"]}}}`;
      const a = analyze(text);
      const problem = a.problems.find((p) => p.code === 'invalid-input');
      assert.ok(problem, codes(a).join());
      assert.deepEqual(a.rejected.map((r) => r.name), ['s']);
      const { exported } = await exportAndVerify(workspace(text), tempDir());
      assert.equal(exported.code, 0);
    });
  }

  it('8: inputs list looks stored values up as own keys ("constructor" is not stored)', async () => {
    const folder = workspace('{"inputs": [{"id": "constructor", "type": "promptString", "description": "d", "password": true}], "servers": {"s": {"command": "node", "env": {"K": "${input:constructor}"}}}}');
    const { json } = await cliJson(['inputs', 'list', '--workspace', folder, '--dsh-home', tempDir()]);
    assert.deepEqual(json.inputs, [{ id: 'constructor', stored: false, referenced: true }]);
  });

  it('9: unpaired surrogates in a server name or an input description give located diagnostics', async () => {
    const text = '{"servers": {"s\\ud800": {"command": "node"}, "t": {"command": "${input:b}"}, "ok": {"command": "node"}},\n "inputs": [{"id": "b", "type": "promptString", "description": "\\udc00"}]}';
    const a = analyze(text);
    assert.deepEqual(a.servers.map((s) => s.name), ['ok']);
    assert.deepEqual(a.rejected.map((r) => r.name), ['s\ufffd', 't']);
    const surrogate = a.problems.filter((p) => p.message.includes('unpaired UTF-16 surrogate'));
    assert.deepEqual(surrogate.map((p) => [p.code, p.range.start.line]), [['invalid-server', 0], ['invalid-input', 1]]);
    const { exported, verified } = await exportAndVerify(workspace(text), tempDir());
    assert.equal(exported.code, 0);
    assert.equal((verified.json.verify as { ok: boolean }).ok, true);
  });

  for (const [what, deep] of [['args', '['.repeat(3000) + ']'.repeat(3000)], ['objects', '{"a":'.repeat(3000) + '1' + '}'.repeat(3000)]]) {
    it(`10: ${what} nested 3000 deep: a located too-deep problem, the CLI still prints JSON`, async () => {
      const text = `{"servers": {"s": {"command": "node",\n "args": ${deep}}}}`;
      const a = analyze(text);
      assert.equal(a.usable, false);
      assert.deepEqual(a.problems.map((p) => [p.code, p.range.start.line]), [['too-deep', 1]]);
      const { exported, verified } = await exportAndVerify(workspace(text), tempDir());
      assert.equal(exported.code, 1);
      assert.deepEqual((exported.json.problems as Array<{ code: string }>).map((p) => p.code), ['too-deep']);
      assert.equal((verified.json.verify as { ok: boolean }).ok, false);
    });
  }

  it('10: a declaration nested 3000 deep is refused by verify, not a crash', async () => {
    const folder = workspace('{"servers": {}}', { '.dsh/declaration.json': `{"x": ${'['.repeat(3000)}${']'.repeat(3000)}}` });
    const result = await verifyFolder(testPorts(tempDir()), folder);
    assert.equal(result.ok, false);
    assert.equal(result.reasons[0].code, 'tampered');
  });

  for (const first of ['1', '{}', '[]', 'true', 'null']) {
    it(`11: a duplicate env/header key whose first value is ${first} is a duplicate-key, not a crash`, () => {
      const a = analyze(`{"servers": {"s": {"command": "node", "env": {"A": ${first}, "A": "x"}}, "h": {"url": "https://e.example", "headers": {"H": ${first}, "H": "x"}}}}`);
      assert.deepEqual(a.rejected.map((r) => [r.name, r.codes]), [['s', ['duplicate-key']], ['h', ['duplicate-key']]]);
    });
  }

  describe('12: the declaration path is never opened except through the safe reader', () => {
    const mcp = '{"servers": {"s": {"command": "node"}}}';
    const run = (folder: string, home: string) => exportFolder(testPorts(home), folder);

    it('a FIFO at the target: replaced, no hang', async function () {
      this.timeout(10000);
      const folder = workspace(mcp);
      mkdirSync(path.join(folder, '.dsh'));
      execFileSync('mkfifo', [path.join(folder, '.dsh/declaration.json')]);
      execFileSync('mkfifo', [path.join(folder, '.dsh/declaration.schema.json')]);
      const home = tempDir();
      const result = await run(folder, home);
      assert.equal(result.written, true);
      assert.ok(lstatSync(path.join(folder, '.dsh/declaration.json')).isFile());
      assert.ok(lstatSync(path.join(folder, '.dsh/declaration.schema.json')).isFile());
      assert.equal((await verifyFolder(testPorts(home), folder)).ok, true);
    });

    it('a link to /dev/zero at the target: replaced without reading it', async () => {
      const folder = workspace(mcp);
      mkdirSync(path.join(folder, '.dsh'));
      symlinkSync('/dev/zero', path.join(folder, '.dsh/declaration.json'));
      const before = process.memoryUsage().rss;
      const result = await run(folder, tempDir());
      assert.equal(result.written, true);
      assert.ok(process.memoryUsage().rss - before < 64 * 1024 * 1024, 'read far more than a declaration');
      assert.ok(lstatSync(path.join(folder, '.dsh/declaration.json')).isFile());
    });

    it('a directory at the target: a clear error, in the CLI\'s JSON object', async () => {
      const folder = workspace(mcp);
      mkdirSync(path.join(folder, '.dsh/declaration.json'), { recursive: true });
      const { code, json } = await cliJson(['export', '--workspace', folder, '--dsh-home', tempDir()]);
      assert.equal(code, 1);
      assert.match(String(json.error), /declaration\.json is a folder, not a file; nothing was written/);
      rmSync(path.join(folder, '.dsh/declaration.json'), { recursive: true });
      writeFileSync(path.join(folder, '.dsh/declaration.json'), 'old');
      assert.equal((await cliJson(['export', '--workspace', folder, '--dsh-home', tempDir()])).code, 0);
      assert.notEqual(readFileSync(path.join(folder, '.dsh/declaration.json'), 'utf8'), 'old');
    });
  });

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
