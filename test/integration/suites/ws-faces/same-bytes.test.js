// Session on test/fixtures/ws-faces: one export use case for every face. The folder is exported by
// the editor's command and then by the CLI (dist/cli.js, run from this extension host with the same
// environment, DSH home and settings files); the CLI writes only when its declaration differs from
// the file by any byte (signature and export count included), so "not written" is the comparison.
'use strict';
const assert = require('assert');
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const vscode = require('vscode');
const { extension, waitFor, workspaceFolder, TEST_TIMEOUT_MS } = require('../../helpers');

const folderPath = () => workspaceFolder().uri.fsPath;
const declPath = () => path.join(folderPath(), '.dsh', 'declaration.json');

function cli(args) {
  const bundle = path.join(extension().extensionPath, 'dist', 'cli.js');
  const r = spawnSync(process.execPath, [bundle, ...args], { env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' }, encoding: 'utf8', timeout: 60000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('ws-faces: the editor and the CLI sign the same bytes', function () {
  this.timeout(TEST_TIMEOUT_MS);
  const user = vscode.ConfigurationTarget.Global;

  before(async function () {
    await waitFor(() => extension().isActive, 30000, 'activation');
    assert.ok(process.env.DSH_BRIDGE_USER_SETTINGS, 'the harness names the editor\'s user settings file');
    // The user layer, merged under the folder's .vscode/settings.json by the editor.
    await vscode.workspace.getConfiguration('dsh.export').update('reconnect', { maxAttempts: 6 }, user);
    await vscode.workspace.getConfiguration('dsh.lsp').update('servers', { css: { command: 'node', extensions: { '.css': 'css' } } }, user);
    await vscode.workspace.getConfiguration('dsh.export').update('toolCallTimeoutMs', 99, user);
  });

  after(async function () {
    await vscode.workspace.getConfiguration('dsh.export').update('reconnect', undefined, user);
    await vscode.workspace.getConfiguration('dsh.lsp').update('servers', undefined, user);
    await vscode.workspace.getConfiguration('dsh.export').update('toolCallTimeoutMs', undefined, user);
  });

  it('exports one folder through both faces: the declarations are identical', async function () {
    const summary = await vscode.commands.executeCommand('dsh.exportMcpServers', workspaceFolder().uri);
    assert.strictEqual(summary.outcome, 'exported', JSON.stringify(summary));
    const fromEditor = fs.readFileSync(declPath());
    const doc = JSON.parse(fromEditor.toString('utf8'));
    // The settings the editor saw really are in it (so the comparison compares something).
    const tool = doc.servers.find((s) => s.name === 'tool');
    assert.deepStrictEqual(tool.args, [path.join(folderPath(), 'tool.js'), '--from-folder']);
    assert.strictEqual(tool.toolCallTimeoutMs, 4321, 'the folder layer wins over the user layer');
    assert.strictEqual(tool.reconnect.maxAttempts, 6, 'the user layer');
    assert.deepStrictEqual(Object.keys(doc.lsp.servers).sort(), ['css', 'js'], 'dsh.lsp.servers merged from both layers');
    assert.deepStrictEqual(doc.lsp.servers.js.env, { API_TOKEN: [{ env: 'API_TOKEN' }] });
    assert.deepStrictEqual(doc.skills.roots.map((r) => [path.relative(folderPath(), r.path), r.skills]), [[path.join('.dsh', 'skills'), ['notes']]]);

    // The CLI computes its own declaration and compares it with the file: the same text means
    // "up to date" (nothing written, the export count unchanged); any other byte would be written.
    const r = cli(['export', '--workspace', folderPath(), '--user-settings', process.env.DSH_BRIDGE_USER_SETTINGS, '--json']);
    assert.strictEqual(r.code, 0, r.stderr);
    assert.strictEqual(JSON.parse(r.stdout).written, false, 'the CLI found the editor\'s declaration byte-identical to its own');
    const fromCli = fs.readFileSync(declPath());
    assert.ok(fromCli.equals(fromEditor), 'the declaration is the same, byte for byte');
    const verified = await vscode.commands.executeCommand('dsh.verifyDeclaration', workspaceFolder().uri);
    assert.deepStrictEqual([verified.ok, verified.reasons], [true, []]);
  });

  it('the export says so and writes nothing when the source changes while it asks', async function () {
    // A command input makes the export ask; the command changes the source before it answers.
    const mcp = path.join(folderPath(), '.vscode', 'mcp.json');
    const original = fs.readFileSync(mcp, 'utf8');
    const withInput = original.replace('"servers"', '"inputs": [{ "type": "command", "id": "tok", "command": "dshBridgeTest.editWhileAsking" }],\n  "servers"')
      .replace('"X-Flag": "${config:faces.flag}"', '"X-Flag": "${input:tok}"');
    let calls = 0;
    const reg = vscode.commands.registerCommand('dshBridgeTest.editWhileAsking', () => {
      calls++;
      fs.writeFileSync(mcp, withInput.replace('tool.js', 'changed-meanwhile.js'));
      return 'value-1';
    });
    fs.writeFileSync(mcp, withInput);
    const before = fs.readFileSync(declPath(), 'utf8');
    const record = path.join(process.env.DSH_HOME, 'bridge', 'folders');
    const records = () => (fs.existsSync(record) ? fs.readdirSync(record).map((f) => fs.readFileSync(path.join(record, f), 'utf8')).join() : '');
    try {
      const summary = await vscode.commands.executeCommand('dsh.exportMcpServers', workspaceFolder().uri);
      assert.strictEqual(calls, 1);
      assert.strictEqual(summary.outcome, 'source-changed', JSON.stringify(summary));
      assert.deepStrictEqual(summary.needed, [workspaceFolder().name]);
      assert.strictEqual(fs.readFileSync(declPath(), 'utf8'), before, 'the declaration is untouched');
      assert.ok(!records().includes('value-1'), 'the value gathered for the old content is not stored');
    } finally {
      reg.dispose();
      fs.writeFileSync(mcp, original);
    }
  });
});
