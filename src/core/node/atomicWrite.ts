import { randomBytes } from 'node:crypto';
import { constants, fs, type FileHandle } from './fsReads';
import * as path from 'node:path';
import { isInside } from './reader';

/**
 * Temporary files are named `.<target name>.<pid>-<12 hex>.tmp`: the writer's process id tells a
 * later writer whether the file is abandoned (its process is gone, e.g. killed during a write).
 */
const TEMP_PATTERN = /^\.(.+)\.(?:(\d+)-)?[0-9a-f]{12}\.tmp$/;
/** A temp file older than this is abandoned whoever wrote it (process ids are reused). */
const ABANDONED_AFTER_MS = 10 * 60 * 1000;

export interface WriteOptions {
  mode?: number;
  /** Called before anything is created or removed in the folder; a throw aborts the write with nothing done. */
  beforeCreate?: () => Promise<void>;
  /** Called after the data is flushed, just before the rename; a throw aborts the write and removes the temp file. */
  beforeRename?: () => Promise<void>;
  /**
   * Where the temp file is made (default: the target's folder), on the same file system: a folder
   * that cannot move with the target's (see ConfinedDir). Its name then starts with STAGED_PREFIX.
   */
  stageIn?: string;
}

/** What starts the name of a temp file made outside its target's folder (`.dsh-bridge-<target>.<pid>-<hex>.tmp`). */
export const STAGED_PREFIX = 'dsh-bridge-';

/**
 * Writes a file atomically: a temporary file in the same folder (or `stageIn`; created
 * exclusively, flushed), then a rename over the target. A reader sees the old or the new file,
 * never half. Abandoned temp files of earlier writes to that folder are removed first.
 */
export async function writeFileAtomic(target: string, data: string | Uint8Array, options: WriteOptions | number = {}): Promise<void> {
  const { mode = 0o644, beforeCreate, beforeRename, stageIn } = typeof options === 'number' ? { mode: options } : options;
  const dir = stageIn ?? path.dirname(target);
  const prefix = stageIn === undefined ? '' : STAGED_PREFIX;
  await beforeCreate?.();
  await removeTempFiles(dir, { abandonedOnly: true, ...(prefix ? { prefix } : {}) });
  // Temp files an earlier version made in the target's folder, of a process killed mid-write.
  if (stageIn !== undefined) await removeTempFiles(path.dirname(target), { abandonedOnly: true });
  const temp = path.join(dir, `.${prefix}${path.basename(target)}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`);
  const handle = await fs.open(temp, 'wx', mode);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await fs.rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  try {
    await fs.chmod(temp, mode); // the umask may have narrowed or widened the mode at creation
    await beforeRename?.();
    await fs.rename(temp, target);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
}

function processGone(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Removes this module's temp files in `dir` (only regular files of its naming; links are never
 * followed). `abandonedOnly`: only those whose writer is gone or that are old; `of`: only the
 * temp files of that target name; `prefix`: only those whose target name starts so (staged
 * ones, see {@link STAGED_PREFIX}). Returns how many were removed; never throws.
 */
export async function removeTempFiles(dir: string, options: { abandonedOnly: boolean; of?: string; prefix?: string }): Promise<number> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  const now = Date.now();
  for (const name of names) {
    const m = TEMP_PATTERN.exec(name);
    if (!m || (options.of !== undefined && m[1] !== options.of) || (options.prefix !== undefined && !m[1].startsWith(options.prefix))) continue;
    const file = path.join(dir, name);
    try {
      const stat = await fs.lstat(file);
      if (!stat.isFile()) continue;
      if (options.abandonedOnly) {
        const old = now - stat.mtimeMs > ABANDONED_AFTER_MS;
        // Without a process id (an older naming) only age tells.
        if (!old && (m[2] === undefined || !processGone(Number(m[2])))) continue;
      }
      await fs.rm(file, { force: true });
      removed++;
    } catch {
      // Raced with another writer's cleanup or rename: nothing left to do.
    }
  }
  return removed;
}

/**
 * A directory held open for writing, confined to a root: every path it hands out goes through
 * the open handle (`/proc/self/fd/N/<name>` on Linux), so the files land in the directory that
 * was checked even if its path is swapped for a link afterwards. Before each rename the handle's
 * real location is checked again; a directory that has left the root is refused. Where the
 * handle cannot be addressed by path (no /proc), the directory's real path is used and checked
 * again before each rename.
 *
 * The temp files are made in the root (held open too), not in the directory: a directory moved
 * out of the root while it is written to never holds one, neither one made after the move nor
 * one that moved with it (the root cannot leave itself). Only where the directory is on another
 * file system than the root (a mount point, which cannot be renamed) is the temp file made in it.
 */
export class ConfinedDir {
  private constructor(
    private readonly handle: FileHandle | undefined,
    /** Where files are written: the handle's /proc path, or the real path. */
    readonly base: string,
    private readonly realDir: string,
    private readonly realRoot: string,
    private readonly dir: string,
    /** Where temp files are made: the root (its handle's /proc path, or its real path), or undefined for `base`. */
    private readonly staging: { handle?: FileHandle; path: string } | undefined,
  ) {}

  /** Opens `dir` (a path under `realRoot`, itself a real path); throws ConfinementError when it resolves outside. */
  static async open(dir: string, realRoot: string): Promise<ConfinedDir> {
    const realDir = await fs.realpath(dir);
    if (!isInside(realRoot, realDir)) throw new ConfinementError(`${dir} resolves outside ${realRoot}`);
    // Without /proc (not Linux) the real path is used, checked again before each rename.
    if (!(await procFdAvailable())) {
      const staged = realDir !== realRoot && (await sameDevice(realRoot, realDir)) ? { path: realRoot } : undefined;
      return new ConfinedDir(undefined, realDir, realDir, realRoot, dir, staged);
    }
    const handle = await fs.open(realDir, constants.O_RDONLY | constants.O_DIRECTORY);
    let root: FileHandle | undefined;
    try {
      const viaHandle = `/proc/self/fd/${handle.fd}`;
      // What the handle holds decides, not what the path said a moment ago.
      const held = await fs.readlink(viaHandle);
      if (!isInside(realRoot, held)) throw new ConfinementError(`${dir} resolves outside ${realRoot}`);
      if (held !== realRoot) {
        root = await fs.open(realRoot, constants.O_RDONLY | constants.O_DIRECTORY);
        if ((await root.stat()).dev !== (await handle.stat()).dev) {
          await root.close();
          root = undefined;
        }
      }
      return new ConfinedDir(handle, viaHandle, held, realRoot, dir, root ? { handle: root, path: `/proc/self/fd/${root.fd}` } : undefined);
    } catch (error) {
      await root?.close().catch(() => undefined);
      await handle.close().catch(() => undefined);
      throw error;
    }
  }

  /** Throws ConfinementError when the directory is no longer where it was checked to be. */
  async check(): Promise<void> {
    const now = this.handle ? await fs.readlink(this.base).catch(() => '') : await fs.realpath(this.dir).catch(() => '');
    if (now !== this.realDir || !isInside(this.realRoot, now)) {
      throw new ConfinementError(`${this.dir} changed while it was written to (it now resolves to ${now || 'nothing'}); the write was refused`);
    }
  }

  path(name: string): string {
    return path.join(this.base, name);
  }

  async write(name: string, data: string | Uint8Array, mode = 0o644): Promise<void> {
    const check = () => this.check();
    await writeFileAtomic(this.path(name), data, { mode, beforeCreate: check, beforeRename: check, ...(this.staging ? { stageIn: this.staging.path } : {}) });
  }

  async close(): Promise<void> {
    await this.staging?.handle?.close().catch(() => undefined);
    await this.handle?.close().catch(() => undefined);
  }
}

async function sameDevice(a: string, b: string): Promise<boolean> {
  const [sa, sb] = await Promise.all([fs.stat(a), fs.stat(b)]);
  return sa.dev === sb.dev;
}

export class ConfinementError extends Error {}

let procFd: Promise<boolean> | undefined;
function procFdAvailable(): Promise<boolean> {
  procFd ??= process.platform === 'linux' ? fs.stat('/proc/self/fd').then((s) => s.isDirectory(), () => false) : Promise.resolve(false);
  return procFd;
}
