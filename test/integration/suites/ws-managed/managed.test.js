// Session on test/fixtures/ws-managed with the extension host's DSH_BRIDGE_MANAGED_SETTINGS naming
// the copy's managed-settings.json (host-env.json of this suite, set by the harness on the editor's
// own code-server): GitHub Copilot's managed settings deny "blocked". The editor shows the refusal
// in Problems with its code and the channel, the export leaves the server out and records the
// managed rules, and a change of them makes the declaration stale, while DSH keeps mounting it.
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const vscode = require('vscode');
const { extension, positionAt, waitFor, workspaceFolder, TEST_TIMEOUT_MS } = require('../../helpers');

const mcpUri = () => vscode.Uri.joinPath(workspaceFolder().uri, '.vscode', 'mcp.json');
const ours = (uri) => vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'dsh-bridge');
const codeOf = (d) => (d.code && typeof d.code === 'object' ? d.code.value : d.code);

describe('ws-managed: GitHub Copilot\'s managed settings decide what is exported', function () {
  this.timeout(TEST_TIMEOUT_MS);
  const managedFile = process.env.DSH_BRIDGE_MANAGED_SETTINGS;

  before(async function () {
    assert.strictEqual(managedFile, path.join(workspaceFolder().uri.fsPath, 'managed-settings.json'), 'the harness sets the suite\'s host-env.json');
    await waitFor(() => extension().isActive, 30000, 'activation');
  });

  it('the denied server is a Problem on its name with its code and the channel; the other one has none', async function () {
    const uri = mcpUri();
    await vscode.window.showTextDocument(uri);
    await waitFor(() => ours(uri).some((d) => codeOf(d) === 'policy-denied'), 30000, () => `the managed refusal in Problems (now ${ours(uri).map(codeOf)})`);
    const text = fs.readFileSync(uri.fsPath, 'utf8');
    const at = (needle) => positionAt(text, text.indexOf(needle));
    const denied = ours(uri).filter((d) => codeOf(d) === 'policy-denied');
    assert.strictEqual(denied.length, 1);
    assert.deepStrictEqual([denied[0].range.start.line, denied[0].range.start.character], [at('"blocked": {').line, at('"blocked": {').character]);
    assert.strictEqual(denied[0].severity, vscode.DiagnosticSeverity.Error);
    assert.ok(denied[0].message.includes(`managed settings (file ${managedFile}): deniedMcpServers: {"serverName":"blocked"}`), denied[0].message);
    assert.deepStrictEqual(ours(uri).filter((d) => d.range.start.line === at('"kept": {').line).map(codeOf), [], 'nothing on the allowed server');
  });

  it('the export leaves the denied server out and records the managed rules; a change of them is stale for the editor, and DSH still mounts', async function () {
    const folder = workspaceFolder();
    const summary = await vscode.commands.executeCommand('dsh.exportMcpServers', [folder.uri]);
    assert.strictEqual(summary.outcome, 'exported', JSON.stringify(summary));
    const decl = JSON.parse(fs.readFileSync(path.join(folder.uri.fsPath, '.dsh', 'declaration.json'), 'utf8'));
    assert.deepStrictEqual(decl.servers.map((s) => s.name), ['kept']);
    assert.deepStrictEqual(decl.rejected, [{ name: 'blocked', codes: ['policy-denied'] }]);
    assert.match(decl.policy.managed, /^sha256:[0-9a-f]{64}$/);
    const fresh = await vscode.commands.executeCommand('dsh.verifyDeclaration', folder.uri);
    assert.deepStrictEqual({ ok: fresh.ok, reasons: fresh.reasons }, { ok: true, reasons: [] });

    // The administrator denies "kept" too: stale, and DSH withholds it at mount without an export.
    const original = fs.readFileSync(managedFile, 'utf8');
    fs.writeFileSync(managedFile, JSON.stringify({ deniedMcpServers: [{ serverName: 'blocked' }, { serverName: 'kept' }] }));
    try {
      const stale = await vscode.commands.executeCommand('dsh.verifyDeclaration', folder.uri, { dsh: true });
      assert.strictEqual(stale.ok, false);
      assert.deepStrictEqual(stale.reasons.map((r) => r.code), ['stale']);
      assert.match(stale.reasons[0].message, /^the MCP rules of GitHub Copilot's managed settings changed since the export: export again; meanwhile DSH applies the managed settings in force at mount/);
      assert.deepStrictEqual(stale.dsh.plan.notes.map((n) => n.code), ['declaration-stale-managed']);
      assert.ok(!stale.dsh.plan.blocked.some((r) => r.code.startsWith('declaration-')), JSON.stringify(stale.dsh.plan.blocked));
      assert.deepStrictEqual(stale.dsh.withheld, [{ serverName: 'kept', code: 'dsh-managed-denied' }, { serverName: 'blocked', code: 'refused-at-export' }]);
      // Verify's result is what the status shows from then on.
      const status = () => extension().exports.status();
      await waitFor(() => status().detail && /managed settings changed since the export/.test(status().detail), 15000, () => `the status to say stale (now ${JSON.stringify(status())})`);
    } finally {
      fs.writeFileSync(managedFile, original);
    }
    const again = await vscode.commands.executeCommand('dsh.verifyDeclaration', folder.uri);
    assert.deepStrictEqual({ ok: again.ok, reasons: again.reasons }, { ok: true, reasons: [] }, 'the rules of the export again: fresh');
  });

  it('a change of the managed settings file reaches the status with no command run, and so does its undoing (the editor reads the policy files\' stamps)', async function () {
    const status = () => extension().exports.status();
    await waitFor(() => status().detail && !/stale/.test(status().detail), 20000, () => `the status fresh after the last test (now ${JSON.stringify(status())})`);
    // The store's own file events of the last test's export and verify come late on a busy machine
    // and would drop the plans too: let them pass, so that what follows is seen by the stamps alone.
    await new Promise((r) => setTimeout(r, 4000));
    const original = fs.readFileSync(managedFile, 'utf8');
    fs.writeFileSync(managedFile, JSON.stringify({ deniedMcpServers: [{ serverName: 'blocked' }, { serverName: 'kept' }] }));
    try {
      await waitFor(() => /managed settings changed since the export/.test(status().detail ?? ''), 20000, () => `the status to say stale by itself (now ${JSON.stringify(status())})`);
    } finally {
      fs.writeFileSync(managedFile, original);
    }
    await waitFor(() => status().detail && !/stale/.test(status().detail), 20000, () => `the status to be fresh again by itself (now ${JSON.stringify(status())})`);
  });
});
