import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { definingLayer, mergeSettingLayers, settingValueInText } from '../../../../src/core/settings/settingLayers';

describe('sections: settings layers (VS Code object-setting merge)', () => {
  it('merges objects key by key, recursively; later layers win; arrays and scalars replace', () => {
    const user = { ts: { command: 'tsserver', args: ['--stdio'], extensions: { '.ts': 'typescript' } }, py: { command: 'pylsp' } };
    const workspace = { ts: { args: ['--x'], extensions: { '.tsx': 'typescriptreact' } } };
    const folder = { py: 'off' };
    assert.deepEqual(mergeSettingLayers([{}, user, workspace, folder]), {
      ts: { command: 'tsserver', args: ['--x'], extensions: { '.ts': 'typescript', '.tsx': 'typescriptreact' } },
      py: 'off',
    });
  });

  it('skips undefined layers, never aliases its inputs, and keeps a __proto__ key as data', () => {
    const user = { a: { b: 1 } };
    const merged = mergeSettingLayers([undefined, user, undefined]) as { a: { b: number } };
    assert.deepEqual(merged, { a: { b: 1 } });
    merged.a.b = 2;
    assert.equal(user.a.b, 1);
    assert.equal(mergeSettingLayers([undefined, undefined]), undefined);
    const evil = JSON.parse('{"__proto__": {"polluted": true}}') as unknown;
    const out = mergeSettingLayers([{}, evil]) as Record<string, unknown>;
    assert.ok(Object.hasOwn(out, '__proto__'));
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('a non-object layer replaces, and an object after it starts afresh', () => {
    assert.equal(mergeSettingLayers([{ a: 1 }, 'x']), 'x');
    assert.deepEqual(mergeSettingLayers(['x', { a: 1 }]), { a: 1 });
  });

  it('property: merging one layer is a deep copy of it', () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => {
      assert.deepEqual(mergeSettingLayers([value]), value);
    }));
  });

  it('definingLayer: the highest layer that has the exact path', () => {
    const layers = [{}, { ts: { command: 'a', extensions: { '.ts': 't' } } }, { ts: { command: 'b' } }, undefined];
    assert.equal(definingLayer(layers, ['dsh.lsp.servers', 'ts', 'command']), 2);
    assert.equal(definingLayer(layers, ['dsh.lsp.servers', 'ts', 'extensions', '.ts']), 1);
    assert.equal(definingLayer(layers, ['dsh.lsp.servers', 'ts']), 2);
    assert.equal(definingLayer(layers, ['dsh.lsp.servers']), 2);
    assert.equal(definingLayer(layers, ['dsh.lsp.servers', 'py']), undefined);
    assert.equal(definingLayer([{ a: [1, 2] }], ['s', 'a', 1]), 0, 'an array item is a node');
    assert.equal(definingLayer([{ a: [1, 2] }], ['s', 'a', 2]), undefined, 'past the end of an array');
    assert.equal(definingLayer([{ a: 1 }], ['s', 'toString']), undefined, 'an inherited property is no node');
  });
});

describe('sections: settingValueInText (Restricted Mode reads the file itself)', () => {
  it('reads the last property of the setting, with comments and trailing commas, from settings.json and .code-workspace', () => {
    const settings = '{\n  // c\n  "dsh.lsp.servers": {"a": {}},\n  "dsh.lsp.servers": {"b": {"command": "x",},},\n}';
    assert.deepEqual(settingValueInText(settings, 'settings', 'dsh.lsp.servers'), { b: { command: 'x' } });
    const workspace = '{"folders": [], "settings": {"dsh.lsp.servers": {"c": {"args": ["-v"]}}}}';
    assert.deepEqual(settingValueInText(workspace, 'code-workspace', 'dsh.lsp.servers'), { c: { args: ['-v'] } });
    assert.equal(settingValueInText(workspace, 'settings', 'dsh.lsp.servers'), undefined);
    assert.equal(settingValueInText('{', 'settings', 'dsh.lsp.servers'), undefined);
    assert.equal(settingValueInText('[]', 'settings', 'dsh.lsp.servers'), undefined);
  });
});
