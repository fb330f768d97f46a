import { constants, promises as fs } from 'node:fs';
import * as path from 'node:path';

export const MAX_SOURCE_BYTES = 1024 * 1024;

export type ReadFailure =
  | { kind: 'missing' }
  | { kind: 'not-a-regular-file' }
  | { kind: 'outside-workspace' }
  | { kind: 'too-large'; size: number }
  | { kind: 'unreadable'; reason: string };

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
  let handle: fs.FileHandle;
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

export type DecodeResult = { ok: true; text: string } | { ok: false; reason: string };

/** Decodes as VS Code does for JSON: UTF-8 (BOM stripped), or UTF-16 LE/BE with a BOM. */
export function decodeText(bytes: Uint8Array): DecodeResult {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) {
    return decodeUtf16(bytes.subarray(2), true);
  }
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) {
    return decodeUtf16(bytes.subarray(2), false);
  }
  const body = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
  try {
    return { ok: true, text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body) };
  } catch {
    return { ok: false, reason: 'the file is not valid UTF-8' };
  }
}

function decodeUtf16(body: Uint8Array, littleEndian: boolean): DecodeResult {
  if (body.length % 2 !== 0) return { ok: false, reason: 'the UTF-16 file has an odd number of bytes' };
  const units = new Uint16Array(body.length / 2);
  for (let i = 0; i < units.length; i++) {
    units[i] = littleEndian ? body[2 * i] | (body[2 * i + 1] << 8) : (body[2 * i] << 8) | body[2 * i + 1];
  }
  let text = '';
  for (let i = 0; i < units.length; i += 8192) text += String.fromCharCode(...units.subarray(i, i + 8192));
  return { ok: true, text };
}
