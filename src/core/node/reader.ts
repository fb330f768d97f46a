import { closeSync, constants, fs, fstatSync, openSync, readSync, type FileHandle } from './fsReads';
import * as path from 'node:path';
import { MAX_SOURCE_BYTES, type ReadFailure } from '../problems/readFailure';

export { MAX_SOURCE_BYTES };

export type ReadResult = { ok: true; bytes: Uint8Array; realPath: string } | { ok: false; failure: ReadFailure };

/** True when `child` is `parent` or lies below it (both absolute, already real paths). */
export function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Reads a file of a workspace folder safely: only a regular file (a FIFO or device is
 * opened non-blocking and refused, never read), only when its real path stays inside the
 * folder's real path (no symlink or junction out), and at most `maxBytes`.
 */
export async function readWorkspaceFile(folder: string, relativePath: string, maxBytes = MAX_SOURCE_BYTES): Promise<ReadResult> {
  const fail = (failure: ReadFailure): ReadResult => ({ ok: false, failure });
  let realFolder: string;
  let realFile: string;
  try {
    realFolder = await fs.realpath(folder);
    realFile = await fs.realpath(path.join(folder, relativePath));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return fail({ kind: 'missing' });
    return fail({ kind: 'unreadable', reason: code ?? 'error' });
  }
  if (!isInside(realFolder, realFile)) return fail({ kind: 'outside-workspace' });
  return readRegularFile(realFile, maxBytes);
}

/**
 * Reads a file only if it is a regular file (a FIFO or device is opened non-blocking and refused,
 * never read) of at most `maxBytes` (checked before reading, and again while reading). Links are
 * followed: confinement is {@link readWorkspaceFile}'s job.
 */
export async function readRegularFile(file: string, maxBytes: number): Promise<ReadResult> {
  const fail = (failure: ReadFailure): ReadResult => ({ ok: false, failure });
  let handle: FileHandle;
  try {
    handle = await fs.open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return fail({ kind: 'missing' });
    return fail({ kind: 'unreadable', reason: code ?? 'error' });
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return fail({ kind: 'not-a-regular-file' });
    if (stat.size > maxBytes) return fail({ kind: 'too-large', size: stat.size });
    // Sized by fstat (a cap of many MiB must not allocate them for a small file), plus one byte
    // to notice a file that grew since.
    const buffer = Buffer.alloc(Math.min(maxBytes, stat.size) + 1);
    let total = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, total, buffer.length - total, total);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > maxBytes) return fail({ kind: 'too-large', size: total });
      if (total === buffer.length) return fail({ kind: 'unreadable', reason: 'the file grew while it was read' });
    }
    return { ok: true, bytes: new Uint8Array(buffer.buffer, buffer.byteOffset, total), realPath: file };
  } catch (error) {
    return fail({ kind: 'unreadable', reason: (error as NodeJS.ErrnoException).code ?? 'error' });
  } finally {
    await handle.close();
  }
}

/**
 * {@link readRegularFile} for the synchronous callers (the DSH install's files in the DSH home):
 * the bytes of a regular file of at most `maxBytes` (a FIFO or device is opened non-blocking and
 * never read); undefined when it is absent or cannot be read so.
 */
export function readRegularFileSync(file: string, maxBytes: number): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > maxBytes) return undefined;
    const buffer = Buffer.alloc(stat.size + 1); // one byte more: a file that grew is not read
    let total = 0;
    for (let n; total < buffer.length && (n = readSync(fd, buffer, total, buffer.length - total, total)) > 0;) total += n;
    return total > stat.size ? undefined : buffer.subarray(0, total);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** A file's text through {@link readRegularFileSync}. */
export function readTextFileSync(file: string, maxBytes: number): string | undefined {
  return readRegularFileSync(file, maxBytes)?.toString('utf8');
}
