import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { readWorkspaceFile } from '../../../../src/core/node/reader';
import { tempDir, workspace } from '../../helpers';

describe('reader', () => {
  it('refuses a FIFO without hanging, a link out of the folder, and an over-size file', async () => {
    const folder = workspace(undefined);
    mkdirSync(path.join(folder, '.vscode'));
    execFileSync('mkfifo', [path.join(folder, '.vscode', 'mcp.json')]);
    const fifo = await readWorkspaceFile(folder, '.vscode/mcp.json');
    assert.deepEqual(fifo, { ok: false, failure: { kind: 'not-a-regular-file' } });

    const outside = tempDir();
    writeFileSync(path.join(outside, 'mcp.json'), '{}');
    const linked = workspace(undefined);
    symlinkSync(outside, path.join(linked, '.vscode'));
    assert.deepEqual(await readWorkspaceFile(linked, '.vscode/mcp.json'), { ok: false, failure: { kind: 'outside-workspace' } });

    const big = workspace(`{"x": "${'a'.repeat(1024 * 1024)}"}`);
    const r = await readWorkspaceFile(big, '.vscode/mcp.json');
    assert.equal(r.ok, false);
    assert.equal(!r.ok && r.failure.kind, 'too-large');

    assert.deepEqual(await readWorkspaceFile(workspace(undefined), '.vscode/mcp.json'), { ok: false, failure: { kind: 'missing' } });
    const dirAsFile = workspace(undefined, { '.vscode/mcp.json/x': '' });
    assert.deepEqual(await readWorkspaceFile(dirAsFile, '.vscode/mcp.json'), { ok: false, failure: { kind: 'not-a-regular-file' } });
  });

  it('follows a link that stays inside the folder', async () => {
    const folder = workspace(undefined, { 'config/mcp.json': '{"servers": {}}' });
    mkdirSync(path.join(folder, '.vscode'));
    symlinkSync(path.join(folder, 'config/mcp.json'), path.join(folder, '.vscode/mcp.json'));
    const r = await readWorkspaceFile(folder, '.vscode/mcp.json');
    assert.equal(r.ok, true);
  });
});
