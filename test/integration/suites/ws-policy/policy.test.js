// Session on test/fixtures/ws-policy with the application-scoped MCP policy settings in the user
// settings (test/integration/suites/ws-policy/user-settings.json, merged by the harness before the
// editor starts): what they block is refused at export with its own code on its entry, the rule
// in the message and no quick fix; the folder's own settings cannot widen the allowlist; the
// declaration records the policy, and a change of it makes the declaration stale.
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const vscode = require('vscode');
const { spawnSync } = require('child_process');
const { extension, positionAt, waitFor, workspaceFolder, TEST_TIMEOUT_MS } = require('../../helpers');

/** The CLI bundle of this extension, run with the same DSH home, on the editor's user settings file. */
function cliCheck(folder) {
  const r = spawnSync(process.execPath, [path.join(extension().extensionPath, 'dist', 'cli.js'), 'check', '--workspace', folder, '--user-settings', process.env.DSH_BRIDGE_USER_SETTINGS, '--json'], { encoding: 'utf8', env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } });
  return JSON.parse(r.stdout);
}

const mcpUri = () => vscode.Uri.joinPath(workspaceFolder().uri, '.vscode', 'mcp.json');
const ours = (uri) => vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'dsh-bridge');
const codeOf = (d) => (d.code && typeof d.code === 'object' ? d.code.value : d.code);

describe('ws-policy: the organization\'s MCP policy decides what is exported', function () {
  this.timeout(TEST_TIMEOUT_MS);

  before(async function () {
    await waitFor(() => extension().isActive, 30000, 'activation');
  });

  it('VS Code applies the user\'s application-scoped values and ignores the folder\'s', function () {
    const config = vscode.workspace.getConfiguration(undefined, workspaceFolder().uri);
    assert.deepStrictEqual(config.get('chat.mcp.allowedServers'), [{ serverUrl: 'https://*.allowed.example/*' }, { serverName: 'blocked' }]);
    assert.deepStrictEqual(config.get('chat.mcp.deniedServers'), [{ serverName: 'blocked' }]);
  });

  it('a blocked server is a Problem on its name with the rule, and no quick fix is offered', async function () {
    const uri = mcpUri();
    await vscode.window.showTextDocument(uri);
    await waitFor(() => ours(uri).filter((d) => /^policy-/.test(codeOf(d))).length === 2, 30000, `policy diagnostics (now ${ours(uri).map(codeOf)})`);
    const text = fs.readFileSync(uri.fsPath, 'utf8');
    const at = (needle) => positionAt(text, text.indexOf(needle));
    const denied = ours(uri).find((d) => codeOf(d) === 'policy-denied');
    assert.deepStrictEqual([denied.range.start.line, denied.range.start.character], [at('"blocked": {').line, at('"blocked": {').character]);
    assert.match(denied.message, /chat\.mcp\.deniedServers: \{"serverName":"blocked"\}/);
    assert.strictEqual(denied.severity, vscode.DiagnosticSeverity.Error);
    const notAllowed = ours(uri).find((d) => codeOf(d) === 'policy-not-allowed');
    assert.strictEqual(notAllowed.range.start.line, at('"local": {').line, 'the folder\'s own allowlist does not admit "local"');
    for (const d of [denied, notAllowed]) {
      const actions = (await vscode.commands.executeCommand('vscode.executeCodeActionProvider', uri, d.range, vscode.CodeActionKind.QuickFix.value)) || [];
      assert.deepStrictEqual(actions.filter((a) => a.diagnostics && a.diagnostics.some((x) => codeOf(x) === codeOf(d))).map((a) => a.title), [], `no fix evades ${codeOf(d)}`);
    }
  });

  it('the export writes only what the policy allows and records the policy; the CLI refuses the same', async function () {
    const folder = workspaceFolder();
    const summary = await vscode.commands.executeCommand('dsh.exportMcpServers', [folder.uri]);
    assert.strictEqual(summary.outcome, 'exported', JSON.stringify(summary));
    const decl = JSON.parse(fs.readFileSync(path.join(folder.uri.fsPath, '.dsh', 'declaration.json'), 'utf8'));
    assert.deepStrictEqual(decl.servers.map((s) => s.name), ['allowed-http']);
    assert.deepStrictEqual(decl.rejected.map((r) => [r.name, r.codes]).sort(), [['blocked', ['policy-denied']], ['local', ['policy-not-allowed']]]);
    assert.match(decl.policy.digest, /^sha256:[0-9a-f]{64}$/);
    const fresh = await vscode.commands.executeCommand('dsh.verifyDeclaration', folder.uri);
    assert.deepStrictEqual({ ok: fresh.ok, reasons: fresh.reasons }, { ok: true, reasons: [] });
    // The CLI, given the same user settings file, refuses the same servers for the same rules.
    const cli = cliCheck(folder.uri.fsPath);
    assert.deepStrictEqual(cli.servers.map((x) => x.name), ['allowed-http']);
    assert.deepStrictEqual(cli.rejected.map((r) => [r.name, r.codes]).sort(), [['blocked', ['policy-denied']], ['local', ['policy-not-allowed']]]);
  });

  it('a change of the policy makes the declaration stale for the editor, and the Problems follow it', async function () {
    const folder = workspaceFolder();
    assert.strictEqual((await vscode.commands.executeCommand('dsh.verifyDeclaration', folder.uri)).ok, true, 'exported by the test before');
    // The policy settings are not writable through the API (VS Code registers them hidden, "not
    // configurable by end users"): the administrator's change is made in the user settings file,
    // written through VS Code's file service on the resource the workbench reads it from (in
    // code-server a vscode-remote URI without authority). VS Code reloads the user settings on its
    // own write of that resource; a write behind its back waits for its file watcher, which was seen
    // to miss one write in three here (and the test then skipped itself in every fresh run).
    const userSettings = process.env.DSH_BRIDGE_USER_SETTINGS;
    const settingsUri = vscode.env.remoteName ? vscode.Uri.from({ scheme: 'vscode-remote', path: userSettings }) : vscode.Uri.file(userSettings);
    const original = fs.readFileSync(userSettings, 'utf8');
    const changed = JSON.parse(original);
    changed['chat.mcp.deniedServers'] = [{ serverName: 'blocked' }, { serverUrl: 'https://mcp.allowed.example/*' }];
    const denied = () => (vscode.workspace.getConfiguration('chat.mcp').get('deniedServers') || []).length;
    /** Writes `text` until VS Code reads `count` denied rules from it (at most three writes, 10 s each): fails, never skips. */
    const write = async (text, count) => {
      for (let attempt = 1; ; attempt++) {
        await vscode.workspace.fs.writeFile(settingsUri, Buffer.from(text));
        const seen = await waitFor(() => denied() === count, 10000, 'VS Code to read the user settings').catch(() => false);
        if (seen) {
          if (attempt > 1) console.log(`[ws-policy] VS Code read the user settings at write ${attempt}`);
          return;
        }
        assert.ok(attempt < 3, `VS Code did not read the user settings written through its file service (${settingsUri}) in ${attempt} writes of 10 s each: ${count} denied rules written, ${denied()} read`);
      }
    };
    await write(JSON.stringify(changed, null, 2), 2);
    try {
      const stale = await waitFor(async () => {
        const v = await vscode.commands.executeCommand('dsh.verifyDeclaration', folder.uri, { dsh: true });
        return v.ok ? undefined : v;
      }, 15000, 'verify to see the policy change');
      assert.deepStrictEqual(stale.reasons.map((r) => [r.code, r.message]), [['stale', 'the editor\'s MCP server policy (chat.mcp.allowedServers, chat.mcp.deniedServers, chat.mcp.allowManagedServersOnly) changed since the export']]);
      // Stale for the editor; the DSH side, which cannot see the editor's settings, keeps what was signed (its own policy file is what it enforces).
      // (dsh.servers: those that start without asking; dsh.asks: those DSH asks about.)
      assert.ok([...stale.dsh.servers, ...stale.dsh.asks].includes('allowed-http'), JSON.stringify(stale.dsh));
      const status = () => extension().exports.status();
      await waitFor(() => status().detail && /MCP server policy/.test(status().detail), 15000, `the status to name the policy (now ${JSON.stringify(status())})`);
      await waitFor(() => ours(mcpUri()).some((d) => codeOf(d) === 'policy-denied' && /serverUrl/.test(d.message)), 15000, 'allowed-http denied by the new rule');
    } finally {
      await write(original, 1);
    }
  });
});
