/**
 * MCP tool definitions as DSH sees them, and their pins. Pure.
 *
 * A tool's pin is what a probe recorded and the declaration signs: RFC 8785 canonical JSON
 * hashes (the rules of the server pins) of the tool's definition `{name, description,
 * inputSchema}` and, apart, of its description and its input schema, so that whoever compares
 * a live tool with its pin can say what changed. `description` is the tool's description or ""
 * when it has none, and `inputSchema` is the schema as the server sent it: exactly what
 * `@deepseek-ai/dsh-mcp-client` registers as the DSH tool's `description` and `parameters`.
 */
import { canonicalHash } from '../json/canonicalJson';
import { publicToolName } from '../mcp/toolNames';
import type { ToolPin } from '../declaration/toolsModel';

/** One tool as a server lists it (`tools/list`), reduced to what DSH passes to the model. */
export interface ToolDefinition {
  /** The server's own (raw) tool name. */
  name: string;
  /** "" when the server gave none. */
  description: string;
  inputSchema: unknown;
  /**
   * Fields DSH does not send the model (rc.8) but the editor shows or other hosts send: kept for
   * the scan, never in the pin (the pin is what DSH compares at runtime, where they are absent).
   */
  title?: string;
  icons?: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
}

export function toolPin(tool: ToolDefinition): ToolPin {
  return {
    definition: canonicalHash({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema ?? null }),
    description: canonicalHash(tool.description),
    inputSchema: canonicalHash(tool.inputSchema ?? null),
  };
}

/** What differs between a live tool and its pin. */
export type ToolChange = 'description' | 'schema';

/**
 * A live tool against the pins recorded for its server: `unchanged`, `changed` (with what
 * changed), or `new` (no pin under its name). Never throws; a schema that is not representable
 * as canonical JSON (a lone surrogate) counts as changed.
 */
export type ToolPinVerdict = { state: 'unchanged' } | { state: 'changed'; changes: ToolChange[] } | { state: 'new' };

export function compareToolWithPin(tool: ToolDefinition, pins: Readonly<Record<string, ToolPin>>): ToolPinVerdict {
  if (!Object.hasOwn(pins, tool.name)) return { state: 'new' };
  let live: ToolPin;
  try {
    live = toolPin(tool);
  } catch {
    return { state: 'changed', changes: ['schema'] };
  }
  return comparePins(tool.name, live, pins);
}

/** A tool's pin (of its real definition, as a probe recorded it) against the pins recorded for its server. */
function comparePins(name: string, live: ToolPin, pins: Readonly<Record<string, ToolPin>>): ToolPinVerdict {
  if (!Object.hasOwn(pins, name)) return { state: 'new' };
  const pinned = pins[name];
  if (live.definition === pinned.definition) return { state: 'unchanged' };
  const changes: ToolChange[] = [];
  if (live.description !== pinned.description) changes.push('description');
  if (live.inputSchema !== pinned.inputSchema) changes.push('schema');
  // Equal parts with a different whole can only mean a forged or hand-edited pin.
  return { state: 'changed', changes: changes.length ? changes : ['description', 'schema'] };
}

/**
 * An estimate of the tokens one tool adds to every model request: its function definition
 * (public name, description, parameters) as JSON, at ~4 characters per token, the usual rule of
 * thumb for English text and JSON with BPE tokenizers. An estimate for comparing tools, not a
 * count: DeepSeek's tokenizer is not run here.
 */
export function estimateToolTokens(publicName: string, tool: Pick<ToolDefinition, 'description' | 'inputSchema'>): number {
  let text: string;
  try {
    text = JSON.stringify({ name: publicName, description: tool.description, parameters: tool.inputSchema ?? {} }) ?? '';
  } catch {
    text = `${publicName}${tool.description}`;
  }
  return Math.ceil(text.length / 4);
}

/** A public tool name given to more than one (serverName, tool) pair: DSH drops the later server's whole tool set. */
export interface ToolNameCollision {
  publicName: string;
  tools: Array<{ serverName: string; tool: string }>;
}

/**
 * The public names DSH gives the tools of several servers of one session, and the names that
 * collide (the contract's algorithm is not injective: `a__b`+`c` and `a`+`b__c`).
 */
export function toolNameCollisions(servers: ReadonlyArray<{ serverName: string; tools: readonly string[] }>): ToolNameCollision[] {
  const byName = new Map<string, Array<{ serverName: string; tool: string }>>();
  for (const server of servers) {
    for (const tool of server.tools) {
      const name = publicToolName(server.serverName, tool);
      const list = byName.get(name) ?? [];
      list.push({ serverName: server.serverName, tool });
      byName.set(name, list);
    }
  }
  return [...byName].filter(([, tools]) => tools.length > 1).map(([publicName, tools]) => ({ publicName, tools }));
}

/** A server's live tools against its pins: each tool's verdict, and the pinned tools it no longer offers. */
export interface ToolDrift {
  verdicts: Array<{ tool: string; verdict: ToolPinVerdict }>;
  /** Pinned tools missing from the live list (they cannot be offered; not a risk, but a change). */
  removed: string[];
  /** True when any tool is changed, new or removed. */
  drifted: boolean;
}

/**
 * Probed tools (each with the pin of its real definition: a recorded probe keeps its texts masked,
 * so its pin, not its texts, says what it was) against the pins the declaration signs.
 */
export function toolDrift(tools: ReadonlyArray<{ name: string; pin: ToolPin }>, pins: Readonly<Record<string, ToolPin>>): ToolDrift {
  const verdicts = tools.map((tool) => ({ tool: tool.name, verdict: comparePins(tool.name, tool.pin, pins) }));
  const live = new Set(tools.map((t) => t.name));
  const removed = Object.keys(pins).filter((name) => !live.has(name)).sort();
  return { verdicts, removed, drifted: removed.length > 0 || verdicts.some((v) => v.verdict.state !== 'unchanged') };
}
