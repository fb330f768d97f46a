import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { HostStore, resolveDshHome } from '../../../../src/core/node/hostStore';
import { editInPlace, tempDir, allFiles, deadPid } from '../../helpers';

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

describe('host store: its files and folders are this user\'s, 0600 and 0700', function () {
  before(function () {
    if (process.platform === 'win32') this.skip(); // modes and owners do not apply there
  });
  const mode = (file: string) => statSync(file).mode & 0o777;
  const KEY = `${'ab'.repeat(32)}\n`;

  it('a signing.key with a wider mode is tightened to 0600 before it is used, bridge/ to 0700, and the log says so', async () => {
    const home = tempDir();
    mkdirSync(path.join(home, 'bridge'), { mode: 0o755 });
    chmodSync(path.join(home, 'bridge'), 0o755);
    writeFileSync(path.join(home, 'bridge/signing.key'), KEY);
    chmodSync(path.join(home, 'bridge/signing.key'), 0o644);
    const lines: string[] = [];
    const key = await new HostStore(home, { log: (l) => lines.push(l) }).readSigningKey();
    assert.equal(key?.toString('hex'), 'ab'.repeat(32));
    assert.equal(mode(path.join(home, 'bridge/signing.key')), 0o600);
    assert.equal(mode(path.join(home, 'bridge')), 0o700);
    assert.deepEqual(lines.map((l) => l.replace(home, '~')), [
      '~/bridge had mode 0755; tightened to 0700 (it holds input values and the signing key)',
      '~/bridge/signing.key had mode 0644; tightened to 0600 (it signs this user\'s declarations)',
    ]);
    // The export's path (signingKey) too.
    chmodSync(path.join(home, 'bridge/signing.key'), 0o640);
    assert.equal((await new HostStore(home, { log: () => undefined }).signingKey()).toString('hex'), 'ab'.repeat(32));
    assert.equal(mode(path.join(home, 'bridge/signing.key')), 0o600);
  });

  it('a signing.key that is a link, a FIFO or too long is refused, never waited on', async () => {
    const home = tempDir();
    mkdirSync(path.join(home, 'bridge'), { mode: 0o700 });
    const key = path.join(home, 'bridge/signing.key');
    const elsewhere = path.join(tempDir('key-'), 'k');
    writeFileSync(elsewhere, KEY, { mode: 0o600 });
    symlinkSync(elsewhere, key);
    const store = new HostStore(home, { log: () => undefined });
    await assert.rejects(store.readSigningKey(), /signing\.key is a link/);
    await assert.rejects(store.signingKey(), /signing\.key is a link/);
    rmSync(key);
    execFileSync('mkfifo', ['-m', '0600', key]);
    await assert.rejects(store.readSigningKey(), /signing\.key is not a regular file/);
    rmSync(key);
    writeFileSync(key, `${KEY}${' '.repeat(200)}\n`, { mode: 0o600 });
    await assert.rejects(store.readSigningKey(), /malformed/);
  });

  it('bridge/probes and every folder of the store are 0700: created so, and an existing wider one is tightened on the next write', async () => {
    const home = tempDir();
    const folder = tempDir('ws-');
    const store = new HostStore(home, { log: () => undefined });
    await store.recordProbes(folder, {});
    await store.setInput(folder, 'id', 'v');
    await store.recordExport(folder, []);
    for (const dir of ['bridge', 'bridge/probes', 'bridge/folders', 'bridge/exports']) assert.equal(mode(path.join(home, dir)), 0o700, dir);
    for (const dir of ['bridge', 'bridge/probes', 'bridge/exports']) chmodSync(path.join(home, dir), 0o755);
    const lines: string[] = [];
    // A write to bridge/folders only: every folder of the store is tightened with it.
    await new HostStore(home, { log: (l) => lines.push(l) }).setInput(folder, 'id', 'w');
    for (const dir of ['bridge', 'bridge/probes', 'bridge/exports']) assert.equal(mode(path.join(home, dir)), 0o700, dir);
    assert.equal(lines.length, 3);
  });

  it('a store folder or a signing.key of another user is refused with a clear message', async function () {
    if (process.getuid?.() !== 0) this.skip(); // giving a file to another user needs root
    const home = tempDir();
    const folder = tempDir('ws-');
    const store = new HostStore(home, { log: () => undefined });
    await store.signingKey();
    const key = path.join(home, 'bridge/signing.key');
    chownSync(key, 4242, 4242);
    await assert.rejects(store.readSigningKey(), /signing\.key belongs to another user \(uid 4242, not 0\)/);
    chownSync(key, 0, 0);
    assert.ok(await store.readSigningKey());
    chownSync(path.join(home, 'bridge'), 4242, 4242);
    await assert.rejects(store.setInput(folder, 'id', 'v'), /bridge belongs to another user \(uid 4242, not 0\)/);
    await assert.rejects(store.readSigningKey(), /bridge belongs to another user/);
  });

  it('a FIFO in place of a record is refused at once', async () => {
    const home = tempDir();
    const folder = tempDir('ws-');
    const store = new HostStore(home, { log: () => undefined });
    await store.setInput(folder, 'id', 'v');
    rmSync(store.folderFile(folder));
    execFileSync('mkfifo', ['-m', '0600', store.folderFile(folder)]);
    await assert.rejects(store.readFolder(folder), /cannot be read \(it is not a regular file/);
  });
});

// The editor keeps what it read from the store until a file changes; the store tells it of its
// own writes (removals included) so a kept read never outlives a write through the same store.
describe('host store: write notices', () => {
  it('names the file after each write and removal, and only then', async () => {
    const home = tempDir();
    const wrote: string[] = [];
    const store = new HostStore(home, { onWrite: (file) => wrote.push(file) });
    const folder = path.join(home, 'ws');
    await store.readFolder(folder);
    await store.trustMode();
    assert.deepEqual(wrote, [], 'reads are not writes');

    await store.setTrustMode('pinned');
    assert.deepEqual(wrote, [store.trustModeFile]);

    await store.setInput(folder, 'token', 'v');
    assert.equal(wrote.at(-1), store.folderFile(folder));
    assert.ok(existsSync(store.folderFile(folder)));

    wrote.length = 0;
    await store.forgetInput(folder); // the record is empty now: removed, not rewritten
    assert.ok(!existsSync(store.folderFile(folder)));
    assert.deepEqual(wrote, [store.folderFile(folder)]);
  });
});

describe('host store', () => {
  it('the skill trust and the accepted definitions are parsed once per change of their bytes (the skill gate reads them at every model step), and a write keeps what was there', async () => {
    const home = tempDir();
    const store = new HostStore(home, { log: () => undefined });
    await store.acceptSkill('/p/a/SKILL.md', 'sha256:a');
    const first = await store.acceptedDefinitions();
    assert.equal(await store.acceptedDefinitions(), first, 'the same bytes: the value parsed before');
    assert.ok(Object.isFrozen(first.skills[0]), 'shared by its readers');
    await store.acceptTool('/p', 'srv', 'tool', 'sha256:t');
    await store.acceptSkill('/p/a/SKILL.md', 'sha256:b');
    const after = await store.acceptedDefinitions();
    assert.notEqual(after, first);
    assert.deepEqual(after, { version: 1, tools: [{ folder: '/p', serverName: 'srv', tool: 'tool', pin: 'sha256:t' }], skills: [{ file: '/p/a/SKILL.md', pin: 'sha256:b' }] });
    await store.trustSkillRoot('/p/.dsh/skills', 'sha256:r');
    const trust = await store.skillTrust();
    assert.equal(await store.skillTrust(), trust);
    await store.trustSkillRoot('/p/.agents/skills', 'sha256:s');
    await store.distrustSkillRoot('/p/.dsh/skills');
    assert.deepEqual(await store.skillTrust(), { '/p/.agents/skills': 'sha256:s' });
    // An edit by hand (another process) is read: the bytes decide, not the time.
    writeFileSync(path.join(home, 'bridge/accepted.json'), JSON.stringify({ version: 1, tools: [], skills: [] }));
    assert.deepEqual((await store.acceptedDefinitions()).skills, []);
  });

  it('resolves the DSH home as DSH does', () => {
    assert.equal(resolveDshHome('/x', { DSH_HOME: '/y' }, '/home/u'), '/x');
    assert.equal(resolveDshHome('', { DSH_HOME: '/y' }, '/home/u'), '/y');
    assert.equal(resolveDshHome(undefined, { DSH_HOME: '  ' }, '/home/u'), '/home/u/.dsh');
  });

  it('keeps values, approvals and trust mode in 0600 files keyed by folder', async () => {
    const home = tempDir();
    const store = new HostStore(home);
    await store.setInput('/w/a', 'tok', 'canary-1');
    await store.setInput('/w/b', 'tok', 'canary-2');
    await store.approve('/w/a', 'srv', 'sha256:1');
    assert.deepEqual((await store.readFolder('/w/a')).inputs, new Map([['tok', 'canary-1']]));
    assert.equal(await store.isApproved('/w/a', 'srv', 'sha256:1'), true);
    assert.equal(await store.isApproved('/w/a', 'srv', 'sha256:2'), false);
    assert.equal(await store.isApproved('/w/b', 'srv', 'sha256:1'), false);
    assert.equal(statSync(store.folderFile('/w/a')).mode & 0o777, 0o600);
    assert.equal(statSync(path.join(home, 'bridge')).mode & 0o777, 0o700);
    await store.forgetInput('/w/a', 'tok');
    assert.deepEqual((await store.readFolder('/w/a')).inputs, new Map());
    assert.equal(await store.trustMode(), 'ask');
    await store.setTrustMode('deny');
    assert.equal(await store.trustMode(), 'deny');
  });

  it('reads accepted.json as one frozen value while its bytes stay the same, and sees an edit of the same size and mtime', async () => {
    const home = tempDir();
    const store = new HostStore(home, { log: () => undefined });
    assert.deepEqual(await store.acceptedDefinitions(), { version: 1, tools: [], skills: [] });
    await store.acceptTool('/w/a', 'srv', 'add', 'sha256:aaaa');
    const first = await store.acceptedDefinitions();
    assert.equal(await store.acceptedDefinitions(), first, 'the same bytes: the value parsed before');
    assert.ok(Object.isFrozen(first.tools[0]));
    // Another process rewrites the file in place: same size, same mtime, another pin.
    const file = path.join(home, 'bridge', 'accepted.json');
    editInPlace(file, (text) => text.replace('sha256:aaaa', 'sha256:bbbb'));
    assert.deepEqual((await store.acceptedDefinitions()).tools, [{ folder: path.resolve('/w/a'), serverName: 'srv', tool: 'add', pin: 'sha256:bbbb' }]);
    // Accepting again builds a new record from the kept (frozen) one.
    await store.acceptTool('/w/a', 'srv', 'sub', 'sha256:cccc');
    await store.acceptSkill('/w/a/SKILL.md', 'sha256:dddd');
    const now = await store.acceptedDefinitions();
    assert.deepEqual(now.tools.map((t) => t.tool), ['add', 'sub']);
    assert.deepEqual(now.skills, [{ file: path.resolve('/w/a/SKILL.md'), pin: 'sha256:dddd' }]);
  });
});

describe('host store: no leftovers, a private folder (hardening regressions 15, 16)', () => {
  it('15: inputs forget removes the temp copies of the folder record (secrets included), whoever wrote them', async () => {
    const home = tempDir();
    const folder = tempDir('ws-');
    const store = new HostStore(home, { log: () => undefined });
    await store.setInput(folder, 'token', 'canary-secret-1');
    const dir = path.dirname(store.folderFile(folder));
    const base = path.basename(store.folderFile(folder));
    writeFileSync(path.join(dir, `.${base}.${deadPid()}-0123456789ab.tmp`), '{"inputs": {"token": "canary-secret-2"}');
    writeFileSync(path.join(dir, `.${base}.${process.ppid}-0123456789ab.tmp`), '{"inputs": {"token": "canary-secret-3"}');
    const otherFolder = path.join(dir, `.${'0'.repeat(64)}.json.${process.ppid}-0123456789ab.tmp`);
    writeFileSync(otherFolder, '{}');
    await store.forgetInput(folder);
    for (const f of allFiles(home)) assert.ok(!readFileSync(path.join(home, f), 'utf8').includes('canary-secret'), f);
    assert.ok(existsSync(otherFolder), 'another folder\'s temp file is not this forget\'s business');
  });

  it('16: an existing bridge/ with mode 0755 is tightened to 0700, and the log says so', async function () {
    if (process.platform === 'win32') this.skip();
    const home = tempDir();
    mkdirSync(path.join(home, 'bridge/folders'), { recursive: true, mode: 0o755 });
    execFileSync('chmod', ['0755', path.join(home, 'bridge'), path.join(home, 'bridge/folders')]);
    const lines: string[] = [];
    await new HostStore(home, { log: (l) => lines.push(l) }).setInput(tempDir(), 'id', 'v');
    assert.equal(statSync(path.join(home, 'bridge')).mode & 0o777, 0o700);
    assert.equal(statSync(path.join(home, 'bridge/folders')).mode & 0o777, 0o700);
    assert.equal(lines.length, 2);
    assert.match(lines.join('\n'), /bridge had mode 0755; tightened to 0700/);
  });
});
