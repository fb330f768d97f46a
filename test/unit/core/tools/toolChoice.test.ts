import { strict as assert } from 'node:assert';
import { settingRange } from '../../../../src/core/settings/settingsFile';
import { settingLayersFromFiles } from '../../../../src/core/settings/folderSettings';
import { checkToolChoice, TOOLS_SETTING } from '../../../../src/core/tools/toolChoice';
import { FOLDER_SETTINGS, USER_SETTINGS, at } from './toolChoice.fixture';

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
