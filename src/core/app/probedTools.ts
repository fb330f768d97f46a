/**
 * The probed tools of a folder's servers, as the editor's servers view and its probe diagnostics
 * show them: each server's tools from its last recorded probe, with DSH's public name, the token
 * estimate, whether `dsh.tools` allows it, collisions, and drift against the tool pins the
 * declaration signs. Pure.
 */
import { publicToolName } from '../mcp/toolNames';
import { choiceFor, type ToolChoiceAnalysis } from '../tools/toolChoice';
import { toolAllowed, type ToolPin } from '../declaration/toolsModel';
import { estimateToolTokens, toolDrift, toolNameCollisions, type ToolChange } from '../tools/toolDefinitions';
import { isToolAccepted, scanRecords, toolScanState, type AcceptedTool, type ToolScanState } from '../tools/toolScan';
import type { ScanFinding } from '../scan/scan';

export interface RecordedTools {
  /** The launch pin the probe ran. */
  pin: string;
  probedAt: string;
  tools: ReadonlyArray<{ name: string; description: string; inputSchema: unknown; pin: ToolPin; carriesInputs?: string[] }>;
  instructions?: string;
}

export interface ToolRow {
  name: string;
  publicName: string;
  description: string;
  tokens: number;
  allowed: boolean;
  /** Another tool of the folder's probed servers gets the same public name. */
  collision: boolean;
  /** Against the declaration's pins: `changed` (what) or `new`; undefined when it matches or nothing is pinned. */
  drift?: { state: 'changed'; changes: ToolChange[] } | { state: 'new' };
  /** The scan for hidden instructions (core/scan) of the recorded definition, and what DSH does with the tool for it. */
  findings: ScanFinding[];
  scan: ToolScanState;
  /** The pin of its definition (an acceptance binds to it). */
  pin: string;
  /** The stored inputs whose value its definition carries (ids): DSH withholds it (tool-carries-secret). */
  carriesInputs?: string[];
}

export interface ServerTools {
  probedAt: string;
  /** False: the probe ran an earlier launch of the entry (probe again). */
  current: boolean;
  tools: ToolRow[];
  /** Tokens of the allowed tools, added to every request. */
  allowedTokens: number;
  /** Pinned tools the probe no longer saw. */
  removed: string[];
}

export interface ToolFacts {
  /** The folder's exportable servers. */
  servers: ReadonlyArray<{ name: string; serverName: string; pin: string }>;
  /** Recorded probes by serverName (the host store). */
  records: Readonly<Record<string, RecordedTools>>;
  choices: ToolChoiceAnalysis;
  /** The declaration's servers: their launch pin and tool pins (absent: never probed at export). */
  declared: ReadonlyArray<{ serverName: string; pin: string; toolPins?: Readonly<Record<string, ToolPin>> }>;
  /** The folder (absolute): an acceptance is of one folder. */
  folder: string;
  /** The tool definitions accepted despite a scan's error (host store). */
  accepted: readonly AcceptedTool[];
}

/** Each server's tools by source name; servers never probed are absent. */
export function serverTools(facts: ToolFacts): Map<string, ServerTools> {
  const out = new Map<string, ServerTools>();
  const probed = facts.servers.filter((s) => Object.hasOwn(facts.records, s.serverName));
  const colliding = new Set(toolNameCollisions(probed
    .filter((s) => facts.records[s.serverName].pin === s.pin)
    .map((s) => ({ serverName: s.serverName, tools: facts.records[s.serverName].tools.map((t) => t.name) }))).map((c) => c.publicName));
  // Each recorded server scanned with the folder's others as context, as the probe scanned them.
  const scans = scanRecords(facts.records);
  for (const s of probed) {
    const record = facts.records[s.serverName];
    const scan = scans.get(s.serverName);
    const current = record.pin === s.pin;
    const choice = choiceFor(facts.choices, s.name);
    const declared = facts.declared.find((d) => d.serverName === s.serverName && d.pin === s.pin);
    const drift = current && declared?.toolPins ? toolDrift(record.tools, declared.toolPins) : undefined;
    const tools: ToolRow[] = record.tools.map((t) => {
      const publicName = publicToolName(s.serverName, t.name);
      const verdict = drift?.verdicts.find((v) => v.tool === t.name)?.verdict;
      const findings = scan?.tools.get(t.name) ?? [];
      const accepted = isToolAccepted(facts.accepted, { folder: facts.folder, serverName: s.serverName, tool: t.name }, t.pin.definition);
      return {
        findings, scan: toolScanState(findings, accepted), pin: t.pin.definition,
        name: t.name, publicName, description: t.description,
        tokens: estimateToolTokens(publicName, t),
        allowed: toolAllowed(choice, t.name),
        collision: current && colliding.has(publicName),
        ...(verdict && verdict.state !== 'unchanged' ? { drift: verdict } : {}),
        ...(t.carriesInputs?.length ? { carriesInputs: t.carriesInputs } : {}),
      };
    });
    out.set(s.name, {
      probedAt: record.probedAt, current, tools,
      // A tool that carries a stored value is withheld: it adds nothing to a request.
      allowedTokens: tools.filter((t) => t.allowed && !t.carriesInputs).reduce((n, t) => n + t.tokens, 0),
      removed: drift?.removed ?? [],
    });
  }
  return out;
}

/** Whether the folder's tool choice (`choices`, every layer narrowing) lets DSH offer a tool of a server (by source name). */
export function toolOffered(choices: ToolChoiceAnalysis, server: string, tool: string): boolean {
  return toolAllowed(choiceFor(choices, server), tool);
}
