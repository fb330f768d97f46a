// Session on test/fixtures/ws-multi, opened as a MULTI-ROOT workspace (the harness opens the
// copy of multi.code-workspace with ?workspace=): two folders, alpha and beta, each with its own
// .vscode/mcp.json. Diagnostics per folder; one export of both folders (the command's array-of-
// URIs argument, which skips the folder pick) writes a verified declaration into EACH folder,
// naming its own folder only. DSH_HOME is the run's own dsh-home folder (set by the harness).
'use strict';
const assert = require('assert');
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const vscode = require('vscode');
const { codeLink, extension, valueRange, waitFor, TEST_TIMEOUT_MS } = require('../../helpers');

const sha256 = (x) => crypto.createHash('sha256').update(x).digest('hex');

/** The workspace folder named `name` (alpha, beta). */
function folder(name) {
  const f = (vscode.workspace.workspaceFolders || []).find((x) => x.name === name);
  if (!f) throw new Error(`no workspace folder ${name}`);
  return f;
}
const mcpUri = (name) => vscode.Uri.joinPath(folder(name).uri, '.vscode', 'mcp.json');
const declPath = (name) => path.join(folder(name).uri.fsPath, '.dsh', 'declaration.json');
const ours = (uri) => vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'dsh-bridge');

describe('ws-multi: a multi-root workspace (two folders, each with its own mcp.json)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let envHome;

  before(async function () {
    envHome = process.env.DSH_HOME;
    assert.ok(envHome && fs.existsSync(envHome), 'the harness sets DSH_HOME to a folder of the run');
  });

  it('opens as a workspace file with the two folders alpha and beta; the extension activates', async function () {
    assert.ok(vscode.workspace.workspaceFile, 'no workspace file: the harness opened a folder, not multi.code-workspace');
    assert.strictEqual(path.basename(vscode.workspace.workspaceFile.fsPath), 'multi.code-workspace');
    // The folders of a workspace file arrive with the workbench's workspace: wait for them, not for a time.
    await waitFor(() => (vscode.workspace.workspaceFolders || []).length === 2, 60000, 'the two folders of multi.code-workspace');
    assert.deepStrictEqual(vscode.workspace.workspaceFolders.map((f) => f.name), ['alpha', 'beta']);
    const root = path.dirname(vscode.workspace.workspaceFile.fsPath);
    assert.strictEqual(folder('alpha').uri.fsPath, path.join(root, 'alpha'));
    assert.strictEqual(folder('beta').uri.fsPath, path.join(root, 'beta'));
    await waitFor(() => extension().isActive, 30000, 'activation (workspaceContains:.vscode/mcp.json)');
  });

  it('diagnostics for each folder\'s mcp.json: alpha\'s "sse" is unsupported-transport, beta\'s ${command:} unsupported-variable', async function () {
    const ext = extension();
    await waitFor(() => ours(mcpUri('alpha')).length && ours(mcpUri('beta')).length, 30000,
      'dsh-bridge diagnostics on both mcp.json files');
    const alpha = ours(mcpUri('alpha'));
    assert.deepStrictEqual(alpha.map((d) => codeLink(d).value), ['unsupported-transport'], JSON.stringify(alpha.map((d) => d.message)));
    const [sse] = alpha;
    assert.strictEqual(sse.severity, vscode.DiagnosticSeverity.Error);
    const alphaText = fs.readFileSync(mcpUri('alpha').fsPath, 'utf8');
    const expected = valueRange(ext, alphaText, ['servers', 'alpha-legacy', 'type']);
    assert.strictEqual(expected.text, '"sse"');
    assert.deepStrictEqual(
      { start: { line: sse.range.start.line, character: sse.range.start.character }, end: { line: sse.range.end.line, character: sse.range.end.character } },
      { start: expected.start, end: expected.end });

    const beta = ours(mcpUri('beta'));
    assert.deepStrictEqual(beta.map((d) => codeLink(d).value), ['unsupported-variable'], JSON.stringify(beta.map((d) => d.message)));
    const betaText = fs.readFileSync(mcpUri('beta').fsPath, 'utf8');
    const arg = valueRange(ext, betaText, ['servers', 'beta-picker', 'args', 0]);
    assert.ok(beta[0].range.start.line === arg.start.line, `beta diagnostic on line ${beta[0].range.start.line}, the \${command:} arg is on ${arg.start.line}`);
    // Each file carries only its own problems.
    assert.ok(!alpha.some((d) => /beta|command:/.test(d.message)));
    assert.ok(!beta.some((d) => /sse|alpha/.test(d.message)));
  });

  it('exporting both folders (array of folder URIs, no pick) writes a verified declaration into EACH folder, naming its own folder only', async function () {
    for (const name of ['alpha', 'beta']) assert.ok(!fs.existsSync(declPath(name)), `${name} already has a declaration`);
    const uris = vscode.workspace.workspaceFolders.map((f) => f.uri);
    const summary = await vscode.commands.executeCommand('dsh.exportMcpServers', uris);
    assert.ok(summary, 'the command returned nothing (did it fail? see the log)');
    assert.strictEqual(summary.outcome, 'exported', JSON.stringify(summary));
    assert.deepStrictEqual(summary.folders.map((f) => f.folder).sort(), [folder('alpha').uri.fsPath, folder('beta').uri.fsPath].sort());
    assert.strictEqual(summary.exported, 2);
    assert.strictEqual(summary.refused, 2);

    const expected = {
      alpha: { servers: [['alpha-files', 'alpha-server.js']], rejected: [{ name: 'alpha-legacy', codes: ['unsupported-transport'] }] },
      beta: { servers: [['beta-tool', 'beta-server.js']], rejected: [{ name: 'beta-picker', codes: ['unsupported-variable'] }] },
    };
    for (const [name, other] of [['alpha', 'beta'], ['beta', 'alpha']]) {
      const own = folder(name).uri.fsPath;
      const text = fs.readFileSync(declPath(name), 'utf8');
      const decl = JSON.parse(text);
      assert.strictEqual(decl.folder, own, `${name}'s declaration names ${decl.folder}`);
      assert.deepStrictEqual(decl.servers.map((s) => [s.name, s.transport, s.command, s.args]),
        expected[name].servers.map(([server, script]) => [server, 'stdio', 'node', [path.join(own, script)]]));
      assert.deepStrictEqual(decl.rejected, expected[name].rejected);
      assert.strictEqual(decl.source.sha256, sha256(fs.readFileSync(mcpUri(name).fsPath)));
      assert.match(decl.signature, /^hmac-sha256:[0-9a-f]{64}$/);
      // Nothing of the other folder: not its path, not its servers.
      const otherPath = folder(other).uri.fsPath;
      assert.ok(!text.includes(otherPath), `${name}'s declaration mentions ${otherPath}`);
      assert.ok(!text.includes(`${other}-`), `${name}'s declaration mentions a server of ${other}`);
      // The core's verify agrees, per folder.
      const { ok, reasons } = await vscode.commands.executeCommand('dsh.verifyDeclaration', folder(name).uri);
      assert.deepStrictEqual({ ok, reasons }, { ok: true, reasons: [] },
        `${name}'s declaration does not verify`);
    }
    // Signed with the key of the run's DSH home; nothing of the host store in the workspace.
    assert.match(fs.readFileSync(path.join(envHome, 'bridge', 'signing.key'), 'utf8').trim(), /^[0-9a-f]{64}$/);
    for (const name of ['alpha', 'beta']) assert.ok(!fs.existsSync(path.join(folder(name).uri.fsPath, 'bridge')));
  });

  it('a list of one folder URI exports that folder only', async function () {
    const before = fs.statSync(declPath('alpha')).mtimeMs;
    fs.rmSync(path.join(folder('beta').uri.fsPath, '.dsh'), { recursive: true, force: true });
    const summary = await vscode.commands.executeCommand('dsh.exportMcpServers', [folder('alpha').uri]);
    assert.strictEqual(summary.outcome, 'exported', JSON.stringify(summary));
    assert.deepStrictEqual(summary.folders.map((f) => f.folder), [folder('alpha').uri.fsPath]);
    assert.ok(!fs.existsSync(declPath('beta')), 'beta was exported although only alpha was asked for');
    assert.strictEqual(summary.folders[0].unchanged, true);
    assert.strictEqual(fs.statSync(declPath('alpha')).mtimeMs, before, 'an unchanged declaration was rewritten');
  });
});
