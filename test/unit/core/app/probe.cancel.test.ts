import { strict as assert } from 'node:assert';
import { chmodSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { probeFolder, type ProbeFolderRequest } from '../../../../src/core/app/probe';
import { HostStore } from '../../../../src/core/node/hostStore';
import { testPorts, tempDir, userSettings, workspace } from '../../helpers';

// The probe's cancellation, per-server progress, and the time a package launcher's first start gets.
const FIXTURE = path.resolve(__dirname, '../../../fixtures/mcp-servers/tool-fixture.mjs');
const NODE = process.execPath;

function request(folder: string, extra: Partial<ProbeFolderRequest> = {}): ProbeFolderRequest {
  return { folder, folderName: path.basename(folder), userHome: '/home/dev', settings: userSettings({}), env: { PATH: process.env.PATH, HOME: process.env.HOME }, ...extra };
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
      onProgress: ({ probing, done, total }) => {
        progress.push(`${probing.map((p) => `${p.index} of ${total}: ${p.name}`).join(' + ')} (${done} done)`);
        if (progress.length === 1) setTimeout(() => abort.abort(), 500);
      },
    }));
    assert.ok(Date.now() - started < 10000, `took ${Date.now() - started} ms`);
    assert.deepEqual(result.servers.map((s) => [s.name, s.outcome]), [['first', 'cancelled'], ['second', 'cancelled']]);
    assert.match(result.servers[0].message, /cancelled by the user/);
    assert.match(result.servers[1].message, /cancelled before it started/);
    // "second" never started: it is never named as being probed.
    assert.deepEqual(progress, ['1 of 2: first (0 done)']);
  });

  it('two at once: progress names every server being probed, and once a quick one is done, the slow one still running (not the last started)', async () => {
    const folder = workspace(JSON.stringify({ servers: {
      slow: { command: NODE, args: [FIXTURE, '--hang'] },
      quick: { command: NODE, args: [FIXTURE] },
      broken: { command: NODE, args: [FIXTURE, '--exit-early'] },
    } }));
    const abort = new AbortController();
    const progress: string[] = [];
    const home = tempDir('dsh-home-');
    const result = await probeFolder(testPorts(home), request(folder, {
      timeoutMs: 30000, concurrency: 2, signal: abort.signal,
      onProgress: ({ probing, done, total }) => {
        progress.push(`${probing.map((p) => `${p.index} of ${total}: ${p.name}`).join(' + ')} (${done} done)`);
        if (done === 2) setTimeout(() => abort.abort(), 300);
      },
    }));
    assert.deepEqual(result.servers.map((s) => [s.name, s.outcome]), [['slow', 'cancelled'], ['quick', 'ok'], ['broken', 'did-not-start']]);
    // The last word is the slow one still running, not "broken", the last started.
    assert.deepEqual(progress, ['1 of 3: slow (0 done)', '1 of 3: slow + 2 of 3: quick (0 done)', '1 of 3: slow + 3 of 3: broken (1 done)', '1 of 3: slow (2 done)']);
    assert.deepEqual(Object.keys((await new HostStore(home).probedServers(folder))), ['quick'], 'only what was probed is recorded');
  });

  it('a server started through a package launcher gets the download time; a time-out says it may have been a first download', async () => {
    // Stand-ins on PATH that never answer (the real npx would download first).
    const bin = tempDir('bin-');
    for (const launcher of ['npx', 'uvx', 'docker']) {
      writeFileSync(path.join(bin, launcher), `#!/bin/sh\nexec ${JSON.stringify(NODE)} ${JSON.stringify(FIXTURE)} --hang\n`);
      chmodSync(path.join(bin, launcher), 0o755);
    }
    const folder = workspace(JSON.stringify({ servers: {
      pkg: { command: 'npx', args: ['-y', 'some-mcp-server@1.0.0'] },
      uv: { command: path.join(bin, 'uvx'), args: ['some-mcp-server'] },
      box: { command: 'docker', args: ['run', '-i', 'img'] },
      local: { command: NODE, args: [FIXTURE] },
    } }));
    const env = { PATH: `${bin}:${process.env.PATH}`, HOME: process.env.HOME };
    const timeouts: Record<string, number> = {};
    const stubbed = await probeFolder(testPorts(tempDir('dsh-home-')), request(folder, { env, probeRow: async (row, options) => {
      timeouts[row.serverName] = options.timeoutMs;
      return { ok: false, failure: 'did-not-start', detail: 'x', elapsedMs: 0, stderr: '' };
    } }));
    assert.deepEqual(Object.fromEntries(stubbed.servers.map((s) => [s.name, s.launcher])), { pkg: 'npx', uv: 'uvx', box: 'docker run', local: undefined });
    const [pkg, uv, box, local] = ['pkg', 'uv', 'box', 'local'].map((name) => timeouts[stubbed.servers.find((s) => s.name === name)?.serverName ?? '']);
    assert.ok(local > 0 && pkg > local && uv === pkg && box === pkg, JSON.stringify(timeouts));
    const result = await probeFolder(testPorts(tempDir('dsh-home-')), request(folder, { env, timeoutMs: 1500, names: ['pkg'] }));
    assert.equal(result.servers[0].outcome, 'timed-out', result.servers[0].message);
    assert.equal(result.servers[0].launcher, 'npx');
    assert.match(result.servers[0].message, /it starts through npx, which may still have been downloading the package on a first start/);
  });
});
