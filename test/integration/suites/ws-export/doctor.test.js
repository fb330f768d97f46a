// Session on test/fixtures/ws-export: *DSH: Diagnose Setup (Doctor)* shows the core's doctor report
// for the folder (the same as `dsh-bridge doctor`) in a read-only view, and its summary as a message.
'use strict';
const assert = require('assert');
const vscode = require('vscode');
const { extension, waitFor, workspaceFolder, TEST_TIMEOUT_MS } = require('../../helpers');

describe('ws-export: the doctor command', function () {
  this.timeout(TEST_TIMEOUT_MS);

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
    // The report is a read-only view (a webview: closing it asks nothing); its text and links are checked in the e2e doctor flow.
    const doctorTab = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs)
      .find((t) => t.input instanceof vscode.TabInputWebview && t.label.startsWith(`DSH Bridge doctor: ${workspaceFolder().name}`));
    const tab = await waitFor(doctorTab, 10000, 'the report view');
    assert.ok(!vscode.window.visibleTextEditors.some((e) => e.document.isUntitled), 'no untitled document to save');
    // Leave nothing open for the next suites.
    await vscode.window.tabGroups.close(tab);
    await waitFor(() => !doctorTab(), 10000, 'the report to close');
  });
});
