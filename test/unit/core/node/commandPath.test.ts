import * as assert from 'node:assert/strict';
import { chmod, mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createPathResolver } from '../../../../src/core/node/commandPath';

describe('lsp: createPathResolver (this machine)', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'dsh-lsp-'));
    await mkdir(path.join(dir, 'bin'));
    await mkdir(path.join(dir, 'other'));
    await writeFile(path.join(dir, 'bin', 'srv'), '#!/bin/sh\n');
    await chmod(path.join(dir, 'bin', 'srv'), 0o755);
    await writeFile(path.join(dir, 'bin', 'plain'), 'not executable');
    await writeFile(path.join(dir, 'other', 'srv2'), '#!/bin/sh\n');
    await chmod(path.join(dir, 'other', 'srv2'), 0o755);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('finds bare names on PATH, honours a server PATH, verifies absolute paths', async function () {
    if (process.platform === 'win32') this.skip();
    const resolve = createPathResolver({ env: { PATH: `/nonexistent:${path.join(dir, 'bin')}` } });
    assert.equal(await resolve('srv', {}), path.join(dir, 'bin', 'srv'));
    assert.equal(await resolve('plain', {}), undefined);
    assert.equal(await resolve('srv2', {}), undefined);
    assert.equal(await resolve('srv2', { PATH: path.join(dir, 'other') }), path.join(dir, 'other', 'srv2'));
    assert.equal(await resolve(path.join(dir, 'bin', 'srv'), {}), path.join(dir, 'bin', 'srv'));
    assert.equal(await resolve(path.join(dir, 'bin'), {}), undefined);
    assert.equal(await resolve('bin/srv', {}), undefined);
  });
});
