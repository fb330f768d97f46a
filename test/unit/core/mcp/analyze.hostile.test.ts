import { strict as assert } from 'node:assert';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { analyze, codes, tempDir, workspace } from '../../helpers';
import { cliJson } from '../../cli/cli.fixture';

/**
 * Hostile `.vscode/mcp.json` files of the hardening issue (items 3, 4, 8-11), each reproduced as
 * the attack run did: refused with a located problem, and export and verify agree.
 */

async function exportAndVerify(folder: string, home: string) {
  const exported = await cliJson(['export', '--workspace', folder, '--dsh-home', home]);
  const verified = await cliJson(['verify', '--workspace', folder, '--dsh-home', home]);
  return { exported, verified };
}

describe('analyze: hostile files, no crash, consent holds (hardening regressions 3, 4, 8-11)', () => {
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

  for (const first of ['1', '{}', '[]', 'true', 'null']) {
    it(`11: a duplicate env/header key whose first value is ${first} is a duplicate-key, not a crash`, () => {
      const a = analyze(`{"servers": {"s": {"command": "node", "env": {"A": ${first}, "A": "x"}}, "h": {"url": "https://e.example", "headers": {"H": ${first}, "H": "x"}}}}`);
      assert.deepEqual(a.rejected.map((r) => [r.name, r.codes]), [['s', ['duplicate-key']], ['h', ['duplicate-key']]]);
    });
  }
});
