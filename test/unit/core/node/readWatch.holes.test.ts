// Changes a kept result must see although no inotify event reaches its watches (core/node/readWatch.ts):
// the kernel's event queue overflowing (libuv drops IN_Q_OVERFLOW: it carries no watch), and a
// mount over a folder on the way (a mount makes no inotify event). Real files, real inotify.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fs } from '../../../../src/core/node/fsReads';
import { FolderWatches, KeptWhileUnchanged } from '../../../../src/core/node/readWatch';
import { tempDir } from '../../helpers';

describe('a kept result where no event reaches its watches', function () {
  this.timeout(120000);
  before(function () {
    if (process.platform !== 'linux') this.skip();
  });

  it('the inotify queue overflowed (a burst of events while the event loop was busy): a change in it is seen at the next step', async () => {
    const folder = tempDir('kept-overflow-');
    const file = path.join(folder, 'policy.json');
    writeFileSync(file, 'allow');
    const watches = new FolderWatches();
    const kept = new KeptWhileUnchanged<string>(watches, {});
    const compute = () => fs.readFile(file, 'utf8');
    try {
      assert.equal(await kept.get('k', compute), 'allow');
      assert.equal(await kept.watching(), true);
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

  it('a folder on the way mounted over (mount --bind, in a private mount namespace): the next step reads the mounted file', function () {
    const probe = spawnSync('unshare', ['-m', '--propagation', 'private', 'true']);
    if (probe.status !== 0) this.skip(); // no mount namespaces here (not root, or no CAP_SYS_ADMIN)
    const fixture = path.join(__dirname, 'readWatch.mount.fixture.ts');
    const r = spawnSync('unshare', ['-m', '--propagation', 'private', process.execPath, '--import', 'tsx', fixture], { encoding: 'utf8', cwd: path.resolve(__dirname, '../../../..'), timeout: 60000 });
    assert.equal(r.status, 0, r.stderr);
    const seen = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
    assert.deepEqual(seen, { first: 'allow', watching: true, mounted: 'deny', computed: 2 });
  });
});
