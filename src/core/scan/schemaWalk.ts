/** One string scanned by every rule, and an input schema walked key by key and string by string. */
import { pathOf, type Findings, type Place, type SchemaNode } from './findingSpans';
import { scanHidden } from './hiddenCharacters';
import { TextHits } from './phraseMatch';
import { scanPhrases } from './phraseRules';
import { MAX_SCHEMA_VALUES, SCAN_BOUNDS } from './scanBounds';
import type { ScanContext } from './scanTypes';
import { scanReferences } from './toolReferences';

/** A string that holds no whitespace and no hidden character: only single-token rules can hold. */
export const PLAIN_TOKEN = /^[\w.\/~$%:\\-]*$/;

export function scanString(text: string, place: Place, context: ScanContext, out: Findings): void {
  if (text.length === 0) return;
  // A plain token (a key, a tool name, a file, a home path) holds no hidden character.
  if (!PLAIN_TOKEN.test(text)) scanHidden(text, place, out);
  const hits = new TextHits(text);
  if (place.target !== 'skill') scanReferences(hits, place, context, out);
  scanPhrases(hits, place, out);
}

export function sizeFinding(out: Findings, place: Place, text: string, size: number, bounds: { large: number; oversized?: number }): void {
  if (bounds.oversized !== undefined && size > bounds.oversized) out.add(place, text, 'oversized-definition', 0, text.length, { size, limit: bounds.oversized });
  else if (size > bounds.large) out.add(place, text, 'large-definition', 0, text.length, { size, limit: bounds.large });
}

/**
 * Every key and string of an input schema, iteratively (any depth), in document order; its size
 * (characters of keys and strings) and depth against {@link SCAN_BOUNDS}.
 */
export function scanSchema(schema: unknown, context: ScanContext, out: Findings): void {
  const stack: SchemaNode[] = [{ value: schema, depth: 0 }];
  let size = 0;
  let depth = 0;
  let values = 0;
  const place = (node: SchemaNode, key?: true): Place => ({ field: 'inputSchema', target: 'tool', node, ...(key ? { key } : {}) });
  while (stack.length) {
    const node = stack.pop()!;
    if (++values > MAX_SCHEMA_VALUES) {
      out.add({ field: 'inputSchema', target: 'tool' }, '', 'unscannable', 0, 0, { reason: `more than ${MAX_SCHEMA_VALUES} values` });
      break;
    }
    const { value } = node;
    if (typeof value === 'string') {
      size += value.length;
      if (value.length) scanString(value, place(node), context, out);
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    depth = Math.max(depth, node.depth);
    if (node.depth > SCAN_BOUNDS.inputSchema.depth) continue; // said once below; deeper levels are not read
    const children: SchemaNode[] = [];
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) children.push({ value: value[i], parent: node, key: i, depth: node.depth + 1 });
    } else {
      for (const key of Object.keys(value)) {
        size += key.length;
        const child: SchemaNode = { value: (value as Record<string, unknown>)[key], parent: node, key, depth: node.depth + 1 };
        scanString(key, place(child, true), context, out);
        children.push(child);
      }
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  const whole: Place = { field: 'inputSchema', target: 'tool' };
  if (depth > SCAN_BOUNDS.inputSchema.depth) out.add(whole, '', 'deep-schema', 0, 0, { depth: `${depth}+`, limit: SCAN_BOUNDS.inputSchema.depth });
  sizeFinding(out, whole, '', size, SCAN_BOUNDS.inputSchema);
}
