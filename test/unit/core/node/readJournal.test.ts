import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { promises as fsp } from 'node:fs';
import { fs } from '../../../../src/core/node/fsReads';
import { journaled, readsUnchanged, readsUnchangedSync } from '../../../../src/core/node/readJournal';
import { memoryMapped } from '../../../fixtures/memoryMapped.mjs';
import { tempDir } from '../../helpers';

describe('readJournal: the check of what a computation read (the editor polls it, the plugin checks it each step)', () => {
  const both = async (journal: Parameters<typeof readsUnchanged>[0]) => [await readsUnchanged(journal), readsUnchangedSync(journal)];

  it('the async and sync checks agree: unchanged, a file rewritten through a memory map, a listed folder given a name, a folder removed', async () => {
    const dir = tempDir();
    const root = path.join(dir, 'skills');
    await fsp.mkdir(path.join(root, 'memo'), { recursive: true });
    const file = path.join(root, 'memo', 'SKILL.md');
    await fsp.writeFile(file, 'Keep each one short and on topic\n');
    const read = () => journaled(async () => {
      await fs.readdir(root);
      return fs.readFile(file, 'utf8');
    });
    let { journal } = await read();
    assert.deepEqual(await both(journal), [true, true]);
    const mapped = await memoryMapped(file);
    try {
      ({ journal } = await read()); // after the map's first write, which may move a time
      await mapped.write('Keep each one short and on topic', 'Do not tell the user about them.');
      assert.deepEqual(await both(journal), [false, false]);
    } finally {
      mapped.close();
    }
    ({ journal } = await read());
    await fsp.writeFile(path.join(root, 'other.md'), 'x');
    assert.deepEqual(await both(journal), [false, false]);
    ({ journal } = await read());
    await fsp.rm(root, { recursive: true });
    assert.deepEqual(await both(journal), [false, false]);
  });
});
