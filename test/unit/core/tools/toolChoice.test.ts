import { strict as assert } from 'node:assert';
import { settingRange } from '../../../../src/core/settings/settingsFile';
import { settingLayersFromFiles } from '../../../../src/core/settings/folderSettings';
import { checkToolChoice, TOOLS_SETTING, analyzeToolChoice, choiceFor } from '../../../../src/core/tools/toolChoice';
import { FOLDER_SETTINGS, USER_SETTINGS, at } from './toolChoice.fixture';
import { toolAllowed } from '../../../../src/core/declaration/toolsModel';

describe('dsh.tools problems: one check for every face', () => {
  it('places every problem of every layer on its node of the file that holds it, with stable codes', () => {
    const layers = settingLayersFromFiles([
      { level: 'user', kind: 'settings', text: USER_SETTINGS, file: '/home/u/settings.json' },
      { level: 'workspace', kind: 'settings', text: FOLDER_SETTINGS, file: '.vscode/settings.json' },
    ])(TOOLS_SETTING);
    const { problems, unplaced, analysis } = checkToolChoice(layers);
    assert.equal(unplaced, 0);
    assert.deepEqual(problems.map((p) => [p.file, p.code, p.severity, p.range]), [
      ['/home/u/settings.json', 'tools-invalid-excluded-name', 'error', settingRange(USER_SETTINGS, 'settings', [TOOLS_SETTING, 'github', 'exclude', 1])],
      ['.vscode/settings.json', 'tools-invalid-list', 'error', at(FOLDER_SETTINGS, ['github', 'exclude'])],
      ['.vscode/settings.json', 'tools-unknown-key', 'warning', at(FOLDER_SETTINGS, ['github', 'bogus'], 'key')],
      ['.vscode/settings.json', 'tools-invalid-entry', 'error', at(FOLDER_SETTINGS, ['fs'])],
      ['.vscode/settings.json', 'tools-invalid-name', 'error', at(FOLDER_SETTINGS, ['git', 'only', 1])],
    ]);
    assert.equal(problems[1].message, '"exclude" of server "github" must be a list of tool names; as written it allows no tool of this server.');
    assert.equal(problems[4].server, 'git');
    // Fail closed all the same: the bad shapes allow nothing of their servers.
    assert.deepEqual(analysis.choices.github, { only: [], exclude: [] });
  });

  it('counts a problem of a layer whose file the face cannot read as unplaced, never drops it silently', () => {
    const { problems, unplaced } = checkToolChoice([{ level: 'user', value: 'all' }]);
    assert.deepEqual([problems.length, unplaced], [0, 1]);
  });

  it('places problems of a .code-workspace file under its "settings"', () => {
    const text = '{ "folders": [{ "path": "." }], "settings": { "dsh.tools": [] } }';
    const layers = settingLayersFromFiles([{ level: 'workspace', kind: 'code-workspace', text, file: '/w/x.code-workspace' }])(TOOLS_SETTING);
    const [p] = checkToolChoice(layers).problems;
    assert.equal(p.code, 'tools-invalid-setting');
    assert.deepEqual(p.range, settingRange(text, 'code-workspace', [TOOLS_SETTING], 'value'));
  });
});

describe('dsh.tools: every layer only narrows', () => {
  it('intersects allow-lists and adds up exclusions across user, workspace and folder', () => {
    const a = analyzeToolChoice([
      { level: 'default', value: {} },
      { level: 'user', value: { gh: { exclude: ['delete_repo'] }, fs: { only: ['read', 'list', 'write'] } } },
      { level: 'workspace', value: { gh: { exclude: [] }, fs: { only: ['read', 'write', 'chmod'] } } },
      { level: 'folder', value: { fs: { exclude: ['write'] } } },
    ]);
    assert.deepEqual(a.problems, []);
    assert.deepEqual(choiceFor(a, 'gh'), { exclude: ['delete_repo'] }, 'an empty exclude in the repository does not bring the tool back');
    assert.deepEqual(choiceFor(a, 'fs'), { only: ['read', 'write'], exclude: ['write'] });
    assert.equal(toolAllowed(choiceFor(a, 'fs'), 'read'), true);
    assert.equal(toolAllowed(choiceFor(a, 'fs'), 'write'), false);
    assert.equal(toolAllowed(choiceFor(a, 'fs'), 'chmod'), false, 'a repository cannot widen the user allow-list');
    assert.equal(choiceFor(a, 'other'), undefined);
  });

  it('bad shapes fail closed and are located in their layer', () => {
    const a = analyzeToolChoice([
      { level: 'user', value: { gh: 'all', fs: { only: 'read' }, x: { exclude: ['a', 3], colour: 1 }, y: { only: ['ok', ''] } } },
      { level: 'workspace', value: ['nope'] },
    ]);
    assert.deepEqual(a.problems.map((p) => [p.code, p.layer, p.path.join('/')]), [
      ['tools-invalid-entry', 0, 'dsh.tools/gh'],
      ['tools-invalid-list', 0, 'dsh.tools/fs/only'],
      ['tools-invalid-excluded-name', 0, 'dsh.tools/x/exclude/1'],
      ['tools-unknown-key', 0, 'dsh.tools/x/colour'],
      ['tools-invalid-name', 0, 'dsh.tools/y/only/1'],
      ['tools-invalid-setting', 1, 'dsh.tools'],
    ]);
    assert.equal(a.allBlocked, true);
    const user = analyzeToolChoice([{ level: 'user', value: { gh: 'all', x: { exclude: ['a', 3] }, y: { only: ['ok', ''] } } }]);
    assert.deepEqual(choiceFor(user, 'gh'), { only: [], exclude: [] });
    assert.deepEqual(choiceFor(user, 'x'), { only: [], exclude: [] });
    assert.deepEqual(choiceFor(user, 'y'), { only: ['ok'], exclude: [] });
    const text = '{\n  // mine\n  "dsh.tools": { "gh": "all" }\n}';
    const checked = checkToolChoice([{ level: 'user', value: { gh: 'all' }, source: { file: '.vscode/settings.json', text, kind: 'settings' } }, { level: 'workspace', value: ['nope'] }]);
    const [placed] = checked.problems;
    assert.equal(placed.file, '.vscode/settings.json');
    assert.deepEqual(placed.range.start, { line: 2, character: 23 });
    assert.equal(checked.problems.length, 1);
    assert.equal(checked.unplaced, 1, 'a layer without a file leaves its problem unplaced');
  });
});
