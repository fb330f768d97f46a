import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { HostStore } from '../../../src/core/node/hostStore';
import { KeychainError, type Keychain } from '../../../src/core/node/keychain';
import { secretServiceMissing, startSecretService, type SecretService } from '../core/node/secretService.fixture';
import { filesContaining, tempDir, workspace } from '../helpers';

const ROOT = path.resolve(__dirname, '../../..');
const CLI = path.join(ROOT, 'dist/cli.js');
const DEMO = path.join(ROOT, 'examples/demo');

/** The built CLI on the session bus `bus` (none: undefined), the keychain not turned off (the unit tier turns it off for its own processes). */
function cli(args: string[], opts: { home: string; bus?: string; input?: string; env?: Record<string, string> }) {
  const env: NodeJS.ProcessEnv = { ...process.env, DSH_HOME: opts.home, ...opts.env };
  delete env.DBUS_SESSION_BUS_ADDRESS;
  if (!opts.env?.DSH_BRIDGE_KEYCHAIN) delete env.DSH_BRIDGE_KEYCHAIN;
  if (opts.bus) env.DBUS_SESSION_BUS_ADDRESS = opts.bus;
  const r = spawnSync(process.execPath, [CLI, ...args], { env, input: opts.input ?? '', encoding: 'utf8', cwd: ROOT, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, json: () => JSON.parse(r.stdout) };
}

interface DoctorServer { serverName: string; code: string; why: string; fix?: string }
const serverOf = (doctor: { wouldMount: DoctorServer[]; wouldNot: DoctorServer[] }, serverName: string) => [...doctor.wouldMount, ...doctor.wouldNot].find((s) => s.serverName === serverName)!;
const secretsFinding = (doctor: { findings: Array<{ area: string; status: string; code: string; message: string; fix: string | null }> }) => doctor.findings.find((f) => f.area === 'secrets');

describe('inputs in the OS keychain (dist/cli.js, a real Secret Service)', function () {
  this.timeout(120_000);
  let service: SecretService | undefined;
  before(async function () {
    if (!existsSync(CLI)) spawnSync('node', ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
    const missing = secretServiceMissing();
    if (missing) {
      console.log(`      skipped: ${missing}`);
      this.skip();
    }
    service = await startSecretService();
  });
  after(async () => service?.stop());

  it('set keeps the value in the keychain and no file under the DSH home; list, the session plan and doctor see it; forget removes it', () => {
    const home = tempDir('kc-home-');
    const folder = workspace(readFileSync(path.join(DEMO, '.vscode/mcp.json')));
    const bus = service!.env.DBUS_SESSION_BUS_ADDRESS;
    const canary = 'canary-kc-51d0e2';
    const set = cli(['inputs', 'set', 'github-token', '--workspace', folder, '--json'], { home, bus, input: `${canary}\n` });
    assert.equal(set.code, 0, set.stderr);
    assert.deepEqual(set.json(), { stored: 'github-token', store: 'keychain' });
    assert.equal(cli(['export', '--workspace', folder], { home, bus }).code, 0);
    assert.deepEqual(filesContaining(home, canary), [], 'no file under the DSH home holds the value');
    assert.deepEqual(filesContaining(folder, canary), []);
    assert.match(service!.search(), new RegExp(canary));
    assert.deepEqual(cli(['inputs', 'list', '--workspace', folder, '--json'], { home, bus }).json().inputs, [{ id: 'github-token', stored: true, referenced: true }]);
    const doctor = cli(['doctor', '--workspace', folder, '--json'], { home, bus }).json();
    assert.deepEqual([secretsFinding(doctor)?.status, secretsFinding(doctor)?.code], ['ok', 'secretsKeychain']);
    assert.match(secretsFinding(doctor)!.message, /Secret Service/);
    // The session plan (the DSH plugin's) takes the value from the keychain: the server is not withheld for a missing input.
    const everything = serverOf(doctor, 'everything');
    assert.ok(!['input-missing', 'input-keychain-unreadable'].includes(everything.code), everything.why);
    assert.equal(cli(['inputs', 'forget', '--workspace', folder], { home, bus }).code, 0);
    assert.doesNotMatch(service!.search(), new RegExp(canary));
    assert.deepEqual(cli(['inputs', 'list', '--workspace', folder, '--json'], { home, bus }).json().inputs, [{ id: 'github-token', stored: false, referenced: true }]);
  });

  it('values stored in files before move into the keychain once, at the next read; forget after it removes from both', () => {
    const home = tempDir('kc-home-');
    const folder = workspace(readFileSync(path.join(DEMO, '.vscode/mcp.json')));
    const bus = service!.env.DBUS_SESSION_BUS_ADDRESS;
    const canary = 'canary-kc-move-93ab';
    const before = cli(['inputs', 'set', 'github-token', '--workspace', folder, '--json'], { home, bus, input: `${canary}\n`, env: { DSH_BRIDGE_KEYCHAIN: 'off' } });
    assert.equal(before.json().store, 'files');
    assert.equal(filesContaining(home, canary).length, 1, 'the older way: a 0600 file');
    assert.deepEqual(cli(['inputs', 'list', '--workspace', folder, '--json'], { home, bus }).json().inputs, [{ id: 'github-token', stored: true, referenced: true }]);
    assert.deepEqual(filesContaining(home, canary), [], 'moved out of the file');
    assert.match(service!.search(), new RegExp(canary));
    assert.equal(cli(['inputs', 'forget', 'github-token', '--workspace', folder], { home, bus }).code, 0);
    assert.doesNotMatch(service!.search(), new RegExp(canary));
    assert.deepEqual(filesContaining(home, canary), []);
  });

  it('a locked keychain: the server is withheld with input-keychain-unreadable and its fix, at once (no prompt waited on)', () => {
    const home = tempDir('kc-home-');
    const folder = workspace(readFileSync(path.join(DEMO, '.vscode/mcp.json')));
    const bus = service!.env.DBUS_SESSION_BUS_ADDRESS;
    assert.equal(cli(['inputs', 'set', 'github-token', '--workspace', folder, '--json'], { home, bus, input: 'canary-kc-locked\n' }).json().store, 'keychain');
    assert.equal(cli(['export', '--workspace', folder], { home, bus }).code, 0);
    service!.lock();
    const started = Date.now();
    const doctor = cli(['doctor', '--workspace', folder, '--json'], { home, bus }).json();
    const everything = serverOf(doctor, 'everything');
    assert.equal(everything.code, 'input-keychain-unreadable');
    assert.match(everything.why, /kept in the OS keychain, which cannot be read now \(locked: .*unlock the keychain/);
    assert.match(everything.fix ?? '', /dsh-bridge inputs set github-token/);
    assert.ok(Date.now() - started < 30_000);
  });
});

describe('inputs without a keychain (no session bus: a headless server, CI)', function () {
  this.timeout(120_000);
  it('stay in 0600 files, and doctor says so with how to get a keychain', () => {
    const home = tempDir('kc-home-');
    const folder = workspace(readFileSync(path.join(DEMO, '.vscode/mcp.json')));
    const set = cli(['inputs', 'set', 'github-token', '--workspace', folder], { home, input: 'canary-kc-files\n' });
    assert.equal(set.code, 0, set.stderr);
    assert.match(set.stdout, /a 0600 file in .*dsh-bridge doctor says why/s);
    assert.equal(filesContaining(home, 'canary-kc-files').length, 1);
    const finding = secretsFinding(cli(['doctor', '--workspace', folder, '--json'], { home }).json());
    assert.deepEqual([finding?.status, finding?.code], ['warn', 'secretsFiles']);
    assert.match(finding!.message, /0600 files .*no OS keychain is used \((no-service|no-binding)/);
    assert.match(finding!.fix ?? '', /gnome-keyring-daemon|npm install/);
  });
});

describe('HostStore: a move into the keychain cut midway loses nothing', () => {
  it('a keychain that fails at the second value (as a kill there would): every value still reads, the next read finishes the move', async () => {
    // A stand-in keychain: a kill between two keychain writes cannot be timed against a real one.
    const entries = new Map<string, string>();
    let failAt = 2;
    const keychain: Keychain = {
      name: 'test keychain',
      get: async (a) => entries.get(a),
      set: async (a, v) => {
        if (--failAt === 0) throw new KeychainError({ kind: 'failed', detail: 'cut' });
        entries.set(a, v);
      },
      delete: async (a) => { entries.delete(a); },
    };
    const home = tempDir('kc-home-');
    const folder = tempDir('kc-folder-');
    const off = new HostStore(home, { openKeychain: async () => ({ ok: false, problem: { kind: 'turned-off', detail: '' } }) });
    for (const [id, value] of [['a', 'value-a-1'], ['b', 'value-b-2'], ['c', 'value-c-3']]) assert.equal(await off.setInput(folder, id, value), false);
    const store = new HostStore(home, { openKeychain: async () => ({ ok: true, keychain }) });
    const first = await store.readFolder(folder);
    assert.deepEqual([...first.inputs].sort(), [['a', 'value-a-1'], ['b', 'value-b-2'], ['c', 'value-c-3']]);
    const inFiles = ['value-a-1', 'value-b-2', 'value-c-3'].filter((v) => filesContaining(home, v).length);
    assert.ok(inFiles.length > 0 && inFiles.length < 3, `part moved: ${inFiles}`);
    for (const v of ['value-a-1', 'value-b-2', 'value-c-3']) assert.ok(inFiles.includes(v) || [...entries.values()].includes(v), `${v} is somewhere`);
    const again = await new HostStore(home, { openKeychain: async () => ({ ok: true, keychain }) }).readFolder(folder);
    assert.deepEqual([...again.inputs].sort(), [['a', 'value-a-1'], ['b', 'value-b-2'], ['c', 'value-c-3']]);
    assert.deepEqual(readdirSync(path.join(home, 'bridge/folders')).flatMap((f) => ['value-a-1', 'value-b-2', 'value-c-3'].filter((v) => readFileSync(path.join(home, 'bridge/folders', f), 'utf8').includes(v))), []);
    assert.equal(entries.size, 3);
  });
});
