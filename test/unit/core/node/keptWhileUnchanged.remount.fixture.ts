// Run by keptWhileUnchanged.holes.test.ts in a private mount namespace: a kept computation reads a file in
// a local folder, then a file system whose changes inotify does not report (proc) is mounted over
// that folder. Prints one JSON line: what the steps read before and after the mount, and how many
// times the result was computed.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fs } from '../../../../src/core/node/fsReads';
import { KeptWhileUnchanged } from '../../../../src/core/node/keptWhileUnchanged';

async function main(): Promise<void> {
  const folder = path.join(mkdtempSync(path.join(os.tmpdir(), 'kept-remount-')), 'ws');
  mkdirSync(folder);
  writeFileSync(path.join(folder, 'loadavg'), 'local');
  const kept = new KeptWhileUnchanged<string>({});
  const compute = () => fs.readFile(path.join(folder, 'loadavg'), 'utf8');
  try {
    const first = await kept.get('k', compute);
    const keeping = kept.keeping();
    execFileSync('mount', ['-t', 'proc', 'proc', folder]);
    const afterMount = await kept.get('k', compute);
    console.log(JSON.stringify({ keeping, first, afterMountIsLocal: afterMount === 'local', computed: kept.computed }));
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
