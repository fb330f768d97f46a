import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { finalExtension, lspServerFor, normalizeLspExtension } from '../../../../src/core/lsp/lspRouting';

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
