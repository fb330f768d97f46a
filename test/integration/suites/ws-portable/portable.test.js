// Session on test/fixtures/ws-portable: a folder with only the portable .mcp.json (no
// .vscode/mcp.json). Its problems land in it, its quick fix works in its dialect, the export
// declares its servers from it and verify agrees; then DSH: Move Servers from .vscode/mcp.json to
// .mcp.json... moves a new .vscode/mcp.json's portable server into it (comments kept) and keeps
// the one that needs an input, with the reason.
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const vscode = require('vscode');
const { extension, waitFor, workspaceFolder } = require('../../helpers');

const uriOf = (rel) => vscode.Uri.joinPath(workspaceFolder().uri, ...rel.split('/'));
const ours = (uri) => vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'dsh-bridge');
const codeOf = (d) => (d.code && typeof d.code === 'object' ? d.code.value : d.code);
const codes = (uri) => ours(uri).map(codeOf).sort();

describe('ws-portable: a folder with only .mcp.json', function () {
  this.timeout(90000);

  before(async function () {
    await waitFor(() => extension().isActive, 30000, 'activation');
    assert.ok(!fs.existsSync(uriOf('.vscode/mcp.json').fsPath), 'the fixture has no .vscode/mcp.json');
  });

  it('reports the problem in .mcp.json and fixes it there, in its dialect', async function () {
    const uri = uriOf('.mcp.json');
    await waitFor(() => codes(uri).length === 1, 30000, `diagnostics in .mcp.json (now ${codes(uri)})`);
    assert.deepStrictEqual(codes(uri), ['unsupported-transport']);
    const doc = await vscode.workspace.openTextDocument(uri);
    const d = ours(uri)[0];
    const actions = await waitFor(async () => {
      const a = ((await vscode.commands.executeCommand('vscode.executeCodeActionProvider', uri, d.range, vscode.CodeActionKind.QuickFix.value)) || []).filter((x) => x.kind && x.kind.value === 'quickfix');
      return a.length ? a : undefined;
    }, 10000, 'a fix for unsupported-transport');
    assert.deepStrictEqual(actions.map((a) => a.title), ['Change "type" to "http" (Streamable HTTP)']);
    assert.ok(await vscode.workspace.applyEdit(actions[0].edit));
    assert.ok(await doc.save());
    assert.match(fs.readFileSync(uri.fsPath, 'utf8'), /"type": "http",\n {6}"url": "https:\/\/mcp\.example\.com\/sse"/);
    await waitFor(() => codes(uri).length === 0, 30000, `no diagnostic after the fix (now ${codes(uri)})`);
  });

  it('exports both servers from .mcp.json, and verify says the declaration is fresh', async function () {
    const folder = workspaceFolder();
    const summary = await vscode.commands.executeCommand('dsh.exportMcpServers', [folder.uri]);
    assert.strictEqual(summary.outcome, 'exported', JSON.stringify(summary));
    const decl = JSON.parse(fs.readFileSync(path.join(folder.uri.fsPath, '.dsh', 'declaration.json'), 'utf8'));
    assert.strictEqual(decl.source.path, '.mcp.json');
    assert.deepStrictEqual(decl.servers.map((s) => [s.name, s.transport, s.source || decl.source.path]), [['notes', 'stdio', '.mcp.json'], ['docs', 'streamable-http', '.mcp.json']]);
    const verify = await vscode.commands.executeCommand('dsh.verifyDeclaration', folder.uri);
    assert.strictEqual(verify.ok, true, JSON.stringify(verify));
  });

  it('moves a .vscode/mcp.json server into .mcp.json with its comment, and keeps the one with an input', async function () {
    const folder = workspaceFolder();
    fs.mkdirSync(path.join(folder.uri.fsPath, '.vscode'), { recursive: true });
    fs.writeFileSync(uriOf('.vscode/mcp.json').fsPath, [
      '{',
      '  "inputs": [{ "type": "promptString", "id": "key", "description": "API key", "password": true }],',
      '  "servers": {',
      '    // Reads the wiki',
      '    "wiki": { "command": "node", "args": ["wiki-server.js"] },',
      '    "search": { "command": "node", "args": ["search.js"], "env": { "KEY": "${input:key}" } }',
      '  }',
      '}',
      '',
    ].join('\n'));
    // In .vscode/mcp.json the move is offered as a code action that runs the command (which asks first).
    const doc = await vscode.workspace.openTextDocument(uriOf('.vscode/mcp.json'));
    const offered = await waitFor(async () => {
      const a = ((await vscode.commands.executeCommand('vscode.executeCodeActionProvider', doc.uri, new vscode.Range(4, 6, 4, 6), vscode.CodeActionKind.RefactorMove.value)) || [])
        .filter((x) => x.command && x.command.command === 'dsh.moveToPortableFile');
      return a.length ? a : undefined;
    }, 10000, 'the move code action');
    assert.deepStrictEqual(offered.map((a) => [a.title, a.command.arguments[0].toString()]), [['Move Servers to .mcp.json (the portable file)...', folder.uri.toString()]]);
    assert.deepStrictEqual(((await vscode.commands.executeCommand('vscode.executeCodeActionProvider', uriOf('.mcp.json'), new vscode.Range(3, 6, 3, 6), vscode.CodeActionKind.RefactorMove.value)) || [])
      .filter((x) => x.command && x.command.command === 'dsh.moveToPortableFile'), [], 'not offered in .mcp.json itself');
    const summary = await vscode.commands.executeCommand('dsh.moveToPortableFile', { folder: folder.uri, apply: true });
    assert.deepStrictEqual(summary, { outcome: 'moved', moved: ['wiki'], held: [{ name: 'search', code: 'variable-not-portable' }], removedVscodeFile: false });
    const portable = fs.readFileSync(uriOf('.mcp.json').fsPath, 'utf8');
    assert.match(portable, /"docs": \{[^}]*\},\n {4}\/\/ Reads the wiki\n {4}"wiki": \{ "command": "node", "args": \["wiki-server\.js"\] \}\n {2}\}\n\}\n$/);
    assert.doesNotMatch(fs.readFileSync(uriOf('.vscode/mcp.json').fsPath, 'utf8'), /wiki/);
    // The declaration pins .mcp.json: the move made it stale (an export would now ask for "key").
    const verify = await vscode.commands.executeCommand('dsh.verifyDeclaration', folder.uri);
    assert.strictEqual(verify.ok, false, JSON.stringify(verify));
  });
});
