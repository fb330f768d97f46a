import { strict as assert } from 'node:assert';
import { editToolChoice } from '../../../../src/core/app/toolChoiceEdit';

describe('a tool checkbox\'s edit of the folder\'s dsh.tools', () => {
  it('unchecking adds the tool to the server\'s exclude; checking it again removes the entry and then the value', () => {
    const off = editToolChoice(undefined, 'everything', 'echo', false);
    assert.deepEqual(off, { ok: true, value: { everything: { exclude: ['echo'] } } });
    const on = editToolChoice(off.ok ? off.value : undefined, 'everything', 'echo', true);
    assert.deepEqual(on, { ok: true, value: undefined });
  });

  it('keeps the other servers, the other tools and unknown keys as written; never repeats a name', () => {
    const before = { notes: { only: ['read'] }, everything: { exclude: ['add', 'echo'], note: 'kept' } };
    assert.deepEqual(editToolChoice(before, 'everything', 'echo', false), { ok: true, value: before });
    assert.deepEqual(editToolChoice(before, 'everything', 'add', true), { ok: true, value: { notes: { only: ['read'] }, everything: { exclude: ['echo'], note: 'kept' } } });
    assert.deepEqual(before.everything.exclude, ['add', 'echo'], 'the input is not changed');
  });

  it('checking a tool this layer\'s allow-list lacks adds it there', () => {
    assert.deepEqual(editToolChoice({ notes: { only: ['read'], exclude: ['write'] } }, 'notes', 'write', true), { ok: true, value: { notes: { only: ['read', 'write'] } } });
  });

  it('leaves a value of another shape alone and says which part', () => {
    assert.deepEqual(editToolChoice(['x'], 's', 't', false), { ok: false, reason: 'invalid-setting' });
    assert.deepEqual(editToolChoice({ s: 'all' }, 's', 't', false), { ok: false, reason: 'invalid-entry' });
    assert.deepEqual(editToolChoice({ s: { exclude: 'x' } }, 's', 't', false), { ok: false, reason: 'invalid-list' });
    assert.deepEqual(editToolChoice({ s: { only: [1] } }, 's', 't', true), { ok: false, reason: 'invalid-list' });
  });

  it('a server named like an Object property is an ordinary key', () => {
    assert.deepEqual(editToolChoice({}, '__proto__', 't', false), { ok: true, value: JSON.parse('{"__proto__":{"exclude":["t"]}}') });
  });
});
