import { strict as assert } from 'node:assert';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { findDeclarationFolder } from '../../../../src/core/node/declarationLookup';
import { tempDir } from '../../helpers';

// The plugin's lookup of a session's declaration (a session started in a subfolder).
describe('findDeclarationFolder', () => {
  const declare = (folder: string) => {
    mkdirSync(path.join(folder, '.dsh'), { recursive: true });
    writeFileSync(path.join(folder, '.dsh', 'declaration.json'), '{}');
  };
  const dirs = (...parts: string[]) => {
    const dir = path.join(...parts);
    mkdirSync(dir, { recursive: true });
    return dir;
  };

  it('finds the nearest declaration up to the project root (.git)', async () => {
    const root = tempDir();
    const project = dirs(root, 'project');
    mkdirSync(path.join(project, '.git'));
    declare(project);
    const deep = dirs(project, 'a', 'b');
    assert.deepEqual(await findDeclarationFolder(deep, root), { folder: project, looked: [deep, path.join(project, 'a'), project] });
    // A nearer declaration wins.
    declare(path.join(project, 'a'));
    assert.equal((await findDeclarationFolder(deep, root)).folder, path.join(project, 'a'));
  });

  it('never looks above the project root', async () => {
    const root = tempDir();
    declare(root);
    const inner = dirs(root, 'inner');
    mkdirSync(path.join(inner, '.git'));
    const sub = dirs(inner, 'sub');
    assert.deepEqual(await findDeclarationFolder(sub, '/'), { looked: [sub, inner] });
  });

  it('never looks above the home, even with a .git higher up', async () => {
    const root = tempDir();
    mkdirSync(path.join(root, '.git'));
    declare(root);
    const home = dirs(root, 'home');
    const sub = dirs(home, 'work');
    assert.deepEqual(await findDeclarationFolder(sub, home), { looked: [sub, home] });
  });

  it('without a .git above, looks at the session folder only (DSH takes it as the project root)', async () => {
    const root = tempDir();
    declare(root);
    const sub = dirs(root, 'sub');
    assert.deepEqual(await findDeclarationFolder(sub, '/'), { looked: [sub] });
  });
});
