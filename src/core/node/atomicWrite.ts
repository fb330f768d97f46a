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
}

/**
 * Writes a file atomically: a temporary file in the same folder (created exclusively,
 * flushed), then a rename over the target. A reader sees the old or the new file, never half.
 * Abandoned temp files of earlier writes to that folder are removed first.
 */
export async function writeFileAtomic(target: string, data: string | Uint8Array, options: WriteOptions | number = {}): Promise<void> {
  const { mode = 0o644, beforeCreate, beforeRename } = typeof options === 'number' ? { mode: options } : options;
  const dir = path.dirname(target);
  await beforeCreate?.();
  await removeTempFiles(dir, { abandonedOnly: true });
  const temp = path.join(dir, `.${path.basename(target)}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`);
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
 * temp files of that target name. Returns how many were removed; never throws.
 */
export async function removeTempFiles(dir: string, options: { abandonedOnly: boolean; of?: string }): Promise<number> {
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
    if (!m || (options.of !== undefined && m[1] !== options.of)) continue;
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
 * again before each rename. Each write checks before it creates its temp file too, so a directory
 * moved out of the root in between gets nothing, not even a temp file removed a moment later.
 */
export class ConfinedDir {
  private constructor(
    private readonly handle: FileHandle | undefined,
    /** Where files are written: the handle's /proc path, or the real path. */
    readonly base: string,
    private readonly realDir: string,
    private readonly realRoot: string,
    private readonly dir: string,
  ) {}

  /** Opens `dir` (a path under `realRoot`, itself a real path); throws ConfinementError when it resolves outside. */
  static async open(dir: string, realRoot: string): Promise<ConfinedDir> {
    const realDir = await fs.realpath(dir);
    if (!isInside(realRoot, realDir)) throw new ConfinementError(`${dir} resolves outside ${realRoot}`);
    // Without /proc (not Linux) the real path is used, checked again before each rename.
    if (!(await procFdAvailable())) return new ConfinedDir(undefined, realDir, realDir, realRoot, dir);
    const handle = await fs.open(realDir, constants.O_RDONLY | constants.O_DIRECTORY);
    try {
      const viaHandle = `/proc/self/fd/${handle.fd}`;
      // What the handle holds decides, not what the path said a moment ago.
      const held = await fs.readlink(viaHandle);
      if (!isInside(realRoot, held)) throw new ConfinementError(`${dir} resolves outside ${realRoot}`);
      return new ConfinedDir(handle, viaHandle, held, realRoot, dir);
    } catch (error) {
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
    await writeFileAtomic(this.path(name), data, { mode, beforeCreate: () => this.check(), beforeRename: () => this.check() });
  }

  async close(): Promise<void> {
    await this.handle?.close().catch(() => undefined);
  }
}

export class ConfinementError extends Error {}

let procFd: Promise<boolean> | undefined;
function procFdAvailable(): Promise<boolean> {
  procFd ??= process.platform === 'linux' ? fs.stat('/proc/self/fd').then((s) => s.isDirectory(), () => false) : Promise.resolve(false);
  return procFd;
}
