import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { packageVersion, sha256File, type Mismatch } from '../core/node/dshSide';

/**
 * What the CLI knows from its checkout: the lockfile of the known-good DSH
 * (packages/dsh-launcher) and the bridge bundle's sources (packages/dsh-bridge-dsh, dist/dsh-plugin.js).
 */

/** The repository root (dist/cli.js sits one level below it, src/cli/*.ts two). */
const repoRoot = () => {
  const fromDist = path.resolve(__dirname, '..');
  return existsSync(path.join(fromDist, 'packages/dsh-launcher/package-lock.json')) ? fromDist : path.resolve(__dirname, '../..');
};

export const LAUNCHER_LOCK_DIR = () => path.join(repoRoot(), 'packages/dsh-launcher');
export const BUNDLE_DIR = () => path.join(repoRoot(), 'packages/dsh-bridge-dsh');
export const PLUGIN_FILE = () => path.join(repoRoot(), 'dist/dsh-plugin.js');

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

/** Compares a node_modules folder with the lockfile. */
export function lockMismatches(nodeModules: string, want = lockedVersions()): Mismatch[] {
  return Object.entries(want)
    .map(([name, version]) => ({ name, want: version, have: packageVersion(nodeModules, name) }))
    .filter((m) => m.have !== m.want);
}

/** An installed dsh-bridge-dsh has every shipped file byte-identical to this checkout's. */
export function bundleMatchesCheckout(installed: string): boolean {
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
