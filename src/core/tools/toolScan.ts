/**
 * The scan (core/scan) of a folder's MCP servers as DSH would mount them together, and the rule
 * that withholds a tool: an error-level finding, unless the user accepted that exact definition
 * (its pin). Pure; the probe, the editor's view, the session plan and the DSH plugin's tool gate
 * all decide through here.
 */
import * as path from 'node:path';
import { scanInstructions, scanTool, withholds, type ScanContext, type ScanFinding } from '../scan/scan';

/** A server's tools and instructions as listed (or recorded by a probe). */
export interface ScannedServer {
  serverName: string;
  tools: ReadonlyArray<{ name: string; description: string; inputSchema: unknown; title?: unknown; outputSchema?: unknown; annotations?: unknown }>;
  instructions?: string;
}

export interface ServerScan {
  /** Each tool's findings, by raw tool name. */
  tools: Map<string, ScanFinding[]>;
  /** Findings of the server's `instructions` (DSH rc.8 does not pass them to the model: shown, never withheld). */
  instructions: ScanFinding[];
}

/** The context of one server's scan: its own tools, and every tool of the others (what it could steer). */
export function scanContextOf(servers: ReadonlyArray<{ serverName: string; tools: ReadonlyArray<{ name: string }> }>, serverName: string): ScanContext {
  return {
    serverName,
    ownTools: servers.filter((s) => s.serverName === serverName).flatMap((s) => s.tools.map((t) => t.name)),
    otherTools: servers.filter((s) => s.serverName !== serverName).flatMap((s) => s.tools.map((t) => ({ serverName: s.serverName, tool: t.name }))),
  };
}

/** Every server's scan, each with the others as its context, by serverName. Never throws. */
export function scanServers(servers: readonly ScannedServer[]): Map<string, ServerScan> {
  const out = new Map<string, ServerScan>();
  for (const server of servers) {
    const context = scanContextOf(servers, server.serverName);
    const tools = new Map<string, ScanFinding[]>();
    for (const tool of server.tools) tools.set(tool.name, scanTool(tool, context));
    out.set(server.serverName, { tools, instructions: server.instructions === undefined ? [] : scanInstructions(server.instructions, context) });
  }
  return out;
}

/** A server's last probe as the host store records it (its ProbedServerRecord), as far as the scan reads it. */
export interface RecordedServer {
  tools: ScannedServer['tools'];
  instructions?: string;
}

/** The recorded probes (serverName -> record) as the scan's input, each with its instructions. */
export function recordedServers(records: Readonly<Record<string, RecordedServer>>): ScannedServer[] {
  return Object.entries(records).map(([serverName, r]) => {
    const instructions = r.instructions;
    return instructions === undefined ? { serverName, tools: r.tools } : { serverName, tools: r.tools, instructions };
  });
}

/** The scans of frozen records objects: the host store hands out one while its file's bytes stay the same. */
const recordScans = new WeakMap<object, ReadonlyMap<string, ServerScan>>();

/**
 * Every recorded server's scan, each with the folder's other recorded servers as its context, by
 * serverName: the plan, the servers view and `tools accept` read the same records, which are
 * scanned once while they are the same (frozen) object. The result is shared: read it, never
 * change it. Never throws.
 */
export function scanRecords(records: Readonly<Record<string, RecordedServer>>): ReadonlyMap<string, ServerScan> {
  const kept = recordScans.get(records);
  if (kept) return kept;
  const scans = scanServers(recordedServers(records));
  if (Object.isFrozen(records)) recordScans.set(records, scans);
  return scans;
}

/** One accepted tool definition (the host store's record). */
export interface AcceptedTool {
  folder: string;
  serverName: string;
  tool: string;
  pin: string;
}

/**
 * - `clean`: no finding; `flagged`: findings, none of them an error (shown, offered);
 * - `withheld`: an error, and the user has not accepted this definition;
 * - `accepted`: an error, and the user accepted this exact definition (its pin).
 */
export type ToolScanState = 'clean' | 'flagged' | 'withheld' | 'accepted';

/**
 * Whether `accepted` holds this tool's definition pin. Folders are compared resolved: the host
 * store records `path.resolve(folder)`, a caller may pass it relative or with a trailing slash.
 */
export function isToolAccepted(accepted: readonly AcceptedTool[], tool: Omit<AcceptedTool, 'pin'>, definitionPin: string): boolean {
  const folder = path.resolve(tool.folder);
  return accepted.some((a) => a.serverName === tool.serverName && a.tool === tool.tool && a.pin === definitionPin && path.resolve(a.folder) === folder);
}

export function toolScanState(findings: readonly ScanFinding[], accepted: boolean): ToolScanState {
  if (findings.length === 0) return 'clean';
  if (!withholds(findings)) return 'flagged';
  return accepted ? 'accepted' : 'withheld';
}
