import { strict as assert } from 'node:assert';
import { settingRange } from '../../../../src/core/settings/settingsFile';
import { settingLayersFromFiles } from '../../../../src/core/settings/folderSettings';
import { checkToolChoice, TOOLS_SETTING } from '../../../../src/core/tools/toolChoice';
import { toolChoiceFixes } from '../../../../src/core/tools/toolChoiceFixes';
import { applyQuickFix } from '../../helpers';
import { FOLDER_SETTINGS, at } from './toolChoice.fixture';

describe('dsh.tools quick fixes', () => {
  const fix = (code: string, p: (string | number)[], target: 'key' | 'value' = 'value', text = FOLDER_SETTINGS) => toolChoiceFixes(text, 'settings', { code, range: at(text, p, target) });

  it('removes an unknown option, keeping comments and the rest', () => {
    const [f] = fix('tools-unknown-key', ['github', 'bogus'], 'key');
    assert.equal(f.title, 'Remove "{key}"');
    assert.deepEqual(f.args, { key: 'bogus' });
    const after = applyQuickFix(FOLDER_SETTINGS, f);
    assert.ok(after.includes('// tool choice with mistakes'));
    assert.ok(!after.includes('bogus'));
    assert.ok(after.includes('"github": { "exclude": "delete_repository" },'), after);
    // A member in the middle goes with its own comma; the comment above the next one stays.
    const middle = '{\n  "dsh.tools": {\n    "a": {\n      "bogus": 1,\n      // keep me\n      "only": ["x"]\n    }\n  }\n}\n';
    const [m] = fix('tools-unknown-key', ['a', 'bogus'], 'key', middle);
    assert.equal(applyQuickFix(middle, m), '{\n  "dsh.tools": {\n    "a": {\n      \n      // keep me\n      "only": ["x"]\n    }\n  }\n}\n');
  });

  it('removes an item of "only" that is not a tool name (it is ignored already)', () => {
    const [f] = fix('tools-invalid-name', ['git', 'only', 1]);
    assert.deepEqual([f.title, f.args], ['Remove item {index} of "only"', { index: '2' }]);
    assert.match(applyQuickFix(FOLDER_SETTINGS, f), /"only": \["status"\]/);
  });

  it('makes one tool name where a list belongs a list of it', () => {
    const [f] = fix('tools-invalid-list', ['github', 'exclude']);
    assert.deepEqual(f.args, { key: 'exclude', name: 'delete_repository' });
    const after = applyQuickFix(FOLDER_SETTINGS, f);
    assert.ok(after.includes('"github": { "exclude": ["delete_repository"], "bogus": 1 },'), after);
    // The fixed entry is no longer a problem of that kind.
    const left = checkToolChoice(settingLayersFromFiles([{ level: 'workspace', kind: 'settings', text: after, file: 's' }])(TOOLS_SETTING)).problems.map((p) => p.code);
    assert.ok(!left.includes('tools-invalid-list'), left.join());
  });

  it('offers nothing where the fix would widen what is allowed, or where the range is not the problem', () => {
    assert.deepEqual(fix('tools-invalid-entry', ['fs']), []);
    const numbers = '{ "dsh.tools": { "a": { "exclude": 7 } } }';
    assert.deepEqual(fix('tools-invalid-list', ['a', 'exclude'], 'value', numbers), []);
    assert.deepEqual(toolChoiceFixes(FOLDER_SETTINGS, 'settings', { code: 'tools-unknown-key', range: at(FOLDER_SETTINGS, ['fs']) }), []);
  });

  it('edits a .code-workspace file under its "settings"', () => {
    const text = '{\n  "folders": [{ "path": "." }],\n  "settings": { "dsh.tools": { "a": { "only": ["x"], "onyl": ["y"] } } }\n}\n';
    const [f] = toolChoiceFixes(text, 'code-workspace', { code: 'tools-unknown-key', range: settingRange(text, 'code-workspace', [TOOLS_SETTING, 'a', 'onyl'], 'key')! });
    assert.doesNotMatch(applyQuickFix(text, f), /onyl/);
  });
});
