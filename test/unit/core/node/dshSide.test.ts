import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { inspectProfile, launcherRuleMismatches, writeHmrFix } from '../../../../src/core/node/dshSide';
import { lockedVersions } from '../../../../src/cli/dshLayout';
import { tempDir, workspace } from '../../helpers';
import { CLI, MCP, ROOT, profileWithBundle } from '../app/doctor.fixture';

describe('the DSH side as the doctor reads and fixes it', function () {
  this.timeout(60000);
  before(function () {
    if (!existsSync(CLI)) spawnSync('node', ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
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
    // The rules, applied to an empty folder, name everything they require: the lockfile pins each.
    const required = launcherRuleMismatches(tempDir('nm-'));
    assert.ok(required.some((m) => m.name === '@deepseek-ai/cordis-plugin-hmr') && required.some((m) => m.name === '@deepseek-ai/dsh'));
    for (const { name } of required) assert.ok(locked[name], `${name} is in the lockfile`);
    // What the lockfile installs passes the rules: every dsh-* at its version, hmr, every peer.
    const nm = tempDir('nm-');
    for (const [name, version] of Object.entries(locked)) {
      mkdirSync(path.join(nm, name), { recursive: true });
      writeFileSync(path.join(nm, name, 'package.json'), JSON.stringify({ name, version }));
    }
    assert.deepEqual(launcherRuleMismatches(nm), []);
    assert.ok(Object.keys(locked).filter((n) => n.startsWith('@deepseek-ai/dsh-')).length > 50);
    assert.ok(locked.pnpm, 'pnpm for dsh plugin');
  });
});
