// Run by readWatch.test.ts in a process with few file descriptors: a kept computation whose read
// fails with EMFILE (out of descriptors: it passes by itself, with no file event) is not kept.
// Prints one JSON line: what the computation saw and whether the next call computed again.
import { openSync, closeSync, writeFileSync, mkdtempSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fs } from '../../../../src/core/node/fsReads';
import { FolderWatches, KeptWhileUnchanged } from '../../../../src/core/node/readWatch';

async function main(): Promise<void> {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'kept-emfile-')), 'input.json');
  writeFileSync(file, '{}');
  const kept = new KeptWhileUnchanged<string>(new FolderWatches(), {});
  const compute = () => fs.readFile(file, 'utf8').then((text) => `read ${text}`, (error: NodeJS.ErrnoException) => `failed ${error.code}`);
  // Every descriptor taken: the read fails with EMFILE.
  const held: number[] = [];
  try {
    for (;;) held.push(openSync(file, 'r'));
  } catch {
    // out of descriptors
  }
  const first = await kept.get('k', compute);
  for (const fd of held) closeSync(fd);
  const watching = await kept.watching();
  const second = await kept.get('k', compute);
  const watchingAfter = await kept.watching();
  const third = await kept.get('k', compute);
  console.log(JSON.stringify({ first, watching, second, watchingAfter, third, computed: kept.computed }));
}
void main();
