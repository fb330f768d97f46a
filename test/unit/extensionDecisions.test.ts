import { strict as assert } from 'node:assert';
import { changedConcerns, declarationState, inputIndexKey, inputSecretKey, keepForDocument } from '../../src/extension/decisions';

describe('extension decisions (vscode-free)', () => {
  it('declarationState: names what the declaration is (another key, another folder, changed), the most specific wins', () => {
    const s = (...codes: string[]) => declarationState({ ok: codes.length === 0, reasons: codes.map((code) => ({ code })) });
    assert.equal(s(), 'up-to-date');
    assert.equal(s('stale'), 'stale');
    assert.equal(s('missing'), 'missing');
    assert.equal(s('stale', 'tampered'), 'changed');
    assert.equal(s('bad-signature'), 'other-key');
    assert.equal(s('bad-signature', 'stale'), 'other-key');
    assert.equal(s('unsigned', 'stale'), 'unsigned');
    assert.equal(s('wrong-folder'), 'other-folder');
    assert.equal(s('wrong-folder', 'bad-signature'), 'other-folder');
    assert.equal(s('unreadable'), 'invalid');
    assert.equal(s('rollback', 'stale'), 'older');
    assert.equal(s('tampered', 'rollback'), 'changed');
    assert.equal(s('bad-signature', 'rollback'), 'other-key');
  });

  it('changedConcerns: only dsh.* sections matter, each to its own concern', () => {
    const only = (...sections: string[]) => changedConcerns((x) => sections.includes(x));
    const none = { trustMode: false, home: false, export: false, lsp: false, skillRoots: false, tools: false, sources: false, any: false };
    assert.deepEqual(only(), none);
    assert.deepEqual(only('editor.fontSize'), none);
    assert.deepEqual(only('dsh.trustMode'), { ...none, trustMode: true, any: true });
    assert.deepEqual(only('dsh.export'), { ...none, export: true, any: true });
    assert.deepEqual(only('dsh.home'), { ...none, home: true, skillRoots: true, any: true });
    assert.deepEqual(only('dsh.lsp.servers'), { ...none, lsp: true, any: true });
    assert.deepEqual(only('dsh.skills.customRoots'), { ...none, skillRoots: true, any: true });
    assert.deepEqual(only('dsh.tools'), { ...none, tools: true, any: true });
    assert.deepEqual(only('chat.mcp.access'), { ...none, sources: true, any: true });
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
