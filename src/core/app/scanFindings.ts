/**
 * The scan's use cases for the faces (issue 25): what a finding says, whether a live tool or a
 * loaded SKILL.md is withheld for its findings, and the headless acceptance of a probed tool. The
 * faces show what these decide.
 */
import { visibleLine } from '../json/visibleText';
import type { ProbedServerRecord } from '../node/hostStore';
import { SCAN_CODES } from '../scan/scanCodes';
import { scanTool, withholds, type ScanField, type ScanFinding, type ScannedTool } from '../scan/scan';
import { scanSkill } from '../skills/skillScan';
import { skillScanGate, type AcceptedSkill, type SkillScanGate } from '../skills/skillGate';
import { isToolAccepted, scanContextOf, scanRecords, type AcceptedTool } from '../tools/toolScan';
import type { Ports } from './ports';

/** A finding's English template (its `{arg}`s filled by the face, translated in the editor). */
export function findingTemplate(f: ScanFinding): string {
  return SCAN_CODES[f.code][1];
}

/** A finding's field in English words (the editor words them in its own language). */
const FIELD_WORDS: Record<ScanField, string> = {
  name: 'name', title: 'title', description: 'description', inputSchema: 'input schema', outputSchema: 'output schema', annotations: 'annotations', instructions: 'instructions', skill: 'SKILL.md',
};

/** What the faces show of a finding: where it is, its message, the span made visible, and what hidden characters decode to. */
export interface FindingText {
  code: ScanFinding['code'];
  severity: ScanFinding['severity'];
  /** The field (the face words it: {@link findingPlace}). */
  field: ScanField;
  /** Inside an input schema: the path to the string (`properties.q.description`, `[0]` for an item), made visible; a key is marked ` (key)`. */
  path?: string;
  /** In a SKILL.md: the line of the span's start (1-based). */
  line?: number;
  /** The message's English template and its arguments. */
  template: string;
  args: ScanFinding['args'];
  excerpt: string;
  /** What an invisible run decodes to, made visible. */
  decoded?: string;
}

export function findingText(f: ScanFinding): FindingText {
  const path = f.path?.length ? `${visibleLine(f.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('').replace(/^\./, ''))}${f.key ? ' (key)' : ''}` : undefined;
  return {
    code: f.code, severity: f.severity, field: f.field, ...(path !== undefined ? { path } : {}), ...(f.line !== undefined ? { line: f.line } : {}),
    template: findingTemplate(f), args: f.args, excerpt: f.excerpt,
    ...(f.decoded !== undefined && f.code === 'hidden-invisible-run' ? { decoded: visibleLine(f.decoded) } : {}),
  };
}

/**
 * Where a finding is: its field, then the path in an input schema or the line in a SKILL.md. In
 * English unless the face gives its words for the field and the line.
 */
export function findingPlace(text: FindingText, field = FIELD_WORDS[text.field], line = (n: number) => `line ${n}`): string {
  const at = text.path ?? (text.line !== undefined ? line(text.line) : undefined);
  return at === undefined ? field : `${field} ${at}`;
}

/** A live tool's findings, the other tools of the session's servers as the context (names another server's tool, sets rules for one). */
export function scanLiveTool(tool: ScannedTool, servers: ReadonlyArray<{ serverName: string; tools: ReadonlyArray<{ name: string }> }>, serverName: string): ScanFinding[] {
  return scanTool(tool, scanContextOf(servers, serverName));
}

/** The pin of a SKILL.md's content (what an acceptance binds to). */
export function skillContentPin(raw: string): string {
  return scanSkill(raw).pin;
}

/** Whether the scan withholds a SKILL.md's content as it is now (absent: no error-level finding). */
export function skillContentGate(file: string, raw: string, accepted: readonly AcceptedSkill[]): SkillScanGate | undefined {
  return skillScanGate({ file, scan: scanSkill(raw) }, accepted);
}

export type ToolAcceptance =
  | { outcome: 'no-probe' }
  | { outcome: 'no-tool' }
  /** The last probe recorded another definition than the one reviewed. */
  | { outcome: 'pin-changed'; pin: string }
  /** The face's question (`confirm`) was answered no: nothing recorded. */
  | { outcome: 'declined'; serverName: string; record: ProbedServerRecord; pin: string; findings: ScanFinding[] }
  | { outcome: 'accepted'; serverName: string; record: ProbedServerRecord; pin: string; findings: ScanFinding[]; withheldBefore: boolean };

/** What a face shows before it asks for consent, and asks with: true records it. */
export type ConsentQuestion<T> = (review: T) => Promise<boolean>;

/**
 * Accepts the definition of a tool the last probe of the folder recorded (the server by its name
 * in mcp.json or its DSH name), only if it still has `expectedPin` when given. The acceptance is
 * bound to that pin: any change of the tool withholds it again. `confirm`, when given, is asked
 * with the definition's review once the pin checks pass, before anything is recorded.
 */
export async function acceptProbedTool(
  ports: Pick<Ports, 'store'>, folder: string, server: string, toolName: string, expectedPin?: string,
  confirm?: ConsentQuestion<{ serverName: string; record: ProbedServerRecord; pin: string; findings: ScanFinding[] }>,
): Promise<ToolAcceptance> {
  const records = await ports.store.probedServers(folder);
  const entry = Object.entries(records).find(([serverName, r]) => serverName === server || r.name === server);
  if (!entry) return { outcome: 'no-probe' };
  const [serverName, record] = entry;
  const tool = record.tools.find((t) => t.name === toolName);
  if (!tool) return { outcome: 'no-tool' };
  const pin = tool.pin.definition;
  if (expectedPin !== undefined && expectedPin !== pin) return { outcome: 'pin-changed', pin };
  const findings = scanRecords(records).get(serverName)?.tools.get(toolName) ?? [];
  if (confirm && !(await confirm({ serverName, record, pin, findings }))) return { outcome: 'declined', serverName, record, pin, findings };
  const accepted: readonly AcceptedTool[] = (await ports.store.acceptedDefinitions()).tools;
  const already = isToolAccepted(accepted, { folder, serverName, tool: toolName }, pin);
  if (!already) await ports.store.acceptTool(folder, serverName, toolName, pin);
  return { outcome: 'accepted', serverName, record, pin, findings, withheldBefore: withholds(findings) && !already };
}
