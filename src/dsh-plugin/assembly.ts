import { serverOfTool } from '../core/mcp/toolNames';
import type { PromptAssembly, ToolSchema } from './types';

/** DSH's reserved `toolOrder` entry marking where unlisted tools go (dsh-system-prompt). */
const TOOL_ORDER_REST = '<unlisted-tools>';

/** Code-unit comparison, as dsh-system-prompt orders unlisted tools (locale-independent). */
function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The position key DSH's own ordering gives a tool name: its index in `toolOrder` (unlisted
 * names share the rest entry's index, then sort by name); without `toolOrder`, by name only.
 */
function rankOf(name: string, toolOrder: readonly string[] | undefined): [number, string] {
  if (!toolOrder) return [0, name];
  const listed = toolOrder.indexOf(name);
  if (listed >= 0 && name !== TOOL_ORDER_REST) return [listed, ''];
  const rest = toolOrder.indexOf(TOOL_ORDER_REST);
  return [rest >= 0 ? rest : toolOrder.length, name];
}

function before(a: [number, string], b: [number, string]): boolean {
  return a[0] < b[0] || (a[0] === b[0] && compareNames(a[1], b[1]) < 0);
}

/**
 * Merges tools registered during the assembly waterfall into the snapshot it carries.
 * rc.8 builds the snapshot (and applies `toolOrder`) before the waterfall runs, so a tool
 * mounted inside it is missing. Each added tool is inserted before the first existing tool
 * DSH's ordering would put after it; when the snapshot is in DSH's order (the normal case)
 * the result is exactly the order DSH would have produced had the tool existed earlier, and
 * it never reorders the tools already there. Tools already present (by name) are skipped.
 * Returns the names actually added.
 */
export function mergeTools(assembly: PromptAssembly, added: readonly ToolSchema[], toolOrder?: readonly string[]): string[] {
  const present = new Set(assembly.tools.map((t) => t.name));
  const fresh = added.filter((t) => !present.has(t.name)).sort((a, b) => compareNames(a.name, b.name));
  if (fresh.length === 0) return [];
  // In place when possible: a later listener or the caller may hold the same array.
  const tools = Object.isFrozen(assembly.tools) ? assembly.tools.slice() : assembly.tools;
  for (const tool of fresh) {
    const rank = rankOf(tool.name, toolOrder);
    let at = tools.findIndex((existing) => before(rank, rankOf(existing.name, toolOrder)));
    if (at < 0) at = tools.length;
    tools.splice(at, 0, {
      name: tool.name,
      description: tool.description,
      parameters: structuredClone(tool.parameters),
    });
    present.add(tool.name);
  }
  if (tools !== assembly.tools) assembly.tools = tools;
  return fresh.map((t) => t.name);
}

/**
 * Removes from the snapshot the tools of servers stopped during this assembly
 * (`mcp__<serverName>__...`), unless the tool is still visible (registered by someone else).
 */
export function dropTools(assembly: PromptAssembly, serverNames: ReadonlySet<string>, stillVisible: ReadonlySet<string>): string[] {
  const removed: string[] = [];
  for (let i = assembly.tools.length - 1; i >= 0; i--) {
    const name = assembly.tools[i].name;
    if (stillVisible.has(name) || serverOfTool(name, serverNames) === undefined) continue;
    removed.push(name);
    if (Object.isFrozen(assembly.tools)) assembly.tools = assembly.tools.filter((_, j) => j !== i);
    else assembly.tools.splice(i, 1);
  }
  return removed.reverse();
}
