import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { tempDir } from '../helpers';

const REPO = path.resolve(__dirname, '../../..');
const CLI = path.join(REPO, 'dist/cli.js');

/**
 * `dsh-bridge export --user` (and verify, approve) with a temporary HOME, XDG_CONFIG_HOME and
 * COPILOT_HOME: the built CLI reads the user's own files where VS Code keeps them on Linux.
 */
describe('CLI: the user declaration (export --user, verify --user, approve --user, doctor --user, policy --user)', function () {
  this.timeout(60000);
  before(function () {
    if (!existsSync(CLI)) spawnSync('node', ['scripts/build.mjs'], { cwd: REPO, stdio: 'inherit' });
  });

  function machine() {
    const home = tempDir('user-home-');
    const copilotHome = path.join(home, 'copilot-elsewhere');
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), COPILOT_HOME: copilotHome, DSH_HOME: path.join(home, '.dsh') };
    const run = (args: string[], cwd = home) => {
      const r = spawnSync(process.execPath, [CLI, ...args], { env, cwd, encoding: 'utf8' });
      return { code: r.status, stdout: r.stdout, stderr: r.stderr, json: () => JSON.parse(r.stdout) };
    };
    const write = (file: string, text: string) => {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, text);
    };
    return { home, copilotHome, run, write, declaration: path.join(home, '.dsh', 'bridge', 'user', '.dsh', 'declaration.json') };
  }

  it('exports the default profile\'s mcp.json and Copilot Global, names the declaration\'s path, and verify says stale after an edit', () => {
    const m = machine();
    const profileMcp = path.join(m.home, '.config', 'Code', 'User', 'mcp.json');
    m.write(profileMcp, '{ "servers": { "memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"] } } }');
    m.write(path.join(m.copilotHome, 'mcp-config.json'), '{ "mcpServers": { "fetch": { "command": "uvx", "args": ["mcp-server-fetch"] } } }');
    const r = m.run(['export', '--user', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = r.json();
    assert.equal(out.declaration, m.declaration);
    assert.deepEqual(out.servers.map((s: { name: string; source?: string }) => [s.name, s.source ?? null]), [['memory', null], ['fetch', path.join(m.copilotHome, 'mcp-config.json')]]);
    assert.deepEqual(out.files, { profileFolder: path.dirname(profileMcp), copilotGlobal: path.join(m.copilotHome, 'mcp-config.json') });
    const declaration = JSON.parse(readFileSync(m.declaration, 'utf8'));
    assert.equal(declaration.source.path, profileMcp);
    assert.equal(declaration.folder, path.join(m.home, '.dsh', 'bridge', 'user'));
    assert.ok(declaration.signature);

    assert.equal(m.run(['verify', '--user']).code, 0);
    m.write(path.join(m.copilotHome, 'mcp-config.json'), '{ "mcpServers": { "fetch": { "command": "uvx", "args": ["mcp-server-fetch", "--x"] } } }');
    const stale = m.run(['verify', '--user', '--json']);
    assert.equal(stale.code, 1);
    assert.deepEqual(stale.json().verify.reasons.map((x: { code: string; message: string }) => x.code), ['stale']);
    assert.match(stale.json().verify.reasons[0].message, /mcp-config\.json changed since the export/);
    // A profile file that appears after the export is a change too.
    assert.equal(m.run(['export', '--user']).code, 0);
    assert.equal(m.run(['verify', '--user']).code, 0);
  });

  it('reads a named profile (--editor-profile) and Insiders\' folder (--user-data-dir), and a file created since makes it stale', () => {
    const m = machine();
    const dataDir = path.join(m.home, '.config', 'Code - Insiders');
    m.write(path.join(dataDir, 'User', 'profiles', '-1a2b', 'mcp.json'), '{ "servers": { "work": { "command": "node", "args": ["w.js"] } } }');
    m.write(path.join(dataDir, 'User', 'mcp.json'), '{ "servers": { "default-only": { "command": "node" } } }');
    const r = m.run(['export', '--user', '--user-data-dir', dataDir, '--editor-profile=-1a2b', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.json().servers.map((s: { name: string }) => s.name), ['work']);
    m.write(path.join(m.copilotHome, 'mcp-config.json'), '{ "mcpServers": {} }');
    const stale = m.run(['verify', '--user', '--json']).json();
    assert.equal(stale.verify.ok, false);
    assert.match(stale.verify.reasons[0].message, /was created since the export/);
    assert.equal(m.run(['export', '--user', '--editor-profile', '../x']).code, 2);
  });

  it('approve --user records approvals under the user declaration\'s folder', () => {
    const m = machine();
    m.write(path.join(m.home, '.config', 'Code', 'User', 'mcp.json'), '{ "servers": { "memory": { "command": "npx" } } }');
    const pin = m.run(['export', '--user', '--json']).json().servers[0].pin;
    const approved = m.run(['approve', '--user', '--yes', pin, '--json']);
    assert.equal(approved.code, 0, approved.stderr);
    assert.equal(approved.json().folder, path.join(m.home, '.dsh', 'bridge', 'user'));
  });

  it('verify of a folder shows the user\'s servers beside the workspace\'s: a workspace server of the same name wins (shadowed-by-workspace)', () => {
    const m = machine();
    m.write(path.join(m.home, '.config', 'Code', 'User', 'mcp.json'), '{ "servers": { "Shared": { "command": "npx" }, "memory": { "command": "npx" } } }');
    assert.equal(m.run(['export', '--user']).code, 0);
    const folder = path.join(m.home, 'src', 'app');
    m.write(path.join(folder, '.vscode', 'mcp.json'), '{ "servers": { "shared": { "command": "node", "args": ["s.js"] } } }');
    assert.equal(m.run(['export', '--workspace', folder]).code, 0);
    const out = m.run(['verify', '--workspace', folder, '--json']).json();
    assert.equal(out.user.declaration, m.declaration);
    assert.equal(out.user.verify.ok, true);
    assert.deepEqual(out.user.servers.map((s: { name: string; outcome: string; reason: { code: string } }) => [s.name, s.outcome, s.reason.code]), [
      ['Shared', 'withheld', 'shadowed-by-workspace'], ['memory', 'asks', 'ask-mode'],
    ]);
    const human = m.run(['verify', '--workspace', folder]).stdout;
    assert.match(human, /The user's own servers/);
    assert.match(human, /withheld\s+Shared\s+A user server: the workspace defines a server of the same name \(shared\)/);
    // A folder with no declaration of its own: the user's servers still plan.
    const bare = path.join(m.home, 'src', 'bare');
    mkdirSync(bare, { recursive: true });
    const none = m.run(['verify', '--workspace', bare, '--json']).json();
    assert.deepEqual(none.user.servers.map((s: { name: string; outcome: string }) => [s.name, s.outcome]), [['Shared', 'asks'], ['memory', 'asks']]);
  });

  it('probe --user probes the user\'s servers and records them for the user declaration: export --user then pins their tools', () => {
    const m = machine();
    const fixture = path.join(REPO, 'test/fixtures/mcp-servers/tool-fixture.mjs');
    m.write(path.join(m.home, '.config', 'Code', 'User', 'mcp.json'), JSON.stringify({ servers: { fx: { command: process.execPath, args: [fixture] } } }));
    const probed = m.run(['probe', '--user', '--json']);
    assert.equal(probed.code, 0, probed.stderr);
    assert.equal(probed.json().folder, path.join(m.home, '.dsh', 'bridge', 'user'));
    assert.equal(m.run(['export', '--user']).code, 0);
    const declaration = JSON.parse(readFileSync(m.declaration, 'utf8'));
    assert.deepEqual(Object.keys(declaration.servers[0].tools.pins), ['echo', 'add', 'danger']);
    assert.equal(m.run(['verify', '--user']).code, 0);
  });

  it('doctor --user: not exported, then each server\'s verdict in the folder (a workspace server of the same name wins), stale after an edit, with fixes worded --user', () => {
    const m = machine();
    const profileMcp = path.join(m.home, '.config', 'Code', 'User', 'mcp.json');
    m.write(profileMcp, '{ "servers": { "memory": { "command": "npx" }, "Shared": { "command": "node", "args": ["u.js"] } } }');
    const folder = path.join(m.home, 'src', 'app');
    m.write(path.join(folder, '.vscode', 'mcp.json'), '{ "servers": { "shared": { "command": "node", "args": ["s.js"] } } }');
    assert.equal(m.run(['export', '--workspace', folder]).code, 0);

    const before = m.run(['doctor', '--user', '--workspace', folder, '--json']);
    assert.equal(before.code, 1);
    const missing = before.json().user;
    assert.deepEqual([missing.declaration, missing.state, missing.ok, missing.notExported], [null, 'missing', false, ['memory', 'Shared']]);
    const text = m.run(['doctor', '--user', '--workspace', folder]).stdout;
    assert.match(text, /No user declaration \(.*declaration\.json\): none of your own servers reaches DSH\./);
    assert.match(text, /In your MCP files but not in the user declaration as they are now: memory, Shared\.\n {2}fix: dsh-bridge export --user\n/);

    assert.equal(m.run(['export', '--user']).code, 0);
    const exported = m.run(['doctor', '--user', '--workspace', folder, '--json']).json();
    assert.deepEqual([exported.user.declaration, exported.user.state, exported.user.notExported], [m.declaration, 'verified', []]);
    // No DSH installed here: the install's facts fail, and the user's own server is withheld for it; the shadowed one for the workspace's.
    assert.equal(exported.findings.find((f: { code: string }) => f.code === 'launcherMissing').status, 'fail');
    assert.deepEqual(exported.user.wouldNot.map((s: { name: string; code: string }) => [s.name, s.code]), [['memory', 'whyNoBundle'], ['Shared', 'shadowed-by-workspace']]);

    m.write(profileMcp, '{ "servers": { "memory": { "command": "npx", "args": ["-y"] }, "Shared": { "command": "node", "args": ["u.js"] } } }');
    const stale = m.run(['doctor', '--user', '--workspace', folder, '--json']).json().user;
    assert.deepEqual(stale.blocked.map((b: { code: string; fix: string | null }) => [b.code, b.fix]), [['declaration-stale', 'dsh-bridge export --user']]);
    assert.deepEqual(stale.notExported, ['memory']);
    assert.match(m.run(['doctor', '--help']).stdout, /--user +the user's own servers/);
  });

  it('policy --user: what the editor\'s rules refuse of the user\'s files and what the DSH side withholds from the user declaration', () => {
    const m = machine();
    m.write(path.join(m.home, '.config', 'Code', 'User', 'mcp.json'), '{ "servers": { "memory": { "command": "npx" }, "other": { "command": "node", "args": ["o.js"] } } }');
    assert.equal(m.run(['export', '--user']).code, 0);
    const clean = m.run(['policy', '--user', '--json']);
    assert.equal(clean.code, 0, clean.stderr);
    assert.deepEqual([clean.json().user, clean.json().dsh.declaration, clean.json().dsh.withheld], [true, m.declaration, []]);
    // The user's DSH policy file (it only narrows) withholds at mount what was exported before it existed.
    m.write(path.join(m.home, '.dsh', 'bridge', 'policy.json'), JSON.stringify({ deniedServers: [{ serverName: 'memory' }] }));
    const denied = m.run(['policy', '--user', '--json']);
    assert.equal(denied.code, 1);
    assert.deepEqual(denied.json().dsh.withheld.map((w: { name: string; code: string }) => [w.name, w.code]), [['memory', 'policy-denied']]);
    // A managed deny is refused at export too: the editor's side names the user's server.
    const managed = path.join(m.home, 'managed-settings.json');
    m.write(managed, JSON.stringify({ deniedMcpServers: [{ serverName: 'other' }] }));
    const both = m.run(['policy', '--user', '--managed-settings', managed, '--json']).json();
    assert.deepEqual(both.editor.refused.map((r: { name: string; code: string }) => [r.name, r.code]), [['other', 'policy-denied']]);
    // The export obeys them as a folder's does: the denied server is refused, with the channel named.
    const exported = m.run(['export', '--user', '--managed-settings', managed, '--json']).json();
    assert.deepEqual(exported.rejected, [{ name: 'other', codes: ['policy-denied'] }]);
    const text = m.run(['policy', '--user', '--managed-settings', managed]).stdout;
    assert.match(text, /Refused of your own servers:\n {4}other: policy-denied/);
    assert.match(text, /Withheld from the user declaration:\n {4}memory: /);
  });

  it('without any user file exports nothing and says so', () => {
    const m = machine();
    const r = m.run(['export', '--user', '--json']);
    assert.equal(r.code, 1);
    assert.equal(r.json().declaration, null);
    assert.deepEqual(r.json().problems.map((p: { code: string }) => p.code), ['missing-source']);
  });
});
