// Session on test/fixtures/ws-export: *DSH: Diagnose Setup (Doctor)* shows the core's doctor report
// for the folder (the same as `dsh-bridge doctor`) in a document, and its summary as a message.
'use strict';
const assert = require('assert');
const vscode = require('vscode');
const { extension, waitFor, workspaceFolder } = require('../../helpers');

describe('ws-export: the doctor command', function () {
  this.timeout(60000);

  it('reports what is missing on this machine, with the command that fixes each, and a would-mount summary', async function () {
    const ext = extension();
    await waitFor(() => ext.isActive, 30000, 'activation');
    const report = await vscode.commands.executeCommand('dsh.doctor', workspaceFolder().uri);
    assert.ok(report, 'the command returns its report');
    assert.strictEqual(report.folder, workspaceFolder().uri.fsPath);
    // The run's DSH home (set by the harness) has no DSH installed and no profile.
    const launcher = report.findings.find((f) => f.area === 'launcher');
    assert.strictEqual(launcher.message, 'launcherMissing');
    assert.strictEqual(launcher.fix, 'dsh-bridge dsh install');
    assert.ok(report.servers.length > 0, 'the folder\'s servers are named');
    assert.ok(report.servers.every((s) => !s.mount && s.fix), 'each server says why not and what fixes it');
    const editor = await waitFor(() => vscode.window.visibleTextEditors.find((e) => e.document.isUntitled && e.document.getText().startsWith('DSH Bridge doctor:')), 10000, 'the report document');
    const text = editor.document.getText();
    assert.match(text, /No DSH found: none installed by dsh-bridge, and no dsh on PATH\.\n {2}fix: dsh-bridge dsh install/);
    assert.match(text, /\nWould mount: none; would not: .+\(.+; fix: dsh-bridge .+\)/);
    // Leave nothing open for the next suites: the untitled report is reverted, not saved.
    await vscode.window.showTextDocument(editor.document);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    await waitFor(() => !vscode.workspace.textDocuments.some((d) => d === editor.document && !d.isClosed && d.isDirty), 10000, 'the report to close');
  });
});
