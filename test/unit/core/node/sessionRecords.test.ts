import { strict as assert } from 'node:assert';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { HostStore } from '../../../../src/core/node/hostStore';
import { MAX_FILE_BYTES, MAX_SESSIONS, type SessionRecord } from '../../../../src/core/node/sessionRecords';
import { tempDir } from '../../helpers';

function record(id: string, at: number, extra: Partial<SessionRecord> = {}): SessionRecord {
  return {
    id, cwd: '/w', startedAt: new Date(at).toISOString(), updatedAt: new Date(at).toISOString(), trustMode: 'pinned', blocked: [],
    servers: [{ serverName: 'a', name: 'a', pin: 'sha256:1', planned: 'starts', state: 'started', tools: 2 }],
    tools: { offered: ['mcp__a__x', 'mcp__a__y'], withheld: [] }, skills: { withheld: [] }, ...extra,
  };
}

describe('session records (bridge/sessions/<folder hash>.json)', () => {
  it('keeps one record per session id (a later one replaces it), oldest first, in a 0600 file under a 0700 folder', async () => {
    const home = tempDir();
    const folder = tempDir('ws-');
    const records = new HostStore(home, { log: () => undefined }).sessions;
    assert.deepEqual(await records.list(folder), []);
    await Promise.all([records.record(folder, record('s1', 1000)), records.record(folder, record('s2', 2000))]);
    await records.record(folder, record('s1', 3000, { tools: { offered: [], withheld: [{ name: 'mcp__a__x', why: 'left out by dsh.tools' }] } }));
    const listed = await records.list(folder);
    assert.deepEqual(listed.map((s) => [s.id, s.updatedAt]), [['s2', new Date(2000).toISOString()], ['s1', new Date(3000).toISOString()]]);
    assert.deepEqual(listed[1].tools.withheld, [{ name: 'mcp__a__x', why: 'left out by dsh.tools' }]);
    if (process.platform !== 'win32') {
      assert.equal(statSync(records.file(folder)).mode & 0o777, 0o600);
      assert.equal(statSync(path.dirname(records.file(folder))).mode & 0o777, 0o700);
    }
  });

  it(`keeps the newest ${MAX_SESSIONS} sessions of a folder, and drops the oldest while the file is over ${MAX_FILE_BYTES / 1024} KiB`, async () => {
    const home = tempDir();
    const folder = tempDir('ws-');
    const records = new HostStore(home, { log: () => undefined }).sessions;
    for (let i = 0; i < MAX_SESSIONS + 5; i++) await records.record(folder, record(`s${i}`, i));
    const kept = await records.list(folder);
    assert.equal(kept.length, MAX_SESSIONS);
    assert.equal(kept[0].id, 's5');
    // Sessions of ~40 KiB each: only a few fit, the newest always stays.
    const big = (id: string, at: number) => record(id, at, { tools: { offered: Array.from({ length: 600 }, (_, i) => `mcp__big__tool_number_${i}_${'x'.repeat(30)}`), withheld: [] } });
    for (let i = 0; i < 10; i++) await records.record(folder, big(`b${i}`, 100 + i));
    const bounded = await records.list(folder);
    assert.ok(readFileSync(records.file(folder)).byteLength <= MAX_FILE_BYTES);
    assert.equal(bounded.at(-1)!.id, 'b9');
    assert.ok(bounded.length < 10 && bounded.length > 1, `${bounded.length} kept`);
  });

  it('a record of another folder, or one not of its shape, is refused on read and started again by the next write', async () => {
    const home = tempDir();
    const folder = tempDir('ws-');
    const records = new HostStore(home, { log: () => undefined }).sessions;
    mkdirSync(path.dirname(records.file(folder)), { recursive: true, mode: 0o700 });
    writeFileSync(records.file(folder), JSON.stringify({ version: 1, folder: '/elsewhere', sessions: [] }), { mode: 0o600 });
    await assert.rejects(records.list(folder), /does not match its folder/);
    writeFileSync(records.file(folder), '{"version":1', { mode: 0o600 });
    await assert.rejects(records.list(folder), /not valid JSON/);
    await records.record(folder, record('s1', 1));
    assert.deepEqual((await records.list(folder)).map((s) => s.id), ['s1']);
  });
});
