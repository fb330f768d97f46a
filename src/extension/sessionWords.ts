/**
 * The folder's last recorded DSH session in the editor's words (the status item and the servers
 * view): "last DSH session 3 min ago: 13 tools; broken failed to start: exit code 3: ...; not in
 * it: 1 server, 2 tools". The core sums the session up (core/app/sessions.ts); this only words it,
 * one message per plural form.
 */
import type { SessionSummary } from '../core/app/sessions';
import { l10n } from './l10nLookup';

/** How long ago, as the editor says it. */
export function agoWords(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return l10n.t('just now');
  if (minutes < 60) return minutes === 1 ? l10n.t('1 min ago') : l10n.t('{0} min ago', minutes);
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return hours === 1 ? l10n.t('1 hour ago') : l10n.t('{0} hours ago', hours);
  return l10n.t('{0} days ago', Math.floor(hours / 24));
}

/** What the session went without (servers, tools, skills, language servers), or undefined when nothing. */
export function withheldWords(w: SessionSummary['withheld']): string | undefined {
  const parts = [
    w.servers ? (w.servers === 1 ? l10n.t('1 server') : l10n.t('{0} servers', w.servers)) : undefined,
    w.tools ? (w.tools === 1 ? l10n.t('1 tool') : l10n.t('{0} tools', w.tools)) : undefined,
    w.skills ? (w.skills === 1 ? l10n.t('1 skill') : l10n.t('{0} skills', w.skills)) : undefined,
    w.languageServers ? l10n.t('the language servers') : undefined,
  ].filter((p): p is string => p !== undefined);
  return parts.length ? parts.join(l10n.t(', ')) : undefined;
}

/** The one line of the last session (escaped by the caller: it quotes servers and their stderr). */
export function lastSessionLine(s: SessionSummary): string {
  const tools = s.tools === 1 ? l10n.t('1 tool') : l10n.t('{0} tools', s.tools);
  const parts = [l10n.t('last DSH session {0}: {1}', agoWords(s.ageMs), tools)];
  if (s.blocked.length) parts.push(l10n.t('nothing of the declaration mounted ({0})', s.blocked.join(l10n.t(', '))));
  for (const f of s.failed) parts.push(l10n.t('{0} failed to start: {1}', f.serverName, f.why));
  const withheld = withheldWords(s.withheld);
  if (withheld) parts.push(l10n.t('not in it: {0}', withheld));
  return parts.join(l10n.t('; '));
}
