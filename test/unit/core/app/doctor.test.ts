import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { doctorFixes, doctorLines, doctorReport, doctorSummary } from '../../../../src/core/app/doctor';
import { doctorProfiles } from '../../../../src/core/app/doctorProfile';
import { bridgeProfiles, LSP_PACKAGES, launcherRuleMismatches, missingLspPackages, writeHmrFix } from '../../../../src/core/node/dshSide';
import { HostStore } from '../../../../src/core/node/hostStore';
import { lockedVersions } from '../../../../src/cli/dshLayout';
import { testPorts, tempDir, workspace } from '../../helpers';
import { CLI, MCP, ROOT, cli, doctor, profileWithBundle } from './doctor.fixture';

describe('doctor: what stands between a folder and its servers in DSH', function () {
  this.timeout(60000);
  before(function () {
    if (!existsSync(CLI)) spawnSync('node', ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
  });

  it('on a bare machine: no DSH, no profile, nothing exported; each with its fix, every server named', async () => {
    const home = tempDir('doctor-home-');
    const folder = workspace(MCP);
    const report = await doctor(folder, home);
    assert.deepEqual(report.findings.map((f) => [f.message, f.fix]), [
      ['launcherMissing', 'dsh-bridge dsh install'],
      ['profileMissing', 'dsh-bridge dsh install'],
      ['secretsFiles', 'unset DSH_BRIDGE_KEYCHAIN'], // the unit tier turns the keychain off
    ]);
    // What holds for the folder is the session plan's, with its fix.
    assert.deepEqual(report.plan.blocked.map((r) => [r.code, r.fix?.command]), [['no-declaration', `dsh-bridge export --workspace ${folder}`]]);
    assert.match(doctorLines(report).join('\n'), new RegExp(`\u2716 No declaration \\(\\.dsh/declaration\\.json\\) in ${folder}: nothing from DSH Bridge is mounted\\.\n  fix: dsh-bridge export --workspace `));
    assert.deepEqual(report.servers.map((s) => [s.serverName, s.mount, s.why]), [['echo', false, 'not-exported'], ['plain', false, 'not-exported'], ['old', false, 'refused-at-export']]);
    assert.equal(report.ok, false);
  });

  it('the editor: an interactive user with no profile yet is not taken as headless; each fix comes with its code; bridgeProfiles lists the profiles with the bridge', async () => {
    const home = tempDir('dsh-home-');
    const folder = workspace(JSON.stringify({ servers: { files: { command: 'node', args: ['x.js'] } } }));
    const ports = testPorts(home, { env: { PATH: '' } });
    assert.equal((await doctorReport(ports, { folder, profile: 'headless' })).headless, true);
    const report = await doctorReport(ports, { folder, profile: 'headless', interactive: true });
    assert.equal(report.headless, false);
    assert.ok(report.findings.some((f) => f.fix?.startsWith('dsh-bridge dsh install') && f.fixCode === 'install'), JSON.stringify(report.findings));
    assert.ok(report.servers.some((s) => s.fix?.startsWith('dsh-bridge export') && s.fixCode === 'export'), JSON.stringify(report.servers));
    assert.doesNotMatch(doctorSummary(report, undefined, false), /fix: /);
    assert.deepEqual(bridgeProfiles(home), []);
    profileWithBundle(home);
    mkdirSync(path.join(home, 'profiles', 'other'), { recursive: true });
    assert.deepEqual(bridgeProfiles(home), ['headless']);
  });

  it('fixes as data, once each: what is wrong only (a server that mounts after DSH asks needs none), with its code, arguments and servers; the profile to diagnose', async () => {
    const home = tempDir('doctor-home-');
    const folder = workspace(MCP);
    const ports = testPorts(home, { env: { PATH: '' } });
    assert.deepEqual(doctorProfiles(ports), { kind: 'none', profile: 'headless' });
    profileWithBundle(home);
    assert.deepEqual(doctorProfiles(ports), { kind: 'only', profile: 'headless' });
    assert.equal(cli(['export', '--workspace', folder], home).status, 0);
    const serverFixes = (report: Awaited<ReturnType<typeof doctor>>) => doctorFixes(report).filter((f) => f.servers.length).map((f) => [f.code, f.args, f.servers]);
    // Headless (dsh-headless loaded): nobody answers, so "ask" is what is wrong for plain.
    assert.deepEqual(serverFixes(await doctor(folder, home)), [
      ['inputs-set', { id: 'token', workspace: folder }, ['echo']],
      ['trust-pinned', { name: 'plain', workspace: folder }, ['plain']],
      ['check', { workspace: folder }, ['old']],
    ]);
    assert.deepEqual(doctorFixes(await doctor(folder, home)).filter((f) => f.code === 'install').map((f) => f.args), [{ profile: 'headless' }]);
    // An interactive profile: plain mounts after DSH asks, and no fix switches the trust mode.
    profileWithBundle(home, ['@deepseek-ai/dsh-base', 'dsh-bridge-dsh']);
    const interactive = await doctor(folder, home);
    assert.equal(interactive.headless, false);
    assert.deepEqual(serverFixes(interactive), [['inputs-set', { id: 'token', workspace: folder }, ['echo']], ['check', { workspace: folder }, ['old']]]);
    assert.ok(!doctorFixes(interactive).some((f) => f.code === 'trust-pinned'), JSON.stringify(doctorFixes(interactive)));
    // Several profiles with the bridge: the face asks.
    const other = path.join(home, 'profiles', 'other');
    cpSync(path.join(home, 'profiles', 'headless'), other, { recursive: true });
    assert.deepEqual(doctorProfiles(ports), { kind: 'several', profiles: ['headless', 'other'] });
  });

  it('walks a folder from refused to mounted: bundle, hmr row, input, trust, approval; stale after an edit', async () => {
    const home = tempDir('doctor-home-');
    const folder = workspace(MCP);
    profileWithBundle(home);
    assert.equal(cli(['export', '--workspace', folder], home).status, 0);
    const verdicts = async () => Object.fromEntries((await doctor(folder, home)).servers.map((s) => [s.serverName, s.mount ? 'mount' : s.why]));

    let report = await doctor(folder, home);
    assert.equal(report.findings.find((f) => f.area === 'hmr')?.message, 'hmrOff');
    assert.equal(report.findings.find((f) => f.area === 'bundle')?.message, 'bundleOk');
    assert.deepEqual(await verdicts(), { echo: 'input-missing', plain: 'ask-mode', old: 'refused-at-export' });
    assert.match(doctorSummary(report), /^Would mount: none; would not: echo \(Input "token" has no value stored for .+\.; fix: dsh-bridge inputs set token --workspace .+\), plain \(DSH asks before it starts, and a headless run has no one to answer: it does not start there; fix: dsh-bridge trust pinned && dsh-bridge approve plain --workspace /);

    assert.equal(await writeHmrFix(path.join(home, 'profiles/headless')), 'written');
    const store = new HostStore(home);
    await store.setInput(folder, 'token', 'doctor-canary');
    await store.setTrustMode('pinned');
    assert.deepEqual(await verdicts(), { echo: 'pin-not-approved', plain: 'pin-not-approved', old: 'refused-at-export' });
    const declaration = JSON.parse(readFileSync(path.join(folder, '.dsh/declaration.json'), 'utf8'));
    for (const s of declaration.servers) await store.approve(folder, s.serverName, s.pin);
    report = await doctor(folder, home);
    assert.deepEqual(report.servers.filter((s) => s.mount).map((s) => s.serverName), ['echo', 'plain']);
    assert.equal(report.findings.find((f) => f.area === 'hmr')?.message, 'hmrOk');
    assert.ok(!doctorLines(report).join('\n').includes('doctor-canary'), 'a stored value never appears');
    // Beside the plan, the folder's last session as the DSH plugin recorded it (none yet, then one).
    assert.ok(doctorLines(report).includes('\u2139 No DSH session recorded here yet (the DSH plugin records each session that mounts from this declaration).'));
    await testPorts(home).sessions.record(folder, {
      id: 'sess-1', cwd: folder, startedAt: '2026-12-05T10:00:00.000Z', updatedAt: '2026-12-05T10:01:00.000Z', trustMode: 'pinned', blocked: [],
      servers: [
        { serverName: 'echo', name: 'echo', pin: 'sha256:e', planned: 'starts', state: 'failed', failure: { error: 'Connection closed', exit: 'exit code 3', stderr: ['boom'], failures: 1 } },
        { serverName: 'plain', name: 'plain', pin: 'sha256:p', planned: 'starts', state: 'started', tools: 2 },
      ],
      tools: { offered: ['mcp__plain__a'], withheld: [{ name: 'mcp__plain__b', why: 'left out by dsh.tools' }] },
      skills: { withheld: [{ name: 'deploy', root: path.join(folder, '.dsh/skills'), why: 'root' }, { name: 'notes', root: path.join(folder, '.dsh/skills'), why: 'scan' }] },
    });
    report = await doctor(folder, home);
    assert.equal(report.lastSession?.id, 'sess-1');
    const sessionLines = doctorLines(report).filter((l) => l.includes('last DSH session') || l.includes('Last DSH session'));
    assert.deepEqual(sessionLines, [
      '\u26a0 Last DSH session here (sess-1, 2026-12-05T10:01:00.000Z): 1 tool in its last request.',
      '\u2716 In the last DSH session, echo failed to start: exit code 3: boom',
      '\u2139 Not in the last DSH session: 1 tool, 2 skills.',
    ]);

    // A comment is no change (issue 35); a changed value is.
    writeFileSync(path.join(folder, '.vscode/mcp.json'), `// servers\n${MCP}\n`);
    assert.deepEqual(await verdicts(), { echo: 'mount', plain: 'mount', old: 'refused-at-export' });
    writeFileSync(path.join(folder, '.vscode/mcp.json'), MCP.replace('plain.js', 'plain2.js'));
    assert.deepEqual(await verdicts(), { echo: 'declaration-stale', plain: 'declaration-stale', old: 'refused-at-export' });
    assert.deepEqual((await doctor(folder, tempDir('doctor-other-'))).plan.blocked.map((r) => r.code), ['declaration-bad-signature', 'declaration-stale']);
  });

  it('a broken channel of GitHub Copilot\'s managed settings is named as one (not as a DSH policy file), with where and why; a working one is listed with its channel', async () => {
    const home = tempDir('doctor-home-');
    const folder = workspace(MCP);
    const managed = path.join(tempDir('managed-'), 'managed-settings.json');
    writeFileSync(managed, '{"deniedMcpServers": [{"serverName": "old"}],}');
    const report = await doctor(folder, home, { DSH_BRIDGE_MANAGED_SETTINGS: managed });
    const policy = report.findings.filter((f) => f.area === 'policy');
    assert.deepEqual(policy.map((f) => [f.status, f.message, f.args]), [['fail', 'managedRefused', { channel: 'file', file: managed, rule: 'line 1, column 46: PropertyNameExpected' }]]);
    assert.equal(policy[0].fix, `dsh-bridge policy --workspace ${folder}`);
    const lines = doctorLines(report).join('\n');
    assert.ok(lines.includes(`\u2716 GitHub Copilot's managed settings (file: ${managed}) cannot be used (line 1, column 46: PropertyNameExpected): every server is withheld, and none is exported.`), lines);
    assert.doesNotMatch(lines, /DSH policy/);
    writeFileSync(managed, JSON.stringify({ deniedMcpServers: [{ serverName: 'old' }] }));
    const fixed = (await doctor(folder, home, { DSH_BRIDGE_MANAGED_SETTINGS: managed })).findings.filter((f) => f.area === 'policy');
    assert.deepEqual(fixed.map((f) => [f.status, f.message, f.args]), [['ok', 'policyOk', { files: `${managed} (managed file)` }]]);
  });

  it('language servers: one verdict for the lsp row; a profile that cannot load the language-server packages is named with its fix', async () => {
    const home = tempDir('doctor-home-');
    profileWithBundle(home);
    await writeHmrFix(path.join(home, 'profiles/headless'));
    const folder = workspace('{ "servers": {} }', {
      '.vscode/settings.json': JSON.stringify({ 'dsh.lsp.servers': { ts: { command: 'node', args: ['tls.js', '--stdio'], extensions: { '.ts': 'typescript' }, env: { DOCTOR_API_TOKEN: 'not-written' } } } }),
    });
    assert.equal(cli(['export', '--workspace', folder], home).status, 0);
    const lspVerdict = async (env: Record<string, string>) => (await doctor(folder, home, env)).servers.find((s) => s.name === 'lsp');

    let report = await doctor(folder, home);
    const finding = report.findings.find((f) => f.message === 'lspPackagesMissing');
    assert.equal(finding?.fix, 'dsh-bridge dsh install');
    assert.match(doctorLines(report).join('\n'), /Profile "headless" cannot load the language-server packages \(@deepseek-ai\/dsh-lsp, @deepseek-ai\/dsh-lsp-stdio, @deepseek-ai\/dsh-tool-lsp\)/);
    assert.deepEqual(report.servers.map((s) => [s.serverName, s.why]), [['lsp (ts)', 'whyLspPackages']]);

    // In DSH's module fallback at another version: still not loadable; at the pinned ones: loadable.
    const fallback = path.join(home, 'profiles/node_modules');
    const put = (name: string, version: string) => {
      mkdirSync(path.join(fallback, name), { recursive: true });
      writeFileSync(path.join(fallback, name, 'package.json'), JSON.stringify({ name, version }));
    };
    const dshVersion = lockedVersions()['@deepseek-ai/dsh'];
    for (const name of Object.keys(LSP_PACKAGES)) put(name, dshVersion);
    assert.equal((await lspVerdict({}))?.why, 'whyLspPackages');
    for (const [name, version] of Object.entries(LSP_PACKAGES)) put(name, version);
    report = await doctor(folder, home);
    assert.equal(report.findings.find((f) => f.message === 'lspPackagesMissing'), undefined);
    // The launcher rules: the language-server packages at their own versions, a wrong one is a mismatch.
    const nm = tempDir('nm-');
    for (const [name, version] of Object.entries(lockedVersions())) {
      mkdirSync(path.join(nm, name), { recursive: true });
      writeFileSync(path.join(nm, name, 'package.json'), JSON.stringify({ name, version }));
    }
    assert.deepEqual([launcherRuleMismatches(nm), missingLspPackages(nm)], [[], []]);
    writeFileSync(path.join(nm, '@deepseek-ai/dsh-lsp/package.json'), JSON.stringify({ name: '@deepseek-ai/dsh-lsp', version: dshVersion }));
    assert.deepEqual(launcherRuleMismatches(nm).map((m) => [m.name, m.want]), [['@deepseek-ai/dsh-lsp', LSP_PACKAGES['@deepseek-ai/dsh-lsp']]]);

    assert.equal((await lspVerdict({}))?.why, 'env-missing');
    assert.equal((await lspVerdict({ DOCTOR_API_TOKEN: 'x' }))?.why, 'ask-mode');
    await new HostStore(home).setTrustMode('pinned');
    assert.match(doctorSummary(await doctor(folder, home)), /would not: lsp \(ts\) \(The environment variable DOCTOR_API_TOKEN is not set where DSH runs\.; fix: export DOCTOR_API_TOKEN=\.\.\.\)/);
    const notApproved = await lspVerdict({ DOCTOR_API_TOKEN: 'x' });
    assert.deepEqual([notApproved?.why, notApproved?.fix], ['pin-not-approved', `dsh-bridge approve lsp --workspace ${folder}`]);
    const declaration = JSON.parse(readFileSync(path.join(folder, '.dsh/declaration.json'), 'utf8'));
    await new HostStore(home).approve(folder, '$lsp', declaration.lsp.pin);
    assert.equal((await lspVerdict({ DOCTOR_API_TOKEN: 'x' }))?.mount, true);
  });
});
