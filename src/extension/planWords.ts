import { l10n } from './l10nLookup';
import type { FolderViewModel } from './planView';
import type { StaleCauses } from '../core/app/verify';

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

/** Why a declaration is stale, one phrase per kind of cause (Verify's notification): from the core's grouping. */
export function staleWords(causes: StaleCauses): string[] {
  return [
    ...(causes.changed.length ? [l10n.t('{0} changed since the export', causes.changed.join(', '))] : []),
    ...(causes.editor.includes('policy') ? [l10n.t('the MCP server policy changed since the export')] : []),
    ...(causes.editor.includes('access') ? [l10n.t('chat.mcp.access changed which files VS Code runs servers from since the export')] : []),
    ...(causes.managed ? [l10n.t('GitHub Copilot\'s managed settings changed since the export (DSH applies them at mount meanwhile)')] : []),
  ];
}
