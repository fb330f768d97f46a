// The user's own servers in the real editor (issue 34): "DSH: Export Your Own MCP Servers" reads
// the mcp.json of the editor's own profile (its folder from the extension's global storage, here
// code-server's user data folder of the run) and writes the user declaration into the host store
// (DSH_HOME = the run's dsh-home); verify --user's core check then passes. The servers view shows
// the user's servers as a group of their own, each row in the state the user declaration's plan
// gives it beside the folder's (a workspace server of the same name wins).
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const vscode = require('vscode');
const { extension, waitFor, workspaceFolder, TEST_TIMEOUT_MS } = require('../../helpers');

const view = () => extension().exports.serversView();
const userGroup = async () => (await view()).items.find((i) => i.contextValue === 'dsh.userGroup');

describe('ws-export: the user\'s own servers (profile mcp.json) exported from the palette', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let profileMcp;
  let userDir;

  before(async function () {
    await waitFor(() => extension().isActive, 30000, 'activation');
    userDir = path.join(process.env.DSH_HOME, 'bridge', 'user');
  });

  after(function () {
    if (profileMcp) fs.rmSync(profileMcp, { force: true });
    fs.rmSync(userDir, { recursive: true, force: true });
  });

  it('exports a server of the profile\'s mcp.json into the user declaration, signed and pinned to that file', async function () {
    const first = await vscode.commands.executeCommand('dsh.exportUserServers');
    assert.ok(first.profileFolder, `the extension knows its profile folder: ${JSON.stringify(first)}`);
    // The profile folder is where the editor keeps its global storage (<profile>/globalStorage, its state.vscdb).
    assert.ok(fs.existsSync(path.join(first.profileFolder, 'globalStorage')), `${first.profileFolder} holds globalStorage`);
    profileMcp = path.join(first.profileFolder, 'mcp.json');
    assert.ok(!fs.existsSync(profileMcp), 'the run\'s profile has no mcp.json of its own');
    fs.mkdirSync(first.profileFolder, { recursive: true });
    fs.writeFileSync(profileMcp, JSON.stringify({ servers: { 'user-fx': { command: process.execPath, args: ['--version'] } } }));
    const summary = await vscode.commands.executeCommand('dsh.exportUserServers');
    assert.strictEqual(summary.outcome, 'exported', JSON.stringify(summary));
    assert.ok(summary.servers.includes('user-fx'), JSON.stringify(summary));
    assert.strictEqual(summary.declarationPath, path.join(userDir, '.dsh', 'declaration.json'));
    const declaration = JSON.parse(fs.readFileSync(summary.declarationPath, 'utf8'));
    assert.strictEqual(declaration.source.path, profileMcp);
    assert.strictEqual(declaration.folder, userDir);
    assert.ok(declaration.signature);
    assert.ok(declaration.servers.some((s) => s.name === 'user-fx' && s.transport === 'stdio'));
    // Unchanged files: the next export writes nothing.
    assert.strictEqual((await vscode.commands.executeCommand('dsh.exportUserServers')).outcome, 'unchanged');
  });

  it('the servers view shows them as a group: exported, stale after an edit, shadowed by the workspace\'s server of the same name', async function () {
    assert.ok(profileMcp, 'the export above found the profile');
    // The workspace's own declaration, so that its names are the workspace's (its "files" wins over the user's).
    const workspaceExport = await vscode.commands.executeCommand('dsh.exportMcpServers', workspaceFolder().uri);
    assert.strictEqual(workspaceExport.outcome, 'exported', JSON.stringify(workspaceExport));
    let shown;
    const rows = async () => (shown = (await userGroup())?.children.map((c) => `${c.label}=${c.state}`).join(' '));
    await waitFor(async () => (await rows()) === 'user-fx=exported', 20000, () => `the group with user-fx exported (now ${shown})`);
    const group = await userGroup();
    assert.strictEqual(group.label, 'Your Own Servers');
    assert.match(group.tooltip, /User declaration: .*declaration\.json/);
    assert.strictEqual(group.children[0].file, profileMcp);

    // A new entry (one the workspace defines too) shows at once, the user's files are watched; the
    // user declaration is stale as a whole then: DSH mounts none of it until the next export.
    fs.writeFileSync(profileMcp, JSON.stringify({ servers: { 'user-fx': { command: process.execPath, args: ['--version'] }, files: { command: process.execPath, args: ['u.js'] } } }));
    await waitFor(async () => (await rows()) === 'user-fx=stale files=stale', 20000, () => `the group stale after the edit (now ${shown})`);
    assert.match((await userGroup()).description, /stale/);
    // The group's action: export them; then the workspace's "files" wins the name.
    const exported = await vscode.commands.executeCommand('dsh.exportUserServers');
    assert.strictEqual(exported.outcome, 'exported', JSON.stringify(exported));
    await waitFor(async () => (await rows()) === 'user-fx=exported files=shadowed', 20000, () => `files shadowed by the workspace's (now ${shown})`);
    const files = (await userGroup()).children.find((c) => c.label === 'files');
    assert.match(files.description, /shadowed by the workspace's files/);
    assert.match(files.tooltip, /the workspace defines a server of the same name/);
  });

  it('Verify and the Doctor of the folder include them: the user declaration, each server\'s outcome there, its fixes', async function () {
    assert.ok(profileMcp, 'the export above found the profile');
    const verified = await vscode.commands.executeCommand('dsh.verifyDeclaration', workspaceFolder().uri);
    assert.strictEqual(verified.user.declaration, path.join(userDir, '.dsh', 'declaration.json'));
    assert.strictEqual(verified.user.ok, true);
    assert.deepStrictEqual(verified.user.servers.map((s) => [s.name, s.code]), [['user-fx', 'ask-mode'], ['files', 'shadowed-by-workspace']]);
    assert.deepStrictEqual(verified.user.notExported, []);

    const report = await vscode.commands.executeCommand('dsh.doctor', workspaceFolder().uri);
    assert.strictEqual(report.user.state, 'verified');
    // No DSH installed in the run's home: the user's server waits for the install; the shadowed one is the workspace's.
    assert.deepStrictEqual(report.user.servers.map((s) => [s.name, s.mount, s.why]), [['user-fx', false, 'whyNoBundle'], ['files', false, 'shadowed-by-workspace']]);
    const doctorTab = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs)
      .find((t) => t.input instanceof vscode.TabInputWebview && t.label.startsWith(`DSH Bridge doctor: ${workspaceFolder().name}`));
    await vscode.window.tabGroups.close(await waitFor(doctorTab, 10000, 'the report view'));
    await waitFor(() => !doctorTab(), 10000, 'the report to close');
  });
});
