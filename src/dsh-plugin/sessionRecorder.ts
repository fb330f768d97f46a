/**
 * The session record (core/node/sessionRecords.ts) of one DSH session: what its plan said and
 * what happened, built from the session's own state after each request it assembles and each
 * skill catalog, and written to the host store when it changed. A session in a folder without a
 * declaration is not recorded (nothing of DSH Bridge reaches it).
 */
import { serverOfTool } from '../core/mcp/toolNames';
import type { Ports } from '../core/app/ports';
import type { SessionRecord, SessionServerRecord } from '../core/node/sessionRecords';
import { reasonText } from './mcpMounting';
import type { ServerOutcome, Session } from './session';
import type { SessionSkillWithheld } from './skillGate';

/** The record of `session` now (undefined: nothing to record yet, or no declaration found). */
export function sessionRecord(session: Session, skills: readonly SessionSkillWithheld[] | undefined, now: number): SessionRecord | undefined {
  const planned = session.planned;
  const folder = planned?.plan.declaration.folder;
  if (!planned || !folder) return undefined;
  const { plan } = planned;
  const blocked = plan.blocked.map((r) => ({ code: r.code, message: reasonText(r) }));
  const nothingMounts = blocked.length ? `nothing of the declaration mounts: ${blocked.map((b) => b.message).join('; ')}` : undefined;
  const request = session.lastRequest;
  const toolsOf = (serverName: string) => request ? [...request.offered, ...request.withheld.map((w) => w.name)].filter((name) => serverOfTool(name, [serverName]) !== undefined).length : 0;
  const servers = plan.servers.filter((e) => e.pin !== undefined).map((entry): SessionServerRecord => {
    const outcome = current(session.outcomes.get(entry.serverName), entry.pin!);
    const state = outcome?.state ?? (entry.outcome === 'withheld' || nothingMounts ? 'withheld' : 'not-started');
    const reason = outcome?.reason ?? (entry.outcome === 'withheld' ? reasonText(entry.reason) : nothingMounts);
    return {
      serverName: entry.serverName, name: entry.name, pin: entry.pin!, planned: entry.outcome, state,
      ...(reason ? { reason } : {}),
      ...(state === 'started' ? { tools: toolsOf(entry.serverName) } : {}),
      ...(outcome?.failure ? { failure: outcome.failure } : {}),
    };
  });
  const lsp = plan.languageServers;
  const lspOutcome = lsp ? current(session.lspOutcome, lsp.pin) : undefined;
  const lspState = lspOutcome?.state ?? (lsp?.outcome === 'withheld' || nothingMounts ? 'withheld' : 'not-started');
  const lspReason = lspOutcome?.reason ?? lspOutcome?.failure?.error ?? (lsp?.outcome === 'withheld' ? reasonText(lsp.reason) : nothingMounts);
  return {
    id: session.agent.id,
    cwd: session.cwd ?? folder,
    startedAt: new Date(session.since).toISOString(),
    updatedAt: new Date(now).toISOString(),
    trustMode: plan.trustMode,
    ...(plan.declaration.path ? { declaration: { path: plan.declaration.path, ...(plan.declaration.digest ? { digest: plan.declaration.digest } : {}), ...(plan.declaration.exportSeq !== undefined ? { exportSeq: plan.declaration.exportSeq } : {}) } } : {}),
    blocked,
    servers,
    tools: { offered: request ? [...request.offered] : [], withheld: request ? request.withheld.map((w) => ({ ...w })) : [] },
    ...(lsp ? { languageServers: { planned: lsp.outcome, state: lspState, ...(lspReason ? { reason: lspReason } : {}) } } : {}),
    skills: { withheld: (skills ?? []).map((s) => ({ ...s })) },
  };
}

/** An outcome of the pin planned now (one of an earlier pin says nothing about this one). */
function current(outcome: ServerOutcome | undefined, pin: string): ServerOutcome | undefined {
  return outcome?.pin === pin ? outcome : undefined;
}

/**
 * Writes each session's record when it changed (its time aside), one write at a time per
 * session. A failed write is said once at debug level: the record is a diagnostic, never a
 * reason to hold a request.
 */
export class SessionRecorder {
  private readonly written = new WeakMap<Session, string>();
  private readonly pending = new WeakMap<Session, Promise<void>>();

  constructor(private readonly ports: Pick<Ports, 'sessions'>, private readonly debug: (line: string) => void) {}

  record(session: Session, skills: readonly SessionSkillWithheld[] | undefined): Promise<void> {
    const run = (this.pending.get(session) ?? Promise.resolve()).then(async () => {
      const record = sessionRecord(session, skills, Date.now());
      if (!record) return;
      const key = JSON.stringify({ ...record, updatedAt: '' });
      if (this.written.get(session) === key) return;
      this.written.set(session, key);
      await this.ports.sessions.record(session.planned!.plan.declaration.folder!, record).catch((error: unknown) => {
        this.written.delete(session);
        this.debug(`${session.where}: the session record was not written (${error instanceof Error ? error.message : String(error)})`);
      });
    });
    this.pending.set(session, run);
    return run;
  }
}
