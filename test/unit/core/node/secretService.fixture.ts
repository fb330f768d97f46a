/**
 * A real Secret Service for the keychain tests: Debian's gnome-keyring daemon on a private
 * session bus of its own (dbus-run-session), with a login keyring made in a temp folder and
 * unlocked with a password on its stdin. scripts/setup-secret-service.sh installs the packages
 * (through setup-test-deps.sh); where they are missing the tests skip and say so.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface SecretService {
  /** The variables a process needs to reach this Secret Service. */
  readonly env: { DBUS_SESSION_BUS_ADDRESS: string };
  /** The folder the daemon keeps its keyrings in (files under it hold the keychain, encrypted). */
  readonly dataDir: string;
  /** Locks the login keyring (as a screen lock would): reading an entry then needs an unlock prompt. */
  lock(): void;
  /** The entries of the bridge, as `secret-tool` lists them (its output: labels, attributes, secrets). */
  search(): string;
  stop(): Promise<void>;
}

const TOOLS = ['dbus-run-session', 'dbus-send', 'gnome-keyring-daemon', 'secret-tool'];

/** Why a real Secret Service cannot be started here, or undefined when it can. */
export function secretServiceMissing(): string | undefined {
  if (process.platform !== 'linux') return 'the Secret Service tests run on Linux';
  const missing = TOOLS.filter((t) => spawnSync('sh', ['-c', `command -v ${t}`]).status !== 0);
  return missing.length ? `not installed: ${missing.join(', ')} (bash scripts/setup-secret-service.sh)` : undefined;
}

export async function startSecretService(): Promise<SecretService> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-keyring-'));
  const dataDir = path.join(home, 'data');
  fs.mkdirSync(path.join(dataDir, 'keyrings'), { recursive: true, mode: 0o700 });
  // The bus lives as long as the shell: it prints the bus address, starts the daemon and waits for stdin to close.
  const script = 'printf "%s\\n" "$DBUS_SESSION_BUS_ADDRESS"; printf pw | gnome-keyring-daemon --foreground --unlock --components=secrets >/dev/null 2>&1 & d=$!; cat >/dev/null; kill $d; wait $d';
  const child: ChildProcess = spawn('dbus-run-session', ['--', 'sh', '-c', script], {
    env: { PATH: process.env.PATH, HOME: home, XDG_DATA_HOME: dataDir, XDG_RUNTIME_DIR: home, XDG_CACHE_HOME: path.join(home, 'cache') },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const address = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (out.includes('\n')) resolve(out.split('\n')[0]);
    });
    child.once('exit', (code) => reject(new Error(`dbus-run-session ended (exit ${code}) before it printed the bus address`)));
  });
  const env = { DBUS_SESSION_BUS_ADDRESS: address };
  const busEnv = { ...process.env, ...env };
  // Waits for the daemon's name on the bus (not for a time): it takes a moment to start.
  for (let i = 0; ; i++) {
    const r = spawnSync('dbus-send', ['--session', '--print-reply', '--dest=org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus.NameHasOwner', 'string:org.freedesktop.secrets'], { env: busEnv, encoding: 'utf8' });
    if (/boolean true/.test(r.stdout)) break;
    if (i > 600) throw new Error(`gnome-keyring-daemon did not come up on the bus: ${r.stderr}`);
    await new Promise((r2) => setTimeout(r2, 50));
  }
  return {
    env,
    dataDir,
    lock() {
      const r = spawnSync('dbus-send', ['--session', '--print-reply', '--dest=org.freedesktop.secrets', '/org/freedesktop/secrets', 'org.freedesktop.Secret.Service.Lock', 'array:objpath:/org/freedesktop/secrets/collection/login'], { env: busEnv, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`locking the login keyring failed: ${r.stderr}`);
    },
    search() {
      const r = spawnSync('secret-tool', ['search', '--all', 'service', 'dsh-bridge'], { env: busEnv, encoding: 'utf8' });
      return r.stdout + r.stderr;
    },
    async stop() {
      const ended = new Promise((resolve) => child.once('exit', resolve));
      child.stdin!.end();
      await ended;
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
}
