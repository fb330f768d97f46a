import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { doctorLines, doctorReport, doctorSummary } from '../../src/core/app/doctor';
import { bridgeProfiles, DSH_VERSION, HMR_VERSION, LSP_PACKAGES, REQUIRED_PEERS, inspectProfile, launcherRuleMismatches, missingLspPackages, nodeFitsDsh, writeHmrFix } from '../../src/core/node/dshSide';
import { PINNED_NODE_VERSION } from '../../src/cli/dshInstall';
import { HostStore } from '../../src/core/node/hostStore';
import { lockedVersions } from '../../src/cli/dshLayout';
import { testPorts, tempDir, workspace } from './helpers';

const ROOT = path.resolve(__dirname, '../..');
const CLI = path.join(ROOT, 'dist/cli.js');
const MCP = JSON.stringify({
  inputs: [{ id: 'token', type: 'promptString', description: 'token', password: true }],
  servers: {
    echo: { type: 'stdio', command: 'node', args: ['server.js'], env: { TOKEN: '${input:token}' } },
    plain: { type: 'stdio', command: 'node', args: ['plain.js'] },
    old: { type: 'sse', url: 'https://example.com/sse' },
  },
});

/** A profile laid out as `dsh plugin add` leaves it: bundles listed, the bundle package in node_modules. */
function profileWithBundle(home: string, bundles = ['@deepseek-ai/dsh-base', '@deepseek-ai/dsh-headless', 'dsh-bridge-dsh']) {
  const dir = path.join(home, 'profiles', 'headless');
  mkdirSync(path.join(dir, 'node_modules'), { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'dsh-profile-headless', dsh: { profile: { bundles } } }));
  writeFileSync(path.join(dir, 'cordis.patch.yml'), '# Your patch layer for this dsh profile\n[]\n');
  cpSync(path.join(ROOT, 'packages/dsh-bridge-dsh'), path.join(dir, 'node_modules/dsh-bridge-dsh'), { recursive: true, filter: (src) => !src.includes('node_modules') });
  return dir;
}

function cli(args: string[], home: string) {
  return spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, DSH_HOME: home, PATH: path.dirname(process.execPath) }, encoding: 'utf8' });
}

/** The doctor's report on a machine whose PATH finds no dsh, for the default (headless) profile. */
const doctor = (folder: string, home: string, env: Record<string, string> = {}) => doctorReport(testPorts(home, { env: { PATH: '', ...env } }), { folder, profile: 'headless' });

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

  it('FIFOs in the DSH home (profile manifest, patch layer, a package.json, the launcher) are never waited on', function () {
    if (process.platform === 'win32') this.skip();
    const home = tempDir('doctor-fifo-');
    const dir = profileWithBundle(home);
    mkdirSync(path.join(home, 'launcher/bin'), { recursive: true });
    mkdirSync(path.join(dir, 'node_modules/@deepseek-ai/cordis-plugin-hmr'), { recursive: true });
    for (const f of [path.join(dir, 'cordis.patch.yml'), path.join(dir, 'node_modules/dsh-bridge-dsh/package.json'), path.join(dir, 'node_modules/@deepseek-ai/cordis-plugin-hmr/package.json'), path.join(home, 'launcher/bin/dsh')]) {
      rmSync(f, { force: true });
      execFileSync('mkfifo', [f]);
    }
    const started = Date.now();
    const r = spawnSync(process.execPath, [CLI, 'doctor', '--workspace', workspace(MCP), '--json'], { env: { ...process.env, DSH_HOME: home, PATH: path.dirname(process.execPath) }, encoding: 'utf8', timeout: 15000 });
    assert.notEqual(r.status, null, `doctor hung (${Date.now() - started} ms)`);
    assert.equal(r.status, 1, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.ok(report.findings.some((f: { area: string }) => f.area === 'profile'), r.stdout);
    // The manifest is a FIFO too: the profile reads as missing, in time.
    const manifest = path.join(dir, 'package.json');
    rmSync(manifest);
    execFileSync('mkfifo', [manifest]);
    assert.equal(inspectProfile(home, 'headless').exists, false);
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

    writeFileSync(path.join(folder, '.vscode/mcp.json'), `${MCP}\n`);
    assert.deepEqual(await verdicts(), { echo: 'declaration-stale', plain: 'declaration-stale', old: 'refused-at-export' });
    assert.deepEqual((await doctor(folder, tempDir('doctor-other-'))).plan.blocked.map((r) => r.code), ['declaration-bad-signature', 'declaration-stale']);
  });

  it('CLI: doctor --json ends in wouldMount / wouldNot with the fixing command; exit 1 until everything mounts', () => {
    const home = tempDir('doctor-home-');
    const folder = workspace(MCP);
    const r = cli(['doctor', '--workspace', folder, '--json'], home);
    assert.equal(r.status, 1, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual(out.wouldMount, []);
    assert.deepEqual(out.wouldNot.map((s: { serverName: string; fix: string }) => [s.serverName, s.fix]), [
      ['echo', `dsh-bridge export --workspace ${folder}`], ['plain', `dsh-bridge export --workspace ${folder}`], ['old', `dsh-bridge check --workspace ${folder}`],
    ]);
    const text = cli(['doctor', '--workspace', folder], home).stdout;
    assert.match(text, /\u2716 No DSH found: none installed by dsh-bridge, and no dsh on PATH\.\n {2}fix: dsh-bridge dsh install\n/);
    // Servers with the same reason and fix are named together: the reason once.
    assert.match(text, /\nWould mount: none; would not: echo, plain \(Not exported yet \(no declaration\)\.; fix: dsh-bridge export --workspace [^)]+\), old \(Refused at export/);
  });

  it('dsh install refuses before touching anything: a Node that is not >= 22.19, a path the wrapper cannot quote, a usage error', () => {
    const home = tempDir('doctor-home-');
    const notNode = cli(['dsh', 'install', '--node', '/bin/false'], home);
    assert.equal(notNode.status, 1);
    assert.match(notNode.stderr, /dsh install stopped: DSH rc\.8 needs Node >= 22\.19, and \/bin\/false is not a working node\. Run again with --node auto /);
    // A Node that runs but is too old: the way out is named, with the exact npm command it takes.
    const old = path.join(tempDir('old-node-'), 'node');
    writeFileSync(old, '#!/bin/sh\necho v20.1.0\n', { mode: 0o755 });
    const tooOld = cli(['dsh', 'install', '--node', old], home);
    assert.equal(tooOld.status, 1);
    assert.ok(tooOld.stderr.includes(`and ${old} is v20.1.0. Run again with --node auto to install Node ${PINNED_NODE_VERSION} from npm into ${path.join(home, 'launcher', 'node')} `
      + `(what it runs there: npm install --ignore-scripts --save-exact node-${process.platform}-${process.arch}@${PINNED_NODE_VERSION}), or with --node /path/to/node (22.19 or newer)`), tooOld.stderr);
    const quoted = cli(['dsh', 'install', '--node', '/opt/node"$(id)"/bin/node'], home);
    assert.equal(quoted.status, 1);
    assert.match(quoted.stderr, /has a character the dsh wrapper cannot quote/);
    assert.equal(cli(['dsh', 'frob'], home).status, 2);
    assert.equal(cli(['dsh', 'install', '--profile', '../x'], home).status, 2);
    assert.deepEqual(readdirSync(home), [], 'nothing was written into the DSH home');
  });

  it('--node auto on a Node older than DSH needs: Node 24 from npm into the DSH home, once', function () {
    // The real npm installs the real Node package (from npm's cache when it has it); the DSH
    // launcher's install that follows (450 packages, minutes) is stopped by an npm stand-in.
    if (nodeFitsDsh(process.version)) this.skip(); // this Node fits: --node auto uses it and installs nothing
    this.timeout(300000);
    const home = tempDir('doctor-home-');
    const bin = tempDir('npm-stand-in-');
    const realNpm = execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim();
    writeFileSync(path.join(bin, 'npm'), `#!/bin/sh\ncase "$*" in *" node-${process.platform}-${process.arch}@"*) exec "${realNpm}" "$@";; esac\necho "stopped by the test: npm $*" >&2\nexit 3\n`, { mode: 0o755 });
    const env = { ...process.env, DSH_HOME: home, PATH: `${bin}:${path.dirname(process.execPath)}:/usr/bin:/bin`, npm_config_prefer_offline: 'true' };
    const auto = () => spawnSync(process.execPath, [CLI, 'dsh', 'install', '--node', 'auto'], { env, encoding: 'utf8' });
    const first = auto();
    const dir = path.join(home, 'launcher', 'node');
    assert.ok(first.stdout.includes(`Node: installed ${PINNED_NODE_VERSION} (node-${process.platform}-${process.arch}) in ${dir}`), first.stdout + first.stderr);
    assert.match(first.stderr, /dsh install stopped: npm install of the DSH launcher failed \(exit 3\)/);
    const node = path.join(dir, 'node_modules', `node-${process.platform}-${process.arch}`, 'bin', 'node');
    assert.equal(execFileSync(node, ['--version'], { encoding: 'utf8' }).trim(), `v${PINNED_NODE_VERSION}`);
    const again = auto();
    assert.ok(again.stdout.includes(`Node: ${PINNED_NODE_VERSION} already in ${dir}`), again.stdout);
  });

  it('hmr fix: written once into cordis.patch.yml, comments kept, idempotent; invalid YAML is left alone', async () => {
    const home = tempDir('doctor-home-');
    const dir = profileWithBundle(home);
    assert.equal(await writeHmrFix(dir), 'written');
    const once = readFileSync(path.join(dir, 'cordis.patch.yml'), 'utf8');
    assert.match(once, /^# Your patch layer for this dsh profile\n/);
    assert.match(once, /- id: hmr\n {2}disabled: false\n/);
    assert.equal(await writeHmrFix(dir), 'present');
    assert.equal(readFileSync(path.join(dir, 'cordis.patch.yml'), 'utf8'), once);
    assert.equal(inspectProfile(home, 'headless').hmrEnabledByUser, true);
    writeFileSync(path.join(dir, 'cordis.patch.yml'), '- id: [unclosed\n');
    const refused = await writeHmrFix(dir);
    assert.match(typeof refused === 'object' ? refused.error : '', /not valid YAML/);
    assert.equal(readFileSync(path.join(dir, 'cordis.patch.yml'), 'utf8'), '- id: [unclosed\n');
  });

  it('the committed launcher lockfile pins what the rules require: dsh and every dsh-* at rc.8, the language-server packages at theirs, hmr 1.0.16, every peer', () => {
    const locked = lockedVersions();
    assert.equal(locked['@deepseek-ai/dsh'], DSH_VERSION);
    assert.equal(locked['@deepseek-ai/cordis-plugin-hmr'], HMR_VERSION);
    for (const peer of REQUIRED_PEERS) assert.ok(locked[peer], `${peer} is in the lockfile`);
    for (const [name, version] of Object.entries(LSP_PACKAGES)) assert.equal(locked[name], version, `${name} is in the lockfile`);
    const dsh = Object.entries(locked).filter(([n]) => (n === '@deepseek-ai/dsh' || n.startsWith('@deepseek-ai/dsh-')) && !(n in LSP_PACKAGES));
    assert.ok(dsh.length > 50);
    assert.deepEqual(dsh.filter(([, v]) => v !== DSH_VERSION), []);
    assert.ok(locked.pnpm, 'pnpm for dsh plugin');
    // The rules, applied to an empty folder, name everything as missing.
    assert.ok(launcherRuleMismatches(tempDir('nm-')).length >= REQUIRED_PEERS.length + 2);
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
    for (const name of Object.keys(LSP_PACKAGES)) put(name, DSH_VERSION);
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
    writeFileSync(path.join(nm, '@deepseek-ai/dsh-lsp/package.json'), JSON.stringify({ name: '@deepseek-ai/dsh-lsp', version: DSH_VERSION }));
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
