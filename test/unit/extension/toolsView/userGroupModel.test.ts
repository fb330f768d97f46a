import { strict as assert } from 'node:assert';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { commitExport } from '../../../../src/core/app/export';
import { planSession } from '../../../../src/core/app/plan';
import { reviewUserExport } from '../../../../src/core/app/userExport';
import { userServersReport } from '../../../../src/core/app/userReport';
import { userDoctorSection } from '../../../../src/core/app/doctorUser';
import { mountableUserPlan } from '../../../../src/core/app/userPlan';
import { main } from '../../../../src/cli/main';
import { userGroupModel } from '../../../../src/extension/toolsView/userGroupModel';
import { exportFolder, folderIdentityOf, tempDir, testPorts, workspace } from '../../helpers';

const NODE = process.execPath;

/**
 * The servers view's group of the user's own servers, from real files: the user's profile
 * mcp.json and Copilot Global, the user declaration exported into a temporary DSH home, a
 * workspace with a server of the same name; the group and the doctor agree on every row.
 */
describe('servers view: the group of the user\'s own servers (userGroupModel)', () => {
  async function machine() {
    const home = tempDir('user-group-home-');
    const ports = testPorts(home, { resolveCommand: (command) => command });
    const profileFolder = path.join(home, 'editor', 'User');
    mkdirSync(profileFolder, { recursive: true });
    const copilotGlobal = path.join(home, 'copilot', 'mcp-config.json');
    mkdirSync(path.dirname(copilotGlobal), { recursive: true });
    const files = { profileFolder, copilotGlobal };
    const folder = workspace(JSON.stringify({ servers: { shared: { command: NODE, args: ['s.js'] } } }), { '.git/HEAD': 'ref: refs/heads/main\n' });
    const identity = folderIdentityOf(folder);
    await exportFolder(ports, identity);
    const report = async () => userServersReport(ports, { identity, files, tools: false }, await planSession(ports, { cwd: folder, skills: false }));
    return { home, folder, ports, files, identity, report };
  }

  it('rows of both files: not exported before the export, then exported, the workspace\'s name shadowed, an edit stale (the changed entry named by the doctor)', async () => {
    const m = await machine();
    writeFileSync(path.join(m.files.profileFolder, 'mcp.json'), JSON.stringify({ servers: { Shared: { command: NODE, args: ['u.js'] }, mine: { command: NODE, args: ['m.js'] } } }));
    writeFileSync(m.files.copilotGlobal, JSON.stringify({ mcpServers: { fetch: { command: NODE, args: ['f.js'] } } }));

    const before = userGroupModel(await m.report());
    assert.equal(before.exported, false);
    assert.deepEqual(before.view.rows.map((r) => [r.name, r.state]), [['Shared', 'not-exported'], ['mine', 'not-exported'], ['fetch', 'not-exported']]);
    assert.equal(before.view.rows[2].file, m.files.copilotGlobal);

    await commitExport(m.ports, await reviewUserExport(m.ports, m.identity, m.files));
    const report = await m.report();
    const after = userGroupModel(report);
    assert.equal(after.exported, true);
    assert.deepEqual(after.view.rows.map((r) => [r.name, r.state, r.shadowedBy ?? null]), [['Shared', 'shadowed', 'shared'], ['mine', 'exported', null], ['fetch', 'exported', null]]);
    assert.deepEqual(after.view.counts, { servers: 2, refused: 0, shadowed: 1 });
    // The doctor says the same of each server: the shadowed one is the workspace's, the others start after DSH asks (trust mode ask).
    const doctor = userDoctorSection({ headless: false, findings: [] }, report);
    assert.deepEqual(doctor.servers.map((s) => [s.name, s.mount, s.why]), [['Shared', false, 'shadowed-by-workspace'], ['mine', true, 'ask-mode'], ['fetch', true, 'ask-mode']]);
    assert.equal(doctor.ok, true);

    writeFileSync(m.files.copilotGlobal, JSON.stringify({ mcpServers: { fetch: { command: NODE, args: ['f2.js'] } } }));
    const stale = userGroupModel(await m.report());
    assert.deepEqual(stale.view.blocked.map((b) => [b.code, b.fix?.command]), [['declaration-stale', 'dsh-bridge export --user']]);
    // Stale: nothing of the user declaration mounts, so every row says so (as a folder's rows do).
    assert.deepEqual(stale.view.rows.map((r) => r.state), ['stale', 'stale', 'stale']);
    assert.deepEqual(userDoctorSection({ headless: false, findings: [] }, await m.report()).notExported, ['fetch']);
  });

  it('a server the editor\'s policy refuses is a refused row of its file', async () => {
    const m = await machine();
    writeFileSync(path.join(m.files.profileFolder, 'mcp.json'), JSON.stringify({ servers: { mine: { command: NODE }, blocked: { command: NODE, args: ['b.js'] } } }));
    const identity = folderIdentityOf(m.identity.folder, { 'chat.mcp.deniedServers': [{ serverName: 'blocked' }] });
    await commitExport(m.ports, await reviewUserExport(m.ports, identity, m.files));
    const report = await userServersReport(m.ports, { identity, files: m.files, tools: false });
    const model = userGroupModel(report);
    assert.deepEqual(model.view.rows.map((r) => [r.name, r.state, r.codes]), [['mine', 'exported', ['ask-mode']], ['blocked', 'refused', ['policy-denied']]]);
    assert.equal(model.view.rows[1].file, path.join(m.files.profileFolder, 'mcp.json'));
  });

  it('the view\'s group, the doctor, `dsh-bridge verify --json` and the plugin\'s mount agree on each user server, in every trust mode', async () => {
    const m = await machine();
    writeFileSync(path.join(m.files.profileFolder, 'mcp.json'), JSON.stringify({ servers: { Shared: { command: NODE, args: ['u.js'] }, mine: { command: NODE, args: ['m.js'] } } }));
    await commitExport(m.ports, await reviewUserExport(m.ports, m.identity, m.files));
    const cli = async (argv: string[]) => {
      const out: string[] = [];
      const code = await main([...argv, '--dsh-home', m.home], { out: (t) => out.push(t), err: () => undefined });
      return { code, json: out.length ? JSON.parse(out.join('\n')) : undefined };
    };
    for (const trust of ['ask', 'pinned', 'deny'] as const) {
      assert.equal((await cli(['trust', trust, '--json'])).code, 0);
      const report = await m.report();
      const planned = report.servers.map((s) => [s.name, s.outcome, s.reason.code]);
      const verify = (await cli(['verify', '--workspace', m.folder, '--json'])).json.user.servers.map((s: { name: string; outcome: string; reason: { code: string } }) => [s.name, s.outcome, s.reason.code]);
      assert.deepEqual(verify, planned, `verify --json, trust ${trust}`);
      const doctor = userDoctorSection({ headless: false, findings: [] }, report);
      assert.deepEqual(doctor.servers.map((s) => [s.name, s.mount]), report.servers.map((s) => [s.name, s.outcome !== 'withheld' && report.blocked.length === 0]), `doctor, trust ${trust}`);
      const group = userGroupModel(report).view.rows;
      // A row mounts where the plugin mounts it: exported (or waiting for an approval) and not the workspace's name.
      const mounted = new Set(report.blocked.length ? [] : (mountableUserPlan(report.user).declaration?.servers ?? []).map((s) => s.name));
      assert.deepEqual(group.map((r) => [r.name, ['exported', 'not-approved'].includes(r.state)]), group.map((r) => [r.name, mounted.has(r.name)]), `the group, trust ${trust}`);
      assert.deepEqual(group.map((r) => r.state), { ask: ['shadowed', 'exported'], pinned: ['shadowed', 'not-approved'], deny: ['deny', 'deny'] }[trust], `the group, trust ${trust}`);
    }
  });
});
