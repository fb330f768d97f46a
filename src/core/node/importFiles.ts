import { fs } from './fsReads';
import * as path from 'node:path';
import { ConfinedDir } from './atomicWrite';
import { isInside, readRegularFile, readWorkspaceFile } from './reader';
import type { ReadFailure } from '../problems/readFailure';
import { decodeText } from '../json/text';
import { makeNote, type ImportClient, type ImportNote } from '../import/importNotes';
import type { ImportSourceFile } from '../import/clientFiles';
import { withoutCarried } from '../import/importReport';

/**
 * The file side of the import: where each client keeps its MCP servers, reading those files,
 * and writing `.vscode/mcp.json` atomically. The conversion itself is the pure core
 * (core/import). Facts on the locations: docs/import.md.
 */

/** ~/.claude.json also holds the conversation history: larger than any MCP file. */
const MAX_IMPORT_BYTES = 32 * 1024 * 1024;

export const TARGET_PATH = '.vscode/mcp.json';

export interface ImportLocation {
  file: string;
  scope: 'project' | 'user';
}

/** The files a client reads its MCP servers from, the workspace's first. */
export function importLocations(client: ImportClient, folder: string, home: string, env: Readonly<Record<string, string | undefined>>): ImportLocation[] {
  const project = (rel: string): ImportLocation => ({ file: path.join(folder, rel), scope: 'project' });
  const user = (file: string): ImportLocation => ({ file, scope: 'user' });
  switch (client) {
    case 'cursor':
      return [project('.cursor/mcp.json'), user(path.join(home, '.cursor', 'mcp.json'))];
    case 'claude':
      return [project('.mcp.json'), user(path.join(home, '.claude.json'))];
    case 'gemini':
      return [project('.gemini/settings.json'), user(path.join(home, '.gemini', 'settings.json'))];
    case 'codex': {
      const codexHome = env.CODEX_HOME?.trim() ? path.resolve(env.CODEX_HOME) : path.join(home, '.codex');
      return [project('.codex/config.toml'), user(path.join(codexHome, 'config.toml'))];
    }
  }
}

/** A path as shown to the user: relative to the folder inside it, `~/...` in the home folder. */
export function displayPath(file: string, folder: string, home: string): string {
  if (isInside(folder, file)) return path.relative(folder, file).split(path.sep).join('/');
  if (home && isInside(home, file)) return `~/${path.relative(home, file).split(path.sep).join('/')}`;
  return file;
}

function failureReason(failure: ReadFailure): string {
  switch (failure.kind) {
    case 'missing': return 'it does not exist';
    case 'not-a-regular-file': return 'not a regular file';
    case 'outside-workspace': return 'outside the workspace';
    case 'too-large': return `${failure.size} bytes, more than the limit`;
    case 'unreadable': return failure.reason;
  }
}

/**
 * Reads the client's files: the given ones (a missing one is a note), else the client's usual
 * locations (a missing one is skipped). Never throws.
 */
export async function readImportSources(client: ImportClient, folder: string, given: readonly string[], home: string, env: Readonly<Record<string, string | undefined>>):
  Promise<{ sources: ImportSourceFile[]; notes: ImportNote[]; looked: string[] }> {
  const explicit = given.length > 0;
  const locations = explicit
    ? given.map((f) => { const file = path.resolve(folder, f); return { file, scope: isInside(folder, file) ? 'project' as const : 'user' as const }; })
    : importLocations(client, folder, home, env);
  const sources: ImportSourceFile[] = [];
  const notes: ImportNote[] = [];
  for (const location of locations) {
    const shown = displayPath(location.file, folder, home);
    const read = await readRegularFile(location.file, MAX_IMPORT_BYTES);
    if (!read.ok) {
      if (explicit || read.failure.kind !== 'missing') notes.push(makeNote('unreadable', { file: shown }, { reason: failureReason(read.failure) }));
      continue;
    }
    const text = decodeText(read.bytes);
    if (!text.ok) {
      notes.push(makeNote('unreadable', { file: shown }, { reason: text.reason }));
      continue;
    }
    sources.push({ file: shown, text: text.text, scope: location.scope });
  }
  return { sources, notes, looked: locations.map((l) => displayPath(l.file, folder, home)) };
}

/** The current `.vscode/mcp.json` text (undefined: no file), or why it cannot be edited. */
export async function readImportTarget(folder: string): Promise<{ text: string | undefined } | { reason: string }> {
  const read = await readWorkspaceFile(folder, TARGET_PATH);
  if (!read.ok) return read.failure.kind === 'missing' ? { text: undefined } : { reason: failureReason(read.failure) };
  const text = decodeText(read.bytes);
  return text.ok ? { text: text.text } : { reason: text.reason };
}

export type ImportWriteResult = { written: true } | { written: false; reason: 'changed' | 'refused'; message: string };

/**
 * Writes the new `.vscode/mcp.json` atomically, only if the file still holds what the preview
 * was computed from (`before`; '' for no file), and only inside the folder.
 */
export async function writeImportTarget(folder: string, before: string, after: string): Promise<ImportWriteResult> {
  const current = await readImportTarget(folder);
  if ('reason' in current) return { written: false, reason: 'refused', message: `${TARGET_PATH} cannot be read (${current.reason})` };
  if ((current.text ?? '') !== before) return { written: false, reason: 'changed', message: `${TARGET_PATH} changed after the preview` };
  const realFolder = await fs.realpath(folder);
  const dir = path.join(realFolder, '.vscode');
  await fs.mkdir(dir, { recursive: true });
  let confined: ConfinedDir;
  try {
    confined = await ConfinedDir.open(dir, realFolder);
  } catch (error) {
    return { written: false, reason: 'refused', message: (error as Error).message };
  }
  try {
    await confined.write('mcp.json', after);
  } catch (error) {
    return { written: false, reason: 'refused', message: (error as Error).message };
  } finally {
    await confined.close();
  }
  return { written: true };
}

export type OriginalsRemoval = { removed: string[] } | { removed: []; reason: 'changed' | 'refused' | 'nothing'; message: string };

/**
 * Removes the carried servers (`names`, as named in the source) from a source file in the folder
 * (`file`, as {@link displayPath} shows it), atomically, keeping its mode, only if the file still
 * holds `before` (the text the import read), and only entries of those names: what was not
 * carried stays. A file outside the folder (the home folder's) is never edited.
 */
export async function removeImportedOriginals(folder: string, file: string, before: string, names: readonly string[]): Promise<OriginalsRemoval> {
  const refused = (reason: 'changed' | 'refused' | 'nothing', message: string): OriginalsRemoval => ({ removed: [], reason, message });
  try {
    if (path.isAbsolute(file) || file.startsWith('~') || file.split('/').includes('..')) return refused('refused', `${file} is not in the folder`);
    const read = await readWorkspaceFile(folder, file, MAX_IMPORT_BYTES);
    if (!read.ok) return refused('refused', `${file} cannot be read (${failureReason(read.failure)})`);
    const text = decodeText(read.bytes);
    if (!text.ok || text.text !== before) return refused('changed', `${file} changed after the import read it`);
    const after = withoutCarried(before, names);
    if (after === undefined) return refused('nothing', `${file} holds none of these servers`);
    const realFolder = await fs.realpath(folder);
    const target = path.join(realFolder, file);
    const mode = (await fs.stat(target)).mode & 0o777;
    const confined = await ConfinedDir.open(path.dirname(target), realFolder);
    try {
      await confined.write(path.basename(target), after.text, mode);
    } finally {
      await confined.close();
    }
    return { removed: after.removed };
  } catch (error) {
    return refused('refused', (error as Error)?.message ?? String(error));
  }
}

/** The import's file port (core/app/ports.ts ImportFilePort). */
export const importFiles = { readSources: readImportSources, readTarget: readImportTarget, writeTarget: writeImportTarget, removeOriginals: removeImportedOriginals };
