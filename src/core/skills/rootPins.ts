/**
 * The content pin of a skill root: what the user trusts, since DSH has no trust step of its own.
 */
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { SkillFileRefused, type SkillFs } from './skillFileAccess';
import { confinedRoot, type SkillRoot } from './skillRoots';

export interface HashOptions {
  /** Refuse to pin a root with more files than this (default 10000). */
  maxFiles?: number;
  /** Refuse to pin a root with more bytes than this (default 64 MiB). */
  maxBytes?: number;
}

export interface SkillRootContent {
  /** `sha256:<hex>`; absent when the root does not exist or exceeds the limits. */
  pin?: string;
  files: number;
  bytes: number;
  tooLarge?: boolean;
}

const PIN_HEADER = 'dsh-bridge skill-root v1\n';

function compareUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/**
 * The content pin of a skill root: `sha256:` + hex SHA-256 of this byte stream:
 *
 *     "dsh-bridge skill-root v1\n"
 *     then for every regular file under the root, sorted by the UTF-8 bytes of its path:
 *     <path relative to the root, '/'-separated, UTF-8> "\0" <byte length, decimal> "\0" <hex SHA-256 of the bytes> "\n"
 *
 * Every file counts, not only SKILL.md: a skill's scripts and references are part of what the model
 * is told to use. The walk is recursive and follows symbolic links (DSH follows them too), entering
 * no directory that is already on the current path (a link cycle). A `<dshHome>/skills` root leaves
 * out its top-level `.system`, which DSH skips. Directories, empty ones included, and anything that
 * is neither a file nor a directory contribute nothing. Names are hashed as the file system returns
 * them (no Unicode normalization). An existing empty root pins to the header alone; a root that
 * does not exist has no pin.
 */
export async function hashSkillRoot(root: Pick<SkillRoot, 'path' | 'skipSystem'> & Partial<Pick<SkillRoot, 'kind'>>, fs: SkillFs, options: HashOptions = {}): Promise<SkillRootContent> {
  const maxFiles = options.maxFiles ?? 10_000;
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  const records: Array<{ rel: string; line: string }> = [];
  let bytes = 0;
  let tooLarge = false;

  const walk = async (dir: string, rel: string, onPath: ReadonlySet<string>): Promise<boolean> => {
    const entries = await fs.list(dir);
    if (entries === undefined) return false;
    const real = await fs.realpath(dir);
    const stack = new Set(onPath).add(real);
    for (const entry of entries) {
      if (tooLarge) return true;
      if (rel === '' && root.skipSystem && entry.name === '.system') continue;
      const full = path.join(dir, entry.name);
      const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.type === 'directory') {
        if (stack.has(await fs.realpath(full))) continue;
        await walk(full, childRel, stack);
      } else if (entry.type === 'file') {
        let content: Uint8Array | undefined;
        try {
          content = await fs.readBytes(full, { within: confinedRoot(root), maxBytes: maxBytes - bytes });
        } catch (error) {
          if (!(error instanceof SkillFileRefused)) throw error;
          if (error.failure.kind !== 'too-large') continue; // a FIFO, a device or a link out contributes nothing
          tooLarge = true;
          return true;
        }
        if (content === undefined) continue;
        bytes += content.byteLength;
        if (records.length + 1 > maxFiles || bytes > maxBytes) {
          tooLarge = true;
          return true;
        }
        const digest = createHash('sha256').update(content).digest('hex');
        records.push({ rel: childRel, line: `${childRel}\0${content.byteLength}\0${digest}\n` });
      }
    }
    return true;
  };

  const exists = await walk(root.path, '', new Set());
  if (!exists) return { files: 0, bytes: 0 };
  if (tooLarge) return { files: records.length, bytes, tooLarge: true };
  records.sort((a, b) => compareUtf8(a.rel, b.rel));
  const hash = createHash('sha256').update(PIN_HEADER, 'utf8');
  for (const r of records) hash.update(r.line, 'utf8');
  return { pin: `sha256:${hash.digest('hex')}`, files: records.length, bytes };
}
