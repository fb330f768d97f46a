// Restricted Mode suite. NOT under suites/: it must run in an UNTRUSTED workspace, which the
// standard runner (code-server with --disable-workspace-trust) cannot give. It is run by
// test/e2e/restricted-mode.e2e.mjs, which starts code-server with Workspace Trust enabled and
// opens a copy of test/fixtures/ws-problems without trusting it.
// Checks: diagnostics work; export, prompting and export on save are refused IN CODE (the
// commands are invoked programmatically, as another extension could); nothing is written.
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const vscode = require('vscode');
const { extension, saveDocument, waitFor, workspaceFolder, TEST_TIMEOUT_MS, WAIT_FLOOR_MS } = require('../helpers');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const codeOf = (d) => (d.code && typeof d.code === 'object' ? d.code.value : d.code);

/**
 * Resolves with the command's result, or rejects if it has not finished after `ms` (e.g. a prompt
 * is open): WAIT_FLOOR_MS, since a refusal takes a host round trip, which load stretches.
 */
function within(ms, promise, what) {
  let timer;
  return Promise.race([
    Promise.resolve(promise).finally(() => clearTimeout(timer)),
    new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${what} did not return within ${ms} ms (a prompt is open?)`)), ms); }),
  ]);
}

describe('Restricted Mode: diagnostics only, no export, no prompt', function () {
  this.timeout(TEST_TIMEOUT_MS);
  const dsh = () => path.join(workspaceFolder().uri.fsPath, '.dsh');
  const bridge = () => path.join(process.env.DSH_HOME, 'bridge');

  it('runs in an untrusted workspace (precondition)', function () {
    assert.strictEqual(vscode.workspace.isTrusted, false, 'the workspace is trusted: this suite must be run by test/e2e/restricted-mode.e2e.mjs');
  });

  it('activates and reports problems of .vscode/mcp.json', async function () {
    await waitFor(() => extension().isActive, 30000, 'activation in Restricted Mode');
    const uri = vscode.Uri.joinPath(workspaceFolder().uri, '.vscode', 'mcp.json');
    await waitFor(() => vscode.languages.getDiagnostics(uri).some((d) => d.source === 'dsh-bridge' && codeOf(d) === 'unsupported-transport'), 30000,
      'diagnostics in Restricted Mode');
  });

  it('refuses the export command invoked programmatically, writing nothing', async function () {
    const summary = await within(WAIT_FLOOR_MS, vscode.commands.executeCommand('dsh.exportMcpServers', workspaceFolder().uri), 'export');
    assert.deepStrictEqual(summary, { outcome: 'restricted', exported: 0, refused: 0, folders: [] });
    assert.ok(!fs.existsSync(dsh()), '.dsh was created');
    assert.ok(!fs.existsSync(bridge()), 'the host store was written');
  });

  it('refuses to prompt for input values', async function () {
    const result = await within(WAIT_FLOOR_MS, vscode.commands.executeCommand('dsh.enterInputValues', workspaceFolder().uri), 'enter input values');
    assert.strictEqual(result, undefined);
    assert.ok(!fs.existsSync(bridge()));
  });

  it('refuses to probe (start servers) when invoked programmatically; the view still lists the servers', async function () {
    const summary = await within(WAIT_FLOOR_MS, vscode.commands.executeCommand('dsh.probeMcpServers', workspaceFolder().uri), 'probe');
    assert.deepStrictEqual(summary, { outcome: 'restricted', folders: [] });
    assert.ok(!fs.existsSync(bridge()), 'the host store was written');
    const view = await extension().exports.serversView();
    assert.ok(view.items.length > 0 && view.items.every((i) => i.children.length === 0), `the view in Restricted Mode: ${JSON.stringify(view.items.map((i) => [i.label, i.description]))}`);
  });

  it('ignores a workspace\'s "dsh.export.auto": "onSave" (restricted configuration) and exports nothing on save', async function () {
    const folder = workspaceFolder().uri.fsPath;
    fs.writeFileSync(path.join(folder, '.vscode', 'settings.json'), JSON.stringify({ 'dsh.export.auto': 'onSave' }));
    await sleep(1500);
    const inspected = vscode.workspace.getConfiguration('dsh.export', workspaceFolder().uri).inspect('auto');
    console.log(`      dsh.export.auto in Restricted Mode: ${JSON.stringify(inspected)}`);
    assert.strictEqual(vscode.workspace.getConfiguration('dsh.export', workspaceFolder().uri).get('auto'), 'off', 'a restricted setting took effect in Restricted Mode');
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(folder, '.vscode', 'mcp.json')));
    const edit = new vscode.WorkspaceEdit();
    edit.insert(doc.uri, new vscode.Position(0, 0), '// edited in Restricted Mode\n');
    await vscode.workspace.applyEdit(edit);
    assert.ok(!(await saveDocument(doc)).isDirty);
    await sleep(2000);
    assert.ok(!fs.existsSync(dsh()), 'export on save ran in Restricted Mode');
    assert.ok(!fs.existsSync(bridge()));
  });

  it('still verifies (read-only) and says there is no declaration', async function () {
    const verify = await within(WAIT_FLOOR_MS, vscode.commands.executeCommand('dsh.verifyDeclaration', workspaceFolder().uri), 'verify');
    assert.deepStrictEqual(verify.reasons.map((r) => r.code), ['missing']);
  });

  it('does not discover skills (it would read workspace files): no roots, no skill diagnostics', async function () {
    // The e2e driver put .agents/skills/{good,bad}/SKILL.md into this copy before the editor opened it.
    const bad = vscode.Uri.joinPath(workspaceFolder().uri, '.agents', 'skills', 'bad', 'SKILL.md');
    assert.ok(fs.existsSync(bad.fsPath), 'precondition: the skill files are there');
    const api = extension().exports;
    // Discovery is scheduled at activation; trusted, it would have reported both files by now.
    for (let i = 0; i < 6; i++) {
      await sleep(500);
      const status = await api.skillsStatus();
      assert.deepStrictEqual(status.roots, [], `skill roots were discovered in Restricted Mode: ${JSON.stringify(status.roots.map((r) => r.path))}`);
      assert.deepStrictEqual(vscode.languages.getDiagnostics(bad), [], 'a skill file was read in Restricted Mode');
    }
  });
});
