import * as path from 'node:path';
import * as os from 'node:os';
import { readDshPolicy } from '../core/node/policyFiles';
import { describeDshBlock, dshPolicyBlock, startIdentity } from '../core/policy/dshPolicy';
import { verifyFolder } from '../core/app/export';
import { findDeclarationFolder } from '../core/node/declarationLookup';
import { type DeclaredServer } from '../core/declaration/declarationModel';
import type { LspDeclarationSection } from '../core/declaration/declarationModel';
import { HostStore } from '../core/node/hostStore';
import { type TrustMode } from '../core/settings/folderSettings';
import { describeLspServers, LSP_APPROVAL_NAME, lspReviewLines, lspSectionUsable, toLspStdioConfig } from '../core/lsp/lspRow';
import { reviewLines } from '../core/mcp/launchReview';
import { serverOfTool, toolNamePrefix } from '../core/mcp/toolNames';
import type { TemplateLookup } from '../core/declaration/template';
import { dropTools, mergeTools } from './assembly';
import { LSP_PROMPT_SECTION, LSP_TOOL_NAME, mergeSections, mountLsp, type LspMounted } from './lspMount';
import { SkillGate } from './skillGate';
import { McpClientModules, type Mounted } from './mcpModules';
import { DEFAULT_START_WAIT_MS, defaultStartConcurrency, retryAt, StartSlots, waitAtMost } from './startPolicy';
import { buildRow } from './rows';
import { SessionToolGate } from './toolGate';
import { errorText } from './errors';
import { countOf } from '../core/problems/plural';
import { visibleLine } from '../core/json/visibleText';
import type {
  AgentLike, AgentsService, ApprovalService, AssembleContext, Ctx, Fiber, Logger, PromptAssembly, ToolSchema, ToolsService,
} from './types';

export interface BridgeOptions {
  /** DSH home holding `bridge/` (the extension's host store); default: DSH's rule ($DSH_HOME, else ~/.dsh). */
  dshHome: string;
  /** The DSH process environment used for `${env:NAME}`; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Enforce skill-root trust in every session (default true). */
  gateSkillRoots?: boolean;
  /** Where a once-per-session line also goes when the DSH log is not shown (a headless run's stderr). */
  notice?: (line: string) => void;
  /** How long a step's request waits for the servers starting in that step (then it goes on with those ready). */
  startWaitMs?: number;
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
}

/** A start that failed: not tried again before `retryAt` (never when undefined) unless the declaration or pin changes. */
interface FailedStart {
  digest: string;
  failures: number;
  retryAt?: number;
}

/** A server being started in the background (it joins the session's requests when it is up). */
interface Starting {
  pin: string;
  done: Promise<void>;
}

interface ServerMount {
  serverName: string;
  pin: string;
  mounted: Mounted;
}

/** The folder's language servers mounted into one session (one isolated lsp service). */
interface LspMount {
  pin: string;
  mounted: LspMounted;
}

/** One session (agent) of DSH and what this plugin mounted into it. */
interface SessionState {
  agent: AgentLike;
  /** Child fiber of `agent.ctx`: every server of this session mounts under it and ends with it. */
  fiber?: Fiber;
  mounts: Map<string, ServerMount>;
  lsp?: LspMount;
  /** The lsp tool left this session since the last assembly (it leaves the snapshot being built). */
  lspStopped: boolean;
  /** `serverName pin` keys the user rejected in this session. */
  rejected: Set<string>;
  /** `serverName pin` -> turn marker where a cancelled/unavailable answer was given (ask again next turn). */
  unanswered: Map<string, string>;
  /** `serverName pin` -> its failed start (not spawned again until the declaration or pin changes, or its backoff ends). */
  failed: Map<string, FailedStart>;
  /** `serverName pin` keys the user allowed in this session (a retry after a failed start does not ask again). */
  allowed: Set<string>;
  /** serverName -> its start in flight. */
  starting: Map<string, Starting>;
  /** The session's child fiber being created (parallel starts share one). */
  fiberReady?: Promise<Ctx | undefined>;
  /** serverNames stopped since the last assembly (their tools leave the snapshot being built). */
  stopped: Set<string>;
  /** Log lines already written for this session (each refusal is logged once, not on every step). */
  logged: Set<string>;
  /** Which tools of the mounted servers reach the model (dsh.tools choice, tool pins). */
  toolGate: SessionToolGate;
  /** The trust mode and log prefix of the last reconcile (the tool gate asks and logs with them). */
  trust: TrustMode;
  where: string;
  /** Serializes reconcile runs of this session. */
  chain: Promise<unknown>;
  ended: boolean;
  /** Aborted when the session ends: its starts still queued for a slot leave the queue. */
  end: AbortController;
}

const key = (serverName: string, pin: string) => `${serverName} ${pin}`;
const shortPin = (pin: string) => pin.slice(0, 'sha256:'.length + 12);

/**
 * DSH's in-turn approval text: the question, then the same review the editor and
 * `dsh-bridge approve` show (full launch, cwd, env and header names, dangers, the full pin).
 * The question quotes the declaration's names: it is shown on one line, hidden characters
 * escaped, as the review's lines already are.
 */
function approvalReason(question: string, review: readonly string[], trust: TrustMode): string {
  const note = trust === 'pinned' ? ['This pin was not approved in the editor or with dsh-bridge approve.'] : [];
  return [visibleLine(question), ...review, ...note].join('\n');
}

/** The plugin's log seam: every line on one line, with what it quotes from a declaration, a server or an error escaped. */
function visibleLog(log: Logger): Logger {
  const shown = (write: (message: string) => void) => (message: string) => write.call(log, visibleLine(message));
  return { info: shown(log.info), warn: shown(log.warn), error: shown(log.error), ...(log.debug ? { debug: shown(log.debug) } : {}) };
}

/**
 * The DSH side of DSH Bridge: for each session, reads the nearest `.dsh/declaration.json` at or
 * above the session cwd (up to the project root),
 * verifies it, asks or checks trust from the host store, and mounts its servers with the
 * host's own dsh-mcp-client under the session's context, during the in-turn
 * `system-prompt/assemble` waterfall, merging their tools into the request being assembled.
 */
export class Bridge {
  private readonly sessions = new Map<AgentLike, SessionState>();
  private readonly modules: McpClientModules;
  private readonly store: HostStore;
  private readonly skillGate?: SkillGate;
  private readonly startSlots: StartSlots;
  private readonly log: Logger;
  /** A line also written where a headless run shows it (its stderr), shown as the log shows it. */
  private readonly notice?: (line: string) => void;
  private disposed = false;

  constructor(private readonly ctx: Ctx, private readonly options: BridgeOptions, log: Logger) {
    this.log = log = visibleLog(log);
    const notice = options.notice;
    if (notice) this.notice = (line) => notice(visibleLine(line));
    this.modules = new McpClientModules(ctx, log);
    this.startSlots = new StartSlots(options.startConcurrency ?? defaultStartConcurrency(os.availableParallelism()));
    this.store = new HostStore(options.dshHome, { log: (line) => log.info(`dsh-bridge: ${line}`) });
    if (options.gateSkillRoots !== false) this.skillGate = new SkillGate(ctx, { dshHome: options.dshHome, env: options.env }, log);
  }

  start(): void {
    // A tool kept out of a session's requests is also refused if the model calls it by name
    // (rc.8 registers every tool a server lists; this guard runs after DSH's own pre-execute),
    // and so is a tool of a gated server registered after the last request (not judged yet).
    const tools = this.ctx.get('tools') as ToolsService | undefined;
    tools?.guard?.((exec) => {
      const state = exec?.agent ? this.sessions.get(exec.agent as AgentLike) : undefined;
      return state?.toolGate.refuses(String(exec.name), state.mounts.keys())
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
    for (const agent of agents?.list() ?? []) this.stateOf(agent);
  }

  /** Plugin unload: stop every server this plugin started. */
  async stop(): Promise<void> {
    this.disposed = true;
    const running = [...this.sessions.values()].reduce((n, s) => n + s.mounts.size + (s.lsp ? 1 : 0), 0);
    if (running) this.log.info(`dsh-bridge: unloading: stopping ${countOf(running, 'server')}`);
    await Promise.all([...this.sessions.keys()].map((agent) => this.endSession(agent, 'DSH Bridge plugin unloaded')));
    await this.skillGate?.stop();
  }

  /** What this instance holds now: a diagnostic (the load test checks it comes back to zero when sessions end). */
  bookkeeping(): BridgeBookkeeping {
    const modules = this.modules.bookkeeping();
    return { sessions: this.sessions.size, skillGateSessions: this.skillGate?.size ?? 0, heldSlots: modules.heldSlots, mcpClientCopies: modules.copies, startsQueued: this.startSlots.waiting };
  }

  private stateOf(agent: AgentLike): SessionState {
    let state = this.sessions.get(agent);
    if (!state) {
      state = { agent, mounts: new Map(), lspStopped: false, rejected: new Set(), unanswered: new Map(), failed: new Map(), allowed: new Set(), starting: new Map(), stopped: new Set(), logged: new Set(), toolGate: new SessionToolGate(), trust: 'ask', where: 'dsh-bridge', chain: Promise.resolve(), ended: false, end: new AbortController() };
      this.sessions.set(agent, state);
    }
    return state;
  }

  private once(state: SessionState, line: string, level: 'info' | 'warn' = 'warn'): void {
    if (state.logged.has(line)) return;
    state.logged.add(line);
    this.log[level](line);
    this.notice?.(line);
  }

  private onceDebug(state: SessionState, line: string): void {
    if (state.logged.has(line)) return;
    state.logged.add(line);
    (this.log.debug ?? this.log.info).call(this.log, line);
  }

  private async endSession(agent: AgentLike, why: string): Promise<void> {
    const state = this.sessions.get(agent);
    if (!state) return;
    this.sessions.delete(agent);
    state.ended = true;
    state.end.abort();
    await state.chain.catch(() => undefined);
    const names = [...state.mounts.keys()];
    await Promise.all([...state.mounts.values()].map((m) => m.mounted.unmount().catch((error) => {
      this.log.warn(`dsh-bridge: stopping server "${m.serverName}" failed: ${errorText(error)}`);
    })));
    state.mounts.clear();
    if (state.lsp) {
      names.push('language servers');
      await state.lsp.mounted.unmount().catch((error) => this.log.warn(`dsh-bridge: stopping the language servers failed: ${errorText(error)}`));
      state.lsp = undefined;
    }
    if (state.fiber) await Promise.resolve(state.fiber.dispose()).catch(() => undefined);
    // Starts still in flight see `ended` and stop what they started.
    await Promise.allSettled([...state.starting.values()].map((s) => s.done));
    if (names.length) this.log.info(`dsh-bridge: session ${agent.id}: stopped ${names.map((n) => `"${n}"`).join(', ')} (${why})`);
  }

  private async onAssemble(assembly: PromptAssembly, context: AssembleContext, next: () => Promise<PromptAssembly>): Promise<PromptAssembly> {
    const agent = context?.agent;
    if (!agent || this.disposed) return next();
    const state = this.stateOf(agent);
    const run = state.chain.then(() => this.reconcile(state, context.signal));
    state.chain = run.catch(() => undefined);
    try {
      await run;
    } catch (error) {
      this.log.error(`dsh-bridge: session ${agent.id}: ${errorText(error)}`);
    }
    // Before DSH's agent/pre-step publishes this step's skill catalog.
    await this.skillGate?.revalidate(agent).catch((error) => this.log.warn(`dsh-bridge: session ${agent.id}: skill roots not revalidated (${errorText(error)})`));
    const visible = this.visibleTools(context, state);
    const offered = await this.gateTools(state, visible, context.signal);
    const blocked = new Set(state.toolGate.blocked);
    const mounted = [...state.mounts.keys()];
    const added = offered.filter((tool) => serverOfTool(tool.name, mounted) !== undefined || (state.lsp !== undefined && tool.name === LSP_TOOL_NAME));
    const gone = new Set(state.stopped);
    state.stopped.clear();
    const lspGone = state.lspStopped;
    state.lspStopped = false;
    const toolOrder = this.toolOrder();
    const apply = (target: PromptAssembly) => {
      // Tools of servers stopped during this assembly are still in the base snapshot.
      const stillVisible = new Set(visible.map((t) => t.name));
      if (gone.size) dropTools(target, gone, stillVisible);
      if (lspGone && !stillVisible.has(LSP_TOOL_NAME)) target.tools = target.tools.filter((t) => t.name !== LSP_TOOL_NAME);
      // Registered tools the gate keeps out are in the base snapshot too.
      if (blocked.size) target.tools = target.tools.filter((t) => !blocked.has(t.name));
      mergeTools(target, added, toolOrder);
      if (state.lsp) mergeSections(target, this.ctx.get('systemPrompt'), context.scope ?? agent, [LSP_PROMPT_SECTION], context);
    };
    apply(assembly);
    const result = await next();
    if (result && result !== assembly && Array.isArray(result.tools)) apply(result);
    return result;
  }

  /** The visible tools minus those the session's tool gate keeps out (asks in `ask` mode; never throws: the gate fails closed). */
  private async gateTools(state: SessionState, visible: ToolSchema[], signal: AbortSignal | undefined): Promise<ToolSchema[]> {
    if (state.mounts.size === 0 || (state.trust !== 'ask' && state.trust !== 'pinned')) return visible;
    const approval = this.ctx.get('approval') as ApprovalService | undefined;
    const servers = [...state.mounts.keys()];
    const log = (line: string, level: 'info' | 'warn' = 'warn') => {
      this.log[level](line);
      this.notice?.(line);
    };
    let turn: string;
    try {
      turn = this.turnMarker(state.agent);
    } catch (error) {
      return state.toolGate.failClosed(visible, servers, { where: state.where, log }, error);
    }
    return state.toolGate.offered(visible, servers, {
      trust: state.trust,
      turn,
      where: state.where,
      ask: approval ? (tool, question) => approval.request({ agent: state.agent, toolName: tool.name, reason: question, signal }) : undefined,
      log,
    });
  }

  private toolOrder(): string[] | undefined {
    const order = this.ctx.get('systemPrompt')?.toolOrder;
    return Array.isArray(order) ? order : undefined;
  }

  /** The tools the session's model would see now (restrictions and presentation mode honoured). */
  private visibleTools(context: AssembleContext, state: SessionState): ToolSchema[] {
    if (state.mounts.size === 0 && state.stopped.size === 0 && !state.lsp && !state.lspStopped) return [];
    const tools = this.ctx.get('tools') as ToolsService | undefined;
    if (!tools) return [];
    const scope = context.scope ?? state.agent;
    return typeof tools.wireSchemas === 'function' ? tools.wireSchemas(scope).schemas : tools.schemas(scope);
  }

  private providedAlready(agent: AgentLike, name: string, exact = false): boolean {
    const tools = this.ctx.get('tools') as ToolsService | undefined;
    if (!tools) return false;
    const prefix = toolNamePrefix(name);
    try {
      return tools.schemas(agent).some((t) => (exact ? t.name === name : t.name.startsWith(prefix)));
    } catch {
      return false;
    }
  }

  /** The session's current turn marker (approval answers other than allowed/rejected last one turn). */
  private turnMarker(agent: AgentLike): string {
    const events = agent.session.events ?? [];
    for (let i = events.length - 1; i >= 0; i--) if (events[i].type === 'turn/start') return String(events[i].seq ?? i);
    return 'none';
  }

  private async reconcile(state: SessionState, signal: AbortSignal | undefined): Promise<void> {
    if (state.ended || this.disposed) return;
    const agent = state.agent;
    const cwd = agent.session.header?.cwd;
    if (!cwd || !path.isAbsolute(cwd)) return;
    const where = `dsh-bridge: ${cwd}`;

    let trust: TrustMode;
    try {
      trust = await this.store.trustMode();
    } catch (error) {
      this.once(state, `${where}: the bridge settings in the DSH home cannot be read (${error instanceof Error ? error.message : 'error'}): nothing is mounted`);
      trust = 'deny';
    }

    let desired: DeclaredServer[] = [];
    let digest = '';
    let lspSection: LspDeclarationSection | undefined;
    let inputs: ReadonlyMap<string, string> = new Map();
    let approvals: Array<{ serverName: string; pin: string }> = [];
    // DSH is often started in a subfolder: the nearest declaration up to the project root applies.
    const lookup = await findDeclarationFolder(cwd, os.homedir());
    let folder = lookup.folder ?? cwd;
    const declarationPath = path.join(folder, '.dsh', 'declaration.json');
    const verified = lookup.folder ? await verifyFolder(folder, { dshHome: this.options.dshHome }) : undefined;
    if (!verified) {
      this.onceDebug(state, `${where}: no .dsh/declaration.json in ${lookup.looked.map((f) => JSON.stringify(f)).join(', ')} (looked up to the project root): nothing to mount`);
    } else if (!verified.ok) {
      const missing = verified.reasons.length === 1 && verified.reasons[0].code === 'missing';
      if (!missing) for (const r of verified.reasons) this.once(state, `${where}: declaration refused (${r.code}): ${r.message}; nothing from it is mounted`);
    } else if (trust === 'deny') {
      this.once(state, `${where}: trust mode is "deny" on this machine: nothing from the declaration is mounted`, 'info');
    } else {
      desired = verified.declaration!.servers;
      digest = verified.declaration!.digest;
      lspSection = verified.declaration!.lsp;
      folder = verified.declaration!.folder;
      try {
        const record = await this.store.readFolder(folder);
        inputs = record.inputs;
        approvals = record.approvals;
      } catch (error) {
        this.once(state, `${where}: the stored inputs and approvals for this folder cannot be read (${error instanceof Error ? error.message : 'error'})`);
      }
    }

    state.trust = trust;
    state.where = where;
    state.toolGate.declare(desired, digest);
    // Tool definitions the user accepted despite a scan's error (read each step: an acceptance counts from the next one).
    try {
      state.toolGate.accept(folder, desired.length ? (await this.store.acceptedDefinitions()).tools : []);
    } catch (error) {
      state.toolGate.accept(folder, []);
      this.once(state, `${where}: the accepted tool definitions cannot be read (${errorText(error)}): tools with scan errors are withheld`);
    }

    // Unmount what left the declaration (or changed: a new pin is a new entry).
    const wanted = new Map(desired.map((s) => [s.serverName, s.pin]));
    for (const [serverName, mount] of [...state.mounts]) {
      if (wanted.get(serverName) === mount.pin) continue;
      state.mounts.delete(serverName);
      state.stopped.add(serverName);
      await mount.mounted.unmount();
      this.log.info(`${where}: stopped "${serverName}" (its entry ${wanted.has(serverName) ? 'changed' : 'left the declaration or the declaration is no longer valid'})`);
    }
    // A start in flight for an entry that changed stops itself when it is up (it is no longer the one wanted).
    for (const [serverName, starting] of [...state.starting]) if (wanted.get(serverName) !== starting.pin) state.starting.delete(serverName);

    const values: TemplateLookup = {
      input: (id: string) => inputs.get(id),
      env: (name: string) => {
        const env = this.options.env ?? process.env;
        return Object.prototype.hasOwnProperty.call(env, name) ? env[name] : undefined;
      },
    };
    // The DSH side's own policy, read at every step: a file installed or changed applies at once.
    const policy = desired.length ? await readDshPolicy(this.options.dshHome, this.options.env ?? process.env) : { layers: [] };
    const launched: Array<Promise<void>> = [];
    for (const server of desired) {
      if (state.ended || this.disposed || signal?.aborted) break;
      if (state.mounts.has(server.serverName) || state.starting.has(server.serverName)) continue;
      const k = key(server.serverName, server.pin);
      const label = `"${server.serverName}" (pin ${shortPin(server.pin)})`;
      if (state.rejected.has(k)) continue;
      // A failed start is not asked about and spawned again at every model step: only once its
      // backoff (the row's reconnect settings) ran out, or for a new declaration or pin.
      const failure = state.failed.get(k);
      if (failure?.digest === digest && (failure.retryAt === undefined || Date.now() < failure.retryAt)) continue;
      if (failure && failure.digest !== digest) state.failed.delete(k);
      const turn = this.turnMarker(agent);
      if (state.unanswered.get(k) === turn) continue;

      // Values first: a server that cannot start is refused without asking the user.
      const preview = await buildRow(server, folder, { ...values });
      if (!preview.ok) {
        this.once(state, `${where}: server ${label} not started: ${preview.reason}`);
        continue;
      }
      // The machine's policy, on the launch as it would start (whichever machine or face exported it).
      const block = dshPolicyBlock(policy, startIdentity(server, values));
      if (block) {
        this.once(state, `${where}: server ${label} withheld: ${describeDshBlock(block)}`);
        continue;
      }

      // Already provided in this session's view: inherited from the parent session (a subagent
      // sees its parent's scoped tools) or a dsh-mcp-client row of the profile. Mounting again
      // would start a second process for the same tools.
      if (this.providedAlready(agent, server.serverName)) {
        this.once(state, `${where}: server ${label} not started for session ${agent.id}: its tools are already visible there (from the parent session or a profile row)`, 'info');
        continue;
      }

      const approvedPin = approvals.some((a) => a.serverName === server.serverName && a.pin === server.pin);
      if (!(trust === 'pinned' && approvedPin) && !state.allowed.has(k)) {
        const allowed = await this.askToStart(state, {
          key: k,
          turn,
          where,
          label: `server ${label}`,
          toolName: `${toolNamePrefix(server.serverName)}*`,
          reason: approvalReason(`Start MCP server "${server.name}" from ${declarationPath}?`, reviewLines(server), trust),
          // No answerer (a headless run): every turn would end the same way; say once what fixes it.
          headless: `${where}: nothing can answer DSH's approval in this session (a headless run?), so servers that need it are not started; to start them without asking: dsh-bridge trust pinned, then dsh-bridge approve --workspace ${JSON.stringify(folder)}`,
        }, signal);
        if (!allowed) continue;
        state.allowed.add(k);
      }
      if (state.ended || this.disposed || signal?.aborted) break;

      // Started in the background: the next server's approval and start do not wait for it.
      const starting: Starting = { pin: server.pin, done: Promise.resolve() };
      state.starting.set(server.serverName, starting);
      starting.done = this.startServer(state, server, starting, { folder, values, digest, where, label });
      launched.push(starting.done);
      if (this.options.parallelStart === false) await starting.done;
    }
    await this.reconcileLsp(state, { section: lspSection, trust, approvals, lookup: values, where, declarationPath, digest }, signal);
    // This step's request waits for the servers started in it, at most startWaitMs: the ones up
    // by then are in it, the others join the request of the step after they are up.
    if (launched.length) await waitAtMost(Promise.allSettled(launched), this.options.startWaitMs ?? DEFAULT_START_WAIT_MS, signal);
  }

  /**
   * DSH's in-turn approval to start something (an MCP server, the language servers): true when
   * allowed once. A rejection holds for the session; no answer (cancelled, unavailable) asks again
   * next turn, and is said once per session (a headless run answers the same every turn), after
   * `headless` when nothing can answer.
   */
  private async askToStart(
    state: SessionState,
    ask: { key: string; turn: string; where: string; label: string; toolName: string; reason: string; headless?: string },
    signal: AbortSignal | undefined,
  ): Promise<boolean> {
    const { key: k, where, label } = ask;
    const approval = this.ctx.get('approval') as ApprovalService | undefined;
    if (!approval) {
      this.once(state, `${where}: ${label} not started: this DSH has no approval service to ask`);
      return false;
    }
    const outcome = await approval.request({ agent: state.agent, toolName: ask.toolName, reason: ask.reason, signal });
    if (outcome === 'rejected') {
      state.rejected.add(k);
      this.log.info(`${where}: ${label} rejected by the user: not started in this session`);
      return false;
    }
    if (outcome !== 'allowed-once') {
      state.unanswered.set(k, ask.turn);
      if (outcome === 'unavailable' && ask.headless) this.once(state, ask.headless);
      this.once(state, `${where}: ${label} not started: approval ${outcome}`, 'info');
      return false;
    }
    state.unanswered.delete(k);
    return true;
  }

  /** One server's start (envFile and stored values read now), run in the background of the step. */
  private async startServer(
    state: SessionState,
    server: DeclaredServer,
    starting: Starting,
    at: { folder: string; values: TemplateLookup; digest: string; where: string; label: string },
  ): Promise<void> {
    const { where, label } = at;
    const k = key(server.serverName, server.pin);
    // No longer current when the entry changed or left while it was starting.
    const current = () => state.starting.get(server.serverName) === starting;
    let leave: (() => void) | undefined;
    try {
      // A slot of the process-wide start limit (queued while it is full): a session that ended,
      // or an entry that changed, while it waited starts nothing.
      leave = await this.startSlots.enter(state.end.signal);
      if (!leave || state.ended || this.disposed || !current()) return;
      // Rebuilt at start: envFile and stored values are read now, not at approval time.
      const built = await buildRow(server, at.folder, at.values);
      if (!built.ok) {
        this.once(state, `${where}: server ${label} not started: ${built.reason}`);
        return;
      }
      const parent = await this.sessionContext(state);
      if (!parent) return;
      let mounted: Mounted;
      try {
        mounted = await this.modules.mount(parent, built.row);
      } catch (error) {
        if (!state.ended && !this.disposed && current()) this.startFailed(state, server, at, error);
        return;
      }
      if (state.ended || this.disposed || !current()) {
        await mounted.unmount();
        return;
      }
      state.failed.delete(k);
      state.mounts.set(server.serverName, { serverName: server.serverName, pin: server.pin, mounted });
      this.log.info(`${where}: started ${label} for session ${state.agent.id}${mounted.instance > 0 ? ` (mcp-client instance ${mounted.instance})` : ''}`);
    } finally {
      leave?.();
      if (current()) state.starting.delete(server.serverName);
    }
  }

  private startFailed(state: SessionState, server: DeclaredServer, at: { digest: string; where: string; label: string }, error: unknown): void {
    const k = key(server.serverName, server.pin);
    const previous = state.failed.get(k);
    const failures = (previous?.digest === at.digest ? previous.failures : 0) + 1;
    const when = retryAt(server.reconnect, failures, Date.now());
    state.failed.set(k, { digest: at.digest, failures, retryAt: when });
    const why = errorText(error);
    const next = when === undefined
      ? 'not retried in this session until the declaration or its pin changes'
      : `retried at the first model step after ${when - Date.now()} ms (the entry's reconnect settings)`;
    if (failures === 1) this.once(state, `${at.where}: server ${at.label} failed to start: ${why}; ${next}`);
    else if (when === undefined) this.once(state, `${at.where}: server ${at.label} failed to start ${failures} times: ${why}; ${next}`);
    else (this.log.debug ?? this.log.info).call(this.log, `${at.where}: server ${at.label} failed to start again (${failures} times): ${why}; ${next}`);
  }

  /**
   * The folder's language servers, as an MCP server is treated: verified declaration first, then
   * trust (`deny` nothing; `pinned` an approved pin starts without asking; otherwise DSH's
   * approval inside the turn), then one isolated lsp service for this session.
   */
  private async reconcileLsp(
    state: SessionState,
    want: { section?: LspDeclarationSection; trust: TrustMode; approvals: Array<{ serverName: string; pin: string }>; lookup: TemplateLookup; where: string; declarationPath: string; digest: string },
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const agent = state.agent;
    const { section, where } = want;
    const usable = lspSectionUsable(section);
    if (state.lsp && (!usable || state.lsp.pin !== section.pin)) {
      const mount = state.lsp;
      state.lsp = undefined;
      state.lspStopped = true;
      await mount.mounted.unmount();
      this.log.info(`${where}: stopped the language servers of session ${agent.id} (the lsp section ${usable ? 'changed' : 'left the declaration or the declaration is no longer valid'})`);
    }
    if (!section || state.lsp || state.ended || this.disposed || signal?.aborted) return;
    if (!section.registersAll) {
      this.once(state, `${where}: language servers not started: the lsp section has an invalid entry, and DSH registers none of its servers then (fix dsh.lsp.servers and export again)`);
      return;
    }
    if (!usable) return;
    const k = key(LSP_APPROVAL_NAME, section.pin);
    const label = `language servers ${describeLspServers(section)} (pin ${shortPin(section.pin)})`;
    if (state.rejected.has(k)) return;
    // As for an MCP server: a failed start is not asked about and tried again at every model
    // step (a DSH without the LSP packages fails every time), only for a new declaration or pin.
    const failure = state.failed.get(k);
    if (failure?.digest === want.digest) return;
    if (failure) state.failed.delete(k);
    const turn = this.turnMarker(agent);
    if (state.unanswered.get(k) === turn) return;
    const preview = toLspStdioConfig(section, want.lookup);
    if (!preview.ok) {
      this.once(state, `${where}: ${label} not started: ${preview.reason}`);
      return;
    }
    if (this.providedAlready(agent, LSP_TOOL_NAME, true)) {
      this.once(state, `${where}: ${label} not started for session ${agent.id}: an lsp tool is already visible there (a profile row)`, 'info');
      return;
    }
    const approved = want.approvals.some((a) => a.serverName === LSP_APPROVAL_NAME && a.pin === section.pin);
    if (!(want.trust === 'pinned' && approved)) {
      const allowed = await this.askToStart(state, {
        key: k,
        turn,
        where,
        label,
        toolName: LSP_TOOL_NAME,
        reason: approvalReason(`Start language servers ${describeLspServers(section)} from ${want.declarationPath}?`, lspReviewLines(section), want.trust),
      }, signal);
      if (!allowed) return;
    }
    if (state.ended || this.disposed || signal?.aborted) return;
    // Rendered again at start: the DSH environment is read now, not at approval time.
    const built = toLspStdioConfig(section, want.lookup);
    if (!built.ok) {
      this.once(state, `${where}: ${label} not started: ${built.reason}`);
      return;
    }
    const parent = await this.sessionContext(state);
    if (!parent) return;
    try {
      const mounted = await mountLsp(this.ctx, parent, built.config);
      if (state.ended || this.disposed) {
        await mounted.unmount();
        return;
      }
      state.lsp = { pin: section.pin, mounted };
      this.log.info(`${where}: started ${label} for session ${agent.id} (each server spawns on its first query)`);
    } catch (error) {
      state.failed.set(k, { digest: want.digest, failures: 1 });
      this.once(state, `${where}: ${label} failed to start: ${errorText(error)}; not retried in this session until the declaration or its pin changes`);
    }
  }

  /** The session's own child fiber of `agent.ctx` (never a new scope), created on first need. */
  // Returns the fiber's context, not the fiber: a fiber is thenable, and returning it from an
  // async function would resolve to its load result instead.
  private sessionContext(state: SessionState): Promise<Ctx | undefined> {
    state.fiberReady ??= (async () => {
      try {
        // Disposed by anyone (the agent's context ending without agent/disposed, a reload): the
        // session ends here too, so its servers stop and their dsh-mcp-client slots are freed.
        const fiber = state.agent.ctx.plugin({
          name: 'dsh-bridge-session',
          apply: (c: Ctx) => {
            c.effect(() => () => {
              if (!state.ended) void this.endSession(state.agent, 'session context disposed');
            }, 'dsh-bridge-session');
          },
        }, { sessionId: state.agent.id });
        await fiber;
        state.fiber = fiber;
        return fiber.ctx;
      } catch (error) {
        this.once(state, `dsh-bridge: session ${state.agent.id}: cannot attach to the session context (${errorText(error)})`);
        state.fiberReady = undefined;
        return undefined;
      }
    })();
    return state.fiberReady;
  }
}
