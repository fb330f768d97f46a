import type { ReadFailure } from '../problems/readFailure';

export type SkillEntryType = 'file' | 'directory' | 'other';

/** What discovery and hashing read, passed in by the caller (`nodeSkillFs` in core/node/skillFs.ts is the real file system). */
export interface SkillFs {
  /** Children with symbolic links followed (a broken link is `other`); `undefined` when the directory is absent. */
  list(dir: string): Promise<Array<{ name: string; type: SkillEntryType }> | undefined>;
  /**
   * UTF-8 text (no BOM stripping, like DSH's readFile); `undefined` when absent. Throws
   * {@link SkillFileRefused} for what is not read: not a regular file, more than `maxBytes`, or
   * (with `within`) a path whose real location leaves that folder.
   */
  readText(file: string, limits?: SkillReadLimits): Promise<string | undefined>;
  readBytes(file: string, limits?: SkillReadLimits): Promise<Uint8Array | undefined>;
  exists(p: string): Promise<boolean>;
  /** Canonical path, for cycle detection while hashing. */
  realpath(p: string): Promise<string>;
}

export interface SkillReadLimits {
  /** The file's real path must stay inside this folder's real path (no link out). */
  within?: string;
  /** Default {@link MAX_SKILL_FILE_BYTES}. */
  maxBytes?: number;
}

/** A SKILL.md is read whole; anything larger is refused before it is read. */
export const MAX_SKILL_FILE_BYTES = 1024 * 1024;

export class SkillFileRefused extends Error {
  constructor(readonly failure: Exclude<ReadFailure, { kind: 'missing' }>) {
    super(failure.kind === 'too-large' ? `it is larger than the limit (${failure.size} bytes)`
      : failure.kind === 'outside-workspace' ? 'it is a link that leaves its skill root'
        : failure.kind === 'not-a-regular-file' ? 'it is not a regular file' : `it cannot be read (${failure.reason})`);
  }
}
