/**
 * The DSH side of DSH Bridge, session by session: at every model step of a session (in the
 * in-turn `system-prompt/assemble` waterfall), the session plan of its cwd (core/app/plan.ts:
 * the nearest declaration up to the project root, verified, with the host store's trust mode,
 * approvals and values) says what it may get; the plugin mounts that (mcpMounting.ts,
 * lspMounting.ts) with the host's own dsh-mcp-client under the session's context, and merges
 * the tools into the request being assembled (assemble.ts). This file is the sessions' lifecycle.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { planSession, type PlannedSession } from '../core/app/plan';
import { mountableUserPlan, planUserServers } from '../core/app/userPlan';
import type { Ports } from '../core/app/ports';
import type { SlowStartRecord } from '../core/node/hostStore';
import { KeptWhileUnchanged } from '../core/node/keptWhileUnchanged';
import type { AcceptedTool } from '../core/tools/toolScan';
import { DECLARATION_PATH } from '../core/declaration/declarationModel';
import { toolNamePrefix } from '../core/mcp/toolNames';
import { visibleLine } from '../core/json/visibleText';
import { countOf } from '../core/problems/plural';
import { assembleSession } from './assemble';
import { errorText } from './errors';
import { mountLanguageServers } from './lspMounting';
import { mountServers, reasonText, seconds, type MountContext, type StepPlan } from './mcpMounting';
import { McpClientModules } from './mcpModules';
import { Session, type Starting } from './session';
import { SessionRecorder } from './sessionRecorder';
import { SkillGate } from './skillGate';
import { DEFAULT_START_WAIT_MS, defaultStartConcurrency, HEADLESS_START_WAIT_MS, StartSlots, waitAtMost } from './startPolicy';
import type { AgentLike, AgentsService, AssembleContext, Ctx, Logger, PromptAssembly, ToolsService } from './types';
import { liveStoredInputs } from '../core/app/liveTools';

/** No acceptances (where nothing mounts, or they cannot be read): one frozen list, so the tool gate sees the same one at each such step. */
const NONE_ACCEPTED: readonly never[] = Object.freeze([]);

/** What a model step reads: the session plan, and the tool definitions the user accepted (or why they cannot be read). */
interface StepReads {
  planned: PlannedSession;
  /** The user declaration's plan as it mounts beside the workspace's (absent: there is none). */
  user?: PlannedSession;
  accepted: readonly AcceptedTool[] | { error: string };
}

export interface BridgeOptions {
  /** Enforce skill-root trust in every session (default true). */
  gateSkillRoots?: boolean;
  /** Where a once-per-session line also goes when the DSH log is not shown (a headless run's stderr). */
  notice?: (line: string) => void;
  /** How long a step's request waits for the servers starting in that step (then it goes on with those ready). */
  startWaitMs?: number;
  /** A one-shot run with no one to answer (dsh-headless): its request waits for its servers up to {@link headlessStartWaitMs}. */
  headless?: () => boolean;
  /** How long a headless run's request waits for the servers starting in its step (default: the MCP SDK's initialize timeout). */
  headlessStartWaitMs?: number;
  /** false: start servers one after another and wait for each (the behaviour before the bounded wait). */
  parallelStart?: boolean;
  /** At most this many server starts at a time in this DSH process, all sessions together (default: twice the CPUs, at least 4). */
  startConcurrency?: number;
}

/** Counts of what a plugin instance holds (`bookkeeping()` in the bundle's exports). */
export interface BridgeBookkeeping {
  /** Sessions tracked (one per live DSH agent that assembled a request or existed at load). */
  sessions: number;
  /** Sessions whose skill roots the gate is attached to. */
  skillGateSessions: number;
  /** dsh-mcp-client slots held by mounted or starting servers. */
  heldSlots: number;
  /** Extra dsh-mcp-client module copies opened (never unloaded: bounded by the peak of concurrent sessions per serverName). */
  mcpClientCopies: number;
  /** Server starts waiting for a slot of the process-wide start limit. */
  startsQueued: number;
  /** Session plans computed (an unchanged step reuses the last one: keptWhileUnchanged.ts). */
  plansComputed: number;
}

/** The ports the plugin uses: the use cases' (its one host store), built once when the plugin loads. */
export type BridgePorts = Parameters<typeof planSession>[0] & Pick<Ports, 'mcp' | 'sessions'>;

/** The plugin's log seam: every line on one line, with what it quotes from a declaration, a server or an error escaped. */
function visibleLog(log: Logger): Logger {
  const shown = (write: (message: string) => void) => (message: string) => write.call(log, visibleLine(message));
  return { info: shown(log.info), warn: shown(log.warn), error: shown(log.error), ...(log.debug ? { debug: shown(log.debug) } : {}) };
}

export class Bridge {
  private readonly sessions = new Map<AgentLike, Session>();
  /** Each session's last step reads, kept while nothing they read changes. */
  private readonly stepReads = new Map<Session, KeptWhileUnchanged<StepReads>>();
  private plansComputed = 0;
  private readonly modules: McpClientModules;
  private readonly skillGate?: SkillGate;
  private readonly startSlots: StartSlots;
  private readonly recorder: SessionRecorder;
  private readonly log: Logger;
  /** A line also written where a headless run shows it (its stderr), shown as the log shows it. */
  private readonly notice?: (line: string) => void;
  private disposed = false;

  constructor(private readonly ctx: Ctx, private readonly ports: BridgePorts, private readonly options: BridgeOptions, log: Logger) {
    this.log = log = visibleLog(log);
    const notice = options.notice;
    if (notice) this.notice = (line) => notice(visibleLine(line));
    this.modules = new McpClientModules(ctx, log);
    this.startSlots = new StartSlots(options.startConcurrency ?? defaultStartConcurrency(os.availableParallelism()));
    this.recorder = new SessionRecorder(ports, (line) => (log.debug ?? log.info).call(log, line));
    if (options.gateSkillRoots !== false) this.skillGate = new SkillGate(ctx, ports, log, this.notice);
    // A new skill catalog (published after the request's assembly) is recorded too.
    if (this.skillGate) this.skillGate.onCatalog = (agent) => {
      const session = this.sessions.get(agent);
      if (session) void this.recorder.record(session, this.skillGate?.withheldSkills(agent));
    };
  }

  start(): void {
    // A tool kept out of a session's requests is also refused if the model calls it by name
    // (rc.8 registers every tool a server lists; this guard runs after DSH's own pre-execute),
    // and so is a tool of a gated server registered after the last request (not judged yet).
    const tools = this.ctx.get('tools') as ToolsService | undefined;
    tools?.guard?.((exec) => {
      const session = exec?.agent ? this.sessions.get(exec.agent as AgentLike) : undefined;
      return session?.toolGate.refuses(String(exec.name), session.mounts.keys())
        ? `tool ${visibleLine(String(exec.name))} is withheld in this session by DSH Bridge (left out by dsh.tools, changed since the server was probed, hidden instructions in its definition, or not among the tools of this session's last request)`
        : undefined;
    });
    this.ctx.on('system-prompt/assemble', (assembly: PromptAssembly, context: AssembleContext, next: () => Promise<PromptAssembly>) =>
      this.onAssemble(assembly, context, next));
    this.ctx.on('agent/disposed', (payload: { agent?: AgentLike } | undefined) => {
      const agent = payload?.agent;
      if (agent) void this.endSession(agent, 'session ended');
      if (agent) void this.skillGate?.detach(agent);
    });
    // The skill gate registers at creation: catalogs are durable session facts, published at
    // the first step, so the session's layer must be in place before it.
    this.ctx.on('agent/created', (payload: { agent?: AgentLike } | undefined) => {
      if (payload?.agent && !this.disposed) this.skillGate?.attach(payload.agent);
    });
    this.skillGate?.attachExisting();
    // Agents created before this plugin loaded (declared in config) are covered by the
    // waterfall too; registering them now only makes their teardown tracked from the start.
    const agents = this.ctx.get('agents') as AgentsService | undefined;
    for (const agent of agents?.list() ?? []) this.sessionOf(agent);
  }

  /** Plugin unload: stop every server this plugin started. */
  async stop(): Promise<void> {
    this.disposed = true;
    const running = [...this.sessions.values()].reduce((n, s) => n + s.running, 0);
    if (running) this.log.info(`dsh-bridge: unloading: stopping ${countOf(running, 'server')}`);
    await Promise.all([...this.sessions.keys()].map((agent) => this.endSession(agent, 'DSH Bridge plugin unloaded')));
    await this.skillGate?.stop();
  }

  /** What this instance holds now: a diagnostic (the load test checks it comes back to zero when sessions end). */
  bookkeeping(): BridgeBookkeeping {
    const modules = this.modules.bookkeeping();
    const plansComputed = this.plansComputed + [...this.stepReads.values()].reduce((n, kept) => n + kept.computed, 0);
    return {
      sessions: this.sessions.size, skillGateSessions: this.skillGate?.size ?? 0, heldSlots: modules.heldSlots, mcpClientCopies: modules.copies,
      startsQueued: this.startSlots.waiting, plansComputed,
    };
  }

  private sessionOf(agent: AgentLike): Session {
    let session = this.sessions.get(agent);
    if (!session) {
      session = new Session(agent, {
        ctx: this.ctx, log: this.log, notice: this.notice,
        contextDisposed: (s) => void this.endSession(s.agent, 'session context disposed'),
      });
      this.sessions.set(agent, session);
    }
    return session;
  }

  private async endSession(agent: AgentLike, why: string): Promise<void> {
    const session = this.sessions.get(agent);
    if (!session) return;
    this.sessions.delete(agent);
    const kept = this.stepReads.get(session);
    this.stepReads.delete(session);
    if (kept) {
      this.plansComputed += kept.computed;
      kept.close();
    }
    const names = await session.end();
    await this.recorder.record(session, this.skillGate?.withheldSkills(agent));
    if (names.length) this.log.info(`dsh-bridge: session ${agent.id}: stopped ${names.map((n) => `"${n}"`).join(', ')} (${why})`);
  }

  private async onAssemble(assembly: PromptAssembly, context: AssembleContext, next: () => Promise<PromptAssembly>): Promise<PromptAssembly> {
    const agent = context?.agent;
    if (!agent || this.disposed) return next();
    const session = this.sessionOf(agent);
    try {
      await session.serialize(() => this.step(session, context.signal));
    } catch (error) {
      this.log.error(`dsh-bridge: session ${agent.id}: ${errorText(error)}`);
    }
    // Before DSH's agent/pre-step publishes this step's skill catalog.
    await this.skillGate?.revalidate(agent).catch((error) => this.log.warn(`dsh-bridge: session ${agent.id}: skill roots not revalidated (${errorText(error)})`));
    const result = await assembleSession({ ctx: this.ctx, log: this.log, notice: this.notice }, session, assembly, context, next);
    await this.recorder.record(session, this.skillGate?.withheldSkills(agent));
    return result;
  }

  /** One model step of a session: its plan, then its servers and language servers in line with it. */
  private async step(session: Session, signal: AbortSignal | undefined): Promise<void> {
    if (session.ended || this.disposed) return;
    const cwd = session.cwd;
    if (!cwd || !path.isAbsolute(cwd)) return;
    const where = `dsh-bridge: ${cwd}`;
    session.where = where;
    // The skills part of the plan is the skill gate's (it runs the same function on its own
    // schedule), and the tool gate judges the session's live tools: neither is planned here.
    // Servers running (or starting) keep their row's answer while its values stay the same.
    const running = new Map([...session.mounts, ...session.starting].map(([serverName, s]) => [serverName, s.pin]));
    // The last step's reads are kept while nothing they read changed (each file, folder, link
    // and variable is read again: core/node/keptWhileUnchanged.ts); a change plans again.
    let kept = this.stepReads.get(session);
    if (!kept) this.stepReads.set(session, kept = new KeptWhileUnchanged(this.ports.env));
    // Keyed by the folder alone: `running` only lets a running server keep its row's answer; a
    // server that stops and starts again has its row built anew by the start (mcpMounting.ts).
    const { planned, user, accepted } = await kept.get(cwd, () => this.readStep(cwd, running));
    const { plan, declaration } = planned;
    session.planned = planned;
    session.trustMode = plan.trustMode;
    this.logBlocked(session, planned);
    if (user) this.logBlocked(session, user, 'the user declaration');
    const mounts = plan.blocked.length === 0 && declaration !== undefined;
    const userMounts = user !== undefined && user.plan.blocked.length === 0 && user.declaration !== undefined;
    // The tool gate judges the tools of both declarations' servers (their serverNames are apart: the user plan withholds the workspace's).
    session.toolGate.declare(
      [...(mounts ? declaration.servers : []), ...(userMounts ? user.declaration!.servers : [])],
      `${mounts ? declaration.digest : ''}${userMounts ? ` ${user.declaration!.digest}` : ''}`,
    );
    // What no tool definition may carry: the stored values the mounted declarations' servers use.
    session.toolGate.knownInputs([
      ...(mounts ? liveStoredInputs(declaration.servers, planned.values) : []),
      ...(userMounts ? liveStoredInputs(user.declaration!.servers, user.values) : []),
    ]);
    // Tool definitions the user accepted despite a scan's error (an acceptance counts from the next step).
    if ('error' in accepted) {
      session.toolGate.accept(planned.folder, NONE_ACCEPTED, planned.probes);
      session.once(`${where}: the accepted tool definitions cannot be read (${accepted.error}): tools with scan errors are withheld`);
    } else {
      session.toolGate.accept(planned.folder, accepted, planned.probes);
    }
    const step: StepPlan = {
      planned, folder: planned.folder, declarationPath: plan.declaration.path ?? path.join(cwd, DECLARATION_PATH), values: planned.values,
      facts: { digest: mounts ? declaration.digest : '', turn: session.turnMarker(), now: Date.now() },
    };
    const at: MountContext & { ctx: Ctx } = {
      ctx: this.ctx, ports: this.ports, env: this.ports.env, modules: this.modules, log: this.log,
      disposed: () => this.disposed, providedAlready: (s, name, exact) => this.providedAlready(s, name, exact),
      parallelStart: this.options.parallelStart !== false, startSlots: this.startSlots,
    };
    const userStep: StepPlan[] = user ? [{
      planned: user, folder: user.folder, declarationPath: user.plan.declaration.path ?? '', values: user.values,
      facts: { ...step.facts, digest: userMounts ? user.declaration!.digest : '' },
    }] : [];
    const launched = await mountServers(session, [step, ...userStep], at, signal);
    await mountLanguageServers(session, step, at, signal);
    // This step's request waits for the servers started in it, at most startWaitMs: the ones up
    // by then are in it, the others join the request of the step after they are up. A headless
    // run is one request nobody watches: it waits for them up to their start timeout.
    if (!launched.length) return;
    const headless = this.options.headless?.() === true;
    const waitMs = headless ? this.options.headlessStartWaitMs ?? HEADLESS_START_WAIT_MS : this.options.startWaitMs ?? DEFAULT_START_WAIT_MS;
    await waitAtMost(Promise.allSettled(launched.map((s) => s.done)), waitMs, signal);
    if (!session.ended && !this.disposed && !signal?.aborted) this.sayStillStarting(session, step.folder, launched, waitMs, headless);
  }

  /** The session plan of a step (without skills and tools: the gates judge those) and the accepted tool definitions it needs. */
  private async readStep(cwd: string, running: ReadonlyMap<string, string>): Promise<StepReads> {
    const planned = await planSession(this.ports, { cwd, skills: false, tools: false, running, policyWithoutDeclaration: false });
    // The user's own servers, in every session beside the workspace's (a workspace server of the same name wins).
    const userPlanned = await planUserServers(this.ports, { tools: false, running }, planned);
    const user = userPlanned.planned.plan.declaration.state === 'missing' ? undefined : mountableUserPlan(userPlanned);
    const { declaration } = planned;
    const userServers = user && !user.plan.blocked.length ? user.declaration?.servers.length ?? 0 : 0;
    if ((planned.plan.blocked.length || !declaration?.servers.length) && !userServers) return { planned, ...(user ? { user } : {}), accepted: NONE_ACCEPTED };
    const accepted = await this.ports.store.acceptedDefinitions().then((d) => d.tools, (error: unknown) => ({ error: errorText(error) }));
    return { planned, ...(user ? { user } : {}), accepted };
  }

  /**
   * A request that goes without a server still starting says so (the log, a headless run's
   * stderr) with how long it has been starting, and the host store keeps it for the doctor; a
   * server that made its request in time is forgotten there.
   */
  private sayStillStarting(session: Session, folder: string, launched: readonly Starting[], waitMs: number, headless: boolean): void {
    const { where } = session;
    const now = Date.now();
    const late = launched.filter((s) => !s.settled && session.starting.get(s.serverName) === s);
    const inTime = launched.filter((s) => session.mounts.get(s.serverName)?.pin === s.pin).map((s) => s.serverName);
    const record = (slow: ReadonlyMap<string, SlowStartRecord>, names: string[] = []) =>
      this.ports.store.recordSlowStarts(folder, slow, names).catch((error) => (this.log.debug ?? this.log.info).call(this.log, `${where}: the slow start was not recorded for the doctor (${errorText(error)})`));
    const slow = new Map<string, SlowStartRecord>(late.map((s) => [s.serverName, { pin: s.pin, at: new Date(now).toISOString(), startingMs: now - s.since, waitMs, headless }]));
    if (slow.size || inTime.length) void record(slow, inTime);
    for (const s of late) {
      const waited = seconds(now - s.since);
      session.once(headless
        ? `${where}: server ${s.label} is still starting after ${waited}: this headless run goes on without its tools (it waits ${seconds(waitMs)} for its servers: headlessStartWaitMs)`
        : `${where}: server ${s.label} is still starting after ${waited}: this request goes without its tools (a request waits ${seconds(waitMs)} for the servers starting in its step: startWaitMs); they join the first request after it is up`);
      void s.done.then(() => {
        if (session.ended || session.mounts.get(s.serverName)?.pin !== s.pin) return;
        const upAfterMs = Date.now() - s.since;
        session.once(`${where}: server ${s.label} is up after ${seconds(upAfterMs)}: its tools join the next request`, 'info');
        const entry = slow.get(s.serverName);
        if (entry) void record(new Map([[s.serverName, { ...entry, upAfterMs }]]));
      });
    }
  }

  /** Why nothing of the declaration mounts, said once per session (nothing found is only a debug line). */
  private logBlocked(session: Session, { plan }: PlannedSession, which?: string): void {
    const where = which ? `${session.where}: ${which}` : session.where;
    for (const r of plan.notes) {
      if (r.code === 'folder-record-unreadable') session.once(`${where}: the stored inputs and approvals for this folder cannot be read (${r.args.error}): servers that need them do not start`);
      // Stale by the managed settings alone: it mounts, and the plan withheld what they block now.
      if (r.code === 'declaration-stale-managed') session.once(`${where}: the declaration is stale: ${r.args.message}`);
    }
    for (const r of plan.blocked) {
      if (r.code === 'no-declaration' || r.code === 'no-declaration-source-above') {
        // Where it looked, always; and where the MCP configuration is, when a folder above has it.
        const above = r.code === 'no-declaration-source-above' ? `; the MCP configuration is in ${JSON.stringify(r.args.folder)} above: export that folder and start DSH in it` : '';
        session.onceDebug(`${where}: no .dsh/declaration.json in ${plan.declaration.looked.map((f) => JSON.stringify(f)).join(', ')} (looked up to the project root): nothing to mount${above}`);
      } else if (r.code === 'trust-deny') {
        session.once(`${where}: trust mode is "deny" on this machine: nothing from the declaration is mounted`, 'info');
      } else if (r.code === 'store-unreadable') {
        session.once(`${where}: the bridge settings in the DSH home cannot be read (${r.args.error}): nothing is mounted`);
      } else if (r.code.startsWith('declaration-')) {
        // A declaration that does not verify: one line per verify reason, in verify's words.
        session.once(`${where}: declaration refused (${r.code.slice('declaration-'.length)}): ${r.args.message}; nothing from it is mounted`);
      } else {
        session.once(`${where}: ${reasonText(r)}`);
      }
    }
  }

  /**
   * Already provided in this session's view: inherited from the parent session (a subagent sees
   * its parent's scoped tools) or a dsh-mcp-client row of the profile. Mounting again would start
   * a second process for the same tools.
   */
  private providedAlready(session: Session, name: string, exact = false): boolean {
    const tools = this.ctx.get('tools') as ToolsService | undefined;
    if (!tools) return false;
    const prefix = toolNamePrefix(name);
    try {
      return tools.schemas(session.agent).some((t) => (exact ? t.name === name : t.name.startsWith(prefix)));
    } catch {
      return false;
    }
  }
}
