import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { settingRange } from '../../src/core/settings/settingsFile';
import { settingLayersFromFiles } from '../../src/core/settings/folderSettings';
import { checkToolChoice, TOOLS_SETTING } from '../../src/core/tools/toolChoice';
import { toolChoiceFixes } from '../../src/core/tools/toolChoiceFixes';
import { applyQuickFix, tempDir, workspace } from './helpers';

const FOLDER_SETTINGS = `{
  // tool choice with mistakes
  "editor.tabSize": 2,
  "dsh.tools": {
    "github": { "exclude": "delete_repository", "bogus": 1 },
    "fs": "read_file",
    "git": { "only": ["status", 3] },
  },
}
`;
const USER_SETTINGS = '{ "dsh.tools": { "github": { "exclude": ["push", ""] } } }\n';

const at = (text: string, p: (string | number)[], target: 'key' | 'value' = 'value') => settingRange(text, 'settings', [TOOLS_SETTING, ...p], target)!;

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

describe('dsh-bridge check: dsh.tools problems (dist/cli.js)', function () {
  this.timeout(60000);
  const CLI = path.resolve(__dirname, '../../dist/cli.js');
  before(function () {
    if (!existsSync(CLI)) spawnSync('node', ['scripts/build.mjs'], { cwd: path.resolve(__dirname, '../..'), stdio: 'inherit' });
  });
  const run = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, DSH_HOME: tempDir('cli-home-') }, encoding: 'utf8' });

  it('reports them with the codes, files and ranges the editor shows, in JSON and for people', () => {
    const folder = workspace('{"servers": {"github": {"command": "node", "args": ["gh.js"]}}}');
    mkdirSync(path.join(folder, '.vscode'), { recursive: true });
    writeFileSync(path.join(folder, '.vscode/settings.json'), FOLDER_SETTINGS);
    const user = path.join(tempDir(), 'settings.json');
    writeFileSync(user, USER_SETTINGS);
    const json = run(['check', '--workspace', folder, '--user-settings', user, '--json']);
    assert.equal(json.status, 0, json.stderr); // the source is usable; the choice fails closed
    const layers = settingLayersFromFiles([
      { level: 'user', kind: 'settings', text: USER_SETTINGS, file: path.resolve(user) },
      { level: 'workspace', kind: 'settings', text: FOLDER_SETTINGS, file: '.vscode/settings.json' },
    ])(TOOLS_SETTING);
    const expected = checkToolChoice(layers).problems.map((p) => ({ code: p.code, severity: p.severity, message: p.message, file: p.file, range: p.range }));
    assert.equal(expected.length, 5);
    assert.deepEqual(JSON.parse(json.stdout).problems, expected);

    const human = run(['check', '--workspace', folder]);
    assert.equal(human.status, 0, human.stderr);
    const line = at(FOLDER_SETTINGS, ['github', 'exclude']).start;
    assert.ok(human.stdout.includes(`.vscode/settings.json:${line.line + 1}:${line.character + 1} error tools-invalid-list: "exclude" of server "github" must be a list of tool names`), human.stdout);
    assert.match(human.stdout, / warning tools-unknown-key: "bogus" is not a tool-choice option/);
  });
});
