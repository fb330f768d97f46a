// The probe's client against hostile real servers (test/fixtures/mcp-servers/scripted-server.mjs):
// reads that never end, processes that outlive the server, secrets the server repeats.
import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { MAX_MESSAGE_BYTES } from '../../../../../src/core/node/probe/jsonRpcSession';
import { MAX_LIST_BYTES, probeRow } from '../../../../../src/core/node/probe/probeClient';
import { ProcessWatch } from '../../../../../src/core/node/probe/processTree';
import type { McpClientConfig } from '../../../../../src/core/mcp/dshRow';
import { secretMask } from '../../../../../src/core/tools/maskSecrets';
import { processRuns, tempDir } from '../../../helpers';
import { http, NODE, SCRIPTED, startHttp, stdio } from './scriptedServer.fixture';

/** The process ids a scripted server appended to `file`. */
function pidsIn(file: string): number[] {
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number);
}

function killAll(pids: number[]): void {
  for (const pid of pids) {
    try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
  }
}

describe('probe client: every read is bounded', function () {
  this.timeout(60000);

  for (const [shape, what] of [['--endless-json', 'a JSON body'], ['--endless-sse', 'an SSE event']] as const) {
    it(`${what} that never ends: not-mcp once it passes ${MAX_MESSAGE_BYTES} bytes, well before the timeout`, async () => {
      const { child, url } = await startHttp([shape]);
      try {
        const started = Date.now();
        const result = await probeRow(http(url), { timeoutMs: 4000, parentEnv: {} });
        assert.equal(result.ok, false);
        assert.equal(!result.ok && result.failure, 'not-mcp', JSON.stringify(result));
        assert.match(!result.ok ? result.detail : '', new RegExp(`more than ${MAX_MESSAGE_BYTES} bytes`));
        assert.ok(Date.now() - started < 4000, `took ${Date.now() - started} ms`);
      } finally {
        child.kill();
      }
    });
  }
});

describe('probe client: what a server started is stopped with it', function () {
  this.timeout(60000);
  before(function () {
    if (!ProcessWatch.supported) this.skip(); // process groups and /proc: Linux
  });

  it('issue 37: many large pages (100 pages of 1 MiB) stop at the bound for the whole list, which says what was cut', async () => {
    const result = await probeRow(stdio([SCRIPTED, '--large-pages', String(1024 * 1024)]), { timeoutMs: 60_000, parentEnv: process.env });
    assert.ok(!result.ok);
    assert.equal(result.failure, 'not-mcp');
    assert.match(result.detail, new RegExp(`tools/list answers passed the probe's bound for one list \\(${MAX_LIST_BYTES} bytes\\) at page 16, with 16 items .*nothing of the list is recorded or pinned`));
  });

  it('children, plain and detached (their own session), are gone when the probe returns', async () => {
    const file = path.join(tempDir('pids-'), 'pids');
    writeFileSync(file, '');
    let server = 0;
    const result = await probeRow(stdio([SCRIPTED, '--children', file]), { timeoutMs: 10000, parentEnv: process.env, onSpawn: (pid) => { server = pid; } });
    const pids = pidsIn(file);
    try {
      assert.equal(result.ok, true, JSON.stringify(result));
      assert.equal(pids.length, 2);
      assert.deepEqual([server, ...pids].filter(processRuns), [], 'nothing it started still runs');
      assert.equal(result.leftRunning, undefined);
    } finally {
      killAll(pids);
    }
  });

  it('a process that leaves the group where the probe cannot see it (a double fork on SIGTERM) is named in the result', async () => {
    const file = path.join(tempDir('pids-'), 'pids');
    writeFileSync(file, '');
    const result = await probeRow(stdio([SCRIPTED, '--escape-on-term', file]), { timeoutMs: 10000, parentEnv: process.env });
    const pids = pidsIn(file);
    try {
      assert.equal(pids.length, 1);
      assert.ok(processRuns(pids[0]), 'the fixture escaped');
      assert.deepEqual(result.leftRunning, [{ pid: pids[0], command: 'sleep 600' }]);
    } finally {
      killAll(pids);
    }
  });
});

describe('probe client: a server\'s text is masked before it is cut', function () {
  this.timeout(60000);
  const secret = 'tok_0123456789abcdefghijklmnopqrstuvwxyz';

  it('stderr cut at its limit inside a secret shows no part of it', async () => {
    // The secret starts 36 characters before the 16 KiB limit: 36 of its 40 characters were captured.
    const row = stdio([SCRIPTED, '--secret', 'TOK', '--stderr-secret-at', String(16 * 1024 - 36)], { TOK: secret });
    const result = await probeRow(row, { timeoutMs: 10000, parentEnv: process.env, mask: secretMask([secret]) });
    assert.equal(result.ok, true);
    assert.ok(!result.stderr.includes(secret.slice(0, 8)), JSON.stringify(result.stderr.trim()));
  });

  it('a line on stdout that is not JSON is quoted masked', async () => {
    const row = stdio([SCRIPTED, '--secret', 'TOK', '--stdout-secret'], { TOK: secret });
    const result = await probeRow(row, { timeoutMs: 1500, parentEnv: process.env, mask: secretMask([secret]) });
    assert.equal(!result.ok && result.failure, 'not-mcp');
    assert.match(!result.ok ? result.detail : '', /"\*\*\*" is not valid JSON/);
    assert.ok(!JSON.stringify(result).includes(secret.slice(0, 6)), JSON.stringify(result));
  });
});
