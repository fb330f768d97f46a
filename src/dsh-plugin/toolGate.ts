/**
 * Which tools of the mounted MCP servers a session is offered: the declaration's tool choice
 * (`dsh.tools`) and its tool pins (from the last probe). rc.8 has no filter for what
 * dsh-mcp-client registers, so the gate works where the model meets the tools: tools it does
 * not offer are taken out of every request the session assembles, and a `tools.guard` denies a
 * call to one of them (a model that names a tool it was not shown gets an error, not the tool).
 *
 * - A disallowed tool (not in `only`, or in `exclude`) is never offered.
 * - A server without pins (never probed) is offered every allowed tool that passes the scan below.
 * - With pins: an allowed tool whose definition equals its pin is offered; a changed or new one is
 *   withheld for the rest of the session, with one log line naming the tool and what changed.
 *   In `ask` mode DSH's approval asks (once per tool and definition) showing the change; allowed
 *   once, that definition is offered in this session.
 * - Every tool of a declared server is scanned for hidden instructions (core/scan, with the other
 *   mounted servers' tools as context), once per definition: one with an error-level finding is
 *   withheld unless the host store records the user's acceptance of that definition's pin (the
 *   editor's "Accept This Tool Definition", `dsh-bridge tools accept`); in `ask` mode DSH's
 *   approval asks, showing the findings escaped.
 * - A tool whose live definition (name, description, schema) carries the value of a stored input
 *   the session's servers use is never offered nor asked about (`tool-carries-secret`): the model
 *   would get the value with every request. Its name is masked wherever the gate shows it.
 */
import type { DeclaredTools } from '../core/declaration/declarationModel';
import { publicToolName, serverOfTool, toolNamePrefix } from '../core/mcp/toolNames';
import type { ToolChange } from '../core/tools/toolDefinitions';
import type { AcceptedTool, ToolScanState } from '../core/tools/toolScan';
import type { ScanFinding } from '../core/scan/scan';
import { scanLiveTool } from '../core/app/scanFindings';
import { liveToolDefinition, liveToolScan, liveToolVerdict, toolScanReason, type LiveToolVerdict } from '../core/app/liveTools';
import type { ProbedServerRecord } from '../core/node/hostStore';
import type { PlanReason } from '../core/app/planReasons';
import type { ToolSchema } from './types';
import { errorText } from './errors';
import { visibleLine } from '../core/json/visibleText';
import { liveNameMask, liveToolCarries } from '../core/app/liveTools';
import type { StoredInput } from '../core/tools/carriedInputs';

/** Which stored inputs one live definition carries, kept while its name, description, schema object and the inputs stay. */
interface CachedCarry {
  name: string;
  description: string;
  inputs: readonly StoredInput[];
  carried: string[];
}

/** A verdict on one live definition, with its hash once something needed it. */
interface CachedVerdict {
  name: string;
  description: string;
  verdict: LiveToolVerdict;
  definition?: string;
}

/**
 * One declared server's tool rules (its `tools`: choice and pins), prepared once per declaration:
 * the public-to-raw name map is built once, and each live tool's verdict is kept per definition.
 *
 * The cache key is the tool's `parameters` object: rc.8's registry hands out, at every request,
 * the very input schema dsh-mcp-client registered (`wireSchemas` does not copy it), and a server's
 * changed tool list is registered anew (new objects) after `tools/list_changed`. A hit also needs
 * the same name and description, so an unchanged tool is hashed once per session and declaration.
 */
class ServerToolRules {
  /** Public name -> the raw tool name behind it, among the names the declaration knows. */
  private readonly rawByPublic = new Map<string, string>();
  private readonly verdicts = new WeakMap<object, CachedVerdict>();

  constructor(serverName: string, private readonly tools: DeclaredTools | undefined) {
    if (!tools) return;
    const names = new Set<string>([...Object.keys(tools.pins ?? {}), ...(tools.choice?.only ?? []), ...(tools.choice?.exclude ?? [])]);
    for (const raw of names) this.rawByPublic.set(publicToolName(serverName, raw), raw);
  }

  /** The verdict on one registered tool of this server (`tool.name` is its public name). */
  verdict(tool: ToolSchema): LiveToolVerdict {
    return this.cached(tool).verdict;
  }

  /** The canonical hash of a live tool's definition (the key of an answer given for it), hashed once per definition. */
  definition(tool: ToolSchema): string {
    const entry = this.cached(tool);
    entry.definition ??= liveToolDefinition(tool.name, tool);
    return entry.definition;
  }

  private cached(tool: ToolSchema): CachedVerdict {
    const key = typeof tool.parameters === 'object' && tool.parameters !== null ? tool.parameters : undefined;
    const hit = key && this.verdicts.get(key);
    if (hit && hit.name === tool.name && hit.description === tool.description) return hit;
    const entry: CachedVerdict = { name: tool.name, description: tool.description, verdict: this.judge(tool) };
    if (key) this.verdicts.set(key, entry);
    return entry;
  }

  private judge(tool: ToolSchema): LiveToolVerdict {
    return liveToolVerdict(this.tools, this.rawByPublic.get(tool.name), tool);
  }
}

/** "its description changed" / "its input schema changed" / "both its description and input schema changed". */
function describeChanges(changes: readonly ToolChange[]): string {
  if (changes.length === 2) return 'its description and its input schema changed';
  return changes[0] === 'description' ? 'its description changed' : 'its input schema changed';
}

/** A tool's description for an approval question: one line, bounded. */
function shownDescription(description: string, max = 400): string {
  const line = description.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export type ToolApproval = 'allowed-once' | 'rejected' | 'cancelled' | 'unavailable';

export interface GateContext {
  /** `ask`: a changed or new tool is asked about; `pinned`: it is withheld without asking. */
  trustMode: 'ask' | 'pinned';
  /** The session's turn marker (a cancelled or unanswered question is asked again next turn). */
  turn: string;
  /** DSH's approval for one tool (undefined: no approval service). */
  ask?: (tool: ToolSchema, question: string) => Promise<ToolApproval>;
  log: (line: string, level?: 'info' | 'warn') => void;
  /** Prefix of log lines (`dsh-bridge: <cwd>`). */
  where: string;
}

/** A declared server of the session's declaration, as the gate needs it. */
export interface GatedServer {
  serverName: string;
  /** Its name in the source (`.vscode/mcp.json`), for questions. */
  name: string;
  tools?: DeclaredTools;
}

/** The scan of one live definition, kept while its name, description, schema object and context stay. */
interface CachedScan {
  name: string;
  description: string;
  context: string;
  findings: ScanFinding[];
  /** The raw tool name, when the public name shows it whole (else undefined: no acceptance can name it). */
  raw?: string;
  /** Its definition pin as the probe computes it (`raw` known only). */
  pin?: string;
  /** `withheld`: an error finding, and the user has not accepted this definition. */
  state: ToolScanState;
}

/** The error findings of a scan, on one line: each code and what it found (shown text), at most three. */
function describeFindings(findings: readonly ScanFinding[]): string {
  const errors = findings.filter((f) => f.severity === 'error');
  const shown = errors.slice(0, 3).map((f) => {
    const what = f.args.decoded ?? f.args.text ?? f.args.tool ?? f.args.shown;
    return `${f.code}: ${what !== undefined ? `"${String(what)}"` : `${f.args.size ?? f.args.depth ?? ''}`.trim() || f.excerpt}`;
  });
  return `its definition has hidden or model-directed instructions (${shown.join('; ')}${errors.length > 3 ? `; ${errors.length - 3} more` : ''})`;
}

const NO_PROBES: Readonly<Record<string, ProbedServerRecord>> = Object.freeze({});

/** The words of the core's reason for a tool withheld for its scan: accept it, or probe it first (its fix's command). */
function scanFixText(why: PlanReason): string {
  return `reason ${why.code}; ${why.fix?.code === 'tools-accept' ? 'to accept it' : 'to review it, probe it first and export, then accept it'}: ${why.fix?.command ?? ''}`;
}

/** One session's tool gate: what its mounted servers' tools may reach the model. */
export class SessionToolGate {
  /** serverName -> the declared entry and its rules (no `tools`: no choice and no pins; its tools are still scanned). */
  private declared = new Map<string, { name: string; tools?: DeclaredTools; rules?: ServerToolRules }>();
  /** What {@link declare} last took (a declaration is known by its digest, which covers `tools`). */
  private declaredDigest: string | undefined;
  /** Public names kept out of this session's requests and calls right now (replaced whole, never half-built). */
  private blockedNow: ReadonlySet<string> = new Set();
  /** Tools of gated servers in the last request (the only ones of those servers the guard lets through). */
  private offeredNow: ReadonlySet<string> = new Set();
  /** Public names withheld for the rest of the session (changed or new, or a scan error, and not allowed by the user). */
  private readonly withheld = new Set<string>();
  /** Public name -> why it is kept out (the session record's words), for every name {@link blocked} holds. */
  private readonly why = new Map<string, string>();
  /** `publicName definition` allowed once by the user in this session. */
  private readonly allowedDefinitions = new Set<string>();
  /** `publicName definition` -> turn where the question got no answer. */
  private readonly unanswered = new Map<string, string>();
  private readonly logged = new Set<string>();
  /** The declaration's folder and the tool definitions accepted there despite a scan's error. */
  private folder = '';
  private acceptedTools: readonly AcceptedTool[] = [];
  private acceptedKey = '';
  private readonly scans = new WeakMap<object, CachedScan>();
  /** The folder's recorded probes (the plan's): whether a tool withheld for its scan can be accepted, or is probed first. */
  private probes: Readonly<Record<string, ProbedServerRecord>> = NO_PROBES;
  /** The stored input values the declared servers use (what no definition may carry), and their mask. */
  private inputs: readonly StoredInput[] = [];
  private mask: (name: string) => string = liveNameMask([]);
  private readonly carries = new WeakMap<object, CachedCarry>();

  /** The stored inputs (id, value) of the declaration's servers, at every step; the same ones keep what was judged. */
  knownInputs(inputs: readonly StoredInput[]): void {
    if (inputs.length === this.inputs.length && inputs.every(([id, value], i) => this.inputs[i][0] === id && this.inputs[i][1] === value)) return;
    this.inputs = inputs;
    this.mask = liveNameMask(inputs);
  }

  /** A tool name as the gate shows it (logs, the session record): a stored value in it masked. */
  shownName(toolName: string): string {
    return this.mask(toolName);
  }

  /** The ids of the stored inputs a live definition carries (empty: none), once per definition and inputs. */
  private carriedOf(tool: ToolSchema): string[] {
    const key = typeof tool.parameters === 'object' && tool.parameters !== null ? tool.parameters : undefined;
    const hit = key && this.carries.get(key);
    if (hit && hit.name === tool.name && hit.description === tool.description && hit.inputs === this.inputs) return hit.carried;
    const carried = liveToolCarries(tool, this.inputs);
    if (key) this.carries.set(key, { name: tool.name, description: tool.description, inputs: this.inputs, carried });
    return carried;
  }

  /**
   * The host store's acceptances for the declaration's folder (a change is seen at the next
   * judgement), and its recorded probes (absent: none known).
   */
  accept(folder: string, accepted: readonly AcceptedTool[], probes: Readonly<Record<string, ProbedServerRecord>> = NO_PROBES): void {
    this.probes = probes;
    // The host store hands out the same list while accepted.json's bytes stay the same.
    if (folder === this.folder && accepted === this.acceptedTools) return;
    const key = JSON.stringify([folder, accepted]);
    this.folder = folder;
    this.acceptedTools = accepted;
    if (key === this.acceptedKey) return;
    this.acceptedKey = key;
    this.scanGeneration++;
    // A tool withheld for its scan alone is judged again: an acceptance made meanwhile counts from the next step.
    for (const name of this.withheldForScan) this.withheld.delete(name);
    this.withheldForScan.clear();
  }

  /** Tools in {@link withheld} for their scan's findings only (an acceptance can let them in later in the session). */
  private readonly withheldForScan = new Set<string>();

  private scanGeneration = 0;

  /**
   * The servers of the session's declaration (`digest`: the verified declaration's, "" for none).
   * The same digest keeps what was prepared for it (name maps, verdicts); another one replaces it.
   */
  declare(servers: readonly GatedServer[], digest: string): void {
    if (digest === this.declaredDigest) return;
    this.declaredDigest = digest;
    this.declared = new Map(servers.map((s) => [s.serverName, { name: s.name, ...(s.tools ? { tools: s.tools } : {}) }]));
  }

  /** Public names kept out of this session's requests right now. */
  get blocked(): ReadonlySet<string> {
    return this.blockedNow;
  }

  /** Why a tool of {@link blocked} is kept out (the log line's words). */
  whyBlocked(toolName: string): string {
    return this.why.get(toolName) ?? 'withheld in this session';
  }

  /**
   * Whether a call of `toolName` is refused in this session (the `tools.guard`; `servers`: the
   * mounted serverNames now): a tool kept out, and any tool of a gated server that was not in the
   * last request (one registered since, or every one after the gate failed).
   */
  refuses(toolName: string, servers: Iterable<string>): boolean {
    if (this.blockedNow.has(toolName)) return true;
    return this.gatedServerOf(toolName, servers) !== undefined && !this.offeredNow.has(toolName);
  }

  /**
   * The one rule of which tools the gate judges: the mounted server (`servers`) whose public-name
   * prefix the tool has, when the declaration has it (its `tools`, a choice or pins, and the scan
   * of every definition).
   */
  private gatedServerOf(toolName: string, servers: Iterable<string>): string | undefined {
    const serverName = serverOfTool(toolName, servers);
    return serverName !== undefined && this.declared.has(serverName) ? serverName : undefined;
  }

  /**
   * The scan of a live tool, once per definition (keyed by its schema object, as the rules' cache)
   * and context (the other mounted tools' names), with whether the user accepted its pin.
   */
  private scanOf(tool: ToolSchema, serverName: string, context: { key: string; servers: Array<{ serverName: string; tools: Array<{ name: string }> }> }): CachedScan {
    const key = typeof tool.parameters === 'object' && tool.parameters !== null ? tool.parameters : undefined;
    const contextKey = `${this.scanGeneration} ${context.key}`;
    const hit = key && this.scans.get(key);
    if (hit && hit.name === tool.name && hit.description === tool.description && hit.context === contextKey) return hit;
    const prefix = toolNamePrefix(serverName);
    const candidate = tool.name.slice(prefix.length);
    const raw = publicToolName(serverName, candidate) === tool.name ? candidate : undefined;
    const findings = scanLiveTool({ name: raw ?? candidate, description: tool.description ?? '', inputSchema: tool.parameters }, context.servers, serverName);
    const { pin, state } = liveToolScan(findings, { serverName, raw, description: tool.description, parameters: tool.parameters }, this.folder, this.acceptedTools);
    const entry: CachedScan = { name: tool.name, description: tool.description, context: contextKey, findings, state, ...(raw !== undefined ? { raw } : {}), ...(pin !== undefined ? { pin } : {}) };
    if (key) this.scans.set(key, entry);
    return entry;
  }

  private once(at: Pick<GateContext, 'log'>, line: string, level: 'info' | 'warn' = 'warn'): void {
    if (this.logged.has(line)) return;
    this.logged.add(line);
    at.log(line, level);
  }

  /**
   * Fail closed, after anything in gating threw: every tool of every gated server among
   * `servers` is kept out of `visible` and refused by the guard until the gate runs again, with
   * one log line saying why. Never throws.
   */
  failClosed(visible: readonly ToolSchema[], servers: readonly string[], at: Pick<GateContext, 'log' | 'where'>, error: unknown): ToolSchema[] {
    const out: ToolSchema[] = [];
    const blocked = new Set(this.withheld);
    for (const tool of visible) {
      let name: string;
      try {
        name = String(tool.name);
      } catch {
        continue; // a tool that cannot even be named is not offered
      }
      if (this.gatedServerOf(name, servers) === undefined && !blocked.has(name)) out.push(tool);
      else {
        blocked.add(name);
        if (!this.withheld.has(name)) this.why.set(name, `the tool gate failed (${errorText(error)})`);
      }
    }
    this.blockedNow = blocked;
    this.offeredNow = new Set();
    try {
      this.once(at, `${at.where}: the tool gate failed (${errorText(error)}): every tool of the declaration's servers is withheld in this step and refused if called`);
    } catch {
      // A failing log must not reopen what was just closed.
    }
    return out;
  }

  /**
   * The tools of `servers` (mounted serverNames) among `visible` that this session is offered
   * now; every other tool of those servers goes into {@link blocked}. Tools of other origins
   * are returned as they are. Never throws: if gating fails, it {@link failClosed fails closed}.
   */
  async offered(visible: readonly ToolSchema[], servers: readonly string[], at: GateContext): Promise<ToolSchema[]> {
    try {
      return await this.judged(visible, servers, at);
    } catch (error) {
      return this.failClosed(visible, servers, at, error);
    }
  }

  private async judged(visible: readonly ToolSchema[], servers: readonly string[], at: GateContext): Promise<ToolSchema[]> {
    const out: ToolSchema[] = [];
    const blocked = new Set(this.withheld);
    // The scan's context: every mounted declared server's tools (what one could steer of another's).
    const mounted = servers.filter((s) => this.declared.has(s));
    const byServer = mounted.map((serverName) => {
      const prefix = toolNamePrefix(serverName);
      return { serverName, tools: visible.filter((t) => t.name.startsWith(prefix)).map((t) => ({ name: t.name.slice(prefix.length) })) };
    });
    const context = { key: byServer.map((s) => `${s.serverName}:${s.tools.map((t) => t.name).join(',')}`).join(' '), servers: byServer };
    for (const tool of visible) {
      const serverName = this.gatedServerOf(tool.name, servers);
      if (serverName === undefined) {
        // A tool withheld earlier stays out even if its server left the declaration since.
        if (!this.withheld.has(tool.name)) out.push(tool);
        continue;
      }
      const carried = this.carriedOf(tool);
      if (carried.length) {
        // Before every other rule: none of them may show the name, and no question may carry the value.
        blocked.add(tool.name);
        const what = `its definition carries the value of the stored input ${carried.join(', ')}, which would go to the model with every request`;
        this.why.set(tool.name, `${what} (reason tool-carries-secret)`);
        this.once(at, `${at.where}: tool ${this.shownName(tool.name)} of server "${serverName}" withheld: ${what} (reason tool-carries-secret)`);
        continue;
      }
      const entry = this.declared.get(serverName)!;
      entry.rules ??= new ServerToolRules(serverName, entry.tools);
      const verdict = entry.rules.verdict(tool);
      if (!verdict.offer && verdict.why === 'not-allowed') {
        blocked.add(tool.name);
        this.why.set(tool.name, 'left out by dsh.tools');
        this.once(at, `${at.where}: tool ${tool.name} of server "${serverName}" is left out by dsh.tools`, 'info');
        continue;
      }
      const scan = this.scanOf(tool, serverName, context);
      const poisoned = scan.state === 'withheld';
      if (verdict.offer && !poisoned) {
        if (!this.withheld.has(tool.name)) out.push(tool);
        continue;
      }
      const definition = `${tool.name} ${entry.rules.definition(tool)}`;
      if (this.allowedDefinitions.has(definition)) {
        out.push(tool);
        continue;
      }
      blocked.add(tool.name);
      if (this.withheld.has(tool.name)) continue;
      const whats: string[] = [];
      if (!verdict.offer && verdict.why === 'changed') whats.push(`${describeChanges(verdict.changes)} since the server was probed`);
      if (!verdict.offer && verdict.why === 'new') whats.push('it is not among the tools the server listed when it was probed');
      if (poisoned) whats.push(describeFindings(scan.findings));
      const what = whats.join('; and ');
      const fix = poisoned && verdict.offer ? scanFixText(toolScanReason(scan.findings, { serverName, name: entry.name, raw: scan.raw, pin: scan.pin }, this.folder, this.probes)) : 'probe and export again to accept it';
      if (at.trustMode === 'ask' && at.ask && this.unanswered.get(definition) === at.turn) {
        this.why.set(tool.name, `${what}, and the approval was not answered this turn`);
        continue;
      }
      if (at.trustMode === 'ask' && at.ask) {
        // One line, as DSH shows it: the server's name and the tool's description with hidden characters escaped.
        const question = visibleLine(`Offer tool ${tool.name} of MCP server "${entry.name}" in this session? ${what[0].toUpperCase()}${what.slice(1)}. Description now: "${shownDescription(tool.description ?? '')}"`);
        const outcome = await at.ask(tool, question);
        if (outcome === 'allowed-once') {
          this.allowedDefinitions.add(definition);
          blocked.delete(tool.name);
          this.once(at, `${at.where}: tool ${tool.name} of server "${serverName}" offered in this session after approval (${what})`, 'info');
          out.push(tool);
          continue;
        }
        if (outcome !== 'rejected') {
          this.unanswered.set(definition, at.turn);
          this.why.set(tool.name, `${what}, and the approval was ${outcome}`);
          this.once(at, `${at.where}: tool ${tool.name} of server "${serverName}" withheld: ${what}, and the approval was ${outcome} (asked again next turn)`);
          continue;
        }
      }
      this.withheld.add(tool.name);
      this.why.set(tool.name, `${what} (${fix})`);
      if (verdict.offer) this.withheldForScan.add(tool.name);
      blocked.add(tool.name);
      this.once(at, `${at.where}: tool ${tool.name} of server "${serverName}" withheld for this session: ${what} (${fix})`);
    }
    this.blockedNow = blocked;
    this.offeredNow = new Set(out.map((t) => t.name).filter((name) => this.gatedServerOf(name, servers) !== undefined));
    return out;
  }
}
