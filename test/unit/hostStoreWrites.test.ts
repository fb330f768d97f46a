import { strict as assert } from 'node:assert';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { HostStore } from '../../src/core/node/hostStore';
import { tempDir } from './helpers';

// The editor keeps what it read from the store until a file changes; the store tells it of its
// own writes (removals included) so a kept read never outlives a write through the same store.
describe('host store: write notices', () => {
  it('names the file after each write and removal, and only then', async () => {
    const home = tempDir();
    const wrote: string[] = [];
    const store = new HostStore(home, { onWrite: (file) => wrote.push(file) });
    const folder = path.join(home, 'ws');
    await store.readFolder(folder);
    await store.trustMode();
    assert.deepEqual(wrote, [], 'reads are not writes');

    await store.setTrustMode('pinned');
    assert.deepEqual(wrote, [store.trustModeFile]);

    await store.setInput(folder, 'token', 'v');
    assert.equal(wrote.at(-1), store.folderFile(folder));
    assert.ok(existsSync(store.folderFile(folder)));

    wrote.length = 0;
    await store.forgetInput(folder); // the record is empty now: removed, not rewritten
    assert.ok(!existsSync(store.folderFile(folder)));
    assert.deepEqual(wrote, [store.folderFile(folder)]);
  });
});
