import { fs } from './fsReads';

const { access, readdir, realpath, stat } = fs;
import * as path from 'node:path';
import { MAX_SKILL_FILE_BYTES, SkillFileRefused, type SkillEntryType, type SkillFs, type SkillReadLimits } from '../skills/skillFileAccess';
import { readRegularFile, readWorkspaceFile } from './reader';

/** The safe reader for skill files: regular files only, size-capped before reading, confined when asked. */
async function readSkillFile(file: string, limits: SkillReadLimits = {}): Promise<Uint8Array | undefined> {
  const max = limits.maxBytes ?? MAX_SKILL_FILE_BYTES;
  const read = limits.within === undefined ? await readRegularFile(file, max) : await readWorkspaceFile(limits.within, path.relative(limits.within, file), max);
  if (read.ok) return read.bytes;
  if (read.failure.kind === 'missing') return undefined;
  throw new SkillFileRefused(read.failure);
}

function isAbsent(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * The real file system for skill discovery and hashing (core/skills/discovery.ts and
 * rootPins.ts take it as a parameter): links followed, skill files read through the safe reader above.
 */
export const nodeSkillFs: SkillFs = {
  async list(dir) {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true, encoding: 'utf8' });
    } catch (error) {
      if (isAbsent(error)) return undefined;
      throw error;
    }
    const out: Array<{ name: string; type: SkillEntryType }> = [];
    for (const entry of entries) {
      let type: SkillEntryType = entry.isDirectory() ? 'directory' : entry.isFile() ? 'file' : 'other';
      if (entry.isSymbolicLink()) {
        try {
          const info = await stat(path.join(dir, entry.name));
          type = info.isDirectory() ? 'directory' : info.isFile() ? 'file' : 'other';
        } catch {
          type = 'other';
        }
      }
      out.push({ name: entry.name, type });
    }
    return out;
  },
  async readText(file, limits) {
    const bytes = await readSkillFile(file, limits);
    return bytes === undefined ? undefined : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  },
  readBytes: (file, limits) => readSkillFile(file, limits),
  async exists(p) {
    try {
      await access(p);
      return true;
    } catch {
      return false;
    }
  },
  realpath: (p) => realpath(p),
};
