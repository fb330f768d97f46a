import { strict as assert } from 'node:assert';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { loadEnvFile } from '../../../../src/core/node/envFile';
import { isLoaderVariable } from '../../../../src/core/mcp/securityLint';
import { tempDir } from '../../helpers';

/**
 * Conformance of the envFile parser with VS Code's (`parseEnvFile` in
 * src/vs/base/common/envfile.ts of microsoft/vscode, the parser the editor uses for an MCP
 * server's envFile). Each expected value is what that parser returns for the input, worked out
 * from its rules; where the `dotenv` package reads the file differently the case says so, and
 * VS Code's reading is the one expected (a server must get the environment it gets in the editor).
 */
const CONFORMANCE: Array<[string, string, Array<[string, string]>]> = [
  ['plain', 'A=1\nB=two', [['A', '1'], ['B', 'two']]],
  ['spaces around key and value are trimmed', '  A  =  some value  ', [['A', 'some value']]],
  ['export prefix', 'export A=1\nexport  B = 2', [['A', '1'], ['B', '2']]],
  ['"export" with a tab is part of the key', 'export\tA=1', [['export\tA', '1']]],
  ['a key named export', 'export=1', [['export', '1']]],
  ['comments and blank lines', '# comment\n\n   # indented comment\nA=1', [['A', '1']]],
  ['inline comment needs no space (dotenv: same when unquoted)', 'A=abc#def\nB=abc # def', [['A', 'abc'], ['B', 'abc']]],
  ['# inside quotes is kept', 'A="a#b"\nB=\'c#d\'', [['A', 'a#b'], ['B', 'c#d']]],
  ['colon is a separator too (YAML-like)', 'A: 1\nB:2', [['A', '1'], ['B', '2']]],
  ['first separator wins', 'A=b=c\nD:e=f\nG=h:i', [['A', 'b=c'], ['D', 'e=f'], ['G', 'h:i']]],
  ['a separator inside quotes in the key does not count', '"K=1"=v', [['"K=1"', 'v']]],
  ['no separator: nothing', 'JUST_A_WORD\nA=1', [['A', '1']]],
  ['empty key: nothing', '=v\n :v\nA=1', [['A', '1']]],
  ['empty value', 'A=\nB=""\nC=\'\'', [['A', ''], ['B', ''], ['C', '']]],
  ['double quotes: \\n and \\r unescaped', 'A="x\\ny\\rz"', [['A', 'x\ny\rz']]],
  ['double quotes: no other escape (dotenv: same)', 'A="t\\tb\\\\c\\"d"', [['A', 't\\tb\\\\c\\"d']]],
  ['single quotes: literal', "A='x\\ny'", [['A', 'x\\ny']]],
  ['backticks: stripped, literal', 'A=`x\\ny`', [['A', 'x\\ny']]],
  ['unquoted: literal backslashes', 'A=x\\ny', [['A', 'x\\ny']]],
  ['mismatched quotes stay', 'A="abc\'\nB=\'abc', [['A', '"abc\''], ['B', "'abc"]]],
  ['a lone quote stays', 'A="', [['A', '"']]],
  ['quote in the middle stays', 'A=ab"c"d', [['A', 'ab"c"d']]],
  ['escaped quote does not close', 'A="a\\"#b"', [['A', 'a\\"#b']]],
  ['no multi-line values (dotenv would join them)', 'A="first\nsecond"\nB=1', [['A', '"first'], ['B', '1']]],
  ['no expansion', 'A=$HOME\nB=${HOME}', [['A', '$HOME'], ['B', '${HOME}']]],
  ['later definition wins', 'A=1\nA=2', [['A', '2']]],
  ['CRLF', 'A=1\r\nB=2\r\n', [['A', '1'], ['B', '2']]],
  ['lone CR', 'A=1\rB=2', [['A', '1'], ['B', '2']]],
  ['BOM before the first key is dropped by the trim', '\ufeffA=1', [['A', '1']]],
  ['BOM before an export line', '\ufeffexport A=1', [['A', '1']]],
  ['keys are not validated', 'my-key.x=1\n1A=2', [['my-key.x', '1'], ['1A', '2']]],
  ['"__proto__" is an ordinary key', '__proto__=x', [['__proto__', 'x']]],
  ['trailing text after a closing quote keeps the quotes', 'A="x" y', [['A', '"x" y']]],
  ['quoted then comment', 'A="x" # c', [['A', 'x']]],
];

describe('envFile: parsed as VS Code parses it', () => {
  for (const [name, text, expected] of CONFORMANCE) {
    it(name, async () => {
      const ws = tempDir();
      writeFileSync(path.join(ws, '.env'), text);
      const r = await loadEnvFile(path.join(ws, '.env'), ws);
      assert.ok(r.ok);
      assert.deepEqual(r.names.map((n) => [n, r.vars[n]]), expected);
    });
  }

  it('loader variables are recognised (shown as a danger in the review)', () => {
    for (const n of ['PATH', 'NODE_OPTIONS', 'LD_PRELOAD', 'DYLD_INSERT_LIBRARIES', 'PYTHONPATH', 'ld_library_path']) assert.ok(isLoaderVariable(n), n);
    for (const n of ['API_KEY', 'HOME', 'LANG']) assert.ok(!isLoaderVariable(n), n);
  });
});

describe('envFile: loading', () => {
  it('returns the vars, their names in order and the sha256 of the bytes', async () => {
    const ws = tempDir();
    writeFileSync(path.join(ws, '.env'), 'B=2\nA=1\n__proto__=p\n');
    const r = await loadEnvFile(path.join(ws, '.env'), ws);
    assert.ok(r.ok);
    assert.deepEqual(r.names, ['B', 'A', '__proto__']);
    assert.equal(Object.getOwnPropertyDescriptor(r.vars, '__proto__')?.value, 'p');
    assert.match(r.sha256, /^[0-9a-f]{64}$/);
  });

  it('refuses a link out of the workspace, a non-file and a huge file; never quotes content', async () => {
    const root = tempDir();
    const ws = path.join(root, 'ws');
    mkdirSync(ws);
    writeFileSync(path.join(root, 'outside.env'), 'SECRET=do-not-read\n');
    symlinkSync(path.join(root, 'outside.env'), path.join(ws, '.env'));
    const linked = await loadEnvFile(path.join(ws, '.env'), ws);
    assert.equal(linked.ok, false);
    assert.ok(!JSON.stringify(linked).includes('do-not-read'));
    assert.equal((await loadEnvFile(ws, ws)).ok, false);
    writeFileSync(path.join(ws, 'big.env'), `A=${'x'.repeat(300 * 1024)}\n`);
    assert.match(JSON.stringify(await loadEnvFile(path.join(ws, 'big.env'), ws)), /larger than/);
  });
});
