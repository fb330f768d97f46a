// Run by keptWhileUnchanged.test.ts in a process with few file descriptors: a kept computation whose read
// fails with EMFILE (out of descriptors: it passes by itself, with nothing on disk to say so) is not kept.
// Prints one JSON line: what the computation saw and whether the next call computed again.
import { openSync, closeSync, writeFileSync, mkdtempSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readFileSync } from '../../../../src/core/node/fsReads';
import { KeptWhileUnchanged } from '../../../../src/core/node/keptWhileUnchanged';

async function main(): Promise<void> {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'kept-emfile-')), 'input.json');
  writeFileSync(file, '{}');
  const kept = new KeptWhileUnchanged<string>({});
  // The first computation takes every descriptor, then reads: the read fails with EMFILE. All in
  // one synchronous run, so nothing else frees a descriptor in between (under load, something of
  // the process did, between a fill made before the computation and its read).
  let starve = true;
  const compute = async () => {
    const held: number[] = [];
    try {
      if (starve) for (;;) held.push(openSync(file, 'r'));
    } catch {
      // out of descriptors
    }
    try {
      return `read ${readFileSync(file, 'utf8')}`;
    } catch (error) {
      return `failed ${(error as NodeJS.ErrnoException).code}`;
    } finally {
      for (const fd of held) closeSync(fd);
      starve = false;
    }
  };
  const first = await kept.get('k', compute);
  const keeping = kept.keeping();
  const second = await kept.get('k', compute);
  const keepingAfter = kept.keeping();
  const third = await kept.get('k', compute);
  console.log(JSON.stringify({ first, keeping, second, keepingAfter, third, computed: kept.computed }));
}
void main();
