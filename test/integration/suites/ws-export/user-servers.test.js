// The user's own servers in the real editor (issue 34): "DSH: Export Your Own MCP Servers" reads
// the mcp.json of the editor's own profile (its folder from the extension's global storage, here
// code-server's user data folder of the run) and writes the user declaration into the host store
// (DSH_HOME = the run's dsh-home); verify --user's core check then passes.
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const vscode = require('vscode');
const { extension, waitFor, TEST_TIMEOUT_MS } = require('../../helpers');

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
});
