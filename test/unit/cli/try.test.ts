import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { launcherWrapper } from '../../../src/core/node/dshSide';
import { profileWithBundle } from '../core/app/doctor.fixture';
import { tempDir, workspace } from '../helpers';

const CLI = path.resolve(__dirname, '../../../dist/cli.js');
const run = (args: string[], home: string, cwd = tempDir('try-cwd-')) =>
  spawnSync(process.execPath, [CLI, ...args], { cwd, env: { ...process.env, DSH_HOME: home, PATH: path.dirname(process.execPath) }, encoding: 'utf8' });

describe('cli try: the try-it session of docs/dsh-side.md as one command', function () {
  this.timeout(60000);

  it('without DSH, or without the bundle in the profile: says what is missing and the install that adds it (exit 1)', () => {
    const home = tempDir('try-home-');
    const folder = workspace('{"servers":{}}');
    const none = run(['try', '--workspace', folder], home);
    assert.equal(none.status, 1);
    assert.match(none.stderr, /No DSH found: .*Install it first: dsh-bridge dsh install$/m);
    // A launcher but a profile without the bridge (another profile named: its install names it).
    stubLauncher(home);
    const noBundle = run(['try', '--workspace', folder, '--profile', 'work'], home);
    assert.equal(noBundle.status, 1);
    assert.match(noBundle.stderr, /Profile "work" does not load the bridge bundle dsh-bridge-dsh\. Install it first: dsh-bridge dsh install --profile work$/m);
  });

  it('runs DSH in the folder with the bundle\'s overlay and the guide\'s prompt, DSH\'s exit code as its own', () => {
    // DSH itself cannot run in the unit tier (npm run test:guide runs the real one through this
    // command): a stand-in launcher at the place dsh install puts it records how it was started.
    const home = tempDir('try-home-');
    const folder = workspace('{"servers":{}}');
    profileWithBundle(home);
    stubLauncher(home);
    const overlay = path.join(home, 'profiles', 'headless', 'node_modules', 'dsh-bridge-dsh', 'try', 'overlay.yml');
    assert.ok(existsSync(overlay), 'the bundle ships its overlay');
    const r = run(['try', '--workspace', folder], home);
    assert.equal(r.status, 3, r.stderr);
    assert.deepEqual(r.stdout.trim().split('\n'), [`cwd=${realpathSync(folder)}`, `home=${home}`, '--profile', 'headless', '--patch', overlay, 'try the bridge']);
    assert.match(r.stderr, /^Running in .+: .+ --profile headless --patch .+ 'try the bridge'$/m);
    // A prompt of one's own, in the current folder.
    const own = run(['try', 'try lsp hover main.ts:1:14 and skill hello'], home, folder);
    assert.equal(own.stdout.trim().split('\n').at(-1), 'try lsp hover main.ts:1:14 and skill hello');
    assert.equal(own.stdout.split('\n')[0], `cwd=${realpathSync(folder)}`);
  });
});

/** A stand-in `dsh` where `dsh-bridge dsh install` puts the launcher: prints where and how it ran, exits 3. */
function stubLauncher(home: string) {
  const wrapper = launcherWrapper(home);
  mkdirSync(path.dirname(wrapper), { recursive: true });
  writeFileSync(wrapper, '#!/bin/sh\necho "cwd=$(pwd -P)"\necho "home=$DSH_HOME"\nfor a in "$@"; do echo "$a"; done\nexit 3\n');
  chmodSync(wrapper, 0o755);
}
