/**
 * GitHub Copilot's managed settings on this machine, from every channel readable here (the MCP
 * rules of each: core/policy/managedSettings.ts):
 *
 * - the file, where VS Code reads it (`MANAGED_SETTINGS_*` in VS Code's
 *   `src/vs/platform/policy/common/copilotManagedSettings.ts`): `/etc/github-copilot/managed-settings.json`
 *   (Linux), `/Library/Application Support/GitHubCopilot/managed-settings.json` (macOS),
 *   `%ProgramFiles%\GitHubCopilot\managed-settings.json` (Windows);
 * - native MDM: the registry key `SOFTWARE\Policies\GitHubCopilot` (HKLM, then HKCU) through
 *   `reg query`, and the managed preferences of `com.github.copilot` (`/Library/Managed
 *   Preferences/`, the machine's and the user's) through `plutil -convert xml1`;
 * - the server copy: VS Code fetches it from the enterprise (`/copilot_internal/managed_settings`)
 *   and keeps it in memory only: there is no copy on disk to read (docs/policy.md).
 *
 * One more file for tests and the CLI's `--managed-settings`, and `DSH_BRIDGE_MANAGED_SETTINGS`
 * for the DSH plugin: read in addition to the channels, never instead (every channel only
 * narrows). Never throws.
 */
import { execFile } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import { sha256Hex } from '../json/canonicalJson';
import { deepFreeze, KeptByBytes } from '../json/keptByBytes';
import { managedRules, parseManagedSettingsJson, parsePlistXml, parseRegQuery, managedBag, restricts, type ManagedChannel, type ManagedRules } from '../policy/managedSettings';
import { readRegularFile } from './reader';
import { noteUnwatchableRead } from './fsReads';

export const MANAGED_SETTINGS_ENV = 'DSH_BRIDGE_MANAGED_SETTINGS';
const MAX_BYTES = 1024 * 1024; // VS Code's MANAGED_SETTINGS_MAX_FILE_SIZE
const REGISTRY_KEY = 'SOFTWARE\\Policies\\GitHubCopilot';
const PREFERENCES_DOMAIN = 'com.github.copilot';

/** Where VS Code reads the managed-settings file on this platform. */
export function managedSettingsFile(platform: NodeJS.Platform = process.platform, env: Readonly<Record<string, string | undefined>> = process.env): string {
  if (platform === 'darwin') return '/Library/Application Support/GitHubCopilot/managed-settings.json';
  if (platform === 'win32') return path.win32.join(env.ProgramFiles ?? 'C:\\Program Files', 'GitHubCopilot', 'managed-settings.json');
  return '/etc/github-copilot/managed-settings.json';
}

export interface ManagedSettingsOptions {
  /** One more file (the CLI's `--managed-settings`): only narrows. */
  extraFile?: string;
  env?: Readonly<Record<string, string | undefined>>;
  platform?: NodeJS.Platform;
}

/** The files the channels are read from here (the managed-settings file, the extra ones, macOS's managed preferences). */
export function managedSettingsPaths(options: ManagedSettingsOptions = {}): string[] {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const user = platform === 'darwin' ? userName() : undefined;
  return [
    ...(platform === 'darwin' ? [`/Library/Managed Preferences/${PREFERENCES_DOMAIN}.plist`, ...(user ? [`/Library/Managed Preferences/${user}/${PREFERENCES_DOMAIN}.plist`] : [])] : []),
    managedSettingsFile(platform, env),
    ...extraFiles(options.extraFile, env).filter((f) => f !== managedSettingsFile(platform, env)),
  ];
}

/** The extra managed-settings files (`--managed-settings`, the environment variable): absolute paths only. */
function extraFiles(extraFile: string | undefined, env: Readonly<Record<string, string | undefined>>): string[] {
  return [...new Set([extraFile, env[MANAGED_SETTINGS_ENV]].filter((f): f is string => !!f && path.isAbsolute(f)).map((f) => path.resolve(f)))];
}

/** The channels that set MCP rules here (a channel without any is left out), highest VS Code precedence first. */
export async function readManagedSettings(options: ManagedSettingsOptions = {}): Promise<ManagedRules[]> {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const reads: Array<Promise<ManagedRules | undefined>> = [];
  if (platform === 'win32') {
    for (const hive of ['HKLM', 'HKCU']) reads.push(readRegistry(`${hive}\\${REGISTRY_KEY}`));
  }
  if (platform === 'darwin') {
    const user = userName();
    reads.push(readPreferences(`/Library/Managed Preferences/${PREFERENCES_DOMAIN}.plist`));
    if (user) reads.push(readPreferences(`/Library/Managed Preferences/${user}/${PREFERENCES_DOMAIN}.plist`));
  }
  reads.push(readFileChannel(managedSettingsFile(platform, env)));
  for (const extra of extraFiles(options.extraFile, env)) if (extra !== managedSettingsFile(platform, env)) reads.push(readFileChannel(extra));
  const settled = await Promise.all(reads.map((r) => r.catch((error: unknown): ManagedRules => ({ channel: 'file', location: 'managed settings', deny: [], managedOnly: false, sandboxForced: false, refused: String(error) }))));
  return settled.filter((r): r is ManagedRules => r !== undefined && restricts(r));
}

/** The user's name for their managed preferences (none when the account has no entry). */
function userName(): string | undefined {
  try {
    return os.userInfo({ encoding: 'utf8' }).username;
  } catch {
    return undefined;
  }
}

const kept = new KeptByBytes<ManagedRules>(8);

async function readFileChannel(file: string): Promise<ManagedRules | undefined> {
  const read = await readRegularFile(file, MAX_BYTES);
  if (!read.ok) {
    if (read.failure.kind === 'missing') return undefined;
    return { channel: 'file', location: file, deny: [], managedOnly: false, sandboxForced: false, refused: read.failure.kind.replace(/-/g, ' ') };
  }
  return kept.of(`file ${file}`, read.bytes, () => deepFreeze(managedRules('file', file, parseManagedSettingsJson(Buffer.from(read.bytes).toString('utf8')))));
}

/** A managed-preferences plist (often binary): converted by macOS's own `plutil`, re-read only when its bytes change. */
async function readPreferences(file: string): Promise<ManagedRules | undefined> {
  const read = await readRegularFile(file, MAX_BYTES);
  if (!read.ok) {
    if (read.failure.kind === 'missing') return undefined;
    return refusedMdm(file, read.failure.kind.replace(/-/g, ' '));
  }
  const key = `${sha256Hex(read.bytes)} ${file}`;
  const known = keptPlists.get(key);
  if (known) return known;
  const xml = await run('plutil', ['-convert', 'xml1', '-o', '-', file]);
  const rules = deepFreeze('error' in xml ? refusedMdm(file, `plutil: ${xml.error}`) : managedRules('mdm', file, parsePlistXml(xml.out)));
  if (keptPlists.size >= 4) keptPlists.clear();
  keptPlists.set(key, rules);
  return rules;
}

const keptPlists = new Map<string, ManagedRules>();

/**
 * One registry key with its subkeys; a key that does not exist sets nothing. No file event reports
 * a registry change, so a DSH step that reads it is planned again at the next step (not kept), and
 * `reg` runs at most once per {@link REGISTRY_TTL_MS} per key.
 */
async function readRegistry(key: string): Promise<ManagedRules | undefined> {
  noteUnwatchableRead();
  const known = registryReads.get(key);
  if (known && Date.now() - known.at < REGISTRY_TTL_MS) return known.rules;
  const rules = await queryRegistry(key);
  registryReads.set(key, { at: Date.now(), rules });
  return rules;
}

const REGISTRY_TTL_MS = 5000;
const registryReads = new Map<string, { at: number; rules: ManagedRules | undefined }>();

async function queryRegistry(key: string): Promise<ManagedRules | undefined> {
  const result = await run('reg', ['query', key, '/s']);
  if ('error' in result) return result.missing ? undefined : refusedMdm(key, `reg query: ${result.error}`);
  const root = key.replace(/^HKLM\\/, 'HKEY_LOCAL_MACHINE\\').replace(/^HKCU\\/, 'HKEY_CURRENT_USER\\');
  return managedRules('mdm', key, managedBag(parseRegQuery(result.out, root)));
}

function refusedMdm(location: string, why: string): ManagedRules {
  return { channel: 'mdm' satisfies ManagedChannel, location, deny: [], managedOnly: false, sandboxForced: false, refused: why };
}

function run(command: string, args: string[]): Promise<{ out: string } | { error: string; missing?: boolean }> {
  return new Promise((resolve) => {
    execFile(command, args, { encoding: 'utf8', timeout: 10000, windowsHide: true, maxBuffer: MAX_BYTES * 4 }, (error, stdout, stderr) => {
      if (!error) return resolve({ out: stdout });
      // `reg query` of a key that does not exist exits 1 with "unable to find".
      const missing = command === 'reg' && /unable to find/i.test(stderr);
      resolve({ error: (stderr || error.message).trim().split(/\r?\n/)[0] ?? 'failed', missing });
    });
  });
}
