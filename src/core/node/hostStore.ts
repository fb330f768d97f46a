import { TRUST_MODES, type TrustMode } from '../settings/folderSettings';
import { randomBytes } from 'node:crypto';
import { constants, fs, type FileHandle } from './fsReads';
import * as os from 'node:os';
import * as path from 'node:path';
import * as z from 'zod/mini';
import { removeTempFiles, writeFileAtomic } from './atomicWrite';
import { sha256Hex } from '../json/canonicalJson';
import { deepFreeze, KeptByBytes } from '../json/keptByBytes';
import { readRegularFile } from './reader';
import { readFailureReason } from '../problems/readFailure';
import { ToolPinSchema } from '../declaration/toolsModel';
import { secretMask } from '../tools/maskSecrets';
import { isRecord } from '../json/jsonValue';

/**
 * The host side of the bridge, under `<dshHome>/bridge/` (never in a workspace): the signing
 * key, the trust mode, and per folder the input values and the approved pins. The DSH plugin
 * reads the same files. Format: docs/declaration.md.
 */

/**
 * DSH's own rule (contract section 6): an explicit value, else $DSH_HOME, else ~/.dsh; a blank
 * value counts as unset; `~`, `~/x` and `~\\x` expand against the home folder, as dsh-home-paths does.
 */
export function resolveDshHome(
  explicit?: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
  home = os.homedir(),
  base = process.cwd(),
): string {
  const given = [explicit, env.DSH_HOME].find((v) => v !== undefined && v.trim() !== '');
  if (given === undefined) return path.join(home, '.dsh');
  const expanded = given === '~' ? home : given.startsWith('~/') || given.startsWith('~\\') ? path.join(home, given.slice(2)) : given;
  return path.resolve(base, expanded);
}


const SettingsFile = z.object({ version: z.literal(1), trustMode: z.enum(TRUST_MODES) });
const Approval = z.object({ serverName: z.string(), pin: z.string() });
export type Approval = z.infer<typeof Approval>;
/**
 * A JSON object read as a map of its own keys. zod's record leaves a `__proto__` key out (a plain
 * object cannot hold one by assignment), and an input id or a serverName may be exactly that, or
 * `constructor`: a Map holds any key, and a lookup never reaches Object.prototype.
 */
function keyedMap<T>(value: z.ZodMiniType<T>) {
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

const FolderFile = z.object({
  version: z.literal(1),
  folder: z.string(),
  /** Input id -> value. */
  inputs: keyedMap(z.string()),
  approvals: z.array(Approval),
});
/** How many exports of a folder wrote a declaration; the newest declaration carries the count. */
const ExportsFile = z.object({ version: z.literal(1), folder: z.string(), exportSeq: z.int().check(z.minimum(1)) });
export type FolderRecord = z.infer<typeof FolderFile>;
/**
 * The last successful probe of each server of a folder (host side: a tool list is not secret, but
 * it is what the probe ran with this machine's input values; it never goes into the workspace).
 * `pin` is the server's launch pin when it was probed: an export takes the tool pins only while
 * the server's pin is still that one.
 */
const ProbedServer = z.object({
  name: z.string(),
  pin: z.string(),
  probedAt: z.string(),
  tools: z.array(z.object({ name: z.string(), description: z.string(), inputSchema: z.unknown(), pin: ToolPinSchema })),
  /** The server's `instructions` from `initialize`, masked (absent: it sent none, or an older probe). */
  instructions: z.optional(z.string()),
});
export type ProbedServerRecord = z.infer<typeof ProbedServer>;
const ProbesFile = z.object({ version: z.literal(1), folder: z.string(), servers: keyedMap(ProbedServer) });
/**
 * A server that a session's first request went without because it was still starting (the
 * plugin's bounded wait ended first): the DSH plugin records it for the doctor, per folder and
 * serverName, and removes it when a later first request had the server. No secret in it.
 */
const SlowStart = z.object({
  pin: z.string(),
  /** When the request went without it (ISO time). */
  at: z.string(),
  /** How long it had been starting then. */
  startingMs: z.number(),
  /** How long the request waited (startWaitMs, or the headless run's wait). */
  waitMs: z.number(),
  headless: z.boolean(),
  /** How long its start took in the end, when it came up in that session. */
  upAfterMs: z.optional(z.number()),
});
export type SlowStartRecord = z.infer<typeof SlowStart>;
const SlowStartsFile = z.object({ version: z.literal(1), folder: z.string(), servers: keyedMap(SlowStart) });
const SkillTrustFile = z.object({ version: z.literal(1), roots: z.record(z.string(), z.string()) });
/**
 * Definitions the user accepted despite an error-level scan finding (core/scan), each bound to its
 * pin: a tool by its definition pin (name, description and input schema), a skill by the SHA-256
 * of its SKILL.md. Any change of the definition makes the acceptance not apply.
 */
const AcceptedFile = z.object({
  version: z.literal(1),
  tools: z.array(z.object({ folder: z.string(), serverName: z.string(), tool: z.string(), pin: z.string() })),
  skills: z.array(z.object({ file: z.string(), pin: z.string() })),
});
export type AcceptedDefinitions = z.infer<typeof AcceptedFile>;
/** The accepted definitions as read: kept and shared by every reader, so not to be changed. */
type KeptAcceptedDefinitions = { readonly [K in keyof AcceptedDefinitions]: Readonly<AcceptedDefinitions[K]> };
/** Nothing accepted yet: one frozen value, so a reader kept on the list's identity (the plugin's tool gate) sees no change. */
const NO_ACCEPTANCES: KeptAcceptedDefinitions = deepFreeze({ version: 1, tools: [], skills: [] });

const FILE_MODE = 0o600;
const DIR_MODE = 0o700;
/** The folders the store keeps below bridge/. */
const STORE_DIRS = ['folders', 'exports', 'probes', 'starts', 'sessions'];
/** A record larger than this is not the store's (a probe record of many tools stays far below it). */
const MAX_RECORD_BYTES = 32 * 1024 * 1024;
const KEY_FILE = 'signing.key';

export class HostStoreError extends Error {}

export interface HostStoreOptions {
  /** Where a change the store made on its own is said (a tightened folder mode); default stderr. */
  log?: (line: string) => void;
  /** Told after the store wrote or removed one of its files (a face that keeps what it read forgets it). */
  onWrite?: (file: string) => void;
}

export class HostStore {
  readonly bridgeDir: string;
  private readonly log: (line: string) => void;
  private readonly wrote: (file: string) => void;
  /** The probe records parsed, by file and bytes: the DSH plugin's verify reads the record at every model step. */
  private readonly keptProbes = new KeptByBytes<Readonly<Record<string, ProbedServerRecord>>>(16);
  /** The skill trust and the accepted definitions parsed, by file and bytes: the plugin's skill gate reads both at every model step. */
  private readonly keptRecords = new KeptByBytes<unknown>(8);

  constructor(readonly dshHome: string, options: HostStoreOptions = {}) {
    this.bridgeDir = path.join(dshHome, 'bridge');
    this.log = options.log ?? ((line) => process.stderr.write(`dsh-bridge: ${line}\n`));
    this.wrote = options.onWrite ?? (() => undefined);
  }

  folderFile(folder: string): string {
    return path.join(this.bridgeDir, 'folders', `${sha256Hex(path.resolve(folder))}.json`);
  }

  /** Creates `dir` (bridge/ or one of its folders) with mode 0700, then guards every folder of the store. */
  private async ensureDir(dir: string): Promise<void> {
    await fs.mkdir(dir, { recursive: true, mode: DIR_MODE });
    await this.guardDirs();
  }

  /**
   * bridge/ and each folder of the store that exists: this user's, mode 0700. One with access for
   * others (e.g. 0755 from an older tool or a copy) is tightened to 0700, and the log says so; one
   * of another user is refused: the store holds input values and the signing key.
   */
  private async guardDirs(): Promise<void> {
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
  private refuseForeign(file: string, uid: number): void {
    const me = process.getuid?.();
    if (me !== undefined && uid !== me) {
      throw new HostStoreError(`${file} belongs to another user (uid ${uid}, not ${me}): the DSH home's bridge store is not used; remove it or give it to this user`);
    }
  }

  /** One record of the store (undefined when absent), checked against `schema`; the other record files (sessionRecords.ts) read through it. */
  async readJson<T>(file: string, schema: z.ZodMiniType<T>): Promise<T | undefined> {
    const bytes = await this.readBytes(file);
    return bytes && this.parseJson(file, bytes, schema);
  }

  /** A record as {@link readJson} parses it, kept (frozen) while its bytes stay the same. */
  private async readKeptJson<T>(file: string, schema: z.ZodMiniType<T>): Promise<T | undefined> {
    const bytes = await this.readBytes(file);
    return bytes && (this.keptRecords.of(file, bytes, () => deepFreeze(this.parseJson(file, bytes, schema))) as T);
  }

  /** A record's bytes, through the safe reader (a FIFO or a device in the DSH home is never waited on); undefined when it does not exist. */
  private async readBytes(file: string): Promise<Uint8Array | undefined> {
    const read = await readRegularFile(file, MAX_RECORD_BYTES);
    if (!read.ok) {
      if (read.failure.kind === 'missing') return undefined;
      throw new HostStoreError(`${file} cannot be read (${readFailureReason(read.failure, MAX_RECORD_BYTES)})`);
    }
    return read.bytes;
  }

  private parseJson<T>(file: string, bytes: Uint8Array, schema: z.ZodMiniType<T>): T {
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

  /** Writes one record atomically, mode 0600, its folder 0700. */
  async writeJson(file: string, value: unknown): Promise<void> {
    await this.ensureDir(path.dirname(file));
    try {
      await writeFileAtomic(file, `${JSON.stringify(value, null, 2)}\n`, { mode: FILE_MODE });
    } finally {
      this.wrote(file); // also after a failure: what is on disk now is not known
    }
  }

  /** The per-user HMAC key; created (mode 0600) on first use. */
  async signingKey(): Promise<Buffer> {
    const file = path.join(this.bridgeDir, KEY_FILE);
    const existing = await this.readSigningKey();
    if (existing) return existing;
    await this.ensureDir(this.bridgeDir);
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
    return (await this.readSigningKey())!; // whoever won a creation race, everyone uses its key
  }

  /**
   * The key if it exists; verification never creates one. Used only as this user's regular file
   * (a link, a FIFO or another user's file is refused) of mode 0600: a wider mode is tightened
   * first, and bridge/ with it, and the log says so.
   */
  async readSigningKey(): Promise<Buffer | undefined> {
    const file = path.join(this.bridgeDir, KEY_FILE);
    await this.guardDirs();
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
        this.refuseForeign(file, stat.uid);
        const mode = stat.mode & 0o777;
        if (mode & 0o077) {
          await handle.chmod(FILE_MODE);
          this.log(`${file} had mode ${octal(mode)}; tightened to 0600 (it signs this user's declarations)`);
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

  async trustMode(): Promise<TrustMode> {
    return (await this.storedTrustMode()) ?? 'ask';
  }

  /** The mode as stored; undefined while no face has written one (DSH then acts as "ask"). */
  async storedTrustMode(): Promise<TrustMode | undefined> {
    return (await this.readJson(path.join(this.bridgeDir, 'settings.json'), SettingsFile))?.trustMode;
  }

  /** The file that holds the machine's trust mode (watched by the editor). */
  get trustModeFile(): string {
    return path.join(this.bridgeDir, 'settings.json');
  }

  async setTrustMode(trustMode: TrustMode): Promise<void> {
    if ((await this.trustMode()) === trustMode && (await exists(path.join(this.bridgeDir, 'settings.json')))) return;
    await this.writeJson(path.join(this.bridgeDir, 'settings.json'), { version: 1, trustMode });
  }

  async readFolder(folder: string): Promise<FolderRecord> {
    const absolute = path.resolve(folder);
    const record = await this.readJson(this.folderFile(absolute), FolderFile);
    if (record && record.folder !== absolute) throw new HostStoreError('folder record does not match its folder');
    return record ?? { version: 1, folder: absolute, inputs: new Map(), approvals: [] };
  }

  private async updateFolder(folder: string, change: (record: FolderRecord) => void): Promise<void> {
    const record = await this.readFolder(folder);
    change(record);
    const file = this.folderFile(folder);
    if (record.inputs.size === 0 && record.approvals.length === 0) {
      try {
        await fs.rm(file, { force: true });
      } finally {
        this.wrote(file);
      }
      return;
    }
    // Object.fromEntries defines each key as its own property, `__proto__` included.
    await this.writeJson(file, { ...record, inputs: Object.fromEntries(record.inputs) });
  }

  async setInput(folder: string, id: string, value: string): Promise<void> {
    await this.updateFolder(folder, (r) => {
      r.inputs.set(id, value);
    });
  }

  /**
   * Forgets one input value, or all of the folder's when `id` is undefined, and masks the values
   * in the folder's recorded probes (a probe before masking existed may have stored a tool
   * description that quoted one).
   */
  async forgetInput(folder: string, id?: string): Promise<void> {
    const forgotten: string[] = [];
    await this.updateFolder(folder, (r) => {
      if (id === undefined) {
        forgotten.push(...r.inputs.values());
        r.inputs.clear();
      } else if (r.inputs.has(id)) {
        forgotten.push(r.inputs.get(id)!);
        r.inputs.delete(id);
      }
    });
    // A write killed midway leaves a temp copy of the record, input values included: forgotten too.
    const file = this.folderFile(folder);
    await removeTempFiles(path.dirname(file), { abandonedOnly: false, of: path.basename(file) });
    await this.maskProbes(folder, forgotten);
  }

  /** Rewrites the folder's recorded probes with `values` masked in their texts (pins unchanged). */
  private async maskProbes(folder: string, values: readonly string[]): Promise<void> {
    const absolute = path.resolve(folder);
    const recorded: Readonly<Record<string, ProbedServerRecord>> = values.length ? await this.probedServers(absolute).catch(() => ({})) : {};
    if (Object.keys(recorded).length === 0) return;
    const mask = secretMask(values);
    const servers = Object.fromEntries(Object.entries(recorded).map(([serverName, s]) => [serverName, {
      ...s, tools: s.tools.map((tool) => ({ ...tool, description: mask.text(tool.description), inputSchema: mask.json(tool.inputSchema) })),
    }]));
    await this.writeJson(this.probesFile(absolute), { version: 1, folder: absolute, servers });
  }

  async approve(folder: string, serverName: string, pin: string): Promise<void> {
    await this.updateFolder(folder, (r) => {
      r.approvals = r.approvals.filter((a) => a.serverName !== serverName);
      r.approvals.push({ serverName, pin });
    });
  }

  /**
   * Records an export that writes a new declaration: the folder's export count goes up (the
   * declaration carries it; an older one is refused as a rollback), and approvals of servers
   * that left, or of pins no longer exported, are revoked. Returns the new count.
   */
  async recordExport(folder: string, exported: ReadonlyArray<{ serverName: string; pin: string }>): Promise<number> {
    const absolute = path.resolve(folder);
    const seq = (await this.exportSeq(absolute)) + 1;
    await this.writeJson(this.exportsFile(absolute), { version: 1, folder: absolute, exportSeq: seq });
    await this.revokeApprovalsExcept(absolute, exported);
    return seq;
  }

  /** The folder's export count (0 before its first export). Kept apart from the folder record, which holds secrets. */
  async exportSeq(folder: string): Promise<number> {
    const absolute = path.resolve(folder);
    const record = await this.readJson(this.exportsFile(absolute), ExportsFile);
    if (record && record.folder !== absolute) throw new HostStoreError('export record does not match its folder');
    return record?.exportSeq ?? 0;
  }

  private exportsFile(folder: string): string {
    return path.join(this.bridgeDir, 'exports', `${sha256Hex(path.resolve(folder))}.json`);
  }

  /** Revokes approvals of anything not exported now (an export that left the declaration as it was). */
  async revokeApprovalsExcept(folder: string, exported: ReadonlyArray<{ serverName: string; pin: string }>): Promise<void> {
    const record = await this.readFolder(folder);
    const keep = record.approvals.filter((a) => exported.some((s) => s.serverName === a.serverName && s.pin === a.pin));
    if (keep.length !== record.approvals.length) await this.updateFolder(folder, (r) => { r.approvals = keep; });
  }

  async isApproved(folder: string, serverName: string, pin: string): Promise<boolean> {
    return (await this.readFolder(folder)).approvals.some((a) => a.serverName === serverName && a.pin === pin);
  }

  private probesFile(folder: string): string {
    return path.join(this.bridgeDir, 'probes', `${sha256Hex(path.resolve(folder))}.json`);
  }

  /**
   * The last successful probe of each server of the folder, by serverName (empty before any probe).
   * Frozen and shared: the record is parsed once per change of its bytes.
   */
  async probedServers(folder: string): Promise<Readonly<Record<string, ProbedServerRecord>>> {
    const absolute = path.resolve(folder);
    const file = this.probesFile(absolute);
    const bytes = await this.readBytes(file);
    if (!bytes) return {};
    return this.keptProbes.of(file, bytes, () => {
      const record = this.parseJson(file, bytes, ProbesFile);
      if (record.folder !== absolute) throw new HostStoreError('probe record does not match its folder');
      // Each serverName its own property (`__proto__` too): readers look them up with Object.hasOwn.
      return deepFreeze(Object.fromEntries(record.servers));
    });
  }

  /** Records probes (serverName -> result); other servers' earlier probes stay. */
  async recordProbes(folder: string, servers: Readonly<Record<string, ProbedServerRecord>>): Promise<void> {
    const absolute = path.resolve(folder);
    const current = { ...await this.probedServers(absolute).catch(() => ({})) };
    for (const [serverName, value] of Object.entries(servers)) {
      Object.defineProperty(current, serverName, { value, enumerable: true, writable: true, configurable: true });
    }
    await this.writeJson(this.probesFile(absolute), { version: 1, folder: absolute, servers: current });
  }

  private startsFile(folder: string): string {
    return path.join(this.bridgeDir, 'starts', `${sha256Hex(path.resolve(folder))}.json`);
  }

  /** The servers a first request in this folder last went without (still starting), by serverName. */
  async slowStarts(folder: string): Promise<Map<string, SlowStartRecord>> {
    const absolute = path.resolve(folder);
    const record = await this.readJson(this.startsFile(absolute), SlowStartsFile);
    if (record && record.folder !== absolute) throw new HostStoreError('start record does not match its folder');
    return record?.servers ?? new Map();
  }

  /**
   * Records servers a first request went without (`slow`), or that came up later (`slow` again,
   * with `upAfterMs`), and forgets those a first request had (`inTime`). Writes only on a change.
   */
  async recordSlowStarts(folder: string, slow: ReadonlyMap<string, SlowStartRecord>, inTime: readonly string[] = []): Promise<void> {
    const absolute = path.resolve(folder);
    const current = await this.slowStarts(absolute).catch(() => new Map<string, SlowStartRecord>());
    const before = JSON.stringify([...current]);
    for (const name of inTime) current.delete(name);
    for (const [name, value] of slow) current.set(name, value);
    if (JSON.stringify([...current]) === before) return;
    await this.writeJson(this.startsFile(absolute), { version: 1, folder: absolute, servers: Object.fromEntries(current) });
  }

  /** Trusted skill roots: absolute root path -> the content pin the user reviewed. */
  async skillTrust(): Promise<Readonly<Record<string, string>>> {
    return (await this.readKeptJson(path.join(this.bridgeDir, 'skills.json'), SkillTrustFile))?.roots ?? {};
  }

  async trustSkillRoot(root: string, pin: string): Promise<void> {
    const roots = { ...await this.skillTrust() };
    Object.defineProperty(roots, path.resolve(root), { value: pin, enumerable: true, writable: true, configurable: true });
    await this.writeJson(path.join(this.bridgeDir, 'skills.json'), { version: 1, roots });
  }

  private get acceptedFile(): string {
    return path.join(this.bridgeDir, 'accepted.json');
  }

  /** What the user accepted despite a scan's error (empty before anything was). */
  async acceptedDefinitions(): Promise<KeptAcceptedDefinitions> {
    return (await this.readKeptJson(this.acceptedFile, AcceptedFile)) ?? NO_ACCEPTANCES;
  }

  /** Accepts one tool definition of a folder's server (replaces an earlier acceptance of that tool). */
  async acceptTool(folder: string, serverName: string, tool: string, pin: string): Promise<void> {
    const accepted = await this.acceptedDefinitions();
    const absolute = path.resolve(folder);
    const tools = [...accepted.tools.filter((t) => !(t.folder === absolute && t.serverName === serverName && t.tool === tool)), { folder: absolute, serverName, tool, pin }];
    await this.writeJson(this.acceptedFile, { ...accepted, tools });
  }

  /** Accepts one SKILL.md at its content (replaces an earlier acceptance of that file). */
  async acceptSkill(file: string, pin: string): Promise<void> {
    const accepted = await this.acceptedDefinitions();
    const absolute = path.resolve(file);
    const skills = [...accepted.skills.filter((s) => s.file !== absolute), { file: absolute, pin }];
    await this.writeJson(this.acceptedFile, { ...accepted, skills });
  }

  async distrustSkillRoot(root: string): Promise<void> {
    const roots = { ...await this.skillTrust() };
    delete roots[path.resolve(root)];
    await this.writeJson(path.join(this.bridgeDir, 'skills.json'), { version: 1, roots });
  }
}

/** How to get past a store file that cannot be used (nothing here writes over it: what it holds may be the user's to mend). */
const REPAIR = (file: string) => `; fix it, or move it aside to start again: mv ${JSON.stringify(file)} ${JSON.stringify(`${file}.bad`)}`;

const octal = (mode: number) => mode.toString(8).padStart(4, '0');

async function exists(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch {
    return false;
  }
}
