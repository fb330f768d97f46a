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
