import * as path from 'node:path';
import { fs } from './fsReads';
import { ConfinedDir } from './atomicWrite';
import { readWorkspaceFile } from './reader';
import { decodeText } from '../json/text';
import type { ReadFailure } from '../problems/readFailure';
import { DOT_MCP_SOURCE, VSCODE_SOURCE } from '../mcp/sources';

/**
 * The file side of the move of `.vscode/mcp.json` into `.mcp.json` (core/mcp/portableMove.ts
 * plans it): both texts read through the confined reader, and the reviewed texts written
 * atomically, only while both files still hold what was reviewed.
 */

export type PortablePair = { vscode: string | undefined; dotMcp: string | undefined } | { reason: string };

function failureReason(file: string, failure: ReadFailure): string {
  switch (failure.kind) {
    case 'missing': return `${file} does not exist`;
    case 'not-a-regular-file': return `${file} is not a regular file`;
    case 'outside-workspace': return `${file} resolves outside the folder`;
    case 'too-large': return `${file} has ${failure.size} bytes, more than the limit`;
    case 'unreadable': return `${file} cannot be read (${failure.reason})`;
  }
}

async function readText(folder: string, file: string): Promise<{ text: string | undefined } | { reason: string }> {
  const read = await readWorkspaceFile(folder, file);
  if (!read.ok) return read.failure.kind === 'missing' ? { text: undefined } : { reason: failureReason(file, read.failure) };
  const text = decodeText(read.bytes);
  return text.ok ? { text: text.text } : { reason: `${file}: ${text.reason}` };
}

/** Both files' texts (undefined: no file), or why one cannot be edited. */
export async function readPortablePair(folder: string): Promise<PortablePair> {
  const vscode = await readText(folder, VSCODE_SOURCE.path);
  if ('reason' in vscode) return vscode;
  const dotMcp = await readText(folder, DOT_MCP_SOURCE.path);
  if ('reason' in dotMcp) return dotMcp;
  return { vscode: vscode.text, dotMcp: dotMcp.text };
}

export type PortableWriteResult = { written: true } | { written: false; reason: 'changed' | 'refused'; message: string };

/**
 * Writes the reviewed texts: `.mcp.json` first, then `.vscode/mcp.json` (removed when `vscodeAfter`
 * is undefined), so a failure between them leaves a server in both files (VS Code runs the
 * `.vscode/mcp.json` one), never in neither. Only while both files hold their `before` texts.
 */
export async function writePortablePair(
  folder: string, reviewed: { vscodeBefore: string | undefined; vscodeAfter: string | undefined; dotMcpBefore: string | undefined; dotMcpAfter: string | undefined },
): Promise<PortableWriteResult> {
  const refused = (message: string): PortableWriteResult => ({ written: false, reason: 'refused', message });
  const now = await readPortablePair(folder);
  if ('reason' in now) return refused(now.reason);
  if (now.vscode !== reviewed.vscodeBefore || now.dotMcp !== reviewed.dotMcpBefore) {
    return { written: false, reason: 'changed', message: 'the files changed after the preview' };
  }
  let realFolder: string;
  try {
    realFolder = await fs.realpath(folder);
  } catch (error) {
    return refused((error as Error).message);
  }
  const inDir = async (dir: string, act: (confined: ConfinedDir) => Promise<void>) => {
    const confined = await ConfinedDir.open(dir, realFolder);
    try {
      await act(confined);
    } finally {
      await confined.close();
    }
  };
  try {
    // The folder of the second file first: nothing of the first write waits on a step that can fail after it.
    if (reviewed.vscodeAfter !== undefined && reviewed.vscodeAfter !== reviewed.vscodeBefore) await fs.mkdir(path.join(realFolder, path.dirname(VSCODE_SOURCE.path)), { recursive: true });
    if (reviewed.dotMcpAfter !== undefined && reviewed.dotMcpAfter !== reviewed.dotMcpBefore) {
      await inDir(realFolder, (d) => d.write(DOT_MCP_SOURCE.path, reviewed.dotMcpAfter!));
    }
    if (reviewed.vscodeAfter !== reviewed.vscodeBefore) {
      const vscodeDir = path.join(realFolder, path.dirname(VSCODE_SOURCE.path));
      const name = path.basename(VSCODE_SOURCE.path);
      if (reviewed.vscodeAfter === undefined) await inDir(vscodeDir, async (d) => { await d.check(); await fs.rm(d.path(name)); });
      else {
        await fs.mkdir(vscodeDir, { recursive: true });
        await inDir(vscodeDir, (d) => d.write(name, reviewed.vscodeAfter!));
      }
    }
  } catch (error) {
    return refused((error as Error)?.message ?? String(error));
  }
  return { written: true };
}

/** The move's file port (core/app/ports.ts PortableFilePort). */
export const portableFiles = { readPair: readPortablePair, writePair: writePortablePair };
