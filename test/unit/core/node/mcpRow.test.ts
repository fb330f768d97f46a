// The row a declared server starts from, for the DSH plugin and the probe (core/node/mcpRow.ts).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { buildRow } from '../../../../src/core/node/mcpRow';
import type { DeclaredServer } from '../../../../src/core/declaration/declarationModel';
import { sha256Hex } from '../../../../src/core/json/canonicalJson';

describe('mcpRow: buildRow', () => {
  const base = {
    name: 's', serverName: 's', toolCallTimeoutMs: 1000, failOnStartupError: false,
    reconnect: { enabled: true, initialDelayMs: 500, maxDelayMs: 30000, maxAttempts: 10 },
    inputRefs: ['tok'], envRefs: ['HOME_X'], pin: `sha256:${'0'.repeat(64)}`,
  };
  // A real folder: the cwd is resolved at start.
  const W = realpathSync(mkdtempSync(path.join(tmpdir(), 'row-cwd-')));
  after(() => rmSync(W, { recursive: true, force: true }));
  const stdio = { ...base, transport: 'stdio', command: 'node', args: ['a', ['--k=', { input: 'tok' }]], env: { K: [{ input: 'tok' }], H: [{ env: 'HOME_X' }] }, cwd: W } as DeclaredServer;
  const lookup = (inputs: Record<string, string>, env: Record<string, string>) => ({ input: (id: string) => inputs[id], env: (n: string) => env[n] });

  it('renders inputs and env into an explicit row', async () => {
    const r = await buildRow(stdio, W, lookup({ tok: 'T' }, { HOME_X: 'h' }));
    assert.deepEqual(r, { ok: true, row: { transport: 'stdio', serverName: 's', toolCallTimeoutMs: 1000, failOnStartupError: false, reconnect: base.reconnect, command: 'node', args: ['a', '--k=T'], env: { K: 'T', H: 'h' }, cwd: W } });
  });
  it('refuses a missing input or env value, naming it but no value', async () => {
    const r1 = await buildRow(stdio, W, lookup({}, { HOME_X: 'h' }));
    assert.equal(r1.ok, false);
    assert.match((r1 as { reason: string }).reason, /needs input "tok"/);
    const r2 = await buildRow(stdio, W, lookup({ tok: 'T' }, {}));
    assert.match((r2 as { reason: string }).reason, /environment variable HOME_X/);
  });
  it('envFile is loaded at start, declared env wins over it', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'row-'));
    try {
      writeFileSync(path.join(root, '.env'), 'K=from-file\nF=file-only\n');
      const r = await buildRow({ ...stdio, envFile: path.join(root, '.env') } as DeclaredServer, root, lookup({ tok: 'T' }, { HOME_X: 'h' }));
      assert.ok(r.ok);
      assert.deepEqual((r as { row: { env: object } }).row.env, { F: 'file-only', K: 'T', H: 'h' });
      // Pinned at export: a changed file refuses the server (the read at start is the one that counts).
      const pinned = { ...stdio, envFile: path.join(root, '.env'), envFileSha256: sha256Hex('K=from-file\nF=file-only\n') } as DeclaredServer;
      assert.equal((await buildRow(pinned, root, lookup({ tok: 'T' }, { HOME_X: 'h' }))).ok, true);
      writeFileSync(path.join(root, '.env'), 'K=from-file\nF=file-only\nNODE_OPTIONS=--require /tmp/x.js\n');
      assert.match(JSON.stringify(await buildRow(pinned, root, lookup({ tok: 'T' }, { HOME_X: 'h' }))), /envFile changed since the export/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
  it('cwd re-resolved at start: a folder replaced by a link out of the workspace is refused', async () => {
    const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'row-link-')));
    try {
      const ws = path.join(root, 'ws');
      const outside = path.join(root, 'outside');
      mkdirSync(path.join(ws, 'sub'), { recursive: true });
      mkdirSync(outside);
      const server = { ...stdio, cwd: path.join(ws, 'sub') } as DeclaredServer;
      const values = lookup({ tok: 'T' }, { HOME_X: 'h' });
      assert.equal((await buildRow(server, ws, values)).ok, true);
      rmSync(path.join(ws, 'sub'), { recursive: true });
      symlinkSync(outside, path.join(ws, 'sub'));
      assert.match(JSON.stringify(await buildRow(server, ws, values)), /cwd now resolves outside the workspace folder/);
      // A link that stays inside is followed, and the server gets the real folder.
      mkdirSync(path.join(ws, 'real'));
      rmSync(path.join(ws, 'sub'));
      symlinkSync(path.join(ws, 'real'), path.join(ws, 'sub'));
      const inside = await buildRow(server, ws, values);
      assert.equal(inside.ok && inside.row.transport === 'stdio' ? inside.row.cwd : undefined, path.join(ws, 'real'));
      // A cwd the user declared outside the folder stays theirs to choose.
      assert.equal((await buildRow({ ...stdio, cwd: outside } as DeclaredServer, ws, values)).ok, true);
      // The envFile is re-resolved too: a link out is refused.
      writeFileSync(path.join(outside, '.env'), 'A=1\n');
      symlinkSync(path.join(outside, '.env'), path.join(ws, '.env'));
      assert.match(JSON.stringify(await buildRow({ ...stdio, cwd: ws, envFile: path.join(ws, '.env') } as DeclaredServer, ws, values)), /link that leaves its folder/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
  it('applies the 0.2 rules rc.8 does not check', async () => {
    const http = { ...base, transport: 'streamable-http', url: [{ input: 'tok' }], headers: {} } as DeclaredServer;
    assert.match(JSON.stringify(await buildRow(http, '/w', lookup({ tok: 'not a url' }, {}))), /not a valid http or https URL/);
    assert.match(JSON.stringify(await buildRow(http, '/w', lookup({ tok: 'ftp://x' }, {}))), /not a valid http or https URL/);
    assert.equal((await buildRow(http, '/w', lookup({ tok: 'https://x/mcp' }, {}))).ok, true);
    assert.match(JSON.stringify(await buildRow({ ...stdio, command: ' ' } as DeclaredServer, W, lookup({ tok: 'T' }, { HOME_X: 'h' }))), /blank/);
  });
});
