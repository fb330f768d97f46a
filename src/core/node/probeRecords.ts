import * as path from 'node:path';
import * as z from 'zod/mini';
import { sha256Hex } from '../json/canonicalJson';
import { ToolPinSchema } from '../declaration/toolsModel';
import { secretMask } from '../tools/maskSecrets';
import { HostStoreError, keyedMap, type StoreFiles } from './storeFiles';

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
  // title, outputSchema and annotations: scanned, not pinned (absent in older records).
  tools: z.array(z.object({
    name: z.string(), description: z.string(), inputSchema: z.unknown(), pin: ToolPinSchema,
    title: z.optional(z.string()), outputSchema: z.optional(z.unknown()), annotations: z.optional(z.unknown()),
    // The stored inputs whose value the real definition carries (ids): withheld (tool-carries-secret).
    carriesInputs: z.optional(z.array(z.string())),
  })),
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

/** What probes and sessions learnt of a folder's servers: `probes/<folder hash>.json`, `starts/<folder hash>.json`. */
export class ProbeRecords {
  constructor(private readonly files: StoreFiles) {}

  private probesFile(folder: string): string {
    return path.join(this.files.bridgeDir, 'probes', `${sha256Hex(path.resolve(folder))}.json`);
  }

  /**
   * The last successful probe of each server of the folder, by serverName (empty before any probe).
   * Frozen and shared: the record is parsed once per change of its bytes.
   */
  async probedServers(folder: string): Promise<Readonly<Record<string, ProbedServerRecord>>> {
    const absolute = path.resolve(folder);
    const kept = await this.files.readKeptJson(this.probesFile(absolute), ProbesFile, (record) => {
      if (record.folder !== absolute) throw new HostStoreError('probe record does not match its folder');
      // Each serverName its own property (`__proto__` too): readers look them up with Object.hasOwn.
      return Object.fromEntries(record.servers);
    });
    return kept ?? {};
  }

  /** Records probes (serverName -> result); other servers' earlier probes stay. */
  async recordProbes(folder: string, servers: Readonly<Record<string, ProbedServerRecord>>): Promise<void> {
    const absolute = path.resolve(folder);
    const current = { ...await this.probedServers(absolute).catch(() => ({})) };
    for (const [serverName, value] of Object.entries(servers)) {
      Object.defineProperty(current, serverName, { value, enumerable: true, writable: true, configurable: true });
    }
    await this.files.writeJson(this.probesFile(absolute), { version: 1, folder: absolute, servers: current });
  }

  /** Rewrites the folder's recorded probes with `values` masked in their texts (pins unchanged). */
  async maskProbes(folder: string, values: readonly string[]): Promise<void> {
    const absolute = path.resolve(folder);
    const recorded: Readonly<Record<string, ProbedServerRecord>> = values.length ? await this.probedServers(absolute).catch(() => ({})) : {};
    if (Object.keys(recorded).length === 0) return;
    const mask = secretMask(values);
    const servers = Object.fromEntries(Object.entries(recorded).map(([serverName, s]) => [serverName, {
      ...s, tools: s.tools.map((tool) => ({ ...tool, description: mask.text(tool.description), inputSchema: mask.json(tool.inputSchema) })),
    }]));
    await this.files.writeJson(this.probesFile(absolute), { version: 1, folder: absolute, servers });
  }

  private startsFile(folder: string): string {
    return path.join(this.files.bridgeDir, 'starts', `${sha256Hex(path.resolve(folder))}.json`);
  }

  /** The servers a first request in this folder last went without (still starting), by serverName. */
  async slowStarts(folder: string): Promise<Map<string, SlowStartRecord>> {
    const absolute = path.resolve(folder);
    const record = await this.files.readJson(this.startsFile(absolute), SlowStartsFile);
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
    await this.files.writeJson(this.startsFile(absolute), { version: 1, folder: absolute, servers: Object.fromEntries(current) });
  }
}
