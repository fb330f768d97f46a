import * as assert from 'node:assert/strict';
import { chmod, mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { LSP_DEFAULT_LIMITS } from '../../../../src/core/lsp/lspModel';
import { LSP_PROBLEM_CODES } from '../../../../src/core/lsp/lspCodes';
import { finalExtension, lspServerFor, normalizeLspExtension } from '../../../../src/core/lsp/lspRouting';
import { validateLspServers } from '../../../../src/core/lsp/lspValidation';
import type { CommandResolver } from '../../../../src/core/lsp/lspCommand';
import { placeSettingProblems, settingRange } from '../../../../src/core/settings/settingsFile';
import { createPathResolver } from '../../../../src/core/node/commandPath';
import { describeLspServers, lspReviewLines } from '../../../../src/core/lsp/lspRow';
import type { LspDeclarationSection } from '../../../../src/core/declaration/declarationModel';
import { rawHidden } from '../../helpers';

const known = new Set(['tsserver', 'pylsp', 'gopls']);
const resolveCommand: CommandResolver = (command) => (known.has(command) || command === '/opt/bin/server' ? `/usr/bin/${command}` : undefined);
const ts = (extra: Record<string, unknown> = {}) => ({ command: 'tsserver', extensions: { '.ts': 'typescript' }, ...extra });

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
