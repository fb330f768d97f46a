import { strict as assert } from 'node:assert';
import { changedConcerns, declarationState, inputIndexKey, inputSecretKey, keepForDocument } from '../../src/extension/decisions';

describe('extension logic (vscode-free)', () => {
  it('declarationState: the worst verify reason wins', () => {
    const s = (...codes: string[]) => declarationState({ ok: codes.length === 0, reasons: codes.map((code) => ({ code })) });
    assert.equal(s(), 'up-to-date');
    assert.equal(s('stale'), 'stale');
    assert.equal(s('missing'), 'missing');
    assert.equal(s('stale', 'tampered'), 'tampered');
    assert.equal(s('bad-signature'), 'tampered');
    assert.equal(s('unsigned', 'stale'), 'tampered');
    assert.equal(s('wrong-folder'), 'tampered');
    assert.equal(s('unreadable'), 'invalid');
  });

  it('changedConcerns: only dsh.* sections matter', () => {
    const only = (...sections: string[]) => changedConcerns((x) => sections.includes(x));
    assert.deepEqual(only(), { trustMode: false, home: false, export: false, any: false });
    assert.deepEqual(only('dsh.trustMode'), { trustMode: true, home: false, export: false, any: true });
    assert.deepEqual(only('dsh.export'), { trustMode: false, home: false, export: true, any: true });
    assert.deepEqual(only('dsh.home'), { trustMode: false, home: true, export: false, any: true });
  });

  it('secret keys cannot collide across folders and ids', () => {
    assert.notEqual(inputSecretKey('/a:b', 'c'), inputSecretKey('/a', 'b:c'));
    assert.notEqual(inputSecretKey('/a', 'b"c'), inputSecretKey('/a","b', 'c'));
    assert.equal(inputSecretKey('/w', 'tok'), 'input:["/w","tok"]');
    assert.equal(inputIndexKey('/w'), 'index:"/w"');
  });

  it('syntax errors are left to the editor only for a document open in it', () => {
    assert.equal(keepForDocument('invalid-json', true), false);
    assert.equal(keepForDocument('invalid-json', false), true);
    assert.equal(keepForDocument('unsupported-transport', true), true);
  });
});
