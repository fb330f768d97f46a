/** Findings with their spans: where a string sits, the excerpt shown, at most so many of a code. */
import { visibleLine } from '../json/visibleText';
import { EXCERPT_CONTEXT, EXCERPT_SPAN, MAX_EXCERPT, MAX_PER_CODE } from './scanBounds';
import { SCAN_CODES, type ScanCode } from './scanCodes';
import type { ScanField, ScanFinding, ScanTarget } from './scanTypes';

/** Where a string sits in a definition, and what it is scanned as. */
export interface Place {
  field: ScanField;
  target: ScanTarget;
  /** In an input schema: the node of the string (its path is built only for a finding). */
  node?: SchemaNode;
  key?: true;
}

/** Collects the findings of one definition, at most {@link MAX_PER_CODE} of each code. */
export class Findings {
  readonly list: ScanFinding[] = [];
  private readonly counts = new Map<ScanCode, number>();

  /** `args` may be a function: a code already at its limit costs nothing more. */
  add(place: Place, text: string, code: ScanCode, start: number, end: number, args: Record<string, string | number> | (() => Record<string, string | number>) = {}, decoded?: string | (() => string | undefined)): void {
    const n = this.counts.get(code) ?? 0;
    if (n >= MAX_PER_CODE) return;
    this.counts.set(code, n + 1);
    if (typeof args === 'function') args = args();
    if (typeof decoded === 'function') decoded = decoded();
    const finding: ScanFinding = { code, severity: SCAN_CODES[code][0], field: place.field, start, end, excerpt: excerpt(text, start, end, code === 'hidden-variation-selectors'), args };
    if (place.node) finding.path = pathOf(place.node);
    if (place.key) finding.key = true;
    if (decoded !== undefined) finding.decoded = decoded;
    this.list.push(finding);
  }
}

/** A cut that does not split a surrogate pair. */
export function cut(text: string, at: number): number {
  const c = text.charCodeAt(at);
  return at > 0 && at < text.length && c >= 0xdc00 && c <= 0xdfff ? at - 1 : at;
}

export const ANY_SELECTOR = /[\ufe00-\ufe0f\u{e0100}-\u{e01ef}]/gu;

/**
 * The span with a little context, shown on one line. `selectors`: every variation selector
 * escaped too (visibleLine keeps the one that follows a visible character, which selects its
 * glyph; in a smuggled run that one carries a byte as well).
 */
export function excerpt(text: string, start: number, end: number, selectors = false): string {
  const from = cut(text, Math.max(0, start - EXCERPT_CONTEXT));
  const long = end - start > EXCERPT_SPAN;
  const to = cut(text, long ? start + EXCERPT_SPAN : Math.min(text.length, end + EXCERPT_CONTEXT));
  let shown = visibleLine(text.slice(from, to));
  if (selectors) shown = shown.replace(ANY_SELECTOR, (ch) => `\\u{${ch.codePointAt(0)!.toString(16)}}`);
  // Escapes make a span of hidden characters up to ten times longer: the shown text is bounded too.
  const cutShown = shown.length > MAX_EXCERPT;
  if (cutShown) shown = shown.slice(0, MAX_EXCERPT);
  return `${from > 0 ? '…' : ''}${shown}${cutShown || long || to < text.length ? '…' : ''}`;
}

/** The quoted text of a phrase finding: the span, on one line, bounded. */
export function quoted(text: string, start: number, end: number): string {
  return shownRun(text, start, end, 120).replace(/\s+/g, ' ');
}

export function shownRun(text: string, start: number, end: number, max = 60): string {
  const shown = visibleLine(text.slice(start, Math.min(end, start + max)));
  return end - start > max ? `${shown}…` : shown;
}

/** A node of the schema walk: its value and where it hangs (the path is built only for a finding). */
export interface SchemaNode {
  value: unknown;
  parent?: SchemaNode;
  key?: string | number;
  depth: number;
}

export function pathOf(node: SchemaNode): Array<string | number> {
  const path: Array<string | number> = [];
  for (let n: SchemaNode | undefined = node; n && n.key !== undefined; n = n.parent) path.push(n.key);
  return path.reverse();
}
