// Session on test/fixtures/ws-devcontainer: servers only in `.devcontainer.json` and
// `.devcontainer/python/devcontainer.json`. The extension activates from them alone (no
// .vscode/mcp.json, no .mcp.json), reports Problems in each file, exports both, and its language
// status item covers these files.
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const vscode = require('vscode');
const { extension, waitFor, workspaceFolder, TEST_TIMEOUT_MS } = require('../../helpers');

const uriOf = (rel) => vscode.Uri.joinPath(workspaceFolder().uri, ...rel.split('/'));
const ours = (uri) => vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'dsh-bridge');
const codeOf = (d) => (d.code && typeof d.code === 'object' ? d.code.value : d.code);
const codes = (uri) => ours(uri).map(codeOf).sort();

describe('ws-devcontainer: servers only in dev container configurations', function () {
  this.timeout(TEST_TIMEOUT_MS);

  it('activates by itself (workspaceContains), with no .vscode/mcp.json or .mcp.json', async function () {
    assert.ok(!fs.existsSync(uriOf('.vscode/mcp.json').fsPath) && !fs.existsSync(uriOf('.mcp.json').fsPath));
    await waitFor(() => extension().isActive, 30000, 'the extension to activate from the dev container files');
  });

  it('each file gets its own Problems at exact ranges: sse refused in .devcontainer.json, the later "files" shadowed', async function () {
    const root = uriOf('.devcontainer.json');
    const python = uriOf('.devcontainer/python/devcontainer.json');
    await waitFor(() => codes(root).length && codes(python).length, 30000, `diagnostics in both files (now ${codes(root)} / ${codes(python)})`);
    assert.deepStrictEqual(codes(root), ['unsupported-transport']);
    assert.deepStrictEqual(codes(python), ['shadowed-server']);
    const [shadowed] = ours(python);
    const text = fs.readFileSync(python.fsPath, 'utf8');
    assert.strictEqual(text.split('\n')[shadowed.range.start.line].slice(shadowed.range.start.character, shadowed.range.end.character), '"files"');
    assert.strictEqual(shadowed.relatedInformation[0].location.uri.toString(), root.toString());
  });

  it('the export takes servers from both files and pins every place a configuration can be', async function () {
    const folder = workspaceFolder();
    const summary = await vscode.commands.executeCommand('dsh.exportMcpServers', [folder.uri]);
    assert.strictEqual(summary.outcome, 'exported', JSON.stringify(summary));
    const decl = JSON.parse(fs.readFileSync(path.join(folder.uri.fsPath, '.dsh', 'declaration.json'), 'utf8'));
    assert.strictEqual(decl.source.path, '.devcontainer.json');
    assert.deepStrictEqual(decl.servers.map((s) => [s.name, s.source || decl.source.path]), [['files', '.devcontainer.json'], ['notes', '.devcontainer/python/devcontainer.json']]);
    assert.deepStrictEqual(decl.sources.map((s) => [s.path, s.sha256 !== null]), [
      ['.vscode/mcp.json', false], ['.mcp.json', false], ['.devcontainer/devcontainer.json', false], ['.devcontainer/python/devcontainer.json', true],
    ]);
    assert.strictEqual((await vscode.commands.executeCommand('dsh.verifyDeclaration', folder.uri)).ok, true);
  });

  it('the language status item covers every source file kind, not only .vscode/mcp.json', async function () {
    const { selector } = extension().exports.status();
    for (const rel of ['.devcontainer.json', '.devcontainer/python/devcontainer.json']) {
      const doc = await vscode.workspace.openTextDocument(uriOf(rel));
      assert.ok(vscode.languages.match(selector, doc) > 0, `the language status item is shown on ${rel}`);
    }
    const other = await vscode.workspace.openTextDocument({ language: 'jsonc', content: '{}' });
    assert.strictEqual(vscode.languages.match(selector, other), 0, 'not on any other document');
    for (const name of ['.vscode/mcp.json', '.mcp.json', '.devcontainer/devcontainer.json', 'x.code-workspace']) {
      const file = path.join(workspaceFolder().uri.fsPath, 'probe', name);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, '{}\n');
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
      assert.ok(vscode.languages.match(selector, doc) > 0, `the language status item is shown on ${name}`);
    }
    fs.rmSync(path.join(workspaceFolder().uri.fsPath, 'probe'), { recursive: true, force: true });
  });
});
