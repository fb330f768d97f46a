/** Steering other tools: names of other servers' tools, and rules set for when a tool is used. */
import { visibleLine } from '../json/visibleText';
import { type Findings, type Place } from './findingSpans';
import { CLASSES, eachMatch } from './phraseClasses';
import type { TextHits } from './phraseMatch';
import type { ScanContext } from './scanTypes';

/** An identifier that names a tool and not a plain word: with `_`, `-` or `.`, or a lowercase-uppercase hump. */
function toolLike(name: string): boolean {
  return name.length >= 4 && (/[_.-]/.test(name) || /[a-z][A-Z]/.test(name));
}

const NOT_A_TOOL = new Set(['this', 'that', 'it', 'the', 'a', 'an', 'any', 'each', 'every', 'one', 'another', 'tool', 'tools', 'function', 'you']);

/**
 * The server's own tools, and other servers' tool names (tool -> server) a text may refer to:
 * built once per context, not for every string of a schema.
 */
const toolsOfContext = new WeakMap<ScanContext, { own: ReadonlySet<string>; others: ReadonlyMap<string, string> }>();

function contextTools(context: ScanContext): { own: ReadonlySet<string>; others: ReadonlyMap<string, string> } {
  let tools = toolsOfContext.get(context);
  if (!tools) {
    const own = new Set(context.ownTools ?? []);
    const others = new Map<string, string>();
    for (const t of context.otherTools ?? []) {
      if (t.serverName !== context.serverName && !own.has(t.tool) && toolLike(t.tool)) others.set(t.tool, t.serverName);
    }
    toolsOfContext.set(context, (tools = { own, others }));
  }
  return tools;
}

export function scanReferences(hits: TextHits, place: Place, context: ScanContext, out: Findings): void {
  const text = hits.text;
  for (const h of hits.of('mcpName')) {
    const server = h.groups?.[0] ?? '';
    if (context.serverName !== undefined && server === context.serverName) continue;
    out.add(place, text, 'other-server-tool', h.start, h.end, { tool: visibleLine(text.slice(h.start, h.end)) });
  }
  const { own, others } = contextTools(context);
  if (others.size) {
    // Every identifier of the text looked up by name (not stored: a long text has millions).
    eachMatch(CLASSES.identifier, text, (m) => {
      const name = m[0].replace(/[.-]+$/, '');
      const server = others.get(name);
      if (server !== undefined) out.add(place, text, 'other-server-tool', m.index, m.index + name.length, { tool: visibleLine(`${name} (${server})`) });
    });
  }
  for (const h of hits.of('toolHook')) {
    const name = (h.groups?.[0] ?? h.groups?.[1] ?? '').replace(/[.-]+$/, '');
    const quotedName = /[\x60'"]/.test(text.slice(h.start, h.end));
    if (!name || NOT_A_TOOL.has(name.toLowerCase()) || own.has(name) || !(toolLike(name) || quotedName)) continue;
    out.add(place, text, 'tool-hook', h.start, h.end, { tool: visibleLine(name) });
  }
}
