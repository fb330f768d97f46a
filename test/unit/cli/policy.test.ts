import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { tempDir, workspace } from '../helpers';
import { userPolicyFile } from '../../../src/core/node/policyFiles';

const ROOT = path.resolve(__dirname, '../../..');
const CLI = path.join(ROOT, 'dist/cli.js');

function cli(args: string[], home: string, env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, DSH_HOME: home, DSH_BRIDGE_ADMIN_POLICY: '', DSH_BRIDGE_MANAGED_SETTINGS: '', ...env }, encoding: 'utf8', cwd: ROOT });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, json: () => JSON.parse(r.stdout) };
}

const MCP = JSON.stringify({
  servers: {
    github: { type: 'http', url: 'https://api.githubcopilot.com/mcp/' },
    everything: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything@2026.8.31'] },
    other: { command: 'node', args: ['other.js'] },
  },
}, null, 2);

describe('policy through the CLI: VS Code\'s policy file, --user-settings, and the DSH side\'s files', function () {
  this.timeout(60000);
  before(function () {
    if (!existsSync(CLI)) spawnSync('node', ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
  });

  it('export refuses what VS Code\'s policy file blocks (array policies as JSON strings), and verify sees a change of it', () => {
    const folder = workspace(MCP);
    const home = tempDir('dsh-home-');
    const policy = path.join(tempDir('vscode-policy-'), 'policy.json');
    writeFileSync(policy, JSON.stringify({
      ChatAllowedMcpServers: JSON.stringify([{ serverUrl: 'https://*.githubcopilot.com/*' }, { serverCommand: ['npx', '-y', '@modelcontextprotocol/server-everything@2026.8.31'] }, { serverName: 'other' }]),
      ChatDeniedMcpServers: JSON.stringify([{ serverName: 'other' }]),
      SomeOtherPolicy: true,
    }));
    const r = cli(['export', '--workspace', folder, '--vscode-policy', policy, '--json'], home);
    assert.equal(r.code, 0, r.stderr);
    const out = r.json();
    assert.deepEqual(out.servers.map((s: { name: string }) => s.name), ['github', 'everything']);
    assert.deepEqual(out.rejected, [{ name: 'other', codes: ['policy-denied'] }]);
    const problem = out.problems.find((p: { code: string }) => p.code === 'policy-denied');
    assert.match(problem.message, /chat\.mcp\.deniedServers: \{"serverName":"other"\}/);
    assert.match(problem.message, /your organization's policy .* Ask your administrator\.$/, 'a rule of the policy file is the organization\'s');
    assert.equal(problem.range.start.line, MCP.split('\n').findIndex((l) => l.includes('"other"')));
    const declaration = JSON.parse(readFileSync(path.join(folder, '.dsh/declaration.json'), 'utf8'));
    assert.equal(declaration.policy.file.path, policy);
    assert.match(declaration.policy.digest, /^sha256:/);
    assert.equal(cli(['verify', '--workspace', folder, '--vscode-policy', policy], home).code, 0);
    // The administrator widens nothing by accident: a changed file is a stale declaration.
    writeFileSync(policy, JSON.stringify({ ChatDeniedMcpServers: JSON.stringify([{ serverName: 'github' }]) }));
    const stale = cli(['verify', '--workspace', folder, '--vscode-policy', policy, '--json'], home).json();
    assert.deepEqual(stale.verify.reasons.map((x: { message: string }) => x.message).sort(), [
      `VS Code's policy file ${policy} changed since the export`,
      'the editor\'s MCP server policy (chat.mcp.allowedServers, chat.mcp.deniedServers, chat.mcp.allowManagedServersOnly) changed since the export',
    ]);
    assert.equal(stale.dsh.mounts, false, 'the policy file is seen by DSH too: nothing mounts from a declaration made under another policy');
    // The fix keeps the export's --vscode-policy (without it the machine's policy file would apply; issue 35).
    const fixes = [...new Set(stale.dsh.plan.blocked.map((b: { fix?: { command: string } }) => b.fix?.command).filter(Boolean))];
    assert.deepEqual(fixes, [`dsh-bridge export --workspace ${folder} --vscode-policy ${policy}`]);
  });

  it('a workspace cannot widen: chat.mcp.allowedServers in the folder\'s or the workspace file\'s settings is ignored; the user\'s settings count', () => {
    const folder = workspace(MCP, { '.vscode/settings.json': JSON.stringify({ 'chat.mcp.allowedServers': [{ serverName: 'other' }, { serverName: 'github' }, { serverName: 'everything' }], 'chat.mcp.allowManagedServersOnly': false }) });
    const home = tempDir('dsh-home-');
    const none = path.join(tempDir('no-policy-'), 'absent.json');
    const user = path.join(tempDir('user-'), 'settings.json');
    writeFileSync(user, JSON.stringify({ 'chat.mcp.allowedServers': [{ serverName: 'github' }] }));
    const r = cli(['check', '--workspace', folder, '--user-settings', user, '--vscode-policy', none, '--json'], home).json();
    assert.deepEqual(r.servers.map((s: { name: string }) => s.name), ['github']);
    assert.deepEqual(r.rejected.map((x: { name: string; codes: string[] }) => [x.name, x.codes[0]]), [['everything', 'policy-not-allowed'], ['other', 'policy-not-allowed']]);
    // The user's own list is worded as theirs: nobody to ask (issue 35).
    const own = r.problems.find((p: { code: string }) => p.code === 'policy-not-allowed');
    assert.equal(own.message, 'Server "everything" is not among the servers your own settings allow (chat.mcp.allowedServers (1)); it is not exported to DSH. Add it to chat.mcp.allowedServers in your settings if you want it.');
    writeFileSync(user, JSON.stringify({ 'chat.mcp.deniedServers': [{ serverName: 'other' }] }));
    const denied = cli(['check', '--workspace', folder, '--user-settings', user, '--vscode-policy', none, '--json'], home).json();
    assert.equal(denied.problems.find((p: { code: string }) => p.code === 'policy-denied').message, 'Server "other" is blocked by your own settings (chat.mcp.deniedServers: {"serverName":"other"}); it is not exported to DSH. Remove the rule from your settings if you want it.');
    writeFileSync(user, JSON.stringify({ 'chat.mcp.allowedServers': [{ serverName: 'github' }] }));
    const codeWorkspace = path.join(path.dirname(folder), 'w.code-workspace');
    writeFileSync(codeWorkspace, JSON.stringify({ folders: [{ path: path.basename(folder) }], settings: { 'chat.mcp.allowedServers': [{ serverName: 'other' }] } }));
    const multi = cli(['check', '--workspace', folder, '--code-workspace', codeWorkspace, '--user-settings', user, '--vscode-policy', none, '--json'], home).json();
    assert.deepEqual(multi.servers.map((s: { name: string }) => s.name), ['github']);
    // allowManagedServersOnly from the policy: the user's own allowlist no longer counts, and with no policy list nothing is allowed.
    const policy = path.join(tempDir('vscode-policy-'), 'policy.json');
    writeFileSync(policy, JSON.stringify({ ChatAllowManagedMcpServersOnly: true }));
    const managed = cli(['check', '--workspace', folder, '--user-settings', user, '--vscode-policy', policy, '--json'], home).json();
    assert.deepEqual(managed.servers, []);
  });

  it('the DSH side\'s policy: `policy` shows the rules and what they withhold, doctor names the rule; the user\'s file only narrows; a group-writable admin file withholds everything', function () {
    if (process.getuid?.() !== 0) this.skip(); // the admin file must be root's
    const folder = workspace(MCP);
    const home = tempDir('dsh-home-');
    assert.equal(cli(['trust', 'pinned'], home).code, 0);
    assert.equal(cli(['export', '--workspace', folder, '--vscode-policy', path.join(folder, 'none.json')], home).code, 0);
    const adminDir = tempDir('admin-');
    const admin = path.join(adminDir, 'policy.json');
    writeFileSync(admin, JSON.stringify({ deniedServers: [{ serverCommand: ['node', 'other.js'] }], allowedServers: [{ serverName: 'other' }, { serverName: 'everything' }] }));
    chmodSync(admin, 0o644);
    const env = { DSH_BRIDGE_ADMIN_POLICY: admin };
    const shown = cli(['policy', '--workspace', folder, '--vscode-policy', path.join(folder, 'none.json'), '--json'], home, env);
    assert.equal(shown.code, 1, shown.stderr);
    const out = shown.json();
    assert.deepEqual(out.dsh.layers.map((l: { file: string; origin: string }) => [l.file, l.origin]), [[admin, 'admin']]);
    assert.deepEqual(out.dsh.withheld.map((w: { name: string; code: string }) => [w.name, w.code]), [['github', 'policy-not-allowed'], ['other', 'policy-denied']]);
    assert.match(out.dsh.withheld[1].why, /\{"serverCommand":\["node","other\.js"\]\}/);
    const text = cli(['policy', '--workspace', folder, '--vscode-policy', path.join(folder, 'none.json')], home, env).stdout;
    assert.match(text, /other: denied by the administrator's DSH policy/);
    const doctor = cli(['doctor', '--workspace', folder, '--json'], home, env).json();
    const other = doctor.wouldNot.find((w: { name: string }) => w.name === 'other');
    assert.equal(other.code, 'dsh-policy-denied');
    assert.match(other.why, /Withheld by the DSH policy .*policy\.json: its rule \{"serverCommand":\["node","other\.js"\]\} denies it/);
    assert.equal(other.fix, `dsh-bridge policy --workspace ${folder}`);
    // verify says the same of what a DSH session there gets.
    const verify = cli(['verify', '--workspace', folder, '--vscode-policy', path.join(folder, 'none.json'), '--json'], home, env).json();
    assert.deepEqual(verify.dsh.asks, ['everything'], 'pinned, nothing approved: DSH asks (dsh.servers holds the servers that start without asking)');
    assert.deepEqual(verify.dsh.policyWithheld.map((w: { serverName: string }) => w.serverName), ['github', 'other']);
    // The user's own file narrows further; it cannot allow github back.
    mkdirSync(path.dirname(userPolicyFile(home)), { recursive: true });
    writeFileSync(userPolicyFile(home), JSON.stringify({ allowedServers: [{ serverName: 'github' }] }));
    const narrowed = cli(['policy', '--workspace', folder, '--json'], home, env).json();
    assert.deepEqual(narrowed.dsh.withheld.map((w: { name: string; origin: string }) => [w.name, w.origin]), [['github', 'admin'], ['everything', 'user'], ['other', 'admin']]);
    // A workspace file named like a policy is never read.
    mkdirSync(path.join(folder, '.dsh'), { recursive: true });
    writeFileSync(path.join(folder, '.dsh/policy.json'), JSON.stringify({ allowedServers: [{ serverName: 'github' }, { serverName: 'everything' }, { serverName: 'other' }] }));
    assert.deepEqual(cli(['policy', '--workspace', folder, '--json'], home, env).json().dsh.withheld.length, 3);
    chmodSync(admin, 0o664);
    const refused = cli(['policy', '--workspace', folder, '--json'], home, env).json();
    assert.match(refused.dsh.layers[0].refused, /mode 0664/);
    assert.equal(refused.dsh.withheld.length, 3);
  });

  describe('GitHub Copilot managed settings (--managed-settings FILE)', () => {
    it('export refuses what they block, naming the channel: deny, the forced sandbox for local servers, a managed-only allowlist; policy names each rule\'s channel', () => {
      const folder = workspace(MCP);
      const home = tempDir('dsh-home-');
      const managed = path.join(tempDir('managed-'), 'managed-settings.json');
      writeFileSync(managed, JSON.stringify({ deniedMcpServers: [{ serverName: 'other' }], sandbox: { enabled: true, allowBypass: false }, allowManagedMcpServersOnly: true, allowedMcpServers: [{ serverUrl: 'https://*.githubcopilot.com/*' }] }));
      const r = cli(['export', '--workspace', folder, '--managed-settings', managed, '--json'], home);
      assert.equal(r.code, 0, r.stderr);
      const out = r.json();
      assert.deepEqual(out.servers.map((s: { name: string }) => s.name), ['github']);
      assert.deepEqual(out.rejected, [{ name: 'everything', codes: ['policy-sandbox'] }, { name: 'other', codes: ['policy-denied'] }]);
      const denied = out.problems.find((p: { code: string }) => p.code === 'policy-denied');
      assert.ok(denied.message.includes(`managed settings (file ${managed}): deniedMcpServers: {"serverName":"other"}`), denied.message);
      assert.match(out.problems.find((p: { code: string }) => p.code === 'policy-sandbox').message, /sandbox\.enabled: true/);

      const policy = cli(['policy', '--workspace', folder, '--managed-settings', managed, '--json'], home);
      assert.equal(policy.code, 1, 'something is refused');
      const report = policy.json();
      const layer = report.dsh.layers.find((l: { origin: string }) => l.origin === 'managed');
      assert.deepEqual([layer.channel, layer.file, layer.sandboxForced, layer.deniedServers, layer.allowedServers], ['file', managed, true, [{ serverName: 'other' }], [{ serverUrl: 'https://*.githubcopilot.com/*' }]]);
      assert.deepEqual(report.editor.refused.map((x: { name: string; code: string }) => [x.name, x.code]), [['everything', 'policy-sandbox'], ['other', 'policy-denied']]);
      const text = cli(['policy', '--workspace', folder, '--managed-settings', managed], home).stdout;
      assert.ok(text.includes(`${managed} (GitHub Copilot managed settings, channel file; also refused at export)`), text);
    });

    it('a malformed file refuses every server with the place of the fault; a named file that does not exist is a usage error', () => {
      const folder = workspace(MCP);
      const home = tempDir('dsh-home-');
      const managed = path.join(tempDir('managed-'), 'managed-settings.json');
      writeFileSync(managed, '{\n  "deniedMcpServers": [],\n}\n');
      const out = cli(['export', '--workspace', folder, '--managed-settings', managed, '--json'], home).json();
      assert.deepEqual(out.servers, []);
      assert.ok(out.rejected.every((x: { codes: string[] }) => x.codes[0] === 'policy-managed-unreadable'));
      assert.match(out.problems.find((p: { code: string }) => p.code === 'policy-managed-unreadable').message, /line 3, column 1/);
      const missing = cli(['export', '--workspace', folder, '--managed-settings', path.join(tempDir('managed-'), 'none.json')], home);
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /--managed-settings .* cannot be read \(missing\)/);
    });
  });
});
