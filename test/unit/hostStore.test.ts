import { strict as assert } from 'node:assert';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { HostStore } from '../../src/core/node/hostStore';
import { tempDir } from './helpers';

/** Ids a plain object would look up on Object.prototype, or take as its prototype. */
const PROTOTYPE_IDS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype'];

describe('host store: keys that name Object.prototype members', () => {
  it('input values under __proto__, constructor, toString... are stored, read back, kept by a later set and forgotten one by one', async () => {
    const home = tempDir();
    const folder = tempDir('ws-');
    const store = new HostStore(home, { log: () => undefined });
    for (const [i, id] of PROTOTYPE_IDS.entries()) await store.setInput(folder, id, `value-${i}`);
    await store.setInput(folder, 'other', 'plain');
    const record = await store.readFolder(folder);
    assert.deepEqual([...record.inputs], [...PROTOTYPE_IDS.map((id, i) => [id, `value-${i}`]), ['other', 'plain']]);
    // On disk as own keys: the DSH plugin and an older bridge read the same JSON.
    const onDisk = JSON.parse(readFileSync(store.folderFile(folder), 'utf8')) as { inputs: object };
    assert.deepEqual(Object.keys(onDisk.inputs), [...PROTOTYPE_IDS, 'other']);
    assert.equal(Object.getPrototypeOf(onDisk.inputs), Object.prototype);

    await store.forgetInput(folder, '__proto__');
    assert.deepEqual([...(await store.readFolder(folder)).inputs.keys()], [...PROTOTYPE_IDS.slice(1), 'other']);
    assert.equal((await store.readFolder(folder)).inputs.get('constructor'), 'value-1');
    assert.equal(new HostStore(home).folderFile(folder), store.folderFile(folder));
  });

  it('an id that is not stored is not found on the prototype', async () => {
    const home = tempDir();
    const folder = tempDir('ws-');
    const store = new HostStore(home, { log: () => undefined });
    await store.setInput(folder, 'token', 'v');
    const { inputs } = await store.readFolder(folder);
    for (const id of PROTOTYPE_IDS) assert.equal(inputs.get(id), undefined, id);
  });

  it('a record written by hand with a "__proto__" input is read as that input, not as a prototype', async () => {
    const home = tempDir();
    const folder = tempDir('ws-');
    const store = new HostStore(home, { log: () => undefined });
    mkdirSync(path.dirname(store.folderFile(folder)), { recursive: true, mode: 0o700 });
    writeFileSync(store.folderFile(folder), `{"version": 1, "folder": ${JSON.stringify(folder)}, "inputs": {"__proto__": "v", "toString": "w"}, "approvals": []}`, { mode: 0o600 });
    const { inputs } = await store.readFolder(folder);
    assert.deepEqual([...inputs], [['__proto__', 'v'], ['toString', 'w']]);
  });

  it('a record whose input value is not a string is refused as malformed', async () => {
    const home = tempDir();
    const folder = tempDir('ws-');
    const store = new HostStore(home, { log: () => undefined });
    mkdirSync(path.dirname(store.folderFile(folder)), { recursive: true, mode: 0o700 });
    writeFileSync(store.folderFile(folder), `{"version": 1, "folder": ${JSON.stringify(folder)}, "inputs": {"__proto__": 1}, "approvals": []}`, { mode: 0o600 });
    await assert.rejects(store.readFolder(folder), /does not have the expected shape/);
  });

  it('a probe recorded under the serverName "__proto__" is read back as its own entry', async () => {
    const home = tempDir();
    const folder = tempDir('ws-');
    const store = new HostStore(home, { log: () => undefined });
    const probe = (name: string) => ({ name, pin: `sha256:${'0'.repeat(64)}`, probedAt: '2026-01-01T00:00:00.000Z', tools: [] });
    await store.recordProbes(folder, Object.fromEntries([['__proto__', probe('p')], ['constructor', probe('c')]]));
    await store.recordProbes(folder, Object.fromEntries([['other', probe('o')]]));
    const probes = await store.probedServers(folder);
    assert.deepEqual(Object.keys(probes), ['__proto__', 'constructor', 'other']);
    assert.ok(Object.hasOwn(probes, '__proto__'));
    assert.equal(probes['__proto__'].name, 'p');
  });
});
