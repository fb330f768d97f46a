/**
 * Hidden instructions in what servers and skills tell the model: a local, deterministic scan of
 * tool names, descriptions and input schemas (every key and string in them), a server's
 * `instructions` and SKILL.md text. Pure (no file, no network), linear in its input, never throws.
 *
 * Two kinds of rule:
 * - Hidden text, any language (hiddenCharacters.ts): tag characters, variation selectors and
 *   zero-width bits decoded, ANSI escapes found on their own.
 * - Phrases, English: keyword classes (phraseClasses.ts), each one regular expression run once;
 *   a rule is a sequence of classes in order, within a distance, in one sentence, matched from the
 *   hits (phraseMatch.ts), so no pattern backtracks over the text; the rules (phraseRules.ts), and
 *   the names of other tools (toolReferences.ts).
 * One string goes through every rule and a schema is walked in schemaWalk.ts; the bounds and caps
 * are in scanBounds.ts; findings and their spans and excerpts in findingSpans.ts.
 *
 * Every finding has a stable code (scanCodes.ts), its severity, the exact span (UTF-16 offsets into
 * the scanned string, and the path inside an input schema) and the span made visible. An
 * error-level finding withholds a tool or skill until the user accepts that exact definition.
 * docs/poisoning.md explains each rule with an example and the bounds used.
 */
import { visibleLine } from '../json/visibleText';
import { Findings, type Place } from './findingSpans';
import { scanHidden } from './hiddenCharacters';
import { scanSchema, scanString, sizeFinding } from './schemaWalk';
import { SCAN_BOUNDS } from './scanBounds';
import type { ScanContext, ScanField, ScanFinding, ScannedTool } from './scanTypes';

export { SCAN_BOUNDS } from './scanBounds';
export type { ScanContext, ScanField, ScanFinding, ScannedTool, ScanTarget } from './scanTypes';

function errorText(error: unknown): string {
  try {
    return visibleLine(error instanceof Error ? error.message : String(error)).slice(0, 200);
  } catch {
    return 'unreadable';
  }
}

function sorted(findings: ScanFinding[]): ScanFinding[] {
  const fieldOrder: Record<ScanField, number> = { name: 0, description: 1, inputSchema: 2, instructions: 3, skill: 4 };
  return findings
    .map((f, i) => ({ f, i }))
    .sort((a, b) => fieldOrder[a.f.field] - fieldOrder[b.f.field] || a.i - b.i)
    .map((x) => x.f);
}

/** Findings of one tool definition: its name, description and every key and string of its input schema. Never throws. */
export function scanTool(tool: ScannedTool, context: ScanContext = {}): ScanFinding[] {
  const out = new Findings();
  try {
    const name = typeof tool.name === 'string' ? tool.name : '';
    const description = typeof tool.description === 'string' ? tool.description : '';
    const namePlace: Place = { field: 'name', target: 'tool' };
    scanHidden(name, namePlace, out);
    sizeFinding(out, namePlace, name, name.length, SCAN_BOUNDS.name);
    const descriptionPlace: Place = { field: 'description', target: 'tool' };
    scanString(description, descriptionPlace, context, out);
    sizeFinding(out, descriptionPlace, description, description.length, SCAN_BOUNDS.description);
    scanSchema(tool.inputSchema, context, out);
  } catch (error) {
    out.add({ field: 'description', target: 'tool' }, '', 'unscannable', 0, 0, { reason: errorText(error) });
  }
  return sorted(out.list);
}

/** Findings of a server's `instructions` (from `initialize`). Never throws. */
export function scanInstructions(instructions: string, context: ScanContext = {}): ScanFinding[] {
  const out = new Findings();
  const place: Place = { field: 'instructions', target: 'instructions' };
  try {
    const text = typeof instructions === 'string' ? instructions : '';
    scanString(text, place, context, out);
    sizeFinding(out, place, text, text.length, SCAN_BOUNDS.instructions);
  } catch (error) {
    out.add(place, '', 'unscannable', 0, 0, { reason: errorText(error) });
  }
  return out.list;
}

/**
 * Findings of a SKILL.md's text (front matter and body, offsets into `raw`). `values`: front
 * matter values as DSH reads them where they differ from their source text (a YAML escape such as
 * `"\u200b"` makes a hidden character that the file does not show); their findings span the
 * whole value in the file. Never throws.
 */
export function scanSkillText(raw: string, values: ReadonlyArray<{ value: string; start: number; end: number }> = []): ScanFinding[] {
  const out = new Findings();
  const place: Place = { field: 'skill', target: 'skill' };
  try {
    scanString(raw, place, {}, out);
    for (const v of values) {
      const inner = new Findings();
      scanString(v.value, place, {}, inner);
      for (const f of inner.list) {
        if (out.list.some((g) => g.code === f.code && g.start >= v.start && g.end <= v.end)) continue;
        out.add(place, raw, f.code, v.start, v.end, f.args, f.decoded);
      }
    }
  } catch (error) {
    out.add(place, '', 'unscannable', 0, 0, { reason: errorText(error) });
  }
  return out.list.sort((a, b) => a.start - b.start);
}

/** Whether findings withhold the definition until the user accepts it. */
export function withholds(findings: readonly ScanFinding[]): boolean {
  return findings.some((f) => f.severity === 'error');
}
