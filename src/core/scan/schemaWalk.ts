/** One string scanned by every rule, and an input schema walked key by key and string by string. */
import { visibleLine } from '../json/visibleText';
import { MovedFindings, pathOf, type FindingSink, type Findings, type Place, type SchemaNode } from './findingSpans';
import { judgedText } from './judgedText';
import { scanHidden } from './hiddenCharacters';
import { TextHits } from './phraseMatch';
import { scanPhrases } from './phraseRules';
import { MAX_HITS, MAX_SCHEMA_VALUES, SCAN_BOUNDS } from './scanBounds';
import { NOT_SENT_TO_MODEL, type ScanContext, type ScanField } from './scanTypes';
import { scanReferences } from './toolReferences';

/** A string that holds no whitespace and no hidden character: only single-token rules can hold. */
export const PLAIN_TOKEN = /^[\w.\/~$%:\\-]*$/;

export function scanString(text: string, place: Place, context: ScanContext, out: Findings): void {
  if (text.length === 0) return;
  // A plain token (a key, a tool name, a file, a home path) holds no hidden character.
  if (PLAIN_TOKEN.test(text)) return judge(text, place, context, out);
  for (const message of scanHidden(text, place, out)) {
    // What hidden characters say is judged like any text; its findings cover the hidden span.
    judge(message.text, place, context, new MovedFindings(out, text, () => message.start, () => message.end));
  }
  const judged = judgedText(text);
  if (!judged) return judge(text, place, context, out);
  for (const word of judged.lookalikes) {
    const reads = visibleLine(word.reads); // shown text: escaped like every argument
    out.add(place, text, 'lookalike-characters', word.start, word.end, { reads }, reads);
  }
  // The rules read the text as the model does; what they find is shown on the original.
  judge(judged.text, place, context, new MovedFindings(out, text, (i) => judged.starts[i], (i) => judged.ends[i]));
}

/** The phrase rules and the names of other tools, on text as it reads. */
export function judge(text: string, place: Place, context: ScanContext, out: FindingSink): void {
  const hits = new TextHits(text);
  if (place.target !== 'skill') scanReferences(hits, place, context, out);
  // A key reads as words to the model: "ignore_previous_instructions" (same length: offsets hold).
  const phraseHits = place.key && /[_-]/.test(text) ? new TextHits(text.replace(/[_-]/g, ' ')) : hits;
  scanPhrases(phraseHits, place, out);
  if (phraseHits !== hits && phraseHits.capped) hits.capped ??= phraseHits.capped;
  // A cap ends in a finding, never in silence: what lies past it was not read.
  if (hits.capped) out.add(place, text, 'unscannable', 0, text.length, { reason: `too large to scan fully: more than ${MAX_HITS} matches of one keyword class` });
}

export function sizeFinding(out: Findings, place: Place, text: string, size: number, bounds: { large: number; oversized?: number }): void {
  if (bounds.oversized !== undefined && size > bounds.oversized) out.add(place, text, 'oversized-definition', 0, text.length, { size, limit: bounds.oversized });
  else if (size > bounds.large) out.add(place, text, 'large-definition', 0, text.length, { size, limit: bounds.large });
}

/**
 * Every key and string of an input schema, iteratively (any depth), in document order; its size
 * (characters of keys and strings) and depth against {@link SCAN_BOUNDS}.
 */
export function scanSchema(schema: unknown, context: ScanContext, out: Findings, field: ScanField = 'inputSchema'): void {
  const stack: SchemaNode[] = [{ value: schema, depth: 0 }];
  let size = 0;
  let depth = 0;
  let values = 0;
  const place = (node: SchemaNode, key?: true): Place => ({ field, target: 'tool', node, ...(key ? { key } : {}) });
  while (stack.length) {
    const node = stack.pop()!;
    if (++values > MAX_SCHEMA_VALUES) {
      out.add({ field, target: 'tool' }, '', 'unscannable', 0, 0, { reason: `more than ${MAX_SCHEMA_VALUES} values` });
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
  const whole: Place = { field, target: 'tool' };
  if (depth > SCAN_BOUNDS.inputSchema.depth) out.add(whole, '', 'deep-schema', 0, 0, { depth: `${depth}+`, limit: SCAN_BOUNDS.inputSchema.depth });
  // A field DSH does not send costs no tokens per request: only the error bound applies there.
  const bounds = NOT_SENT_TO_MODEL.has(field) ? { large: SCAN_BOUNDS.inputSchema.oversized, oversized: SCAN_BOUNDS.inputSchema.oversized } : SCAN_BOUNDS.inputSchema;
  sizeFinding(out, whole, '', size, bounds);
}
