import { strict as assert } from 'node:assert';
import { chmodSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_PROBE_TIMEOUT_MS, DOWNLOAD_PROBE_TIMEOUT_MS, packageLauncher, probeFolder, type ProbeFolderRequest } from '../../../../src/core/app/probe';
import { settingsViewOf } from '../../../../src/core/settings/folderSettings';
import { testPorts, tempDir, workspace } from '../../helpers';

// The probe's cancellation, per-server progress, and the time a package launcher's first start gets.
const FIXTURE = path.resolve(__dirname, '../../../fixtures/mcp-servers/tool-fixture.mjs');
const NODE = process.execPath;

function request(folder: string, extra: Partial<ProbeFolderRequest> = {}): ProbeFolderRequest {
  return { folder, folderName: path.basename(folder), userHome: '/home/dev', settings: settingsViewOf({}), env: { PATH: process.env.PATH, HOME: process.env.HOME }, ...extra };
}

describe('probe: cancel, progress, first package download', function () {
  this.timeout(60000);

  it('aborting stops the running server at once and starts no other; progress names each server as it starts', async () => {
    const folder = workspace(JSON.stringify({ servers: { first: { command: NODE, args: [FIXTURE, '--hang'] }, second: { command: NODE, args: [FIXTURE, '--hang'] } } }));
    const abort = new AbortController();
    const progress: string[] = [];
    const started = Date.now();
    const result = await probeFolder(testPorts(tempDir('dsh-home-')), request(folder, {
      timeoutMs: 30000, concurrency: 1, signal: abort.signal,
      onProgress: (name, index, total) => {
        progress.push(`${index} of ${total}: ${name}`);
        if (index === 1) setTimeout(() => abort.abort(), 500);
      },
    }));
    assert.ok(Date.now() - started < 10000, `took ${Date.now() - started} ms`);
    assert.deepEqual(result.servers.map((s) => [s.name, s.outcome]), [['first', 'cancelled'], ['second', 'cancelled']]);
    assert.match(result.servers[0].message, /cancelled by the user/);
    assert.match(result.servers[1].message, /cancelled before it started/);
    assert.deepEqual(progress, ['1 of 2: first', '2 of 2: second']);
  });

  it('a server started through a package launcher gets the download time; a time-out says it may have been a first download', async () => {
    assert.equal(packageLauncher('npx', ['-y', 'pkg']), 'npx');
    assert.equal(packageLauncher('/usr/bin/uvx', ['pkg']), 'uvx');
    assert.equal(packageLauncher('docker', ['run', '-i', 'img']), 'docker run');
    assert.equal(packageLauncher('node', ['server.js']), undefined);
    // A stand-in npx on PATH that never answers (the real one would download first).
    const bin = tempDir('bin-');
    writeFileSync(path.join(bin, 'npx'), `#!/bin/sh\nexec ${JSON.stringify(NODE)} ${JSON.stringify(FIXTURE)} --hang\n`);
    chmodSync(path.join(bin, 'npx'), 0o755);
    const folder = workspace(JSON.stringify({ servers: { pkg: { command: 'npx', args: ['-y', 'some-mcp-server@1.0.0'] }, local: { command: NODE, args: [FIXTURE] } } }));
    const env = { PATH: `${bin}:${process.env.PATH}`, HOME: process.env.HOME };
    const timeouts: Record<string, number> = {};
    await probeFolder(testPorts(tempDir('dsh-home-')), request(folder, { env, probeRow: async (row, options) => {
      timeouts[row.transport === 'stdio' ? row.command : ''] = options.timeoutMs;
      return { ok: false, failure: 'did-not-start', detail: 'x', elapsedMs: 0, stderr: '' };
    } }));
    assert.deepEqual(Object.values(timeouts).sort((a, b) => a - b), [DEFAULT_PROBE_TIMEOUT_MS, DOWNLOAD_PROBE_TIMEOUT_MS]);
    const result = await probeFolder(testPorts(tempDir('dsh-home-')), request(folder, { env, timeoutMs: 1500, names: ['pkg'] }));
    assert.equal(result.servers[0].outcome, 'timed-out', result.servers[0].message);
    assert.equal(result.servers[0].launcher, 'npx');
    assert.match(result.servers[0].message, /it starts through npx, which may still have been downloading the package on a first start/);
  });
});
