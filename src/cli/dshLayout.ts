import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { isMap, isSeq, parseDocument } from 'yaml';
import { writeFileAtomic } from '../core/atomicWrite';

/**
 * Where the DSH side lives on this machine and what state it is in: the DSH installed by
 * `dsh-bridge dsh install` (`<DSH home>/launcher/`, from the lockfile committed in
 * packages/dsh-launcher), a profile (`<DSH home>/profiles/<name>/`), and the bridge bundle in
 * it. Read-only; shared by `dsh install` and `doctor`.
 */

/** The repository root (dist/cli.js and src/cli/*.ts both sit two levels below it). */
export const REPO_ROOT = path.resolve(__dirname, '..');
const repoRoot = () => (existsSync(path.join(REPO_ROOT, 'packages/dsh-launcher/package-lock.json')) ? REPO_ROOT : path.resolve(__dirname, '../..'));

export const LAUNCHER_LOCK_DIR = () => path.join(repoRoot(), 'packages/dsh-launcher');
export const BUNDLE_DIR = () => path.join(repoRoot(), 'packages/dsh-bridge-dsh');
export const PLUGIN_FILE = () => path.join(repoRoot(), 'dist/dsh-plugin.js');
export const BUNDLE_NAME = 'dsh-bridge-dsh';
export const DEFAULT_PROFILE = 'headless';
/** rc.8's dsh-base boots only on Node >= 22.19 (Promise.withResolvers, its HMR service). */
export const MIN_DSH_NODE = [22, 19] as const;

export const launcherDir = (dshHome: string) => path.join(dshHome, 'launcher');
export const launcherWrapper = (dshHome: string) => path.join(launcherDir(dshHome), 'bin', 'dsh');
export const profileDir = (dshHome: string, profile: string) => path.join(dshHome, 'profiles', profile);

export function sha256File(file: string): string | undefined {
  try {
    return createHash('sha256').update(readFileSync(file)).digest('hex');
  } catch {
    return undefined;
  }
}

/**
 * The versions the committed lockfile pins: by default the DSH packages (`@deepseek-ai/*`) and
 * pnpm, with `all` every top-level package that is not an optional one for another platform.
 */
export function lockedVersions(all = false): Record<string, string> {
  const lock = JSON.parse(readFileSync(path.join(LAUNCHER_LOCK_DIR(), 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string; optional?: boolean }> };
  const out: Record<string, string> = {};
  for (const [key, entry] of Object.entries(lock.packages)) {
    const m = (all ? /^node_modules\/((?:@[^/]+\/)?[^/@][^/]*)$/ : /^node_modules\/(@deepseek-ai\/[^/]+|pnpm)$/).exec(key);
    if (m && entry.version && !entry.optional) out[m[1]] = entry.version;
  }
  return out;
}

/** Hash of the committed lockfile pair: the launcher install is current when its stamp says this. */
export function lockStamp(): string {
  return createHash('sha256')
    .update(readFileSync(path.join(LAUNCHER_LOCK_DIR(), 'package.json')))
    .update(readFileSync(path.join(LAUNCHER_LOCK_DIR(), 'package-lock.json')))
    .digest('hex');
}

export interface Mismatch {
  name: string;
  want: string;
  have: string | null;
}

/** Compares a node_modules folder with the lockfile's @deepseek-ai packages and pnpm. */
export function launcherMismatches(nodeModules: string, want = lockedVersions()): Mismatch[] {
  const out: Mismatch[] = [];
  for (const [name, version] of Object.entries(want)) {
    let have: string | null = null;
    try {
      have = (JSON.parse(readFileSync(path.join(nodeModules, name, 'package.json'), 'utf8')) as { version?: string }).version ?? null;
    } catch {
      have = null;
    }
    if (have !== version) out.push({ name, want: version, have });
  }
  return out;
}

export interface FoundLauncher {
  /** What to execute: the wrapper script, or a `dsh` on PATH. */
  command: string;
  /** The node_modules folder holding @deepseek-ai/dsh, when it can be located. */
  nodeModules?: string;
  source: 'bridge-install' | 'path';
}

/** The DSH launcher to use: the one `dsh install` made, else a `dsh` on PATH. */
export function findLauncher(dshHome: string, envPath = process.env.PATH ?? ''): FoundLauncher | undefined {
  const wrapper = launcherWrapper(dshHome);
  if (existsSync(wrapper)) return { command: wrapper, nodeModules: path.join(launcherDir(dshHome), 'node_modules'), source: 'bridge-install' };
  for (const dir of envPath.split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, 'dsh');
    try {
      if (!statSync(candidate).isFile()) continue;
    } catch {
      continue;
    }
    let nodeModules: string | undefined;
    try {
      // npm links bin/dsh -> .../node_modules/@deepseek-ai/dsh/lib/bin.js
      const real = realpathSync(candidate);
      const m = /^(.*[\\/]node_modules)[\\/]@deepseek-ai[\\/]dsh[\\/]/.exec(real);
      if (m) nodeModules = m[1];
    } catch {
      // an unreadable link: keep the command, versions stay unknown
    }
    return { command: candidate, nodeModules, source: 'path' };
  }
  return undefined;
}

/** `process.version` of a Node binary, or undefined when it does not run. */
export function nodeVersion(node: string): string | undefined {
  if (node === process.execPath) return process.version;
  try {
    return execFileSync(node, ['-p', 'process.version'], { encoding: 'utf8', timeout: 10000 }).trim();
  } catch {
    return undefined;
  }
}

export function nodeFitsDsh(version: string | undefined): boolean {
  const m = /^v(\d+)\.(\d+)/.exec(version ?? '');
  if (!m) return false;
  const [major, minor] = [Number(m[1]), Number(m[2])];
  return major > MIN_DSH_NODE[0] || (major === MIN_DSH_NODE[0] && minor >= MIN_DSH_NODE[1]);
}

/** The Node the wrapper made by `dsh install` runs (read back from the wrapper itself). */
export function wrapperNode(dshHome: string): string | undefined {
  try {
    return /^exec "([^"]+)"/m.exec(readFileSync(launcherWrapper(dshHome), 'utf8'))?.[1];
  } catch {
    return undefined;
  }
}

/** An installed dsh-bridge-dsh has every shipped file byte-identical to this checkout's. */
function bundleMatches(installed: string): boolean {
  let files: string[];
  try {
    files = (JSON.parse(readFileSync(path.join(BUNDLE_DIR(), 'package.json'), 'utf8')) as { files: string[] }).files;
  } catch {
    return false;
  }
  return [...files, 'package.json'].every((rel) => {
    const source = rel === 'dist/dsh-plugin.js' ? PLUGIN_FILE() : path.join(BUNDLE_DIR(), rel);
    const have = sha256File(path.join(installed, rel));
    return have !== undefined && have === sha256File(source);
  });
}

export interface ProfileState {
  dir: string;
  exists: boolean;
  bundles: string[];
  /** Version of dsh-bridge-dsh installed in the profile, if any. */
  bundleVersion?: string;
  /** The installed bundle is byte-identical to this checkout's (plugin build, patch, try-it files). */
  bundleCurrent: boolean;
  /** A bundle of the profile disables the hmr row (dsh-headless does). */
  hmrDisabledByBundle: boolean;
  /** The profile's own cordis.patch.yml turns the hmr row back on. */
  hmrEnabledByUser: boolean;
  /** cordis.patch.yml could not be parsed (then it is never rewritten). */
  patchError?: string;
}

export function inspectProfile(dshHome: string, profile: string): ProfileState {
  const dir = profileDir(dshHome, profile);
  const state: ProfileState = { dir, exists: false, bundles: [], bundleCurrent: false, hmrDisabledByBundle: false, hmrEnabledByUser: false };
  let manifest: { dsh?: { profile?: { bundles?: unknown } } };
  try {
    manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  } catch {
    return state;
  }
  state.exists = true;
  const bundles = manifest.dsh?.profile?.bundles;
  state.bundles = Array.isArray(bundles) ? bundles.filter((b): b is string => typeof b === 'string') : [];
  try {
    state.bundleVersion = (JSON.parse(readFileSync(path.join(dir, 'node_modules', BUNDLE_NAME, 'package.json'), 'utf8')) as { version?: string }).version;
  } catch {
    state.bundleVersion = undefined;
  }
  state.bundleCurrent = bundleMatches(path.join(dir, 'node_modules', BUNDLE_NAME));
  state.hmrDisabledByBundle = state.bundles.some((b) => b === '@deepseek-ai/dsh-headless');
  const patch = readPatch(dir);
  if ('error' in patch) state.patchError = patch.error;
  else state.hmrEnabledByUser = patch.hmrEnabled;
  return state;
}

function readPatch(dir: string): { hmrEnabled: boolean; text: string } | { error: string } {
  let text: string;
  try {
    text = readFileSync(path.join(dir, 'cordis.patch.yml'), 'utf8');
  } catch {
    return { hmrEnabled: false, text: '' };
  }
  const doc = parseDocument(text);
  if (doc.errors.length) return { error: doc.errors[0].message };
  const items = isSeq(doc.contents) ? doc.contents.items : [];
  const hmrEnabled = items.some((item) => {
    if (!isMap(item)) return false;
    const row = item.toJSON() as { id?: unknown; disabled?: unknown };
    return row.id === 'hmr' && row.disabled === false;
  });
  return { hmrEnabled, text };
}

/** The profile's cordis.patch.yml with the hmr row turned back on (comments kept). */
export async function writeHmrFix(dir: string): Promise<'written' | 'present'> {
  const file = path.join(dir, 'cordis.patch.yml');
  const patch = readPatch(dir);
  if ('error' in patch) throw new Error(`${file} is not valid YAML (${patch.error}); add "- id: hmr" with "disabled: false" by hand`);
  if (patch.hmrEnabled) return 'present';
  const doc = parseDocument(patch.text || '[]\n');
  if (!isSeq(doc.contents)) throw new Error(`${file} is not a YAML list; add "- id: hmr" with "disabled: false" by hand`);
  doc.contents.flow = false;
  const row = doc.createNode({ id: 'hmr', disabled: false });
  row.commentBefore = ' dsh-bridge: the rc.8 launcher watches this file through the HMR service, which dsh-headless turns off';
  (doc.contents.items as unknown[]).push(row);
  await writeFileAtomic(file, doc.toString());
  return 'written';
}
