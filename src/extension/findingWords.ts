// The scan's findings (core/scan) in the editor's words, shared by the servers view and the skill review.
import type { ScanField, ScanFinding } from '../core/scan/scan';
import { findingPlace, findingText } from '../core/app/scanFindings';
import { translate } from './l10n';
import { l10n } from './l10nLookup';

export const findingCountWords = (n: number): string => (n === 1 ? l10n.t('1 finding') : l10n.t('{0} findings', n));

/** Beside a tool or skill with findings: their count, said withheld or accepted when it is. */
export function findingStateWords(state: 'withheld' | 'accepted' | undefined, count: number): string {
  const findings = findingCountWords(count);
  return state === 'withheld' ? l10n.t('withheld: {0}', findings) : state === 'accepted' ? l10n.t('accepted ({0})', findings) : findings;
}

/** A finding's field as the editor says it (the instructions are the server's; a skill's field is its SKILL.md). */
const FIELD_WORDS: Record<ScanField, () => string> = {
  name: () => l10n.t('name'), title: () => l10n.t('title'), description: () => l10n.t('description'), inputSchema: () => l10n.t('input schema'), outputSchema: () => l10n.t('output schema'), annotations: () => l10n.t('annotations'), instructions: () => l10n.t('server instructions'), skill: () => 'SKILL.md',
};

/**
 * A finding in the core's words and place (core/app/scanFindings), translated: the code, where it
 * is and its message; what hidden characters decode to; then the span made visible. The seam that
 * shows them escapes the rest (visible.ts).
 */
export function findingLines(f: ScanFinding): string[] {
  const t = findingText(f);
  const place = findingPlace(t, FIELD_WORDS[t.field](), (n) => l10n.t('line {0}', n));
  return [`${t.code} (${place}): ${translate(t.template, t.args)}`, ...(t.decoded !== undefined ? [l10n.t('decoded: {0}', t.decoded)] : []), t.excerpt];
}
