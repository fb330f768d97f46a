import { strict as assert } from 'node:assert';
import { mkdirSync, readdirSync, realpathSync, renameSync, watch, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { ConfinedDir, ConfinementError } from '../../../../src/core/node/atomicWrite';
import { tempDir } from '../../helpers';

const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

describe('ConfinedDir: writes land in the checked folder or nowhere', () => {
  it('a folder moved out of the workspace between the open and the write gets nothing, not even a temp file for a moment', async () => {
    const workspace = realpathSync(tempDir('ws-'));
    const dsh = path.join(workspace, '.dsh');
    mkdirSync(dsh);
    writeFileSync(path.join(dsh, 'declaration.json'), '{"old": true}\n');
    const dir = await ConfinedDir.open(dsh, workspace);
    const outside = path.join(tempDir('outside-'), 'moved');
    try {
      renameSync(dsh, outside); // the held folder now lies outside the workspace
      // Every name created or removed in the moved folder, however briefly (inotify on Linux).
      const seen: string[] = [];
      const watcher = watch(outside, (event, name) => seen.push(`${event} ${name}`));
      try {
        await assert.rejects(dir.write('declaration.json', '{"new": true}\n'), ConfinementError);
        await assert.rejects(dir.write('.gitignore', 'declaration.json\n'), ConfinementError);
        await settle();
      } finally {
        watcher.close();
      }
      assert.deepEqual(seen, [], 'something was created in the folder outside the workspace');
      assert.deepEqual(readdirSync(outside), ['declaration.json']);
    } finally {
      await dir.close();
    }
  });

  it('a folder that stays where it was is written as before', async () => {
    const workspace = realpathSync(tempDir('ws-'));
    const dsh = path.join(workspace, '.dsh');
    mkdirSync(dsh);
    const dir = await ConfinedDir.open(dsh, workspace);
    try {
      await dir.write('declaration.json', '{"new": true}\n');
    } finally {
      await dir.close();
    }
    assert.deepEqual(readdirSync(dsh), ['declaration.json']);
  });
});

describe('ConfinedDir: a folder moved out while it is written to (issue 37)', () => {
  /**
   * Moves `.dsh` out of the workspace after `hops` turns of the event loop (every fourth a timer) (the write's file
   * calls run on libuv's threads meanwhile), then records every temp file the moved folder holds
   * or gets: what it held at the move (a temp file that moved with it) and what it got after.
   */
  async function moveAfter(hops: number, dsh: string, outside: string): Promise<{ moved: boolean; seen: () => string[]; stop: () => void }> {
    for (let i = 0; i < hops; i++) await new Promise((resolve) => (i % 4 === 3 ? setTimeout(resolve, 0) : setImmediate(resolve)));
    try {
      renameSync(dsh, outside);
    } catch {
      return { moved: false, seen: () => [], stop: () => undefined };
    }
    const events: string[] = [];
    const watcher = watch(outside, (_, name) => events.push(String(name)));
    const atMove = readdirSync(outside);
    return { moved: true, seen: () => [...new Set([...atMove, ...events])].filter((n) => n.endsWith('.tmp')), stop: () => watcher.close() };
  }

  it('never shows a temp file in the moved folder, at whatever moment of the write it moves (100 runs)', async function () {
    this.timeout(120000);
    let moved = 0;
    let written = 0;
    const showed: string[] = [];
    for (let run = 0; run < 100; run++) {
      const workspace = realpathSync(tempDir('ws-'));
      const dsh = path.join(workspace, '.dsh');
      mkdirSync(dsh);
      writeFileSync(path.join(dsh, 'declaration.json'), '{"old": true}\n');
      const outside = path.join(tempDir('outside-'), 'moved');
      const dir = await ConfinedDir.open(dsh, workspace);
      try {
        const write = dir.write('declaration.json', `{"run": ${run}, "pad": "${'x'.repeat(64 * 1024)}"}\n`).then(() => true, (error) => {
          if (!(error instanceof ConfinementError)) throw error;
          return false;
        });
        const mover = await moveAfter(run, dsh, outside);
        if (await write) written++;
        await new Promise((resolve) => setTimeout(resolve, 50));
        mover.stop();
        if (mover.moved) moved++;
        if (mover.seen().length) showed.push(`run ${run}: ${mover.seen().join(', ')}`);
      } finally {
        await dir.close();
      }
    }
    assert.ok(moved > 0 && written > 0, `the race was not exercised (moved ${moved}, written ${written})`);
    assert.deepEqual(showed, [], 'the moved folder showed temp files');
  });
});
