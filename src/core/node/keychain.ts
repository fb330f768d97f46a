/**
 * The OS keychain as the host store keeps input values in it: the Secret Service on Linux (pinned:
 * never the kernel keyring, which a reboot empties), the Keychain on macOS, the Credential Manager
 * on Windows, through @napi-rs/keyring (docs/secrets.md says why that binding). The native module
 * is loaded on the first use of a keychain, never at startup, and is not in the .vsix: there
 * `require` fails and the store keeps its 0600 files.
 *
 * No call waits on a prompt: each is cut after {@link KEYCHAIN_TIMEOUT_MS}, and a keychain that
 * answers "locked" (its unlock prompt could not be shown, or was dismissed) is not asked again by
 * this process.
 */

/** The service name every entry of the bridge has in the keychain. */
export const KEYCHAIN_SERVICE = 'dsh-bridge';
/** Long enough for a Secret Service that starts on demand (D-Bus activation), short enough not to hang a model step. */
export const KEYCHAIN_TIMEOUT_MS = 5000;
/** Set to `off` (or `files`), the host store keeps input values in its 0600 files and never loads the keychain. */
export const KEYCHAIN_ENV = 'DSH_BRIDGE_KEYCHAIN';

/** Why the keychain cannot be used: the doctor and the plan say it with its fix. */
export type KeychainProblemKind =
  /** DSH_BRIDGE_KEYCHAIN=off. */
  | 'turned-off'
  /** The native binding is not installed for this platform (or not shipped: the .vsix). */
  | 'no-binding'
  /** Nothing answers: no session bus, no Secret Service on it. */
  | 'no-service'
  /** The keychain is locked and unlocking it needs a prompt this session cannot show. */
  | 'locked'
  /** Any other failure of the keychain (its message in `detail`). */
  | 'failed';

export interface KeychainProblem {
  readonly kind: KeychainProblemKind;
  readonly detail: string;
}

export class KeychainError extends Error {
  constructor(readonly problem: KeychainProblem) {
    super(`the OS keychain cannot be used (${problem.kind}): ${problem.detail}`);
  }
}

/** One keychain entry per (store, folder, input): an account name that cannot be confused with another's. */
export function inputAccount(bridgeDir: string, folder: string, inputId: string): string {
  return JSON.stringify(['input', bridgeDir, folder, inputId]);
}

export interface Keychain {
  /** What holds the values on this platform, as the doctor names it. */
  readonly name: string;
  get(account: string): Promise<string | undefined>;
  set(account: string, value: string): Promise<void>;
  /** Removes the entry; an entry that is not there is no failure. */
  delete(account: string): Promise<void>;
}

/** The part of @napi-rs/keyring this file uses. */
interface AsyncEntryLike {
  getPassword(signal?: AbortSignal): Promise<string | null>;
  setPassword(password: string, signal?: AbortSignal): Promise<void>;
  deleteCredential(signal?: AbortSignal): Promise<boolean>;
}
interface KeyringModule {
  AsyncEntry: new (service: string, username: string, options?: { linux?: { store?: 'secret-service' | 'keyutils' } }) => AsyncEntryLike;
}

export function keychainName(platform: NodeJS.Platform = process.platform): string {
  if (platform === 'darwin') return 'macOS Keychain';
  if (platform === 'win32') return 'Windows Credential Manager';
  return 'Secret Service';
}

/** Sorts a failure of the binding into a problem kind by its message (the binding has no other code than GenericFailure). */
export function keychainProblemOf(error: unknown): KeychainProblem {
  const detail = error instanceof Error ? error.message : String(error);
  if (error instanceof KeychainError) return error.problem;
  if (/\block(ed)?\b|prompt|dismissed|interaction not allowed|user canceled/i.test(detail)) return { kind: 'locked', detail };
  if (/d-?bus|session bus|org\.freedesktop\.secrets|no such (interface|object)|ServiceUnknown|not provided by any|No platform|NoStorageAccess|timed out/i.test(detail)) {
    return { kind: 'no-service', detail };
  }
  return { kind: 'failed', detail };
}

/**
 * The keychain of this session, or why there is none. Asks the keychain once for an entry that
 * does not exist (no prompt: only reading an existing entry of a locked keychain would need one),
 * so "a Secret Service answers" is known before a value is trusted to it.
 */
export async function openKeychain(env: NodeJS.ProcessEnv = process.env, load: () => unknown = loadBinding): Promise<{ ok: true; keychain: Keychain } | { ok: false; problem: KeychainProblem }> {
  const setting = env[KEYCHAIN_ENV]?.trim().toLowerCase();
  if (setting === 'off' || setting === 'files') return { ok: false, problem: { kind: 'turned-off', detail: `${KEYCHAIN_ENV}=${env[KEYCHAIN_ENV]}` } };
  let binding: KeyringModule;
  try {
    binding = load() as KeyringModule;
    if (typeof binding?.AsyncEntry !== 'function') throw new Error('@napi-rs/keyring has no AsyncEntry');
  } catch (error) {
    return { ok: false, problem: { kind: 'no-binding', detail: error instanceof Error ? error.message.split('\n')[0] : String(error) } };
  }
  const keychain = new BindingKeychain(binding);
  try {
    await keychain.get(JSON.stringify(['probe']));
  } catch (error) {
    return { ok: false, problem: keychainProblemOf(error) };
  }
  return { ok: true, keychain };
}

/** The binding, required only here (esbuild leaves it external: it is a dependency of the CLI's package and of the DSH bundle). */
function loadBinding(): unknown {
  return require('@napi-rs/keyring');
}

class BindingKeychain implements Keychain {
  readonly name = keychainName();
  /** Set once the keychain said "locked": later calls of this process fail at once rather than ask again. */
  private locked: KeychainProblem | undefined;

  constructor(private readonly binding: KeyringModule) {}

  async get(account: string): Promise<string | undefined> {
    return (await this.call(account, (entry, signal) => entry.getPassword(signal))) ?? undefined;
  }

  async set(account: string, value: string): Promise<void> {
    await this.call(account, (entry, signal) => entry.setPassword(value, signal));
  }

  async delete(account: string): Promise<void> {
    await this.call(account, (entry, signal) => entry.deleteCredential(signal));
  }

  private async call<T>(account: string, run: (entry: AsyncEntryLike, signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.locked) throw new KeychainError(this.locked);
    const signal = AbortSignal.timeout(KEYCHAIN_TIMEOUT_MS);
    try {
      // Linux: the Secret Service only (the binding's default falls back to the kernel keyring, which a reboot empties).
      const entry = new this.binding.AsyncEntry(KEYCHAIN_SERVICE, account, { linux: { store: 'secret-service' } });
      return await run(entry, signal);
    } catch (error) {
      const problem = signal.aborted
        ? { kind: 'locked' as const, detail: `no answer within ${KEYCHAIN_TIMEOUT_MS / 1000} s (a prompt waiting to unlock it?)` }
        : keychainProblemOf(error);
      if (problem.kind === 'locked') this.locked = problem;
      throw new KeychainError(problem);
    }
  }
}
