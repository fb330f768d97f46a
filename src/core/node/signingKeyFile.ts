import { randomBytes } from 'node:crypto';
import { constants, fs, type FileHandle } from './fsReads';
import * as path from 'node:path';
import { FILE_MODE, HostStoreError, octal, type StoreFiles } from './storeFiles';

/** The per-user HMAC key of `<dshHome>/bridge/signing.key`: it signs this user's declarations. */

const KEY_FILE = 'signing.key';

/** The key; created (mode 0600) on first use. */
export async function signingKey(files: StoreFiles): Promise<Buffer> {
  const file = path.join(files.bridgeDir, KEY_FILE);
  const existing = await readSigningKey(files);
  if (existing) return existing;
  await files.ensureDir(files.bridgeDir);
  const key = randomBytes(32).toString('hex');
  // Complete or absent, never half a key: written aside, then linked into place (fails if someone else won).
  const temp = `${file}.${process.pid}-${randomBytes(6).toString('hex')}.new`;
  await fs.writeFile(temp, `${key}\n`, { flag: 'wx', mode: FILE_MODE, flush: true });
  try {
    await fs.link(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await fs.rm(temp, { force: true });
  }
  return (await readSigningKey(files))!; // whoever won a creation race, everyone uses its key
}

/**
 * The key if it exists; verification never creates one. Used only as this user's regular file
 * (a link, a FIFO or another user's file is refused) of mode 0600: a wider mode is tightened
 * first, and bridge/ with it, and the log says so.
 */
export async function readSigningKey(files: StoreFiles): Promise<Buffer | undefined> {
  const file = path.join(files.bridgeDir, KEY_FILE);
  await files.guardDirs();
  let handle: FileHandle;
  try {
    handle = await fs.open(file, constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOFOLLOW ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw new HostStoreError(`${file} is a link: the signing key is used only as a regular file of the DSH home`);
    throw error;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new HostStoreError(`${file} is not a regular file`);
    if (process.platform !== 'win32') {
      files.refuseForeign(file, stat.uid);
      const mode = stat.mode & 0o777;
      if (mode & 0o077) {
        await handle.chmod(FILE_MODE);
        files.log(`${file} had mode ${octal(mode)}; tightened to 0600 (it signs this user's declarations)`);
      }
    }
    const buffer = Buffer.alloc(129); // a key and its line end fit in far less: a longer file is not a key
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const hex = buffer.subarray(0, bytesRead).toString('utf8').trim();
    if (bytesRead === buffer.length || !/^[0-9a-f]{64}$/.test(hex)) throw new HostStoreError('the signing key file is malformed');
    return Buffer.from(hex, 'hex');
  } finally {
    await handle.close();
  }
}
