import { fs } from './fsReads';
import * as path from 'node:path';
import * as z from 'zod/mini';
import { writeFileAtomic } from './atomicWrite';
import { deepFreeze, KeptByBytes } from '../json/keptByBytes';
import { readRegularFile } from './reader';
import { readFailureReason } from '../problems/readFailure';
import { isRecord } from '../json/jsonValue';

/**
 * The one file primitive of the host store (`<dshHome>/bridge/`): this user's folders of mode
 * 0700, records read through the safe reader and parsed with a schema, written atomically with
 * mode 0600. Each record kind (folderRecords, probeRecords, skillRecords, signingKeyFile) keeps
 * its own schema and files over it; hostStore.ts puts them together.
 */

export class HostStoreError extends Error {}

export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;
/** The folders the store keeps below bridge/. */
const STORE_DIRS = ['folders', 'exports', 'probes', 'starts'];
/** A record larger than this is not the store's (a probe record of many tools stays far below it). */
const MAX_RECORD_BYTES = 32 * 1024 * 1024;

export interface StoreFilesOptions {
  /** Where a change the store made on its own is said (a tightened folder mode); default stderr. */
  log?: (line: string) => void;
  /** Told after the store wrote or removed one of its files (a face that keeps what it read forgets it). */
  onWrite?: (file: string) => void;
}

/**
 * A JSON object read as a map of its own keys. zod's record leaves a `__proto__` key out (a plain
 * object cannot hold one by assignment), and an input id or a serverName may be exactly that, or
 * `constructor`: a Map holds any key, and a lookup never reaches Object.prototype.
 */
export function keyedMap<T>(value: z.ZodMiniType<T>) {
  return z.pipe(
    z.custom<object>(isRecord),
    z.transform((entries: object, payload) => {
      const map = new Map<string, T>();
      for (const [key, item] of Object.entries(entries)) {
        const parsed = value.safeParse(item);
        if (parsed.success) map.set(key, parsed.data);
        else payload.issues.push({ code: 'custom', message: 'an entry does not have the expected shape', input: item });
      }
      return map;
    }),
  );
}

export class StoreFiles {
  readonly bridgeDir: string;
  readonly log: (line: string) => void;
  private readonly wrote: (file: string) => void;
  /** Records parsed, by file and bytes: the DSH plugin reads several of them at every model step. */
  private readonly keptRecords = new KeptByBytes<unknown>(24);

  constructor(readonly dshHome: string, options: StoreFilesOptions = {}) {
    this.bridgeDir = path.join(dshHome, 'bridge');
    this.log = options.log ?? ((line) => process.stderr.write(`dsh-bridge: ${line}\n`));
    this.wrote = options.onWrite ?? (() => undefined);
  }

  /** Creates `dir` (bridge/ or one of its folders) with mode 0700, then guards every folder of the store. */
  async ensureDir(dir: string): Promise<void> {
    await fs.mkdir(dir, { recursive: true, mode: DIR_MODE });
    await this.guardDirs();
  }

  /**
   * bridge/ and each folder of the store that exists: this user's, mode 0700. One with access for
   * others (e.g. 0755 from an older tool or a copy) is tightened to 0700, and the log says so; one
   * of another user is refused: the store holds input values and the signing key.
   */
  async guardDirs(): Promise<void> {
    if (process.platform === 'win32') return; // modes do not apply; the user profile's ACL protects it
    const dirs = [this.bridgeDir, ...STORE_DIRS.map((d) => path.join(this.bridgeDir, d))];
    // Looked at all at once (the signing key's read waits for this at every model step), judged in order.
    const stats = await Promise.all(dirs.map((dir) => fs.lstat(dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    })));
    for (const [i, dir] of dirs.entries()) {
      const stat = stats[i];
      if (!stat) continue;
      if (!stat.isDirectory()) throw new HostStoreError(`${dir} is not a folder`);
      this.refuseForeign(dir, stat.uid);
      const mode = stat.mode & 0o777;
      if (mode & 0o077) {
        await fs.chmod(dir, DIR_MODE);
        this.log(`${dir} had mode ${octal(mode)}; tightened to 0700 (it holds input values and the signing key)`);
      }
    }
  }

  /** Refuses a file or folder of the store that another user owns. */
  refuseForeign(file: string, uid: number): void {
    const me = process.getuid?.();
    if (me !== undefined && uid !== me) {
      throw new HostStoreError(`${file} belongs to another user (uid ${uid}, not ${me}): the DSH home's bridge store is not used; remove it or give it to this user`);
    }
  }

  async readJson<T>(file: string, schema: z.ZodMiniType<T>): Promise<T | undefined> {
    const bytes = await this.readBytes(file);
    return bytes && this.parseJson(file, bytes, schema);
  }

  /** A record as {@link readJson} parses it, after `check`, kept (frozen) while its bytes stay the same. */
  async readKeptJson<T, R = T>(file: string, schema: z.ZodMiniType<T>, check: (record: T) => R = (r) => r as unknown as R): Promise<R | undefined> {
    const bytes = await this.readBytes(file);
    return bytes && (this.keptRecords.of(file, bytes, () => deepFreeze(check(this.parseJson(file, bytes, schema)))) as R);
  }

  /** A record's bytes, through the safe reader (a FIFO or a device in the DSH home is never waited on); undefined when it does not exist. */
  async readBytes(file: string): Promise<Uint8Array | undefined> {
    const read = await readRegularFile(file, MAX_RECORD_BYTES);
    if (!read.ok) {
      if (read.failure.kind === 'missing') return undefined;
      throw new HostStoreError(`${file} cannot be read (${readFailureReason(read.failure, MAX_RECORD_BYTES)})`);
    }
    return read.bytes;
  }

  parseJson<T>(file: string, bytes: Uint8Array, schema: z.ZodMiniType<T>): T {
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new HostStoreError(`${file} is not valid JSON${REPAIR(file)}`);
    }
    const result = schema.safeParse(parsed);
    if (!result.success) throw new HostStoreError(`${file} does not have the expected shape${REPAIR(file)}`);
    return result.data;
  }

  async writeJson(file: string, value: unknown): Promise<void> {
    await this.ensureDir(path.dirname(file));
    try {
      await writeFileAtomic(file, `${JSON.stringify(value, null, 2)}\n`, { mode: FILE_MODE });
    } finally {
      this.wrote(file); // also after a failure: what is on disk now is not known
    }
  }

  async removeFile(file: string): Promise<void> {
    try {
      await fs.rm(file, { force: true });
    } finally {
      this.wrote(file);
    }
  }
}

/** How to get past a store file that cannot be used (nothing here writes over it: what it holds may be the user's to mend). */
const REPAIR = (file: string) => `; fix it, or move it aside to start again: mv ${JSON.stringify(file)} ${JSON.stringify(`${file}.bad`)}`;

export const octal = (mode: number) => mode.toString(8).padStart(4, '0');

export async function exists(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch {
    return false;
  }
}
