/**
 * Which tools of the mounted MCP servers a session is offered: the declaration's tool choice
 * (`dsh.tools`) and its tool pins (from the last probe). rc.8 has no filter for what
 * dsh-mcp-client registers, so the gate works where the model meets the tools: tools it does
 * not offer are taken out of every request the session assembles, and a `tools.guard` denies a
 * call to one of them (a model that names a tool it was not shown gets an error, not the tool).
 *
 * - A disallowed tool (not in `only`, or in `exclude`) is never offered.
 * - A server without pins (never probed) is offered every allowed tool, as before pins existed.
 * - With pins: an allowed tool whose definition equals its pin is offered; a changed or new one is
 *   withheld for the rest of the session, with one log line naming the tool and what changed.
 *   In `ask` mode DSH's approval asks (once per tool and definition) showing the change; allowed
 *   once, that definition is offered in this session.
 */
import type { DeclaredTools } from '../core/declaration/declarationModel';
import { canonicalHash } from '../core/json/canonicalJson';
import { publicToolName } from '../core/mcp/toolNames';
import { toolAllowed } from '../core/tools/toolChoice';
import { compareToolWithPin, type ToolChange } from '../core/tools/toolDefinitions';
import type { ToolSchema } from './types';

/** What the gate says of one live tool. */
export type ToolGateVerdict =
  | { offer: true }
  | { offer: false; why: 'not-allowed' }
  | { offer: false; why: 'changed'; raw: string; changes: ToolChange[] }
  | { offer: false; why: 'new' };

/** The raw tool name behind a public name of this server, among the names the declaration knows. */
function rawNames(serverName: string, tools: DeclaredTools): Map<string, string> {
  const names = new Set<string>([...Object.keys(tools.pins ?? {}), ...(tools.choice?.only ?? []), ...(tools.choice?.exclude ?? [])]);
  const byPublic = new Map<string, string>();
  for (const raw of names) byPublic.set(publicToolName(serverName, raw), raw);
  return byPublic;
}

function hashOf(value: unknown): string | undefined {
  try {
    return canonicalHash(value);
  } catch {
    return undefined; // not representable as canonical JSON: never equal to a pin
  }
}

/**
 * The verdict on one registered tool (`tool.name` is its public name) of server `serverName`,
 * whose declared tools are `tools` (undefined: no choice, never probed: offered).
 */
export function gateTool(serverName: string, tools: DeclaredTools | undefined, tool: ToolSchema): ToolGateVerdict {
  if (!tools) return { offer: true };
  const raw = rawNames(serverName, tools).get(tool.name);
  if (tools.choice) {
    // A tool the declaration does not know by name is outside an allow-list, and in no exclude list.
    const allowed = raw === undefined ? tools.choice.only === undefined : toolAllowed(tools.choice, raw);
    if (!allowed) return { offer: false, why: 'not-allowed' };
  }
  if (!tools.pins) return { offer: true };
  if (raw === undefined) return { offer: false, why: 'new' };
  // dsh-mcp-client registers `description ?? ""` and the server's input schema as `parameters`:
  // compared by the same rule the probe records its pins with.
  const verdict = compareToolWithPin({ name: raw, description: tool.description ?? '', inputSchema: tool.parameters }, tools.pins);
  if (verdict.state === 'unchanged') return { offer: true };
  return verdict.state === 'new' ? { offer: false, why: 'new' } : { offer: false, why: 'changed', raw, changes: verdict.changes };
}

/** The canonical hash of a live tool's definition as the gate sees it (the key of an answer given for it). */
export function liveDefinition(tool: ToolSchema): string {
  return hashOf({ name: tool.name, description: tool.description ?? '', parameters: tool.parameters ?? null }) ?? `unhashable:${tool.name}`;
}

/** "its description changed" / "its input schema changed" / "both its description and input schema changed". */
export function describeChanges(changes: readonly ToolChange[]): string {
  if (changes.length === 2) return 'its description and its input schema changed';
  return changes[0] === 'description' ? 'its description changed' : 'its input schema changed';
}

/** A tool's description for an approval question: one line, bounded. */
export function shownDescription(description: string, max = 400): string {
  const line = description.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export type ToolApproval = 'allowed-once' | 'rejected' | 'cancelled' | 'unavailable';

export interface GateContext {
  /** `ask`: a changed or new tool is asked about; `pinned`: it is withheld without asking. */
  trust: 'ask' | 'pinned';
  /** The session's turn marker (a cancelled or unanswered question is asked again next turn). */
  turn: string;
  /** DSH's approval for one tool (undefined: no approval service). */
  ask?: (tool: ToolSchema, question: string) => Promise<ToolApproval>;
  log: (line: string, level?: 'info' | 'warn') => void;
  /** Prefix of log lines (`dsh-bridge: <cwd>`). */
  where: string;
}

/** One session's tool gate: what its mounted servers' tools may reach the model. */
export class SessionToolGate {
  /** serverName -> the declaration's `tools` of the mounted entry (undefined: no choice, never probed). */
  readonly declared = new Map<string, { name: string; tools?: DeclaredTools }>();
  /** Public names kept out of this session's requests and calls right now. */
  readonly blocked = new Set<string>();
  /** Public names withheld for the rest of the session (changed or new, not allowed by the user). */
  private readonly withheld = new Set<string>();
  /** `publicName definition` allowed once by the user in this session. */
  private readonly allowedDefinitions = new Set<string>();
  /** `publicName definition` -> turn where the question got no answer. */
  private readonly unanswered = new Map<string, string>();
  private readonly logged = new Set<string>();

  private once(at: GateContext, line: string, level: 'info' | 'warn' = 'warn'): void {
    if (this.logged.has(line)) return;
    this.logged.add(line);
    at.log(line, level);
  }

  /**
   * The tools of `servers` (mounted serverNames) among `visible` that this session is offered
   * now; every other tool of those servers goes into {@link blocked}. Tools of other origins
   * are returned as they are.
   */
  async offered(visible: readonly ToolSchema[], servers: readonly string[], at: GateContext): Promise<ToolSchema[]> {
    const out: ToolSchema[] = [];
    this.blocked.clear();
    for (const name of this.withheld) this.blocked.add(name);
    for (const tool of visible) {
      const serverName = servers.find((s) => tool.name.startsWith(`mcp__${s}__`));
      if (serverName === undefined) {
        out.push(tool);
        continue;
      }
      const entry = this.declared.get(serverName);
      const verdict = gateTool(serverName, entry?.tools, tool);
      if (verdict.offer) {
        if (!this.withheld.has(tool.name)) out.push(tool);
        continue;
      }
      if (verdict.why === 'not-allowed') {
        this.blocked.add(tool.name);
        this.once(at, `${at.where}: tool ${tool.name} of server "${serverName}" is left out by dsh.tools`, 'info');
        continue;
      }
      const definition = `${tool.name} ${liveDefinition(tool)}`;
      if (this.allowedDefinitions.has(definition)) {
        out.push(tool);
        continue;
      }
      this.blocked.add(tool.name);
      if (this.withheld.has(tool.name)) continue;
      const what = verdict.why === 'changed'
        ? `${describeChanges(verdict.changes)} since the server was probed`
        : 'it is not among the tools the server listed when it was probed';
      if (at.trust === 'ask' && at.ask && this.unanswered.get(definition) === at.turn) continue;
      if (at.trust === 'ask' && at.ask) {
        const question = `Offer tool ${tool.name} of MCP server "${entry?.name ?? serverName}" in this session? ${what[0].toUpperCase()}${what.slice(1)}. Description now: "${shownDescription(tool.description ?? '')}"`;
        const outcome = await at.ask(tool, question);
        if (outcome === 'allowed-once') {
          this.allowedDefinitions.add(definition);
          this.blocked.delete(tool.name);
          this.once(at, `${at.where}: tool ${tool.name} of server "${serverName}" offered in this session after approval (${what})`, 'info');
          out.push(tool);
          continue;
        }
        if (outcome !== 'rejected') {
          this.unanswered.set(definition, at.turn);
          this.once(at, `${at.where}: tool ${tool.name} of server "${serverName}" withheld: ${what}, and the approval was ${outcome} (asked again next turn)`);
          continue;
        }
      }
      this.withheld.add(tool.name);
      this.once(at, `${at.where}: tool ${tool.name} of server "${serverName}" withheld for this session: ${what} (probe and export again to accept it)`);
    }
    return out;
  }
}
