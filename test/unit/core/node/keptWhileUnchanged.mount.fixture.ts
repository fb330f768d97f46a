// Run by keptWhileUnchanged.holes.test.ts in a private mount namespace: a kept computation reads a file in
// a folder, then another folder is bind-mounted over that one (a mount makes no inotify event).
// Prints one JSON line: what the computation read before and after the mount.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fs } from '../../../../src/core/node/fsReads';
import { KeptWhileUnchanged } from '../../../../src/core/node/keptWhileUnchanged';

async function main(): Promise<void> {
  const base = mkdtempSync(path.join(os.tmpdir(), 'kept-mount-'));
  const home = path.join(base, 'home');
  const other = path.join(base, 'other');
  mkdirSync(home);
  mkdirSync(other);
  writeFileSync(path.join(home, 'policy.json'), 'allow');
  writeFileSync(path.join(other, 'policy.json'), 'deny');
  const kept = new KeptWhileUnchanged<string>({});
  const compute = () => fs.readFile(path.join(home, 'policy.json'), 'utf8');
  try {
    const first = await kept.get('k', compute);
    const keeping = kept.keeping();
    execFileSync('mount', ['--bind', other, home]);
    const mounted = await kept.get('k', compute);
    console.log(JSON.stringify({ first, keeping, mounted, computed: kept.computed }));
  } finally {
    kept.close();
    try {
      execFileSync('umount', [home]);
    } catch {
      // not mounted
    }
  }
}
void main();
