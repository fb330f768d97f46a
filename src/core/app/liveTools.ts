/**
 * What a session gets of one live tool of a mounted MCP server (the DSH plugin's tool gate shows
 * it; the plan decides the same of the recorded tools): the declaration's tool choice and pins
 * against the definition the server registered, the scan's state of that definition with the
 * user's acceptances, and the key an answer given for it is kept under. Never throws.
 */
import { canonicalHash } from '../json/canonicalJson';
import type { DeclaredTools } from '../declaration/declarationModel';
import { toolAllowed, type ToolChoice } from '../declaration/toolsModel';
import { compareToolWithPin, toolPin, type ToolChange } from '../tools/toolDefinitions';
import { isToolAccepted, toolScanState, type AcceptedTool, type ToolScanState } from '../tools/toolScan';
import type { ScanFinding } from '../scan/scan';
import type { ProbedServerRecord } from '../node/hostStore';
import { planFix, reason, scanErrorCodes, type PlanReason } from './planReasons';
import type { TemplateLookup } from '../declaration/template';
import { carriedInputs, storedInputsOf, type StoredInput } from '../tools/carriedInputs';
import { secretMask } from '../tools/maskSecrets';

/** A tool as DSH registers it: `description ?? ""` and the server's input schema as `parameters`. */
export interface LiveTool {
  description?: string;
  parameters?: unknown;
}

export type LiveToolVerdict =
  | { offer: true }
  | { offer: false; why: 'not-allowed' }
  | { offer: false; why: 'changed'; raw: string; changes: ToolChange[] }
  | { offer: false; why: 'new' };

/** Whether a choice lets a tool in; `raw` undefined: a tool the declaration does not know by name (outside an allow-list, in no exclude list). */
export function choiceAllows(choice: ToolChoice | undefined, raw: string | undefined): boolean {
  if (!choice) return true;
  return raw === undefined ? choice.only === undefined : toolAllowed(choice, raw);
}

/**
 * The declaration's verdict on a live tool (`raw`: its raw name when the declaration knows it):
 * left out by the choice, offered (no pins, or its definition equals its pin), or `new`/`changed`
 * against the pins, compared by the rule the probe records pins with.
 */
export function liveToolVerdict(tools: DeclaredTools | undefined, raw: string | undefined, tool: LiveTool): LiveToolVerdict {
  if (!tools) return { offer: true };
  if (!choiceAllows(tools.choice, raw)) return { offer: false, why: 'not-allowed' };
  if (!tools.pins) return { offer: true };
  if (raw === undefined) return { offer: false, why: 'new' };
  const verdict = compareToolWithPin({ name: raw, description: tool.description ?? '', inputSchema: tool.parameters }, tools.pins);
  if (verdict.state === 'unchanged') return { offer: true };
  return verdict.state === 'new' ? { offer: false, why: 'new' } : { offer: false, why: 'changed', raw, changes: verdict.changes };
}

/** The canonical hash of a live tool's definition as the gate sees it (`name` its public name): the key of an answer given for it. */
export function liveToolDefinition(name: string, tool: LiveTool): string {
  try {
    return canonicalHash({ name, description: tool.description ?? '', parameters: tool.parameters ?? null });
  } catch {
    return `unhashable:${name}`; // not representable as canonical JSON: never equal to a pin
  }
}

export interface LiveToolScan {
  /** Its definition pin as the probe computes it (absent: the raw name is unknown, or the definition is not canonical JSON; no acceptance can match it). */
  pin?: string;
  state: ToolScanState;
}

/** The scan's state of a live definition (its `findings`), with whether the user accepted that definition's pin in `folder`. */
export function liveToolScan(findings: readonly ScanFinding[], tool: LiveTool & { serverName: string; raw: string | undefined }, folder: string, accepted: readonly AcceptedTool[]): LiveToolScan {
  let pin: string | undefined;
  try {
    pin = tool.raw === undefined ? undefined : toolPin({ name: tool.raw, description: tool.description ?? '', inputSchema: tool.parameters }).definition;
  } catch {
    pin = undefined;
  }
  const isAccepted = pin !== undefined && tool.raw !== undefined && isToolAccepted(accepted, { folder, serverName: tool.serverName, tool: tool.raw }, pin);
  return { ...(pin !== undefined ? { pin } : {}), state: toolScanState(findings, isAccepted) };
}

/**
 * Why the scan withholds a tool the declaration otherwise offers, with its fix: accepting the
 * definition when the folder's last probe (`records`, by serverName) recorded it at `pin`, since
 * `tools accept` accepts the recorded definition; else probing the server (and exporting again),
 * as the plan says of a server never probed, after which it can be accepted. `name`: the
 * server's name in the source; `raw`, `pin`: the tool's raw name and definition pin when known.
 */
export function toolScanReason(findings: readonly ScanFinding[], tool: { serverName: string; name: string; raw?: string; pin?: string }, folder: string, records: Readonly<Record<string, ProbedServerRecord>>): PlanReason {
  const args = { codes: scanErrorCodes(findings) };
  const probe = Object.hasOwn(records, tool.serverName) ? records[tool.serverName] : undefined;
  const recorded = tool.raw !== undefined && tool.pin !== undefined && probe?.tools.some((t) => t.name === tool.raw && t.pin.definition === tool.pin);
  return recorded
    ? reason('tool-hidden-instructions', args, planFix('tools-accept', { name: tool.serverName, tool: tool.raw!, pin: tool.pin!, workspace: folder }))
    : reason('tool-hidden-instructions', args, planFix('probe', { name: tool.name, workspace: folder }));
}

/** What no live tool definition may carry: the stored inputs (id, value) the declared servers use. */
export function liveStoredInputs(servers: ReadonlyArray<{ inputRefs?: readonly string[] }>, lookup: Pick<TemplateLookup, 'input'>): StoredInput[] {
  return storedInputsOf(servers, lookup);
}

/** The ids of the stored inputs a live tool's definition carries (its public name included): withheld as `tool-carries-secret` when any. */
export function liveToolCarries(tool: LiveTool & { name: string }, inputs: readonly StoredInput[]): string[] {
  return carriedInputs({ name: tool.name, description: tool.description, schema: tool.parameters }, inputs);
}

/** How a tool name is shown where a stored value could be in it (logs, the session record): each value masked. */
export function liveNameMask(inputs: readonly StoredInput[]): (name: string) => string {
  const mask = secretMask(inputs.map(([, value]) => value));
  return (name) => mask.text(name);
}
