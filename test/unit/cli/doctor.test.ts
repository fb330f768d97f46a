import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tempDir, workspace } from '../helpers';
import { CLI, MCP, ROOT, cli } from '../core/app/doctor.fixture';

describe('dsh-bridge doctor (dist/cli.js)', function () {
  this.timeout(60000);
  before(function () {
    if (!existsSync(CLI)) spawnSync('node', ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
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
});
