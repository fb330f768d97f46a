import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { KEYCHAIN_ENV, inputAccount, openKeychain } from '../../../../src/core/node/keychain';
import { secretServiceMissing, startSecretService, type SecretService } from './secretService.fixture';

const FIXTURE = path.join(__dirname, 'keychain.fixture.ts');

interface Step { op: string; ok: boolean; name?: string; problem?: string; detail?: string; value?: string | null; ms?: number }

/** Runs keychain steps in a fresh process on the session bus `address` (none: undefined), with `env` added. */
function inProcess(address: string | undefined, steps: string[][], env: Record<string, string> = {}): Step[] {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  delete childEnv.DBUS_SESSION_BUS_ADDRESS;
  delete childEnv[KEYCHAIN_ENV];
  if (address !== undefined) childEnv.DBUS_SESSION_BUS_ADDRESS = address;
  Object.assign(childEnv, env);
  const r = spawnSync(process.execPath, ['--import', 'tsx', FIXTURE, JSON.stringify(steps)], { env: childEnv, encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim().split('\n').map((line) => JSON.parse(line) as Step);
}

describe('keychain (the OS keychain through @napi-rs/keyring)', () => {
  it('is not used when DSH_BRIDGE_KEYCHAIN=off, and the binding is not even loaded', async () => {
    let loaded = false;
    const r = await openKeychain({ [KEYCHAIN_ENV]: 'off' }, () => { loaded = true; return {}; });
    assert.deepEqual(r.ok ? 'opened' : r.problem.kind, 'turned-off');
    assert.equal(loaded, false);
  });

  it('says no-binding when the native module cannot be loaded (the .vsix ships none)', async () => {
    const r = await openKeychain({}, () => { throw new Error("Cannot find module '@napi-rs/keyring'"); });
    assert.equal(r.ok ? 'opened' : r.problem.kind, 'no-binding');
  });

  it('says no-service, at once, where no session bus answers (a headless server, CI)', async function () {
    if (process.platform !== 'linux') this.skip();
    const [gone] = inProcess('unix:path=/nonexistent/dsh-bridge-bus', [['open']]);
    assert.equal(gone.problem, 'no-service', gone.detail);
    const [none] = inProcess(undefined, [['open']]);
    assert.equal(none.problem, 'no-service', none.detail);
  });

  describe('with a real Secret Service (gnome-keyring on its own session bus)', () => {
    let service: SecretService | undefined;
    before(async function () {
      const missing = secretServiceMissing();
      if (missing) {
        console.log(`      skipped: ${missing}`);
        this.skip();
      }
      this.timeout(60_000);
      service = await startSecretService();
    });
    after(async () => service?.stop());

    it('stores, reads back and removes an entry that secret-tool sees under the service dsh-bridge', async () => {
      const account = inputAccount('/home/u/.dsh/bridge', '/projects/app', 'token');
      const [open, set, get] = inProcess(service!.env.DBUS_SESSION_BUS_ADDRESS, [['open'], ['set', account, 's3cret-value'], ['get', account]]);
      assert.deepEqual([open.ok, open.name, set.ok, get.value], [true, 'Secret Service', true, 's3cret-value'], JSON.stringify(open));
      assert.match(service!.search(), /s3cret-value/);
      const [, del, again, delAgain] = inProcess(service!.env.DBUS_SESSION_BUS_ADDRESS, [['open'], ['delete', account], ['get', account], ['delete', account]]);
      assert.deepEqual([del.ok, again.value, delAgain.ok], [true, null, true], 'deleted; an entry already gone is no failure');
      assert.doesNotMatch(service!.search(), /s3cret-value/);
      const [off] = inProcess(service!.env.DBUS_SESSION_BUS_ADDRESS, [['open']], { [KEYCHAIN_ENV]: 'off' });
      assert.equal(off.problem, 'turned-off');
    });

    it('a locked keychain is "locked" at once, without waiting on the prompt it cannot show, and is not asked again', async () => {
      const account = inputAccount('/b', '/f', 'id');
      inProcess(service!.env.DBUS_SESSION_BUS_ADDRESS, [['open'], ['set', account, 'v']]);
      service!.lock();
      const [open, get, set] = inProcess(service!.env.DBUS_SESSION_BUS_ADDRESS, [['open'], ['get', account], ['set', account, 'w']]);
      assert.equal(open.ok, true, 'a locked keychain still answers');
      assert.deepEqual([get.problem, set.problem], ['locked', 'locked'], get.detail);
      assert.ok(set.ms! < 50, `not asked again after "locked" (${set.ms} ms)`);
      assert.ok(get.ms! < 5000, `took ${get.ms} ms`);
    });
  });
});
