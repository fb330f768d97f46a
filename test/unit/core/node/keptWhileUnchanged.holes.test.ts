// Changes a kept result must see although no inotify event would say them (core/node/keptWhileUnchanged.ts):
// the kernel's event queue overflowing (libuv drops IN_Q_OVERFLOW: it carries no watch), and a
// mount over a folder on the way (a mount makes no inotify event). Real files, real inotify.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fs } from '../../../../src/core/node/fsReads';
import { KeptWhileUnchanged } from '../../../../src/core/node/keptWhileUnchanged';
import { tempDir } from '../../helpers';

describe('a kept result where no file event would say a change', function () {
  this.timeout(120000);
  before(function () {
    if (process.platform !== 'linux') this.skip();
  });

  it('the inotify queue overflowed (a burst of events while the event loop was busy): a change in it is seen at the next step', async () => {
    const folder = tempDir('kept-overflow-');
    const file = path.join(folder, 'policy.json');
    writeFileSync(file, 'allow');
    const kept = new KeptWhileUnchanged<string>({});
    const compute = () => fs.readFile(file, 'utf8');
    try {
      assert.equal(await kept.get('k', compute), 'allow');
      assert.equal(kept.keeping(), true);
      // The event loop is busy (a long synchronous piece of work) while a build churns beside the
      // file: more events than the kernel queues (fs.inotify.max_queued_events) before one is read.
      const max = Number(readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8'));
      for (let i = 0; i <= max; i++) writeFileSync(path.join(folder, `churn-${i}.tmp`), '');
      // Then the user's change: its event is past the overflow, dropped by the kernel.
      writeFileSync(file, 'deny');
      assert.equal(await kept.get('k', compute), 'deny');
      assert.equal(kept.computed, 2);
    } finally {
      kept.close();
    }
  });

  /** Runs a fixture in a private mount namespace and returns the JSON line it prints (skips where there are no mount namespaces). */
  function inMountNamespace(test: Mocha.Context, fixture: string): unknown {
    const namespace = ['-m', '--propagation', 'private'];
    if (spawnSync('unshare', [...namespace, 'true']).status !== 0) test.skip(); // not root, or no CAP_SYS_ADMIN
    const r = spawnSync('unshare', [...namespace, process.execPath, '--import', 'tsx', path.join(__dirname, fixture)], { encoding: 'utf8', cwd: path.resolve(__dirname, '../../../..'), timeout: 60000 });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout.trim().split('\n').at(-1)!);
  }

  it('a folder on the way mounted over (mount --bind, in a private mount namespace): the next step reads the mounted file', function () {
    assert.deepEqual(inMountNamespace(this, 'keptWhileUnchanged.mount.fixture.ts'), { first: 'allow', keeping: true, mounted: 'deny', computed: 2 });
  });

  it('a file system whose changes inotify does not report (proc) mounted over a folder that was local: the next step reads what is mounted there', function () {
    assert.deepEqual(inMountNamespace(this, 'keptWhileUnchanged.remount.fixture.ts'), { keeping: true, first: 'local', afterMountIsLocal: false, computed: 2 });
  });

  it('a link in the middle of a chain of links pointed elsewhere: the next step reads the new target', async () => {
    // settings.json -> ../shared/current (a link) -> v1/settings.json; the middle link is moved to v2.
    const base = tempDir('kept-chain-');
    for (const [dir, text] of [['v1', 'allow'], ['v2', 'deny']]) {
      mkdirSync(path.join(base, dir));
      writeFileSync(path.join(base, dir, 'settings.json'), text);
    }
    mkdirSync(path.join(base, 'shared'));
    mkdirSync(path.join(base, 'home'));
    symlinkSync('../v1/settings.json', path.join(base, 'shared/current'));
    symlinkSync('../shared/current', path.join(base, 'home/settings.json'));
    const file = path.join(base, 'home/settings.json');
    const kept = new KeptWhileUnchanged<string>({});
    const compute = () => fs.readFile(file, 'utf8');
    try {
      assert.equal(await kept.get('k', compute), 'allow');
      assert.equal(kept.keeping(), true);
      rmSync(path.join(base, 'shared/current'));
      symlinkSync('../v2/settings.json', path.join(base, 'shared/current'));
      assert.equal(await kept.get('k', compute), 'deny');
      assert.equal(kept.computed, 2);
    } finally {
      kept.close();
    }
  });
});

describe('a kept result closed while it computes (a session ended, the plugin unloaded, during a step)', function () {

  it('keeps nothing once it is closed: no result is held for a session that ended', async () => {
    const folder = tempDir('kept-closed-');
    writeFileSync(path.join(folder, 'settings.json'), '{}');
    const kept = new KeptWhileUnchanged<string>({});
    let finish!: () => void;
    const gate = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const step = kept.get('k', async () => {
      const text = await fs.readFile(path.join(folder, 'settings.json'), 'utf8');
      await gate;
      return text;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The session ends (Bridge.endSession, SkillGate.detach) while its step computes.
    kept.close();
    finish();
    assert.equal(await step, '{}');
    assert.equal(kept.keeping(), false, 'nothing kept for a result nobody holds');
  });
});
