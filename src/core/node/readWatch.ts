/**
 * A computation's result kept while nothing it read changes: the DSH plugin plans a session at
 * every model step, and an unchanged step should cost nothing it can feel. What the computation
 * read is its read journal (./readJournal.ts: paths with their stamps, environment variables);
 * each path is watched through its folders (inotify), so a change of a file, of a name in a
 * folder it listed, or of any folder or link on the way to it (also of a link's target) ends the
 * kept result, and the next step computes again.
 *
 * Kept only where a watch sees every change: on Linux, on a local file system (a network or FUSE
 * mount can change without an event), with every watch set (none refused for the inotify limit),
 * and when no read failed for a reason of the moment (out of descriptors, an I/O error).
 * Elsewhere every step computes as before. A change between a read and its watch shows in the
 * stamps compared once the watches stand. Before each step the event loop takes what the kernel
 * has queued, so a change made before the step starts is seen by it; and every path read is
 * stamped again, for the changes no event reports (a queue overflow, a hard link written through
 * another name, a mount, a link in the middle of a chain of links).
 */
import { promises as fsp, watch, type FSWatcher } from 'node:fs';
import * as path from 'node:path';
import { journaled, sameStamp, stampOf, stampOfSync, type ReadJournal, type ReadKind } from './readJournal';

/** statfs types whose changes inotify always reports (local disks, tmpfs, overlay). */
const LOCAL_FILE_SYSTEMS = new Set([
  0xef53, // ext2/3/4
  0x58465342, // xfs
  0x9123683e, // btrfs
  0x01021994, // tmpfs
  0x794c7630, // overlayfs
  0x2fc12fc1, // zfs
  0xf2f52010, // f2fs
  0x858458f6, // ramfs
  0xca451a4e, // bcachefs
  0x3153464a, // jfs
  0x52654973, // reiserfs
]);

/** A folder name listeners care about: one name in it, or every name (`*`). */
const EVERY_NAME = '*';

interface Listener {
  changed(): void;
}

interface FolderWatch {
  watcher: FSWatcher;
  names: Map<string, Set<Listener>>;
}

/** One watch per folder, shared by every kept result that cares about a name in it. */
export class FolderWatches {
  private readonly folders = new Map<string, FolderWatch>();

  /** Folders watched now. */
  get size(): number {
    return this.folders.size;
  }

  /** Watches `name` in `folder` for `listener`; throws when the folder cannot be watched (absent, not a folder, the inotify limit). */
  add(folder: string, name: string, listener: Listener): () => void {
    let entry = this.folders.get(folder);
    if (!entry) {
      const watcher = watch(folder, { persistent: false });
      const created: FolderWatch = { watcher, names: new Map() };
      watcher.on('change', (_event, filename) => this.changed(folder, created, filename === null ? undefined : String(filename)));
      watcher.on('error', () => this.changed(folder, created, undefined));
      this.folders.set(folder, entry = created);
    }
    let listeners = entry.names.get(name);
    if (!listeners) entry.names.set(name, listeners = new Set());
    listeners.add(listener);
    const owner = entry;
    return () => {
      listeners.delete(listener);
      if (!listeners.size) owner.names.delete(name);
      if (!owner.names.size) this.drop(folder, owner);
    };
  }

  /**
   * True when the folder's file system reports every change to inotify. Asked each time its
   * watches are set: a file system can be mounted over a folder (sshfs, NFS) with no event.
   */
  isLocal(folder: string): Promise<boolean> {
    return fsp.statfs(folder).then((s) => LOCAL_FILE_SYSTEMS.has(Number(s.type)), () => false);
  }

  close(): void {
    for (const [folder, entry] of this.folders) this.drop(folder, entry);
  }

  private changed(folder: string, entry: FolderWatch, name: string | undefined): void {
    // No name, or the folder's own name (the folder itself was removed or moved: its watch is
    // dead): every listener. Else the ones of that name and of every name.
    const self = name === undefined || name === path.basename(folder);
    const listeners = self ? [...entry.names.values()].flatMap((s) => [...s])
      : [...entry.names.get(name) ?? [], ...entry.names.get(EVERY_NAME) ?? []];
    if (self) this.drop(folder, entry);
    for (const listener of listeners) listener.changed();
  }

  private drop(folder: string, entry: FolderWatch): void {
    if (this.folders.get(folder) !== entry) return;
    this.folders.delete(folder);
    entry.watcher.close();
  }
}

/** Lets the event loop take the file events the kernel has queued (the second turn comes after a poll). */
function takePendingEvents(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

class Kept<T> implements Listener {
  dirty = false;
  /** Resolves true when every read is watched and unchanged since (false: never reuse). */
  watched: Promise<boolean> = Promise.resolve(false);
  readonly releases: Array<() => void> = [];

  constructor(readonly key: string, readonly value: T, readonly journal: ReadJournal) {}

  changed(): void {
    this.dirty = true;
    this.release();
  }

  release(): void {
    for (const release of this.releases.splice(0)) release();
  }
}

/**
 * The last result of one computation, kept while nothing it read changed and its key is the
 * same. {@link computed} counts the computations (a plugin's bookkeeping, the tests).
 */
export class KeptWhileUnchanged<T> {
  private kept?: Kept<T>;
  /** Counts {@link close} calls: a computation that saw one while it ran keeps nothing (no one holds its result). */
  private closes = 0;
  computed = 0;

  /** `env`: the environment the computation reads (through a journaled view of it). */
  constructor(private readonly watches: FolderWatches, private readonly env: Readonly<Record<string, string | undefined>>) {}

  async get(key: string, compute: () => Promise<T>): Promise<T> {
    await takePendingEvents();
    const kept = this.kept;
    if (kept && kept.key === key && await kept.watched && !kept.dirty && this.sameEnv(kept.journal) && sameStamps(kept.journal)) return kept.value;
    this.close();
    const closes = this.closes;
    const { value, journal } = await journaled(compute);
    this.computed++;
    // Closed while it computed (the session ended, the plugin unloaded): nothing to keep, nothing to watch.
    if (this.closes !== closes) return value;
    const entry = new Kept(key, value, journal);
    this.kept = entry;
    entry.watched = this.watch(entry);
    return value;
  }

  /** Whether the kept result is watched (once its watches stand): false, it is computed again at the next call. */
  watching(): Promise<boolean> {
    return this.kept?.watched ?? Promise.resolve(false);
  }

  /** Forgets the kept result and its watches. */
  close(): void {
    this.closes++;
    this.kept?.changed();
    this.kept = undefined;
  }

  private sameEnv(journal: ReadJournal): boolean {
    for (const [name, value] of journal.env) if ((Object.hasOwn(this.env, name) ? this.env[name] : undefined) !== value) return false;
    return true;
  }

  private async watch(entry: Kept<T>): Promise<boolean> {
    // A read that failed for a reason of the moment (out of descriptors) would be kept with no event to end it.
    if (process.platform !== 'linux' || entry.journal.transient) return false;
    try {
      const targets = new Map<string, ReadKind>();
      const target = (file: string, kind: ReadKind) => {
        if (targets.get(file) !== 'listing') targets.set(file, kind);
      };
      for (const [file, read] of entry.journal.reads) {
        const absolute = path.resolve(file);
        target(absolute, read.kind);
        // A link's target is watched too: a change there changes what the link reads.
        const real = await fsp.realpath(absolute).catch(() => undefined);
        if (real !== undefined && real !== absolute) target(real, read.kind);
      }
      const folders = new Set<string>();
      const add = (folder: string, name: string): boolean => {
        if (entry.dirty) return false;
        try {
          entry.releases.push(this.watches.add(folder, name, entry));
          folders.add(folder);
          return true;
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          // Absent, or not a folder: its parent's watch sees it appear.
          if (code === 'ENOENT' || code === 'ENOTDIR') return false;
          throw error;
        }
      };
      for (const [file, kind] of targets) {
        // Every folder on the way, for the name of the next step: a folder or link replaced there changes the path.
        const steps = ancestry(file);
        for (const { folder, name } of steps) if (!add(folder, name)) break;
        if (kind === 'listing') add(file, EVERY_NAME);
      }
      const local = await Promise.all([...folders].map((folder) => this.watches.isLocal(folder)));
      if (local.includes(false)) throw new Error('a folder is not on a local file system');
      for (const [file, read] of entry.journal.reads) {
        if (entry.dirty) break;
        if (!sameStamp(await stampOf(path.resolve(file), read.kind), read.stamp, read.kind)) entry.changed();
      }
      return true;
    } catch {
      entry.release();
      return false;
    }
  }
}

/**
 * Every path read still has the stamp it had (looked at again before a kept result is used): a
 * change no watch reports ends it too: the kernel's event queue overflowed (libuv drops
 * IN_Q_OVERFLOW), a hard link written through its other name, a mount over a folder on the way,
 * a link in the middle of a chain of links, the root folder (no folder above it to watch).
 * A few lstat calls: a small part of what computing again costs.
 */
function sameStamps(journal: ReadJournal): boolean {
  for (const [file, read] of journal.reads) if (!sameStamp(stampOfSync(path.resolve(file), read.kind), read.stamp, read.kind)) return false;
  return true;
}

/** `/a/b/c` -> [{ folder: '/', name: 'a' }, { folder: '/a', name: 'b' }, { folder: '/a/b', name: 'c' }]. */
function ancestry(file: string): Array<{ folder: string; name: string }> {
  const steps: Array<{ folder: string; name: string }> = [];
  for (let current = file; path.dirname(current) !== current; current = path.dirname(current)) {
    steps.unshift({ folder: path.dirname(current), name: path.basename(current) });
  }
  return steps;
}
