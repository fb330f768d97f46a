/**
 * The session records of the host store (`<dshHome>/bridge/sessions/<folder hash>.json`): per
 * folder, what the DSH plugin's last sessions there were planned and got. The plugin writes them
 * (dsh-plugin/sessionRecorder.ts); `dsh-bridge sessions`, the doctor and the editor read them
 * (core/app/sessions.ts). Bounded: the newest {@link MAX_SESSIONS} of a folder, at most
 * {@link MAX_FILE_BYTES}; written through the store's file primitive (storeFiles.ts: atomic, 0600). Nothing secret: a failed
 * start's stderr lines are masked before they get here.
 */
import * as path from 'node:path';
import * as z from 'zod/mini';
import { sha256Hex } from '../json/canonicalJson';
import { HostStoreError, type StoreFiles } from './storeFiles';

/** Sessions kept per folder (the oldest leave first). */
export const MAX_SESSIONS = 20;
/** A folder's record file stays below this many bytes (the oldest sessions leave first; the newest always stays). */
export const MAX_FILE_BYTES = 256 * 1024;

/** What happened to one declared server in the session. */
export const SERVER_STATES = ['started', 'failed', 'starting', 'withheld', 'rejected', 'unanswered', 'not-started', 'provided-elsewhere'] as const;
export type SessionServerState = (typeof SERVER_STATES)[number];

const ServerRecord = z.object({
  serverName: z.string(),
  /** The name in the source file. */
  name: z.string(),
  pin: z.string(),
  /** What the plan said: `starts`, `asks` or `withheld`. */
  planned: z.enum(['starts', 'asks', 'withheld']),
  state: z.enum(SERVER_STATES),
  /** Why it is withheld or was not started, in the plugin's log words. */
  reason: z.optional(z.string()),
  /** How many tools it listed when it started. */
  tools: z.optional(z.number()),
  /** A failed start: the client's error, the process's exit and its first stderr lines (masked). */
  failure: z.optional(z.object({ error: z.string(), exit: z.optional(z.string()), stderr: z.array(z.string()), failures: z.number() })),
});
export type SessionServerRecord = z.infer<typeof ServerRecord>;

const SessionRecordSchema = z.object({
  /** DSH's agent id. */
  id: z.string(),
  /** The session's cwd. */
  cwd: z.string(),
  startedAt: z.string(),
  updatedAt: z.string(),
  trustMode: z.string(),
  declaration: z.optional(z.object({ path: z.string(), digest: z.optional(z.string()), exportSeq: z.optional(z.number()) })),
  /** Why nothing of the declaration mounts (empty when it mounts). */
  blocked: z.array(z.object({ code: z.string(), message: z.string() })),
  servers: z.array(ServerRecord),
  /** The declared servers' tools in the last request, and those kept out of it with why. */
  tools: z.object({ offered: z.array(z.string()), withheld: z.array(z.object({ name: z.string(), why: z.string() })) }),
  languageServers: z.optional(z.object({ planned: z.enum(['starts', 'asks', 'withheld']), state: z.enum(SERVER_STATES), reason: z.optional(z.string()) })),
  /** Skills the skill gate withheld from the session's catalog. */
  skills: z.object({ withheld: z.array(z.object({ name: z.string(), root: z.optional(z.string()), why: z.enum(['root', 'scan']), offeredFrom: z.optional(z.string()) })) }),
});
export type SessionRecord = z.infer<typeof SessionRecordSchema>;

const SessionsFile = z.object({ version: z.literal(1), folder: z.string(), sessions: z.array(SessionRecordSchema) });

export class SessionRecords {
  /** One write at a time per file in this process (each write reads the file first). */
  private readonly chains = new Map<string, Promise<unknown>>();

  constructor(private readonly store: Pick<StoreFiles, 'bridgeDir' | 'readJson' | 'writeJson'>) {}

  file(folder: string): string {
    return path.join(this.store.bridgeDir, 'sessions', `${sha256Hex(path.resolve(folder))}.json`);
  }

  /** The folder's recorded sessions, oldest first (empty before any). */
  async list(folder: string): Promise<SessionRecord[]> {
    const absolute = path.resolve(folder);
    const record = await this.store.readJson(this.file(absolute), SessionsFile);
    if (record && record.folder !== absolute) throw new HostStoreError('session record does not match its folder');
    return record?.sessions ?? [];
  }

  /** Records one session (replaces its earlier record, by id), keeping the folder's newest within the bounds. */
  record(folder: string, session: SessionRecord): Promise<void> {
    const absolute = path.resolve(folder);
    const file = this.file(absolute);
    const run = (this.chains.get(file) ?? Promise.resolve()).then(async () => {
      // A record that cannot be read is started again: it holds nothing the user must mend.
      const earlier = await this.list(absolute).catch(() => []);
      const sessions = bounded([...earlier.filter((s) => s.id !== session.id), session]);
      await this.store.writeJson(file, { version: 1, folder: absolute, sessions });
    });
    const chain = run.catch(() => undefined);
    this.chains.set(file, chain);
    void chain.then(() => {
      if (this.chains.get(file) === chain) this.chains.delete(file);
    });
    return run;
  }
}

/** The newest sessions within {@link MAX_SESSIONS} and {@link MAX_FILE_BYTES} (the newest one always). */
function bounded(sessions: SessionRecord[]): SessionRecord[] {
  const kept = sessions.slice(-MAX_SESSIONS);
  while (kept.length > 1 && Buffer.byteLength(JSON.stringify(kept, null, 2)) > MAX_FILE_BYTES) kept.shift();
  return kept;
}
