/**
 * The file system of core/node, with every path a computation reads noted in its read journal
 * (./readJournal.ts): what a computation looked at is then known without each adapter saying
 * it, so the DSH plugin can keep a session plan while none of it changes (./keptWhileUnchanged.ts). Every
 * core/node module takes its file calls from here (a lint rule); writes pass through unnoted.
 * The journal installs itself as the observer when it is loaded (only the DSH plugin loads it:
 * the editor's and the CLI's bundles carry none of it).
 */
import * as nodeFs from 'node:fs';

/**
 * `entry`: the path's own existence, type, owner and mode (and, for a file, its size and times);
 * `content`: also the bytes of a file (opened or read); `listing`: also the names in the folder.
 */
export type ReadKind = 'entry' | 'content' | 'listing';

export interface ReadObserver {
  /** Notes a look about to happen; a promise to wait for before it (undefined: nothing to wait for). */
  note(file: string, kind: ReadKind): Promise<void> | undefined;
  noteSync(file: string, kind: ReadKind): void;
  /** A look that failed (the journal tells a failure of the moment from a lasting one). */
  failed(error: unknown): void;
  /** A look at something no file event reports (the Windows registry): what was computed is not to be kept. */
  unwatchable(): void;
}

/** Notes, in the running computation's journal (if any), a read no file watch can follow. */
export function noteUnwatchableRead(): void {
  observer?.unwatchable();
}

function failed(error: unknown): never {
  observer?.failed(error);
  throw error;
}

let observer: ReadObserver | undefined;

export function observeReads(next: ReadObserver): void {
  observer = next;
}

export const constants = nodeFs.constants;
export type FileHandle = nodeFs.promises.FileHandle;

type PathOp = (file: nodeFs.PathLike, ...rest: never[]) => unknown;

/** `op`, noting its path first when it runs inside a journal (a look is noted before it happens: see readJournal). */
function noted<F extends PathOp>(op: F, kind: ReadKind = 'entry'): F {
  return ((file: nodeFs.PathLike, ...rest: never[]) => {
    if (!observer) return op(file, ...rest);
    const pending = observer.note(String(file), kind);
    const run = () => (op(file, ...rest) as Promise<unknown>).catch(failed);
    return pending ? pending.then(run) : run();
  }) as F;
}

function notedSync<F extends PathOp>(op: F, kind: ReadKind = 'entry'): F {
  return ((file: nodeFs.PathLike, ...rest: never[]) => {
    if (!observer) return op(file, ...rest);
    observer.noteSync(String(file), kind);
    try {
      return op(file, ...rest);
    } catch (error) {
      return failed(error);
    }
  }) as F;
}

const p = nodeFs.promises;

export const fs = {
  access: noted(p.access),
  lstat: noted(p.lstat),
  open: noted(p.open, 'content'),
  readdir: noted(p.readdir, 'listing'),
  readFile: noted(p.readFile, 'content'),
  readlink: noted(p.readlink),
  realpath: noted(p.realpath),
  stat: noted(p.stat),
  // Writes: a computation that writes where it reads sees its own event (it is planned again once).
  chmod: p.chmod,
  link: p.link,
  mkdir: p.mkdir,
  rename: p.rename,
  rm: p.rm,
  writeFile: p.writeFile,
};

export const existsSync = notedSync(nodeFs.existsSync);
export const openSync = notedSync(nodeFs.openSync, 'content');
export const readdirSync = notedSync(nodeFs.readdirSync, 'listing');
export const readFileSync = notedSync(nodeFs.readFileSync, 'content');
export const readlinkSync = notedSync(nodeFs.readlinkSync);
export const realpathSync = notedSync(nodeFs.realpathSync);
export const statSync = notedSync(nodeFs.statSync);
// Calls on an open descriptor: its path was noted when it was opened.
export const { closeSync, fstatSync, readSync } = nodeFs;
