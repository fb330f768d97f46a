/**
 * What the DSH plugin's sessions in a folder got (the session records of the host store, written
 * by the plugin: core/node/sessionRecords.ts), for `dsh-bridge sessions`, the doctor and the
 * editor. Sessions are recorded under the folder of the declaration they mounted from: a folder
 * asked about finds it as a session there would (the nearest declaration up to the project root).
 * Never throws: a record that cannot be read is an `error`.
 */
import * as path from 'node:path';
import type { SessionRecord } from '../node/sessionRecords';
import type { Ports } from './ports';

export interface FolderSessions {
  /** The folder the sessions are recorded under (the declaration's folder, else the folder asked about). */
  folder: string;
  /** Newest first. */
  sessions: SessionRecord[];
  /** The records cannot be read (then `sessions` is empty). */
  error?: string;
}

export async function folderSessions(ports: Pick<Ports, 'sessions' | 'files' | 'home'>, folder: string): Promise<FolderSessions> {
  const asked = path.resolve(folder);
  const found = await ports.files.findDeclarationFolder(asked, ports.home).catch(() => ({ folder: undefined }));
  const recordedUnder = found.folder ?? asked;
  try {
    const sessions = await ports.sessions.list(recordedUnder);
    return { folder: recordedUnder, sessions: [...sessions].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt)) };
  } catch (error) {
    return { folder: recordedUnder, sessions: [], error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * One session in the words every face uses (each words it in its own language): when, how many
 * of the declaration's tools its last request carried, what failed to start, and the counts of
 * what was withheld (servers, tools, skills, language servers).
 */
export interface SessionSummary {
  id: string;
  updatedAt: string;
  /** How long ago it was last updated (ms; 0 for a time in the future). */
  ageMs: number;
  tools: number;
  failed: Array<{ serverName: string; why: string }>;
  withheld: { servers: number; tools: number; skills: number; languageServers: number };
  /** Why nothing of the declaration mounted (codes), when so. */
  blocked: string[];
}

export function summarizeSession(record: SessionRecord, now: number): SessionSummary {
  const failed = record.servers.filter((s) => s.state === 'failed').map((s) => ({ serverName: s.serverName, why: failureText(s.failure) }));
  const notStarted = new Set(['withheld', 'rejected', 'unanswered', 'not-started']);
  return {
    id: record.id,
    updatedAt: record.updatedAt,
    ageMs: Math.max(0, now - Date.parse(record.updatedAt) || 0),
    tools: record.tools.offered.length,
    failed,
    withheld: {
      servers: record.servers.filter((s) => notStarted.has(s.state)).length,
      tools: record.tools.withheld.length,
      skills: record.skills.withheld.length,
      languageServers: record.languageServers && notStarted.has(record.languageServers.state) ? 1 : 0,
    },
    blocked: record.blocked.map((b) => b.code),
  };
}

/** A failed start in one line: its exit, else the client's error, and its first stderr line. */
export function failureText(failure: SessionRecord['servers'][number]['failure']): string {
  if (!failure) return 'failed';
  const head = failure.exit ?? failure.error;
  return failure.stderr.length ? `${head}: ${failure.stderr[0]}` : head;
}
