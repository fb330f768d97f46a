import * as assert from 'node:assert/strict';
import { validateLspServers } from '../../../../src/core/lsp/lspValidation';
import { placeSettingProblems, settingRange } from '../../../../src/core/settings/settingsFile';

const ts = (extra: Record<string, unknown> = {}) => ({ command: 'tsserver', extensions: { '.ts': 'typescript' }, ...extra });

describe('lsp: settingRange and placeSettingProblems', () => {
  const settings = [
    '{',
    '  // DSH language servers',
    '  "editor.tabSize": 2,',
    '  "dsh.lsp.servers": {',
    '    "ts": {',
    '      "command": "tsserver",',
    '      "extensions": { ".ts": "typescript", ".d.ts": "typescript", },',
    '    },',
    '  },',
    '}',
  ].join('\r\n');

  it('finds the key of an extension in a settings.json with comments, trailing commas and CRLF', () => {
    const range = settingRange(settings, 'settings', ['dsh.lsp.servers', 'ts', 'extensions', '.d.ts'], 'key');
    const col = '      "extensions": { ".ts": "typescript", '.length;
    assert.deepEqual(range, { start: { line: 6, character: col }, end: { line: 6, character: col + '".d.ts"'.length } });
  });

  it('finds a value, and falls back to the nearest existing ancestor', () => {
    assert.deepEqual(settingRange(settings, 'settings', ['dsh.lsp.servers', 'ts', 'command'])?.start, { line: 5, character: 17 });
    assert.deepEqual(settingRange(settings, 'settings', ['dsh.lsp.servers', 'ts', 'killGraceMs'], 'value'), {
      start: { line: 4, character: 4 }, end: { line: 4, character: 8 },
    });
    assert.equal(settingRange('{}', 'settings', ['dsh.lsp.servers', 'ts']), undefined);
  });

  it('reads a .code-workspace under "settings", the last duplicate winning', () => {
    const text = JSON.stringify({ folders: [{ path: '.' }], settings: { 'dsh.lsp.servers': { ts: ts() } } }, null, 2)
      .replace('"settings": {', '"settings": {\n    "dsh.lsp.servers": {"old": {}},');
    const range = settingRange(text, 'code-workspace', ['dsh.lsp.servers', 'ts'], 'key');
    assert.ok(range);
    const line = text.split('\n')[range.start.line];
    assert.equal(line.slice(range.start.character, range.end.character), '"ts"');
    assert.equal(settingRange(text, 'settings', ['dsh.lsp.servers', 'ts'], 'key'), undefined);
  });

  it('places problems and their related information in the file that defines each server', async () => {
    const user = JSON.stringify({ 'dsh.lsp.servers': { a: ts() } }, null, 2);
    const workspace = JSON.stringify({ 'dsh.lsp.servers': { b: ts({ extensions: { TS: 'typescript' } }) } }, null, 2);
    const result = await validateLspServers({ a: ts(), b: ts({ extensions: { TS: 'typescript' } }) });
    const placed = placeSettingProblems(result.problems, (p) => (p.length === 1 || p[1] === 'b'
      ? { file: '.vscode/settings.json', text: workspace, kind: 'settings' }
      : { file: '/home/u/.config/Code/User/settings.json', text: user, kind: 'settings' }));
    const conflict = placed.find((p) => p.code === 'lsp-extension-conflict');
    assert.ok(conflict);
    assert.equal(conflict.file, '.vscode/settings.json');
    assert.equal(workspace.split('\n')[conflict.range.start.line].slice(conflict.range.start.character, conflict.range.end.character), '"TS"');
    assert.equal(conflict.related?.[0].file, '/home/u/.config/Code/User/settings.json');
    const r = conflict.related![0].range;
    assert.equal(user.split('\n')[r.start.line].slice(r.start.character, r.end.character), '".ts"');
    assert.equal(conflict.server, 'b');
  });
});
