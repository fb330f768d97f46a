/**
 * Why a folder has no declaration, and what fixes it. DSH started in a subfolder of a project
 * without `.git` finds only the subfolder's declaration, while the MCP configuration (and so the
 * export) is in a folder above: exporting the subfolder fails (`missing-source`), so the fix names
 * the folder that has the configuration and says to start DSH there.
 */
import * as path from 'node:path';
import { DOT_MCP_SOURCE, VSCODE_SOURCE } from '../mcp/sources';
import { planFix, reason, type PlanFix, type PlanReason } from './planReasons';
import type { FilePort } from './ports';

const SOURCES = [VSCODE_SOURCE.path, DOT_MCP_SOURCE.path];

async function sourceIn(files: Pick<FilePort, 'readWorkspaceFile'>, folder: string): Promise<string | undefined> {
  for (const source of SOURCES) {
    const read = await files.readWorkspaceFile(folder, source).catch(() => undefined);
    if (read && (read.ok || read.failure.kind !== 'missing')) return path.join(folder, source);
  }
  return undefined;
}

/**
 * The `no-declaration` reason of `cwd` (the folders `looked` in), or `no-declaration-source-above`
 * when `cwd` has no MCP configuration and a folder above it (up to `home`) has one. Never throws.
 */
export async function noDeclarationReason(files: Pick<FilePort, 'readWorkspaceFile'>, cwd: string, home: string, looked: readonly string[], exportFix: PlanFix): Promise<PlanReason> {
  const plain = reason('no-declaration', { looked: looked.join(', ') }, exportFix);
  const start = path.resolve(cwd);
  const homeDir = path.resolve(home);
  if (start === homeDir || await sourceIn(files, start)) return plain;
  for (let above = path.dirname(start); ; above = path.dirname(above)) {
    const source = await sourceIn(files, above);
    if (source) return reason('no-declaration-source-above', { looked: looked.join(', '), source, folder: above }, planFix('export', { workspace: above }));
    if (above === homeDir || path.dirname(above) === above) return plain;
  }
}
