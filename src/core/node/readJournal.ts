/**
 * A computation's read journal: every path it looked at (through ./fsReads.ts) with the stamp the
 * path had just before the look, and every environment variable it read (through an env of
 * {@link journaledEnv}). ./keptWhileUnchanged.ts keeps a computation's result while none of these change.
 *
 * The stamp is taken before the look, so a change made after the stamp shows as a stamp that
 * differs at the next check; a change made before the stamp is in what was read.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { lstatSync, promises as fsp, readdirSync, readFileSync, statSync, type BigIntStats } from 'node:fs';
import { observeReads, type ReadKind } from './fsReads';

export type { ReadKind };

export interface NotedRead {
  kind: ReadKind;
  stamp: string;
}

export class ReadJournal {
  readonly reads = new Map<string, NotedRead>();
  /** Variable name -> the value read (undefined: not set). */
  readonly env = new Map<string, string | undefined>();
  /** A read failed for a reason of the moment (out of descriptors, I/O), or read what no stamp follows (the registry): the result is not to be kept. */
  transient = false;
  private readonly pending = new Map<string, Promise<void>>();

  note(file: string, kind: ReadKind): Promise<void> | undefined {
    const known = this.reads.get(file);
    if (known && !widens(known.kind, kind)) return undefined;
    const key = `${kind}\0${file}`;
    let pending = this.pending.get(key);
    if (!pending) {
      // A look that reads more than the one noted (the bytes after a stat) is stamped again, before it reads.
      pending = stampOf(file, kind).then((stamp) => {
        const noted = this.reads.get(file);
        if (!noted) this.reads.set(file, { kind, stamp });
        else if (noted.kind === kind || widens(noted.kind, kind)) Object.assign(noted, { kind, stamp });
      });
      this.pending.set(key, pending);
    }
    return pending;
  }

  noteSync(file: string, kind: ReadKind): void {
    const known = this.reads.get(file);
    if (known && !widens(known.kind, kind)) return;
    this.reads.set(file, { kind, stamp: stampOfSync(file, kind) });
  }
}

/** Whether a look of kind `next` sees more of a path than one of kind `noted` (an entry's stat, then its bytes or names). */
function widens(noted: ReadKind, next: ReadKind): boolean {
  return noted === 'entry' && next !== 'entry';
}

const journals = new AsyncLocalStorage<ReadJournal>();

/** Failures of the moment (descriptors, memory, I/O): what was read then may differ a moment later, with no stamp to say so. */
const TRANSIENT = new Set(['EMFILE', 'ENFILE', 'EAGAIN', 'EBUSY', 'EINTR', 'EIO', 'ENOMEM', 'ETIMEDOUT']);

/** Runs `compute` with a new journal of what it reads. */
export async function journaled<T>(compute: () => Promise<T>): Promise<{ value: T; journal: ReadJournal }> {
  const journal = new ReadJournal();
  const value = await journals.run(journal, compute);
  return { value, journal };
}

// Each look of ./fsReads goes to the running computation's journal (none outside one).
observeReads({
  note: (file, kind) => journals.getStore()?.note(file, kind),
  noteSync: (file, kind) => journals.getStore()?.noteSync(file, kind),
  unwatchable: () => {
    const journal = journals.getStore();
    if (journal) journal.transient = true;
  },
  failed: (error) => {
    const journal = journals.getStore();
    if (journal && TRANSIENT.has((error as NodeJS.ErrnoException | undefined)?.code ?? '')) journal.transient = true;
  },
});

/** `env` with every variable read inside a journal noted in it (with its value). */
export function journaledEnv<E extends Readonly<Record<string, string | undefined>>>(env: E): E {
  const note = (name: string | symbol) => {
    const journal = journals.getStore();
    if (journal && typeof name === 'string' && !journal.env.has(name)) journal.env.set(name, Object.hasOwn(env, name) ? env[name] : undefined);
  };
  return new Proxy(env, {
    get(target, name, receiver) {
      note(name);
      return Reflect.get(target, name, receiver);
    },
    has(target, name) {
      note(name);
      return Reflect.has(target, name);
    },
    getOwnPropertyDescriptor(target, name) {
      note(name);
      return Reflect.getOwnPropertyDescriptor(target, name);
    },
  });
}

/** Whether every path the journal noted still has the stamp it had: a few lstat calls, and a hash of the files whose bytes were read. */
export function readsUnchangedSync(journal: ReadJournal): boolean {
  for (const [file, read] of journal.reads) if (!sameStamp(stampOfSync(path.resolve(file), read.kind), read.stamp, read.kind)) return false;
  return true;
}

/** {@link readsUnchangedSync} without blocking the thread (the editor's poll of what its views read). */
export async function readsUnchanged(journal: ReadJournal): Promise<boolean> {
  for (const [file, read] of journal.reads) if (!sameStamp(await stampOf(path.resolve(file), read.kind), read.stamp, read.kind)) return false;
  return true;
}

/**
 * What a path is now: absent, or its inode, type, owner, size and times (ctime moves on every
 * write, also one that keeps size and mtime); for a file whose bytes were read (`content`), also
 * their SHA-256: a write through a shared memory map moves no time and sends no event; for a
 * folder whose names were read (`listing`), the SHA-256 of its names.
 */
export async function stampOf(file: string, kind: ReadKind = 'entry'): Promise<string> {
  try {
    const own = await fsp.lstat(file, { bigint: true });
    if (!own.isSymbolicLink()) return stampText(own) + await contentPart(file, own, kind);
    const target = await fsp.stat(file, { bigint: true }).then(async (s) => stampText(s) + await contentPart(file, s, kind), failureText);
    return `${stampText(own)}>${target}`;
  } catch (error) {
    return failureText(error);
  }
}

export function stampOfSync(file: string, kind: ReadKind = 'entry'): string {
  try {
    const own = lstatSync(file, { bigint: true });
    if (!own.isSymbolicLink()) return stampText(own) + contentPartSync(file, own, kind);
    let target: string;
    try {
      const stat = statSync(file, { bigint: true });
      target = stampText(stat) + contentPartSync(file, stat, kind);
    } catch (error) {
      target = failureText(error);
    }
    return `${stampText(own)}>${target}`;
  } catch (error) {
    return failureText(error);
  }
}

/** Larger than any file a plan reads (the readers stop at 32 MiB): never hashed, never the same. */
const MAX_HASHED_BYTES = 64n * 1024n * 1024n;

/** A listed folder's names: its times may not move for a name changed in the same clock tick (coarse file times). */
async function namesPart(folder: string): Promise<string> {
  return fsp.readdir(folder).then((names) => `#${createHash('sha256').update(names.sort().join('\0')).digest('hex')}`, (error: unknown) => `#${failureText(error)}`);
}

function namesPartSync(folder: string): string {
  try {
    return `#${createHash('sha256').update(readdirSync(folder).sort().join('\0')).digest('hex')}`;
  } catch (error) {
    return `#${failureText(error)}`;
  }
}

async function contentPart(file: string, stat: BigIntStats, kind: ReadKind): Promise<string> {
  if (kind === 'listing' && stat.isDirectory()) return namesPart(file);
  if (kind !== 'content' || !stat.isFile()) return '';
  if (stat.size > MAX_HASHED_BYTES) return `#unhashed:${Math.random()}`;
  return fsp.readFile(file).then((bytes) => `#${createHash('sha256').update(bytes).digest('hex')}`, (error: unknown) => `#${failureText(error)}`);
}

function contentPartSync(file: string, stat: BigIntStats, kind: ReadKind): string {
  if (kind === 'listing' && stat.isDirectory()) return namesPartSync(file);
  if (kind !== 'content' || !stat.isFile()) return '';
  if (stat.size > MAX_HASHED_BYTES) return `#unhashed:${Math.random()}`;
  try {
    return `#${createHash('sha256').update(readFileSync(file)).digest('hex')}`;
  } catch (error) {
    return `#${failureText(error)}`;
  }
}

function stampText(s: BigIntStats): string {
  return `${s.dev}:${s.ino}:${s.mode}:${s.uid}:${s.gid}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
}

const IDENTITY_FIELDS = 5; // dev, ino, mode, uid, gid

/** A folder's part of a stamp without its size and times, which move when a name in it changes. */
function folderIdentity(part: string): string {
  const fields = part.split(':');
  return fields.length > IDENTITY_FIELDS && (BigInt(fields[2]) & 0o170000n) === 0o040000n ? fields.slice(0, IDENTITY_FIELDS).join(':') : part;
}

/**
 * Whether a path's stamp now says the same as the one noted for its read: a listing, or a file,
 * must be the same in every field; a folder only looked at (`entry`: its existence, type, owner
 * and mode) is the same while those are, whatever names are added beside what was read in it.
 */
export function sameStamp(now: string, noted: string, kind: ReadKind): boolean {
  if (now === noted) return true;
  if (kind !== 'entry') return false;
  const identity = (stamp: string) => stamp.split('>').map(folderIdentity).join('>');
  return identity(now) === identity(noted);
}

function failureText(error: unknown): string {
  return `!${(error as NodeJS.ErrnoException | undefined)?.code ?? 'error'}`;
}
