import { l10n } from './l10nLookup';
import type { FolderViewModel } from './planView';

function serverCountWords(n: number): string {
  return n === 1 ? l10n.t('1 server') : l10n.t('{0} servers', n);
}

/**
 * The counts of a folder's rows, as the servers view and the status items say them: the servers
 * (every row), then how many of them are refused and shadowed. The first number is the rows shown.
 */
export function countWords(counts: FolderViewModel['counts']): string {
  const parts = [serverCountWords(counts.servers)];
  if (counts.refused) parts.push(counts.refused === 1 ? l10n.t('1 refused') : l10n.t('{0} refused', counts.refused));
  if (counts.shadowed) parts.push(counts.shadowed === 1 ? l10n.t('1 shadowed') : l10n.t('{0} shadowed', counts.shadowed));
  return parts.join(' \u00b7 ');
}
