/**
 * One DSH session (agent) and what the plugin holds for it: what is mounted, starting, stopped
 * since the last assembly, and what happened in it (a user's rejection or unanswered question, a
 * failed start and its backoff, a start allowed once). The session plan decides what a session
 * may get; this object only remembers the session's own events, logs each line once, and owns
 * the child fiber its servers mount under.
 */
import type { PlannedSession } from '../core/app/plan';
import type { SessionServerRecord, SessionServerState } from '../core/node/sessionRecords';
import type { TrustMode } from '../core/settings/folderSettings';
import { errorText } from './errors';
import type { LspMounted } from './lspMount';
import type { Mounted } from './mcpModules';
import type { MountState } from './mountDecision';
import { SessionToolGate } from './toolGate';
import type { AgentLike, ApprovalService, Ctx, Fiber, Logger } from './types';

/** A start that failed: not tried again before `retryAt` (never when undefined) unless the declaration or pin changes. */
export interface FailedStart {
  digest: string;
  failures: number;
  retryAt?: number;
}

/** A server being started in the background (it joins the session's requests when it is up). */
export interface Starting {
  serverName: string;
  pin: string;
  /** How the log names it: `"name" (pin sha256:...)`. */
  label: string;
  /** When its start was launched (ms since the epoch). */
  since: number;
  done: Promise<void>;
  /** Its start has ended (up, failed, or given up). */
  settled?: boolean;
}

export interface ServerMount {
  serverName: string;
  pin: string;
  mounted: Mounted;
}

/** The folder's language servers mounted into one session (one isolated lsp service). */
export interface LspMount {
  pin: string;
  mounted: LspMounted;
}

/** What a session needs of the plugin around it. */
export interface SessionHost {
  ctx: Ctx;
  log: Logger;
  /** Where a once-per-session line also goes when the DSH log is not shown (a headless run's stderr). */
  notice?: (line: string) => void;
  /** The session's context was disposed by someone else: end the session here too. */
  contextDisposed(session: Session): void;
}

/** One question to DSH's in-turn approval, about starting something. */
export interface StartQuestion {
  key: string;
  turn: string;
  label: string;
  toolName: string;
  reason: string;
  /** Said once when nothing can answer (a headless run). */
  headless?: string;
}

/** What happened to one declared server (or the language servers) in this session, for its pin: the session record's. */
export interface ServerOutcome {
  pin: string;
  state: SessionServerState;
  reason?: string;
  failure?: SessionServerRecord['failure'];
}

/** The key of one entry in a session's records: a name and its pin (a new pin is a new entry). */
export const mountKey = (serverName: string, pin: string) => `${serverName} ${pin}`;

export class Session implements MountState {
  readonly mounts = new Map<string, ServerMount>();
  lsp?: LspMount;
  /** The lsp tool left this session since the last assembly (it leaves the snapshot being built). */
  lspStopped = false;
  /** serverNames stopped since the last assembly (their tools leave the snapshot being built). */
  readonly stopped = new Set<string>();
  /** serverName -> its start in flight. */
  readonly starting = new Map<string, Starting>();
  readonly rejected = new Set<string>();
  /** Key -> turn marker where a cancelled/unavailable answer was given (ask again next turn). */
  readonly unanswered = new Map<string, string>();
  readonly failed = new Map<string, FailedStart>();
  /** Keys the user allowed in this session (a retry after a failed start does not ask again). */
  readonly allowed = new Set<string>();
  /** serverName -> what happened to it in this session (the session record says it). */
  readonly outcomes = new Map<string, ServerOutcome>();
  /** What happened to the language servers in this session. */
  lspOutcome?: ServerOutcome;
  /** The plan of the last step (the session record says what it planned). */
  planned?: PlannedSession;
  /** When the session was first seen (ms since the epoch), and how many requests it assembled. */
  readonly since = Date.now();
  /** The declared servers' tools the last request carried, and those the tool gate kept out of it. */
  lastRequest?: { offered: string[]; withheld: Array<{ name: string; why: string }> };
  /** Which tools of the mounted servers reach the model (dsh.tools choice, tool pins). */
  readonly toolGate = new SessionToolGate();
  /** The trust mode and log prefix of the last plan (the tool gate asks and logs with them). */
  trustMode: TrustMode = 'ask';
  where = 'dsh-bridge';
  ended = false;
  /** Aborted when the session ends: its starts still queued for a slot leave the queue. */
  readonly endSignal: AbortSignal;
  private readonly endController = new AbortController();
  private fiber?: Fiber;
  private fiberReady?: Promise<Ctx | undefined>;
  private readonly logged = new Set<string>();
  /** Serializes the session's mount steps. */
  private chain: Promise<unknown> = Promise.resolve();

  constructor(readonly agent: AgentLike, private readonly host: SessionHost) {
    this.endSignal = this.endController.signal;
  }

  get cwd(): string | undefined {
    const cwd = this.agent.session.header?.cwd;
    return typeof cwd === 'string' ? cwd : undefined;
  }

  /** Runs `step` after the session's earlier steps (a failure of one does not stop the next). */
  serialize(step: () => Promise<void>): Promise<void> {
    const run = this.chain.then(step);
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** A line logged once per session (also to the headless notice). */
  once(line: string, level: 'info' | 'warn' = 'warn'): void {
    if (this.logged.has(line)) return;
    this.logged.add(line);
    this.host.log[level](line);
    this.host.notice?.(line);
  }

  onceDebug(line: string): void {
    if (this.logged.has(line)) return;
    this.logged.add(line);
    (this.host.log.debug ?? this.host.log.info).call(this.host.log, line);
  }

  /** The session's current turn marker (approval answers other than allowed/rejected last one turn). */
  turnMarker(): string {
    const events = this.agent.session.events ?? [];
    for (let i = events.length - 1; i >= 0; i--) if (events[i].type === 'turn/start') return String(events[i].seq ?? i);
    return 'none';
  }

  /**
   * DSH's in-turn approval to start something (an MCP server, the language servers): true when
   * allowed once. A rejection holds for the session; no answer (cancelled, unavailable) asks again
   * next turn, and is said once per session (a headless run answers the same every turn), after
   * `headless` when nothing can answer.
   */
  async askToStart(ask: StartQuestion, signal: AbortSignal | undefined): Promise<boolean> {
    const approval = this.host.ctx.get('approval') as ApprovalService | undefined;
    if (!approval) {
      this.once(`${this.where}: ${ask.label} not started: this DSH has no approval service to ask`);
      return false;
    }
    const outcome = await approval.request({ agent: this.agent, toolName: ask.toolName, reason: ask.reason, signal });
    if (outcome === 'rejected') {
      this.rejected.add(ask.key);
      this.host.log.info(`${this.where}: ${ask.label} rejected by the user: not started in this session`);
      return false;
    }
    if (outcome !== 'allowed-once') {
      this.unanswered.set(ask.key, ask.turn);
      if (outcome === 'unavailable' && ask.headless) this.once(ask.headless);
      this.once(`${this.where}: ${ask.label} not started: approval ${outcome}`, 'info');
      return false;
    }
    this.unanswered.delete(ask.key);
    return true;
  }

  /** The session's own child fiber of `agent.ctx` (never a new scope), created on first need. */
  // Returns the fiber's context, not the fiber: a fiber is thenable, and returning it from an
  // async function would resolve to its load result instead.
  context(): Promise<Ctx | undefined> {
    this.fiberReady ??= (async () => {
      try {
        // Disposed by anyone (the agent's context ending without agent/disposed, a reload): the
        // session ends here too, so its servers stop and their dsh-mcp-client slots are freed.
        const fiber = this.agent.ctx.plugin({
          name: 'dsh-bridge-session',
          apply: (c: Ctx) => {
            c.effect(() => () => {
              if (!this.ended) this.host.contextDisposed(this);
            }, 'dsh-bridge-session');
          },
        }, { sessionId: this.agent.id });
        await fiber;
        this.fiber = fiber;
        return fiber.ctx;
      } catch (error) {
        this.once(`dsh-bridge: session ${this.agent.id}: cannot attach to the session context (${errorText(error)})`);
        this.fiberReady = undefined;
        return undefined;
      }
    })();
    return this.fiberReady;
  }

  /** Stops everything mounted; starts still in flight see `ended` and stop what they started. Returns what was stopped. */
  async end(): Promise<string[]> {
    this.ended = true;
    this.endController.abort();
    await this.chain.catch(() => undefined);
    const names = [...this.mounts.keys()];
    await Promise.all([...this.mounts.values()].map((m) => m.mounted.unmount().catch((error) => {
      this.host.log.warn(`dsh-bridge: stopping server "${m.serverName}" failed: ${errorText(error)}`);
    })));
    this.mounts.clear();
    if (this.lsp) {
      names.push('language servers');
      await this.lsp.mounted.unmount().catch((error) => this.host.log.warn(`dsh-bridge: stopping the language servers failed: ${errorText(error)}`));
      this.lsp = undefined;
    }
    if (this.fiber) await Promise.resolve(this.fiber.dispose()).catch(() => undefined);
    await Promise.allSettled([...this.starting.values()].map((s) => s.done));
    return names;
  }

  /** How many servers run in the session (the language servers count as one). */
  get running(): number {
    return this.mounts.size + (this.lsp ? 1 : 0);
  }
}
