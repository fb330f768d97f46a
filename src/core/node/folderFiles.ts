/** Listing and resolving inside a workspace folder, for the use cases' file port. */
import { fs } from './fsReads';
import * as path from 'node:path';
import { devcontainerSubfolderSources } from '../mcp/sources';

/**
 * The subfolders of `<folder>/.devcontainer` that hold a `devcontainer.json` (the spec's third
 * location). Only a real folder is listed, never a link out of the workspace; the file itself is
 * then read through the confined reader like every source.
 */
export async function devcontainerSubfolders(folder: string): Promise<string[]> {
  const dir = path.join(folder, '.devcontainer');
  const stat = await fs.lstat(dir).catch(() => undefined);
  if (!stat?.isDirectory()) return [];
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  const names: string[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    if (await fs.lstat(path.join(dir, entry.name, 'devcontainer.json')).then(() => true, () => false)) names.push(entry.name);
  }
  return devcontainerSubfolderSources(names).map((spec) => spec.path.split('/')[1]);
}

/** The real path of `file`, or the path resolved when it has none (it does not exist). */
export function realpathOrResolved(file: string): Promise<string> {
  return fs.realpath(file).catch(() => path.resolve(file));
}
