// dsh-bridge verify, doctor and export --dry-run say what the DSH plugin does (the session plan),
// through the real CLI entry (in-process) on real folders and a real host store.
import { strict as assert } from 'node:assert';
import { mkdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { main } from '../../../src/cli/main';
import { LSP_APPROVAL_NAME } from '../../../src/core/lsp/lspRow';
import { testPorts, tempDir, workspace } from '../helpers';

const NODE = process.execPath;
const SOURCE = JSON.stringify({ servers: { fx: { command: NODE, args: ['fx.js'] }, 'my server': { command: NODE, args: ['m.js'] } } });
const SETTINGS = { '.vscode/settings.json': JSON.stringify({ 'dsh.lsp.servers': { ts: { command: NODE, args: ['tls.js'], extensions: { '.ts': 'typescript' } } } }) };

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('CLI: verify and doctor show the session plan', function () {
  this.timeout(30000);

  it('pinned with nothing approved: both say the servers and the language servers ask, not start, with the approve command', async () => {
    const folder = workspace(SOURCE, { '.git/HEAD': '', ...SETTINGS });
    const home = tempDir('cli-plan-home-');
    const ws = ['--workspace', folder, '--dsh-home', home];
    assert.equal((await cli(['export', ...ws])).code, 0);
    assert.equal((await cli(['trust', 'pinned', ...ws])).code, 0);

    const verify = await cli(['verify', ...ws]);
    assert.equal(verify.code, 0, verify.err);
    assert.match(verify.out, /What a DSH session in this folder gets \(trust mode "pinned"\):/);
    assert.match(verify.out, /asks\s+fx\s+Trust mode "pinned" and its pin is not approved: DSH asks before it starts\. Fix: dsh-bridge approve fx --workspace /);
    assert.match(verify.out, /asks\s+my_server\s+.* Fix: dsh-bridge approve 'my server' --workspace /);
    assert.match(verify.out, /Language servers: asks ts \(\.ts\): .* Fix: dsh-bridge approve lsp --workspace /);
    assert.match(verify.out, /a headless run has no one to answer, so it does not start there/);
    const json = JSON.parse((await cli(['verify', '--json', ...ws])).out).dsh;
    assert.deepEqual([json.servers, json.asks, json.languageServers, json.languageServersOutcome], [[], ['fx', 'my_server'], [], 'asks']);

    const doctor = await cli(['doctor', ...ws]);
    assert.equal(doctor.code, 1);
    assert.match(doctor.out, /Would mount: none; would not: fx \(DSH asks before it starts, and a headless run has no one to answer: it does not start there; fix: dsh-bridge approve fx --workspace [^)]+\), my_server \(.*\), lsp \(ts\) \(DSH asks before it starts.*; fix: dsh-bridge approve lsp --workspace /);
    const doctorJson = JSON.parse((await cli(['doctor', '--json', ...ws])).out);
    assert.deepEqual(doctorJson.wouldNot.map((s: { serverName: string; outcome: string; code: string }) => [s.serverName, s.outcome, s.code]), [
      ['fx', 'asks', 'pin-not-approved'], ['my_server', 'asks', 'pin-not-approved'], ['lsp (ts)', 'asks', 'pin-not-approved'],
    ]);

    // Approved: they start, and both say so.
    const declaration = JSON.parse(readFileSync(path.join(folder, '.dsh/declaration.json'), 'utf8'));
    const store = testPorts(home).store;
    for (const s of declaration.servers) await store.approve(folder, s.serverName, s.pin);
    await store.approve(folder, LSP_APPROVAL_NAME, declaration.lsp.pin);
    assert.deepEqual(JSON.parse((await cli(['verify', '--json', ...ws])).out).dsh.servers, ['fx', 'my_server']);
    assert.deepEqual(JSON.parse((await cli(['doctor', '--json', ...ws])).out).wouldMount, ['fx', 'my_server', 'lsp (ts)']);
  });

  it('doctor and verify in a subfolder report the declaration the plugin mounts there: the nearest one above', async () => {
    const folder = workspace(SOURCE, { '.git/HEAD': '' });
    const home = tempDir('cli-plan-home-');
    assert.equal((await cli(['export', '--workspace', folder, '--dsh-home', home])).code, 0);
    const sub = path.join(folder, 'packages/app');
    mkdirSync(sub, { recursive: true });
    const ws = ['--workspace', sub, '--dsh-home', home];
    const doctor = await cli(['doctor', ...ws]);
    assert.doesNotMatch(doctor.out, /No declaration/);
    assert.match(doctor.out, new RegExp(`\\u2714 Declaration ${folder.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/\\.dsh/declaration\\.json: signed with this user's key, intact and fresh; servers: 2\\.`));
    assert.match(doctor.out, /would not: fx \(DSH asks before it starts/);
    const json = JSON.parse((await cli(['doctor', '--json', ...ws])).out);
    assert.equal(json.plan.declaration.folder, folder);
    assert.deepEqual(json.wouldNot.map((s: { serverName: string; code: string }) => [s.serverName, s.code]), [['fx', 'ask-mode'], ['my_server', 'ask-mode']]);
    const verify = await cli(['verify', ...ws]);
    assert.equal(verify.code, 0, verify.out);
    assert.match(verify.out, new RegExp(`^Declaration of ${folder.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(the nearest above `));
  });

  it('export --dry-run in trust mode deny: nothing would be exported and nothing would mount', async () => {
    const folder = workspace(SOURCE);
    const home = tempDir('cli-plan-home-');
    const ws = ['--workspace', folder, '--dsh-home', home];
    assert.equal((await cli(['trust', 'deny', ...ws])).code, 0);
    const dry = await cli(['export', '--dry-run', ...ws]);
    assert.equal(dry.code, 1);
    assert.doesNotMatch(dry.out, /would be exported/);
    assert.match(dry.err, /The trust mode is "deny" on this machine: nothing is mounted\. A dry run: nothing would be exported, and nothing would mount\./);
    const json = JSON.parse((await cli(['export', '--dry-run', '--json', ...ws])).out);
    assert.deepEqual([json.declaration, json.written, json.code], [null, false, 'trust-deny']);
    assert.equal((await cli(['export', ...ws])).code, 1);
  });
});
