import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, realpathSync, statSync } from './fsReads';
import * as path from 'node:path';
import { isMap, isSeq, parseDocument } from 'yaml';
import { writeFileAtomic } from './atomicWrite';
import { readRegularFileSync, readTextFileSync } from './reader';

/**
 * The DSH side on this machine, read-only (except `writeHmrFix`): the DSH that
 * `dsh-bridge dsh install` made (`<DSH home>/launcher/`) or a `dsh` on PATH, its Node, its
 * packages against the known-good rc.8 set, and a profile (`<DSH home>/profiles/<name>/`)
 * with the bridge bundle in it. Used by the CLI's `dsh install` and by the doctor report.
 */

const DSH_VERSION = '0.1.0-rc.8';
/** Files of the DSH install are read through the safe reader (a FIFO or device in the DSH home is never waited on), up to these sizes. */
const MAX_MANIFEST_BYTES = 1024 * 1024;
const MAX_HASHED_BYTES = 64 * 1024 * 1024;
/** 1.0.19 dropped `registerConfig`, which the rc.8 launcher calls on every boot. */
const HMR_VERSION = '1.0.16';
/** Packages the rc.8 launcher needs at run time that npm does not install with it (peers). */
const REQUIRED_PEERS = [
  '@deepseek-ai/cordis-plugin-group',
  ...['invariants', 'scope', 'fs', 'atomic-write', 'shell', 'bash-local', 'sandbox', 'compaction', 'workflow', 'code-runtime', 'timeout',
    'session-telemetry', 'anonymous-user-id', 'output-retention', 'session-title-llm', 'spill', 'subagent-in-process-driver'].map((n) => `@deepseek-ai/dsh-${n}`),
];
/**
 * The language-server packages (npm has them only on the 0.0.1-rc line, none on rc.8): without
 * them a session mounts MCP servers but no language server. Installed by `dsh install`; a DSH of
 * the user's own may lack them, which only the language-server cargo needs.
 */
export const LSP_PACKAGES: Readonly<Record<string, string>> = {
  '@deepseek-ai/dsh-lsp': '0.0.1-rc.1',
  '@deepseek-ai/dsh-lsp-stdio': '0.0.1-rc.5',
  '@deepseek-ai/dsh-tool-lsp': '0.0.1-rc.1',
};
export const BUNDLE_NAME = 'dsh-bridge-dsh';
export const DEFAULT_PROFILE = 'headless';
/** rc.8's dsh-base boots only on Node >= 22.19 (Promise.withResolvers, its HMR service). */
const MIN_DSH_NODE = [22, 19] as const;

export const launcherDir = (dshHome: string) => path.join(dshHome, 'launcher');
export const launcherWrapper = (dshHome: string) => path.join(launcherDir(dshHome), 'bin', 'dsh');
export const profileDir = (dshHome: string, profile: string) => path.join(dshHome, 'profiles', profile);

export function sha256File(file: string): string | undefined {
  const bytes = readRegularFileSync(file, MAX_HASHED_BYTES);
  return bytes && createHash('sha256').update(bytes).digest('hex');
}

export function packageVersion(nodeModules: string, name: string): string | null {
  try {
    return (JSON.parse(readTextFileSync(path.join(nodeModules, name, 'package.json'), MAX_MANIFEST_BYTES) ?? '') as { version?: string }).version ?? null;
  } catch {
    return null;
  }
}

export interface Mismatch {
  name: string;
  want: string;
  have: string | null;
}

/**
 * The known-good rules for an rc.8 install: every DSH package rc.8 (the language-server packages,
 * when present, at their own pinned versions), hmr 1.0.16, every peer present.
 */
export function launcherRuleMismatches(nodeModules: string): Mismatch[] {
  const out: Mismatch[] = [];
  let dshPackages: string[] = [];
  try {
    dshPackages = readdirSync(path.join(nodeModules, '@deepseek-ai')).filter((n) => n === 'dsh' || n.startsWith('dsh-')).map((n) => `@deepseek-ai/${n}`);
  } catch {
    dshPackages = [];
  }
  for (const name of new Set(['@deepseek-ai/dsh', ...dshPackages, ...REQUIRED_PEERS.filter((p) => p !== '@deepseek-ai/cordis-plugin-group')])) {
    const have = packageVersion(nodeModules, name);
    const want = LSP_PACKAGES[name] ?? DSH_VERSION;
    if (have !== want) out.push({ name, want, have });
  }
  const hmr = packageVersion(nodeModules, '@deepseek-ai/cordis-plugin-hmr');
  if (hmr !== HMR_VERSION) out.push({ name: '@deepseek-ai/cordis-plugin-hmr', want: HMR_VERSION, have: hmr });
  if (packageVersion(nodeModules, '@deepseek-ai/cordis-plugin-group') === null) out.push({ name: '@deepseek-ai/cordis-plugin-group', want: 'installed', have: null });
  return out;
}

/** The language-server packages a node_modules folder lacks (any version mismatch is a rule mismatch). */
export const missingLspPackages = (nodeModules: string): string[] =>
  Object.keys(LSP_PACKAGES).filter((name) => packageVersion(nodeModules, name) === null);

/**
 * DSH's module fallback for every profile: `<DSH home>/profiles/node_modules`, one link per
 * package of the dsh app's dependency closure, which DSH re-links at each boot and never prunes.
 * The host's Loader resolves a plugin's imports from the profile folder, so a package reaches a
 * session only from the profile's own node_modules or from here.
 */
export const profilesModuleFallback = (dshHome: string) => path.join(dshHome, 'profiles', 'node_modules');

/** The language-server packages a session of this profile cannot import, at the pinned versions. */
export function lspPackagesUnloadable(dshHome: string, profile: string): string[] {
  return Object.entries(LSP_PACKAGES)
    .filter(([name, version]) => (packageVersion(path.join(profileDir(dshHome, profile), 'node_modules'), name) ?? packageVersion(profilesModuleFallback(dshHome), name)) !== version)
    .map(([name]) => name);
}

export interface FoundLauncher {
  /** What to execute: the wrapper script, or a `dsh` on PATH. */
  command: string;
  /** The node_modules folder holding @deepseek-ai/dsh, when it can be located. */
  nodeModules?: string;
  source: 'bridge-install' | 'path';
}

function onPath(name: string, envPath: string): string | undefined {
  for (const dir of envPath.split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, name);
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not in this folder
    }
  }
  return undefined;
}

/** The DSH launcher to use: the one `dsh install` made, else a `dsh` on PATH. */
export function findLauncher(dshHome: string, envPath = process.env.PATH ?? ''): FoundLauncher | undefined {
  const wrapper = launcherWrapper(dshHome);
  if (existsSync(wrapper)) return { command: wrapper, nodeModules: path.join(launcherDir(dshHome), 'node_modules'), source: 'bridge-install' };
  const candidate = onPath('dsh', envPath);
  if (!candidate) return undefined;
  let nodeModules: string | undefined;
  try {
    // npm links bin/dsh -> .../node_modules/@deepseek-ai/dsh/lib/bin.js
    const m = /^(.*[\\/]node_modules)[\\/]@deepseek-ai[\\/]dsh[\\/]/.exec(realpathSync(candidate));
    if (m) nodeModules = m[1];
  } catch {
    // an unreadable link: versions stay unknown
  }
  return { command: candidate, nodeModules, source: 'path' };
}

/** The Node a launcher runs on: the one written in our wrapper, else `node` on PATH (npm's bin shebang). */
export function launcherNode(launcher: FoundLauncher, envPath = process.env.PATH ?? ''): string | undefined {
  if (launcher.source === 'bridge-install') {
    return /^exec "([^"]+)"/m.exec(readTextFileSync(launcher.command, MAX_MANIFEST_BYTES) ?? '')?.[1];
  }
  return onPath('node', envPath);
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

export interface ProfileState {
  dir: string;
  exists: boolean;
  bundles: string[];
  /** Version of dsh-bridge-dsh installed in the profile, if any. */
  bundleVersion?: string;
  /** The installed bundle is identical to the caller's build; undefined when the caller cannot tell. */
  bundleCurrent?: boolean;
  /** A bundle of the profile disables the hmr row (dsh-headless does). */
  hmrDisabledByBundle: boolean;
  /** The profile's own cordis.patch.yml turns the hmr row back on. */
  hmrEnabledByUser: boolean;
  /** cordis.patch.yml could not be parsed (then it is never rewritten). */
  patchError?: string;
}

export function inspectProfile(dshHome: string, profile: string, bundleMatches?: (installedDir: string) => boolean): ProfileState {
  const dir = profileDir(dshHome, profile);
  const state: ProfileState = { dir, exists: false, bundles: [], hmrDisabledByBundle: false, hmrEnabledByUser: false };
  let manifest: { dsh?: { profile?: { bundles?: unknown } } };
  try {
    manifest = JSON.parse(readTextFileSync(path.join(dir, 'package.json'), MAX_MANIFEST_BYTES) ?? '');
  } catch {
    return state;
  }
  state.exists = true;
  const bundles = manifest.dsh?.profile?.bundles;
  state.bundles = Array.isArray(bundles) ? bundles.filter((b): b is string => typeof b === 'string') : [];
  state.bundleVersion = packageVersion(path.join(dir, 'node_modules'), BUNDLE_NAME) ?? undefined;
  if (bundleMatches) state.bundleCurrent = state.bundleVersion !== undefined && bundleMatches(path.join(dir, 'node_modules', BUNDLE_NAME));
  state.hmrDisabledByBundle = state.bundles.includes('@deepseek-ai/dsh-headless');
  const patch = readPatch(dir);
  if ('error' in patch) state.patchError = patch.error;
  else state.hmrEnabledByUser = patch.hmrEnabled;
  return state;
}

function readPatch(dir: string): { hmrEnabled: boolean; text: string } | { error: string } {
  const text = readTextFileSync(path.join(dir, 'cordis.patch.yml'), MAX_MANIFEST_BYTES);
  if (text === undefined) return { hmrEnabled: false, text: '' };
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

/** Turns the hmr row back on in a profile's cordis.patch.yml, once (comments kept); a file it cannot edit is left alone. */
export async function writeHmrFix(dir: string): Promise<'written' | 'present' | { error: string }> {
  const file = path.join(dir, 'cordis.patch.yml');
  const patch = readPatch(dir);
  if ('error' in patch) return { error: `${file} is not valid YAML (${patch.error}); add "- id: hmr" with "disabled: false" by hand` };
  if (patch.hmrEnabled) return 'present';
  const doc = parseDocument(patch.text || '[]\n');
  if (!isSeq(doc.contents)) return { error: `${file} is not a YAML list; add "- id: hmr" with "disabled: false" by hand` };
  doc.contents.flow = false;
  const row = doc.createNode({ id: 'hmr', disabled: false });
  row.commentBefore = ' dsh-bridge: the rc.8 launcher watches this file through the HMR service, which dsh-headless turns off';
  (doc.contents.items as unknown[]).push(row);
  try {
    await writeFileAtomic(file, doc.toString());
  } catch (error) {
    return { error: `${file} could not be written (${error instanceof Error ? error.message : String(error)})` };
  }
  return 'written';
}

/** What the doctor needs to know of the DSH that would run a session, read in one go. */
export interface DshInstallFacts {
  launcher?: FoundLauncher;
  /** The Node the launcher runs on, its version (undefined: it does not run), and whether DSH rc.8 runs on it. */
  node?: { path?: string; version?: string; fitsDsh: boolean };
  /** `@deepseek-ai/dsh`'s version in the launcher's node_modules (undefined: not located). */
  dshVersion?: string;
  /** The DSH version the bridge is verified with. */
  wantedDshVersion: string;
  /** The profile asked about is the default one (`dsh install` needs no --profile for it). */
  defaultProfile: boolean;
  /** Packages that break the known-good rc.8 rules (empty when unchecked). */
  mismatches: Mismatch[];
  profile: ProfileState;
  /** The language-server packages a session of the profile cannot import. */
  lspPackagesMissing: string[];
}

/** The DSH install on this machine as the doctor reports it: launcher, Node, packages, profile. */
export function inspectDshInstall(dshHome: string, profile: string, envPath: string, bundleMatches?: (installedDir: string) => boolean): DshInstallFacts {
  const launcher = findLauncher(dshHome, envPath);
  const facts: DshInstallFacts = {
    mismatches: [], profile: inspectProfile(dshHome, profile, bundleMatches), lspPackagesMissing: [], wantedDshVersion: DSH_VERSION, defaultProfile: profile === DEFAULT_PROFILE,
  };
  if (launcher) {
    facts.launcher = launcher;
    const node = launcherNode(launcher, envPath);
    const version = node ? nodeVersion(node) : undefined;
    facts.node = { path: node, version, fitsDsh: nodeFitsDsh(version) };
    if (launcher.nodeModules) {
      facts.dshVersion = packageVersion(launcher.nodeModules, '@deepseek-ai/dsh') ?? 'unknown';
      facts.mismatches = launcherRuleMismatches(launcher.nodeModules);
    }
  }
  if (facts.profile.exists) facts.lspPackagesMissing = lspPackagesUnloadable(dshHome, profile);
  return facts;
}

/** The profiles of the DSH home that load the bridge's bundle (the ones a user of the bridge runs), sorted; never throws. */
export function bridgeProfiles(dshHome: string): string[] {
  try {
    return readdirSync(path.join(dshHome, 'profiles'), { withFileTypes: true })
      .filter((d) => d.isDirectory() && d.name !== 'node_modules' && inspectProfile(dshHome, d.name).bundles.includes('dsh-bridge-dsh'))
      .map((d) => d.name).sort();
  } catch {
    return [];
  }
}
