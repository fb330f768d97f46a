import { strict as assert } from 'node:assert';
import { inputIndexKey, inputSecretKey, keepForDocument } from '../../../src/extension/decisions';

describe('extension decisions (vscode-free)', () => {
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
