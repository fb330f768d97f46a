/**
 * The policy files on this machine: VS Code's (Linux: `/etc/vscode/policy.json`, read by VS Code's
 * `FilePolicyService`) and the DSH side's own (`/etc/dsh-bridge/policy.json`, the administrator's,
 * and `<DSH home>/bridge/policy.json`, the user's). Read through the safe reader's rules (a regular
 * file, size-capped); never from a workspace. Never throws.
 */
import { constants, fs } from './fsReads';
import * as path from 'node:path';
import { sha256Hex } from '../json/canonicalJson';
import { deepFreeze, KeptByBytes } from '../json/keptByBytes';
import { POLICY_NAMES, policyValueOf } from '../policy/editorPolicy';
import { dshPolicyLayer, managedLayer, type DshPolicy, type DshPolicyLayer } from '../policy/dshPolicy';
import { readRegularFile } from './reader';
import { readManagedSettings, type ManagedSettingsOptions } from './managedSettingsFiles';

/**
 * Where VS Code reads its policies on Linux: `LINUX_SYSTEM_POLICY_FILE_PATH` in VS Code's
 * `src/vs/base/common/policy.ts`, given to `FilePolicyService` by `src/vs/code/electron-main/main.ts`
 * and `src/vs/code/node/cliProcessMain.ts` when `isLinux` (docs/policy.md).
 */
export const VSCODE_POLICY_FILE = '/etc/vscode/policy.json';
/** The DSH side's administrator policy: outside any workspace and the user-writable DSH home. */
export const ADMIN_POLICY_FILE = '/etc/dsh-bridge/policy.json';
/**
 * One more administrator file, for tests: applied in addition to {@link ADMIN_POLICY_FILE} (it can
 * only narrow) and held to the same ownership rules (see {@link readAdminPolicy}).
 */
const ADMIN_POLICY_ENV = 'DSH_BRIDGE_ADMIN_POLICY';
const MAX_POLICY_BYTES = 1024 * 1024;

/** The user's own DSH policy file. */
export function userPolicyFile(dshHome: string): string {
  return path.join(dshHome, 'bridge', 'policy.json');
}

export interface VscodePolicyFile {
  path: string;
  /** Hex SHA-256 of its bytes; null when there is no file. */
  sha256: string | null;
  /** Setting id -> value, for the MCP policies it sets (arrays parsed from their JSON strings). */
  values: Record<string, unknown>;
  /** Set when the file exists and could not be used (VS Code then applies none of it). */
  error?: string;
}

/**
 * VS Code's policy file as VS Code reads it: a JSON object whose keys are policy names
 * (`ChatAllowedMcpServers`, ...); keys of other policies are ignored; not an object, or not JSON:
 * no policy from it.
 */
export async function readVscodePolicyFile(file: string): Promise<VscodePolicyFile> {
  const read = await readRegularFile(file, MAX_POLICY_BYTES);
  if (!read.ok) {
    if (read.failure.kind === 'missing') return { path: file, sha256: null, values: {} };
    return { path: file, sha256: sha256Hex(`unreadable:${read.failure.kind}`), values: {}, error: read.failure.kind };
  }
  const sha256 = sha256Hex(read.bytes);
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(read.bytes).toString('utf8'));
  } catch {
    return { path: file, sha256, values: {}, error: 'not JSON' };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { path: file, sha256, values: {}, error: 'not a JSON object' };
  const values: Record<string, unknown> = {};
  for (const [name, setting] of Object.entries(POLICY_NAMES)) {
    if (!Object.hasOwn(raw, name)) continue;
    const value = policyValueOf(setting, (raw as Record<string, unknown>)[name]);
    if (value !== undefined) Object.defineProperty(values, setting, { value, enumerable: true });
  }
  return { path: file, sha256, values };
}

/**
 * The DSH policy in force: the administrator's file, the extra one `DSH_BRIDGE_ADMIN_POLICY` names
 * (tests), the user's, and each channel of GitHub Copilot's managed settings that sets MCP rules
 * (./managedSettingsFiles); files that do not exist are left out.
 */
export async function readDshPolicy(dshHome: string, env: Readonly<Record<string, string | undefined>> = process.env, managed: Omit<ManagedSettingsOptions, 'env'> = {}): Promise<DshPolicy> {
  const channels = readManagedSettings({ ...managed, env });
  const { layers } = await readDshPolicyFiles(dshHome, env);
  return { layers: [...layers, ...(await channels).map(managedLayer)] };
}

async function readDshPolicyFiles(dshHome: string, env: Readonly<Record<string, string | undefined>>): Promise<DshPolicy> {
  const layers: DshPolicyLayer[] = [];
  const admin = [ADMIN_POLICY_FILE];
  const extra = env[ADMIN_POLICY_ENV];
  if (extra && path.isAbsolute(extra) && path.resolve(extra) !== ADMIN_POLICY_FILE) admin.push(path.resolve(extra));
  for (const file of admin) {
    const layer = await readAdminPolicy(file);
    if (layer) layers.push(layer);
  }
  const user = await readPolicyJson(userPolicyFile(dshHome), 'user');
  if (user) layers.push(user);
  return { layers };
}

/**
 * An administrator's file: used only when it and every folder above it belong to root and no one
 * else can write them (else anyone who can write it could widen or rewrite the policy); otherwise
 * it is refused, which withholds every server, and the reason says what is wrong.
 */
async function readAdminPolicy(file: string): Promise<DshPolicyLayer | undefined> {
  const exists = await fs.lstat(file).then(() => true, (error: NodeJS.ErrnoException) => error.code !== 'ENOENT' && error.code !== 'ENOTDIR');
  if (!exists) return undefined;
  const unsafe = await unsafeOwnership(file);
  if (unsafe) return { file, origin: 'admin', deny: [], refused: unsafe };
  return readPolicyJson(file, 'admin');
}

async function readPolicyJson(file: string, origin: 'admin' | 'user'): Promise<DshPolicyLayer | undefined> {
  const read = await readRegularFile(file, MAX_POLICY_BYTES);
  if (!read.ok) {
    if (read.failure.kind === 'missing') return undefined;
    return { file, origin, deny: [], refused: read.failure.kind.replace(/-/g, ' ') };
  }
  return policyLayers.of(`${origin} ${file}`, read.bytes, () => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(read.bytes).toString('utf8'));
    } catch {
      return deepFreeze<DshPolicyLayer>({ file, origin, deny: [], refused: 'it is not valid JSON' });
    }
    return deepFreeze(dshPolicyLayer(file, origin, parsed));
  });
}

/** The policy files parsed, by file and bytes (the plan reads them at every model step). Frozen: shared. */
const policyLayers = new KeptByBytes<DshPolicyLayer>(8);

/** Why the file or a folder above it is not root's alone, or undefined. */
async function unsafeOwnership(file: string): Promise<string | undefined> {
  if (process.platform === 'win32') return undefined; // no uid/mode: ACLs are the administrator's to set
  let real: string;
  try {
    real = await fs.realpath(file);
  } catch (error) {
    return `it cannot be resolved (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
  }
  try {
    const handle = await fs.open(real, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) return 'it is not a regular file';
      if (stat.uid !== 0) return `it belongs to uid ${stat.uid}, not root`;
      if (stat.mode & 0o022) return `its mode ${(stat.mode & 0o777).toString(8).padStart(4, '0')} lets others than root write it`;
    } finally {
      await handle.close();
    }
    for (let dir = path.dirname(real); ; dir = path.dirname(dir)) {
      const stat = await fs.stat(dir);
      if (stat.uid !== 0) return `its folder ${dir} belongs to uid ${stat.uid}, not root`;
      // A sticky world-writable folder (/tmp) lets no one else replace root's file in it.
      if ((stat.mode & 0o022) && !(stat.mode & 0o1000)) return `its folder ${dir} (mode ${(stat.mode & 0o777).toString(8).padStart(4, '0')}) lets others than root replace it`;
      if (dir === path.dirname(dir)) break;
    }
  } catch (error) {
    return `it cannot be checked (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
  }
  return undefined;
}
