// Run by readWatch.holes.test.ts in a private mount namespace: a kept computation reads a file in
// a local folder, then a file system whose changes inotify does not report (proc) is mounted over
// that folder. Prints one JSON line: whether each result was kept (watched) and how many times it
// was computed over three steps.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fs } from '../../../../src/core/node/fsReads';
import { FolderWatches, KeptWhileUnchanged } from '../../../../src/core/node/readWatch';

async function main(): Promise<void> {
  const folder = path.join(mkdtempSync(path.join(os.tmpdir(), 'kept-remount-')), 'ws');
  mkdirSync(folder);
  writeFileSync(path.join(folder, 'loadavg'), 'local');
  const kept = new KeptWhileUnchanged<string>(new FolderWatches(), {});
  const compute = () => fs.readFile(path.join(folder, 'loadavg'), 'utf8');
  try {
    await kept.get('k', compute);
    const watching = await kept.watching();
    execFileSync('mount', ['-t', 'proc', 'proc', folder]);
    await kept.get('k', compute);
    const watchingAfterMount = await kept.watching();
    await kept.get('k', compute);
    console.log(JSON.stringify({ watching, watchingAfterMount, computed: kept.computed }));
  } finally {
    kept.close();
    try {
      execFileSync('umount', [folder]);
    } catch {
      // not mounted
    }
  }
}
void main();
