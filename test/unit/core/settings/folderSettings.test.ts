import { strict as assert } from 'node:assert';
import { folderSettingsFiles, readExportSettings, settingsViewFromFiles } from '../../../../src/core/settings/folderSettings';
import { userSettings } from '../../helpers';

describe('settings: the layers a face without an editor reads', () => {
  it('merges user < workspace < folder as VS Code does: dotted keys are paths, objects merge, the rest replaces', () => {
    const view = settingsViewFromFiles([
      { level: 'user', kind: 'settings', text: '{"dsh.export.reconnect": {"maxAttempts": 3}, "dsh.lsp.servers": {"a": {"command": "x"}}, "app.root": "/u"}' },
      { level: 'workspace', kind: 'code-workspace', text: '{"folders": [], "settings": {"dsh.export": {"reconnect": {"enabled": false}}, "dsh.lsp.servers": {"b": {"command": "y"}}}}' },
      { level: 'folder', kind: 'settings', text: '// comments and trailing commas\n{"app.root": "/f", "[json]": {"dsh.export.toolCallTimeoutMs": 5},}' },
    ]);
    assert.deepEqual(view('dsh.export.reconnect'), { maxAttempts: 3, enabled: false });
    assert.deepEqual(view('dsh.lsp.servers'), { a: { command: 'x' }, b: { command: 'y' } });
    assert.equal(view('app.root'), '/f');
    assert.equal(view('dsh.export.toolCallTimeoutMs'), undefined, 'a language override is not the setting');
    assert.deepEqual(readExportSettings(view, () => assert.fail('valid')).reconnect, { enabled: false, initialDelayMs: 500, maxDelayMs: 30000, maxAttempts: 3 });
  });

  it('a repository cannot set machine or application settings (VS Code ignores them outside user settings)', () => {
    const view = settingsViewFromFiles([
      { level: 'user', kind: 'settings', text: '{"dsh.skills.customRoots": ["/mine"]}' },
      { level: 'workspace', kind: 'settings', text: '{"dsh.skills.customRoots": ["/evil"], "dsh.home": "/evil", "dsh.trustMode": "ask"}' },
    ]);
    assert.deepEqual(view('dsh.skills.customRoots'), ['/mine']);
    assert.equal(view('dsh.home'), undefined);
    assert.equal(view('dsh.trustMode'), undefined);
  });

  it('an invalid value is reported by its full key and falls back to the default', () => {
    const reported: string[] = [];
    const settings = readExportSettings(userSettings({ 'dsh.export.toolCallTimeoutMs': -5, 'dsh.export.failOnStartupError': true }), (k) => reported.push(k));
    assert.equal(settings.toolCallTimeoutMs, 60000);
    assert.equal(settings.failOnStartupError, true);
    assert.deepEqual(reported, ['dsh.export.toolCallTimeoutMs']);
  });
});

describe('the settings files of a folder\'s layers (every face reads and pins these)', () => {
  it('single folder: its own file is the workspace layer; multi-root: the .code-workspace file, then the folder layer', () => {
    const levels = (files: Array<{ level: string; kind: string; file: string }>) => files.map((f) => `${f.level}:${f.kind}:${f.file}`);
    assert.deepEqual(levels(folderSettingsFiles({ folder: 'F' })), ['workspace:settings:F']);
    assert.deepEqual(levels(folderSettingsFiles({ folder: 'F', user: 'U' })), ['user:settings:U', 'workspace:settings:F']);
    assert.deepEqual(levels(folderSettingsFiles({ folder: 'F', user: 'U', codeWorkspace: 'W' })), ['user:settings:U', 'workspace:code-workspace:W', 'folder:settings:F']);
    assert.deepEqual(levels(folderSettingsFiles({ folder: 'F', multiRoot: true })), ['folder:settings:F'], 'a .code-workspace file the face cannot read is left out; the folder keeps its layer');
  });
});
