// The scan's findings (core/scan) in the editor's words, shared by the servers view and the skill review.
import type { ScanFinding } from '../core/scan/scan';
import { findingTemplate } from '../core/app/scanFindings';
import { translate } from './l10n';
import { l10n } from './l10nLookup';

export const findingCountWords = (n: number): string => (n === 1 ? l10n.t('1 finding') : l10n.t('{0} findings', n));

/** A finding's message, translated. */
export const findingMessage = (f: ScanFinding): string => translate(findingTemplate(f), f.args);

/** Beside a tool or skill with findings: their count, said withheld or accepted when it is. */
export function findingStateWords(state: 'withheld' | 'accepted' | undefined, count: number): string {
  const findings = findingCountWords(count);
  return state === 'withheld' ? l10n.t('withheld: {0}', findings) : state === 'accepted' ? l10n.t('accepted ({0})', findings) : findings;
}
