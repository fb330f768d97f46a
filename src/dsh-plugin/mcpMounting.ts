/**
 * MCP servers into one session, from its plan: what left the declaration (or changed) is stopped;
 * `starts` starts without asking, `asks` asks DSH's in-turn approval first, `withheld` is said
 * once with its reason and fix. Starts run in the background of the step; a failed one waits for
 * its backoff. Also not started: a server whose tools a parent session or a profile row already
 * provides (a second process for the same tools).
 */
import type { PlannedSession } from '../core/app/plan';
import { byDshPolicy, planMessage } from '../core/app/planReasons';
import type { Ports } from '../core/app/ports';
import type { DeclaredServer } from '../core/declaration/declarationModel';
import type { TemplateLookup } from '../core/declaration/template';
import { reviewServer, shortPin } from '../core/app/approve';
import { toolNamePrefix } from '../core/mcp/toolNames';
import { formatMessage } from '../core/problems/problems';
import { visibleLine } from '../core/json/visibleText';
import type { TrustMode } from '../core/settings/folderSettings';
import { errorText } from './errors';
import { startFailure } from '../core/app/failedStart';
import type { McpClientModules, Mounted } from './mcpModules';
import { decideMount, type StepFacts } from './mountDecision';
import { mountKey, type Session, type Starting } from './session';
import { retryAt, type StartSlots } from './startPolicy';
import type { Logger } from './types';

/** A duration as the log says it: `3.2 s`. */
export const seconds = (ms: number) => `${(Math.max(0, ms) / 1000).toFixed(1)} s`;

/** A plan reason as one log line's tail: its words, and the command that fixes it. */
export function reasonText(reason: PlannedSession['plan']['blocked'][number]): string {
  return `${planMessage(reason, formatMessage)}${reason.fix ? ` Fix: ${reason.fix.command}` : ''}`;
}

/**
 * DSH's in-turn approval text: the question, then the same review the editor and
 * `dsh-bridge approve` show (full launch, cwd, env and header names, dangers, the full pin).
 * The question quotes the declaration's names: it is shown on one line, hidden characters
 * escaped, as the review's lines already are.
 */
export function approvalReason(question: string, review: readonly string[], trustMode: TrustMode): string {
  const note = trustMode === 'pinned' ? ['This pin was not approved in the editor or with dsh-bridge approve.'] : [];
  return [visibleLine(question), ...review, ...note].join('\n');
}

export interface MountContext {
  ports: Pick<Ports, 'mcp'>;
  /** DSH's own environment (a diagnosing run of a failed start inherits it as the server did). */
  env: Readonly<Record<string, string | undefined>>;
  modules: McpClientModules;
  log: Logger;
  /** The plugin is unloading: nothing more starts. */
  disposed(): boolean;
  /** Whether the session already sees tools of this serverName (a parent session, a profile row). */
  providedAlready(session: Session, name: string, exact?: boolean): boolean;
  /** `false`: start servers one after another, each waited for in full. */
  parallelStart: boolean;
  /** The process-wide limit of server starts at a time (all sessions together). */
  startSlots: StartSlots;
}

/** What the step's mounting needs of the plan. */
export interface StepPlan {
  planned: PlannedSession;
  /** Where the declaration's servers start and its values are stored (the declaration's folder). */
  folder: string;
  declarationPath: string;
  values: TemplateLookup;
  facts: StepFacts;
}

/**
 * Brings the session's MCP servers in line with the plans of its declarations (the workspace's,
 * then the user's): what no plan wants any more stops. Returns the starts launched in this step
 * (the step's request waits for them, bounded).
 */
export async function mountServers(session: Session, steps: readonly StepPlan[], at: MountContext, signal: AbortSignal | undefined): Promise<Starting[]> {
  const where = session.where;
  // What may run: every declared server, while its declaration mounts at all (a server whose
  // values went missing keeps running; it is only not started again).
  // The machine's DSH policy is the exception: what it withholds stops, as what it forbids never reaches a session.
  const wanted = new Map<string, string>();
  const byPolicy = new Set<string>();
  for (const { planned: { plan, declaration } } of steps) {
    const withheld = new Set(plan.servers.filter((e) => e.outcome === 'withheld' && byDshPolicy(e.reason)).map((e) => e.serverName));
    for (const name of withheld) byPolicy.add(name);
    for (const s of plan.blocked.length === 0 ? declaration?.servers ?? [] : []) {
      if (!withheld.has(s.serverName) && !wanted.has(s.serverName)) wanted.set(s.serverName, s.pin);
    }
  }
  for (const [serverName, mount] of [...session.mounts]) {
    if (wanted.get(serverName) === mount.pin) continue;
    session.mounts.delete(serverName);
    session.stopped.add(serverName);
    await mount.mounted.unmount();
    const why = byPolicy.has(serverName) ? 'the DSH policy withholds it' : wanted.has(serverName) ? 'its entry changed' : 'its entry left the declaration or the declaration is no longer valid';
    at.log.info(`${where}: stopped "${serverName}" (${why})`);
  }
  // A start in flight for an entry that changed stops itself when it is up (it is no longer the one wanted).
  for (const [serverName, starting] of [...session.starting]) if (wanted.get(serverName) !== starting.pin) session.starting.delete(serverName);
  const launched: Starting[] = [];
  for (const step of steps) await mountStep(session, step, at, signal, launched);
  return launched;
}

/** Starts (or asks for, or says why not) the servers one declaration's plan lists. */
async function mountStep(session: Session, step: StepPlan, at: MountContext, signal: AbortSignal | undefined, launched: Starting[]): Promise<void> {
  const { plan, declaration } = step.planned;
  const where = session.where;
  if (!declaration || plan.blocked.length) return;
  const byName = new Map(declaration.servers.map((s) => [s.serverName, s]));
  for (const entry of plan.servers) {
    if (session.ended || at.disposed() || signal?.aborted) break;
    const server = byName.get(entry.serverName);
    if (!server || entry.pin !== server.pin) continue; // refused at export: never declared
    const label = `"${server.serverName}" (pin ${shortPin(server.pin)})`;
    const k = mountKey(server.serverName, server.pin);
    const failure = session.failed.get(k);
    if (failure && failure.digest !== step.facts.digest) session.failed.delete(k);
    const decision = decideMount({ name: server.serverName, pin: server.pin, outcome: entry.outcome, reason: entry.reason }, session, step.facts);
    if (decision.kind === 'skip') continue;
    if (decision.kind === 'withheld') {
      session.outcomes.set(server.serverName, { pin: server.pin, state: 'withheld', reason: reasonText(decision.reason) });
      session.once(`${where}: server ${label} not started: ${reasonText(decision.reason)}`);
      continue;
    }
    if (at.providedAlready(session, server.serverName)) {
      session.outcomes.set(server.serverName, { pin: server.pin, state: 'provided-elsewhere', reason: 'its tools are already visible in the session (from the parent session or a profile row)' });
      session.once(`${where}: server ${label} not started for session ${session.agent.id}: its tools are already visible there (from the parent session or a profile row)`, 'info');
      continue;
    }
    if (decision.kind === 'ask') {
      const allowed = await session.askToStart({
        key: k,
        turn: step.facts.turn,
        label: `server ${label}`,
        toolName: `${toolNamePrefix(server.serverName)}*`,
        reason: approvalReason(`Start MCP server "${server.name}" from ${step.declarationPath}?`, reviewServer(server).lines, plan.trustMode),
        // No answerer (a headless run): every turn would end the same way; say once what fixes it.
        headless: `${where}: nothing can answer DSH's approval in this session (a headless run?), so servers that need it are not started; to start them without asking: ${plan.trustMode === 'pinned' ? '' : 'dsh-bridge trust pinned, then '}dsh-bridge approve --workspace ${JSON.stringify(step.folder)}`,
      }, signal);
      if (!allowed) {
        const rejected = session.rejected.has(k);
        session.outcomes.set(server.serverName, { pin: server.pin, state: rejected ? 'rejected' : 'unanswered', reason: rejected ? 'rejected by the user in this session' : 'DSH\'s approval was not answered' });
        continue;
      }
      session.allowed.add(k);
    }
    if (session.ended || at.disposed() || signal?.aborted) break;

    // Started in the background: the next server's approval and start do not wait for it.
    const starting: Starting = { serverName: server.serverName, pin: server.pin, label, since: Date.now(), done: Promise.resolve() };
    session.starting.set(server.serverName, starting);
    session.outcomes.set(server.serverName, { pin: server.pin, state: 'starting' });
    starting.done = startServer(session, server, starting, step, label, at).finally(() => { starting.settled = true; });
    launched.push(starting);
    if (!at.parallelStart) await starting.done;
  }
}


/** One server's start (envFile and stored values read now), run in the background of the step. */
async function startServer(session: Session, server: DeclaredServer, starting: Starting, step: StepPlan, label: string, at: MountContext): Promise<void> {
  const where = session.where;
  const k = mountKey(server.serverName, server.pin);
  // No longer current when the entry changed or left while it was starting.
  const current = () => session.starting.get(server.serverName) === starting;
  let leave: (() => void) | undefined;
  try {
    // A slot of the process-wide start limit (queued while it is full): a session that ended,
    // or an entry that changed, while it waited starts nothing.
    leave = await at.startSlots.enter(session.endSignal);
    if (!leave || session.ended || at.disposed() || !current()) return;
    // Rebuilt at start: envFile and stored values are read now, not at approval time.
    const built = await at.ports.mcp.buildRow(server, step.folder, step.values);
    if (!built.ok) {
      session.outcomes.set(server.serverName, { pin: server.pin, state: 'not-started', reason: built.reason });
      session.once(`${where}: server ${label} not started: ${built.reason}`);
      return;
    }
    const parent = await session.context();
    if (!parent) return;
    let mounted: Mounted;
    try {
      // Started means connected and its tools listed: without failOnStartupError, rc.8's client
      // resolves its load after a failed first connection too (and retries on its own), so the
      // mount would look started. A failure comes back here; the entry's reconnect settings pace
      // the retries (retryAt) either way.
      mounted = await at.modules.mount(parent, { ...built.row, failOnStartupError: true });
    } catch (error) {
      if (!session.ended && !at.disposed() && current()) {
        const failures = startFailed(session, server, step.facts.digest, label, error, at.log);
        const failure = await startFailure({ mcp: at.ports.mcp, env: at.env }, error, built.row, failures);
        if (current()) session.outcomes.set(server.serverName, { pin: server.pin, state: 'failed', failure });
      }
      return;
    }
    if (session.ended || at.disposed() || !current()) {
      await mounted.unmount();
      return;
    }
    session.failed.delete(k);
    session.mounts.set(server.serverName, { serverName: server.serverName, pin: server.pin, mounted });
    session.outcomes.set(server.serverName, { pin: server.pin, state: 'started' });
    at.log.info(`${where}: started ${label} for session ${session.agent.id} after ${seconds(Date.now() - starting.since)}${mounted.instance > 0 ? ` (mcp-client instance ${mounted.instance})` : ''}`);
  } finally {
    leave?.();
    if (current()) session.starting.delete(server.serverName);
  }
}

/** Records a failed start and its backoff, says it; returns how many times it failed in a row. */
function startFailed(session: Session, server: DeclaredServer, digest: string, label: string, error: unknown, log: Logger): number {
  const k = mountKey(server.serverName, server.pin);
  const previous = session.failed.get(k);
  const failures = (previous?.digest === digest ? previous.failures : 0) + 1;
  const when = retryAt(server.reconnect, failures, Date.now());
  session.failed.set(k, { digest, failures, retryAt: when });
  const why = errorText(error);
  const next = when === undefined
    ? 'not retried in this session until the declaration or its pin changes'
    : `retried at the first model step after ${when - Date.now()} ms (the entry's reconnect settings)`;
  const where = session.where;
  if (failures === 1) session.once(`${where}: server ${label} failed to start: ${why}; ${next}`);
  else if (when === undefined) session.once(`${where}: server ${label} failed to start ${failures} times: ${why}; ${next}`);
  else (log.debug ?? log.info).call(log, `${where}: server ${label} failed to start again (${failures} times): ${why}; ${next}`);
  return failures;
}
