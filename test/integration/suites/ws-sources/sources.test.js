// Session on test/fixtures/ws-sources, opened through sources.code-workspace: the folder's
// servers come from .vscode/mcp.json, .mcp.json, the dev container file and the workspace file
// (docs/sources.md). Diagnostics land in the file they are about, at exact ranges; quick fixes
// work there; the watcher follows a closed file; the export names each server's file and pins
// every file, so an edit of any of them makes verify stale. DSH_HOME is the run's own folder.
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const vscode = require('vscode');
const { extension, positionAt, replaceDocument, saveDocument, waitFor, workspaceFolder, TEST_TIMEOUT_MS } = require('../../helpers');

const uriOf = (rel) => vscode.Uri.joinPath(workspaceFolder().uri, ...rel.split('/'));
const ours = (uri) => vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'dsh-bridge');
const codeOf = (d) => (d.code && typeof d.code === 'object' ? d.code.value : d.code);
const codes = (uri) => ours(uri).map(codeOf).sort();
const plain = (r) => ({ start: { line: r.start.line, character: r.start.character }, end: { line: r.end.line, character: r.end.character } });

/** Range of the `nth` occurrence (0-based) of `needle` in `text`. */
function rangeOf(text, needle, nth = 0) {
  let offset = -1;
  for (let i = 0; i <= nth; i++) offset = text.indexOf(needle, offset + 1);
  assert.ok(offset >= 0, `fixture changed: ${needle} not found`);
  return { start: positionAt(text, offset), end: positionAt(text, offset + needle.length) };
}

async function applyOnly(doc, code) {
  const d = ours(doc.uri).find((x) => codeOf(x) === code);
  assert.ok(d, `no ${code} diagnostic in ${doc.uri.fsPath} (now: ${codes(doc.uri)})`);
  const ask = async () => (await vscode.commands.executeCommand('vscode.executeCodeActionProvider', doc.uri, d.range, vscode.CodeActionKind.QuickFix.value) || [])
    .filter((a) => a.kind && a.kind.value === 'quickfix');
  // A document just opened is offered fixes once the workbench has synced it to the extension host.
  const actions = await waitFor(async () => { const a = await ask(); return a.length ? a : undefined; }, 10000, `a fix for ${code}`).catch(() => []);
  assert.strictEqual(actions.length, 1, `one fix for ${code}: ${actions.map((a) => a.title)}`);
  assert.ok(await vscode.workspace.applyEdit(actions[0].edit));
  return actions[0];
}

describe('ws-sources: every file VS Code runs the folder\'s servers from', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let workspaceFile;

  before(async function () {
    await waitFor(() => extension().isActive, 30000, 'activation');
    workspaceFile = vscode.workspace.workspaceFile;
    assert.ok(workspaceFile && path.basename(workspaceFile.fsPath) === 'sources.code-workspace', 'opened through the workspace file');
  });

  it('.mcp.json: its problems at exact ranges in it, the shadowed github linked to the one in .vscode/mcp.json; mcp.json keeps only its own', async function () {
    const uri = uriOf('.mcp.json');
    await waitFor(() => codes(uri).length === 2, 30000, `diagnostics in .mcp.json (now ${codes(uri)})`);
    assert.deepStrictEqual(codes(uri), ['not-resolved-here', 'shadowed-server']);
    const text = fs.readFileSync(uri.fsPath, 'utf8');
    const shadowed = ours(uri).find((d) => codeOf(d) === 'shadowed-server');
    assert.deepStrictEqual(plain(shadowed.range), rangeOf(text, '"github"'));
    assert.strictEqual(shadowed.severity, vscode.DiagnosticSeverity.Warning);
    assert.match(shadowed.message, /"github" is also defined in \.vscode\/mcp\.json/);
    const [related] = shadowed.relatedInformation;
    assert.strictEqual(related.location.uri.toString(), uriOf('.vscode/mcp.json').toString());
    assert.deepStrictEqual(plain(related.location.range), rangeOf(fs.readFileSync(uriOf('.vscode/mcp.json').fsPath, 'utf8'), '"github"'));
    // VS Code starts .mcp.json servers without resolving variables: a warning, and the text is exported as written.
    const variable = ours(uri).find((d) => codeOf(d) === 'not-resolved-here');
    assert.deepStrictEqual(plain(variable.range), rangeOf(text, '${HOME}'));
    assert.strictEqual(variable.severity, vscode.DiagnosticSeverity.Warning);
    assert.strictEqual(variable.message, 'VS Code resolves no variable in .mcp.json: the server receives ${HOME} as written, and so does DSH. To use an input or a variable, define the server in .vscode/mcp.json.');
    assert.deepStrictEqual(codes(uriOf('.vscode/mcp.json')), [], 'nothing of the other files lands in .vscode/mcp.json');
  });

  it('the language status item is shown on .mcp.json, the workspace file and the dev container file too', async function () {
    const { selector } = extension().exports.status();
    for (const uri of [uriOf('.vscode/mcp.json'), uriOf('.mcp.json'), workspaceFile, uriOf('.devcontainer/devcontainer.json')]) {
      const doc = await vscode.workspace.openTextDocument(uri);
      assert.ok(vscode.languages.match(selector, doc) > 0, `the language status item is shown on ${uri.fsPath}`);
    }
  });

  it('the workspace file and the dev container file get their own diagnostics', async function () {
    await waitFor(() => codes(workspaceFile).length && codes(uriOf('.devcontainer/devcontainer.json')).length, 30000, 'diagnostics in both files');
    assert.deepStrictEqual(codes(workspaceFile), ['shadowed-server']);
    const [docs] = ours(workspaceFile);
    assert.deepStrictEqual(plain(docs.range), rangeOf(fs.readFileSync(workspaceFile.fsPath, 'utf8'), '"docs"'));
    assert.strictEqual(docs.relatedInformation[0].location.uri.toString(), uriOf('.mcp.json').toString());
    assert.deepStrictEqual(codes(uriOf('.devcontainer/devcontainer.json')), ['unsupported-transport']);
  });

  it('a quick fix applies inside the dev container file (sse -> http), and its diagnostic goes', async function () {
    const doc = await vscode.workspace.openTextDocument(uriOf('.devcontainer/devcontainer.json'));
    const before = doc.getText();
    await applyOnly(doc, 'unsupported-transport');
    assert.strictEqual(doc.getText(), before.replace('"type": "sse"', '"type": "http"'));
    await waitFor(() => codes(doc.uri).length === 0, 15000, `no diagnostic left (now ${codes(doc.uri)})`);
    await saveDocument(doc);
  });

  it('follows a closed .mcp.json on disk: VS Code\'s format there is wrong-dialect, fixed by renaming to mcpServers', async function () {
    const uri = uriOf('.mcp.json');
    const original = fs.readFileSync(uri.fsPath, 'utf8');
    const pasted = '{\n  // VS Code\'s format pasted here\n  "servers": { "a": { "command": "node", "args": ["a.js"] } }\n}\n';
    fs.writeFileSync(uri.fsPath, pasted);
    await waitFor(() => codes(uri).join() === 'wrong-dialect', 15000, `wrong-dialect (now ${codes(uri)})`);
    assert.deepStrictEqual(plain(ours(uri)[0].range), rangeOf(pasted, '"servers"'));
    const doc = await vscode.workspace.openTextDocument(uri);
    // The editor may still hold the file's earlier text for a moment after the write on disk.
    await waitFor(() => doc.getText() === pasted, 15000, 'the document to hold the text written on disk');
    await applyOnly(doc, 'wrong-dialect');
    assert.strictEqual(doc.getText(), pasted.replace('"servers"', '"mcpServers"'));
    await waitFor(() => !codes(uri).includes('wrong-dialect'), 15000, 'the fix to be picked up as typed');
    assert.ok(await replaceDocument(doc, original));
    await saveDocument(doc);
    await waitFor(() => codes(uri).length === 2, 15000, `the original diagnostics back (now ${codes(uri)})`);
  });

  it('the export names each server\'s file and pins every file; an edit of the dev container file makes verify stale', async function () {
    const folder = workspaceFolder();
    const summary = await vscode.commands.executeCommand('dsh.exportMcpServers', [folder.uri]);
    assert.strictEqual(summary.outcome, 'exported', JSON.stringify(summary));
    const decl = JSON.parse(fs.readFileSync(path.join(folder.uri.fsPath, '.dsh', 'declaration.json'), 'utf8'));
    assert.deepStrictEqual(decl.servers.map((s) => [s.name, s.source || decl.source.path]), [
      ['github', '.vscode/mcp.json'], ['files', '.mcp.json'], ['docs', '.mcp.json'], ['bad-var', '.mcp.json'], ['time', workspaceFile.fsPath], ['postgres', '.devcontainer/devcontainer.json'], ['events', '.devcontainer/devcontainer.json'],
    ]);
    assert.deepStrictEqual(decl.sources.map((s) => s.path), ['.mcp.json', workspaceFile.fsPath, '.devcontainer/devcontainer.json', '.devcontainer.json']);
    assert.ok(decl.rejected.some((r) => r.name === 'github' && r.codes.includes('shadowed-server')));
    const fresh = await vscode.commands.executeCommand('dsh.verifyDeclaration', folder.uri);
    assert.deepStrictEqual({ ok: fresh.ok, reasons: fresh.reasons }, { ok: true, reasons: [] });

    const devcontainer = uriOf('.devcontainer/devcontainer.json').fsPath;
    fs.writeFileSync(devcontainer, fs.readFileSync(devcontainer, 'utf8').replace('pg-server.js', 'pg-server2.js'));
    const stale = await vscode.commands.executeCommand('dsh.verifyDeclaration', folder.uri);
    assert.strictEqual(stale.ok, false);
    assert.ok(stale.reasons.some((r) => r.code === 'stale' && /devcontainer\.json changed since the export/.test(r.message)), JSON.stringify(stale.reasons));
  });

  it('export on save: saving .mcp.json re-exports the folder, and the declaration verifies again', async function () {
    const folder = workspaceFolder();
    await vscode.workspace.getConfiguration('dsh.export', folder.uri).update('auto', 'onSave', vscode.ConfigurationTarget.WorkspaceFolder);
    const declFile = path.join(folder.uri.fsPath, '.dsh', 'declaration.json');
    const before = fs.readFileSync(declFile, 'utf8');
    const doc = await vscode.workspace.openTextDocument(uriOf('.mcp.json'));
    assert.ok(await replaceDocument(doc, doc.getText().replace('"--root"', '"--read-only", "--root"')));
    await saveDocument(doc);
    await waitFor(() => fs.readFileSync(declFile, 'utf8') !== before, 20000, 'the declaration to be written again on save');
    const decl = JSON.parse(fs.readFileSync(declFile, 'utf8'));
    assert.ok(decl.servers.find((s) => s.name === 'files').args.includes('--read-only'));
    const verified = await vscode.commands.executeCommand('dsh.verifyDeclaration', folder.uri);
    assert.deepStrictEqual({ ok: verified.ok, reasons: verified.reasons }, { ok: true, reasons: [] });
    await vscode.workspace.getConfiguration('dsh.export', folder.uri).update('auto', undefined, vscode.ConfigurationTarget.WorkspaceFolder);
  });

  it('a source with a syntax error stops the export, and the summary names that file', async function () {
    const folder = workspaceFolder();
    const devcontainer = uriOf('.devcontainer/devcontainer.json').fsPath;
    const original = fs.readFileSync(devcontainer, 'utf8');
    const declFile = path.join(folder.uri.fsPath, '.dsh', 'declaration.json');
    const before = fs.readFileSync(declFile, 'utf8');
    fs.writeFileSync(devcontainer, original.replace('"customizations": {', '"customizations": {{'));
    try {
      const summary = await vscode.commands.executeCommand('dsh.exportMcpServers', [folder.uri]);
      assert.strictEqual(summary.outcome, 'exported', JSON.stringify(summary));
      assert.deepStrictEqual(summary.folders.map((f) => [f.usable, f.errorFile]), [[false, '.devcontainer/devcontainer.json']]);
      assert.strictEqual(fs.readFileSync(declFile, 'utf8'), before, 'nothing is written while a source is unusable');
    } finally {
      fs.writeFileSync(devcontainer, original);
    }
  });

  it('a name belongs to the file VS Code takes it from, refused or not: github as sse in .vscode/mcp.json still shadows the one in .mcp.json; "suffix" says duplicate-server', async function () {
    const folder = workspaceFolder();
    const mcpJson = uriOf('.vscode/mcp.json').fsPath;
    const original = fs.readFileSync(mcpJson, 'utf8');
    const dotMcp = uriOf('.mcp.json');
    const dotMcpText = fs.readFileSync(dotMcp.fsPath, 'utf8');
    const config = vscode.workspace.getConfiguration('chat.mcp', folder.uri);
    fs.writeFileSync(mcpJson, original.replace('"github": { "command": "node", "args": ["tools/github.js"] }', '"github": { "type": "sse", "url": "https://mcp.example.com/sse" }'));
    try {
      await waitFor(() => codes(uriOf('.vscode/mcp.json')).includes('unsupported-transport'), 15000, `the sse github refused (now ${codes(uriOf('.vscode/mcp.json'))})`);
      assert.deepStrictEqual(codes(dotMcp), ['not-resolved-here', 'shadowed-server'], 'the .mcp.json github stays shadowed');
      const shadowed = ours(dotMcp).find((d) => codeOf(d) === 'shadowed-server');
      assert.deepStrictEqual(plain(shadowed.range), rangeOf(dotMcpText, '"github"'));
      assert.strictEqual(shadowed.relatedInformation[0].location.uri.toString(), uriOf('.vscode/mcp.json').toString());
      const summary = await vscode.commands.executeCommand('dsh.exportMcpServers', [folder.uri]);
      assert.strictEqual(summary.outcome, 'exported', JSON.stringify(summary));
      const decl = JSON.parse(fs.readFileSync(path.join(folder.uri.fsPath, '.dsh', 'declaration.json'), 'utf8'));
      assert.ok(!decl.servers.some((s) => s.name === 'github'), `github is exported: ${JSON.stringify(decl.servers.map((s) => [s.name, s.source]))}`);
      assert.deepStrictEqual(decl.rejected.filter((r) => r.name === 'github'), [{ name: 'github', codes: ['unsupported-transport'] }, { name: 'github', codes: ['shadowed-server'] }]);

      // A window-scoped setting: in a multi-root workspace it is set in the workspace file.
      await config.update('collisionBehavior', 'suffix', vscode.ConfigurationTarget.Workspace);
      await waitFor(() => codes(dotMcp).includes('duplicate-server'), 15000, `duplicate-server in .mcp.json (now ${codes(dotMcp)})`);
      assert.match(ours(dotMcp).find((d) => codeOf(d) === 'duplicate-server').message, /VS Code runs both \(chat\.mcp\.collisionBehavior is "suffix"\)/);
    } finally {
      await config.update('collisionBehavior', undefined, vscode.ConfigurationTarget.Workspace);
      fs.writeFileSync(mcpJson, original);
      await waitFor(() => codes(uriOf('.vscode/mcp.json')).length === 0 && codes(dotMcp).includes('shadowed-server'), 15000, 'the fixture as it was');
      // The next test starts from a declaration of the files as they are, and a status that says so.
      await vscode.commands.executeCommand('dsh.exportMcpServers', [folder.uri]);
      await waitFor(async () => (await vscode.commands.executeCommand('dsh.verifyDeclaration', folder.uri)).ok, 15000, 'a fresh declaration of the fixture');
      await waitFor(() => { const s = extension().exports.status(); return s.state && s.state.state === 'up-to-date'; }, 15000, 'the status of the fresh declaration');
    }
  });

  it('a change of chat.mcp.access (which decides whether .mcp.json is read) makes verify and the status say stale', async function () {
    const folder = workspaceFolder();
    const summary = await vscode.commands.executeCommand('dsh.exportMcpServers', [folder.uri]);
    assert.strictEqual(summary.outcome, 'exported', JSON.stringify(summary));
    const fresh = await vscode.commands.executeCommand('dsh.verifyDeclaration', folder.uri);
    assert.deepStrictEqual({ ok: fresh.ok, reasons: fresh.reasons }, { ok: true, reasons: [] });
    const status = () => extension().exports.status();
    await waitFor(() => status().state && status().state.state === 'up-to-date', 10000, `the status before (now ${JSON.stringify(status())})`);

    // A window-scoped setting: a multi-root workspace sets it in its .code-workspace file, not per folder.
    const config = vscode.workspace.getConfiguration('chat.mcp', folder.uri);
    await config.update('access', 'registry', vscode.ConfigurationTarget.Workspace);
    try {
      const stale = await vscode.commands.executeCommand('dsh.verifyDeclaration', folder.uri, { dsh: true });
      assert.strictEqual(stale.ok, false);
      assert.deepStrictEqual(stale.reasons.map((r) => [r.code, r.message]), [['stale', 'chat.mcp.access is "registry" now ("all" at the export): VS Code no longer reads .mcp.json']]);
      assert.ok(stale.dsh.mounts && [...stale.dsh.servers, ...stale.dsh.asks].includes('files'), 'DSH, which cannot see the setting, still mounts the declaration');
      assert.deepStrictEqual(stale.dsh.plan.notes.map((n) => n.code), ['declaration-stale-in-editor']);
      await waitFor(() => status().bar === '$(warning) DSH: stale', 10000, `the status bar to say stale (now ${JSON.stringify(status())})`);
      assert.match(status().detail, /(^| \u2014 )stale: chat\.mcp\.access changed which files VS Code runs servers from since the export/);
      // .mcp.json is no longer read: its Problems go.
      await waitFor(() => codes(uriOf('.mcp.json')).length === 0, 15000, `no diagnostics in .mcp.json (now ${codes(uriOf('.mcp.json'))})`);
      // Exported again under the new value: pinned, and fresh.
      await vscode.commands.executeCommand('dsh.exportMcpServers', [folder.uri]);
      const decl = JSON.parse(fs.readFileSync(path.join(folder.uri.fsPath, '.dsh', 'declaration.json'), 'utf8'));
      assert.strictEqual(decl.mcpAccess, 'registry');
      assert.ok(!decl.servers.some((s) => s.source === '.mcp.json'));
      assert.strictEqual((await vscode.commands.executeCommand('dsh.verifyDeclaration', folder.uri)).ok, true);
    } finally {
      await config.update('access', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });
});
