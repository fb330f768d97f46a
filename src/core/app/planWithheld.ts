/**
 * Everything a session plan withholds, in one list every face shows (verify, doctor, the export
 * summary, the editor's status items, views and notifications): servers, tools, skills and the
 * language servers, each with the plan's reason code. One owner, so the faces say the same names
 * and the same counts. Words are English templates (the editor's l10n keys) filled with `{name}`
 * arguments. Never throws.
 */
import type { SessionPlan } from './plan';
import type { PlanArgs, PlanReasonCode } from './planReasons';

export interface WithheldItems {
  /** Servers the plan withholds, each name once, with its first reason (a server that asks is not withheld: DSH asks about it). */
  servers: Array<{ serverName: string; code: PlanReasonCode }>;
  /**
   * Tools withheld from servers that do start (or ask): the tools of a withheld server are not
   * listed again. A tool `dsh.tools` leaves out is the user's choice, not withheld.
   */
  tools: Array<{ serverName: string; name: string; publicName: string; code: PlanReasonCode }>;
  /** Skills withheld (for their root, or for their SKILL.md's scan). */
  skills: Array<{ name: string; root: string; code?: PlanReasonCode }>;
  /** The language servers (one row, one pin), when the plan withholds them. */
  languageServers?: { ids: string[]; code: PlanReasonCode };
  /** The skill roots could not be checked: every project and custom skill is withheld, names unknown. */
  skillsUnreadable?: boolean;
}

/** What `plan` withholds from a DSH session (see {@link WithheldItems}). */
export function withheldOf(plan: SessionPlan): WithheldItems {
  // A session goes without a name once: two refused entries of one name (one shadowing the other) are one server withheld.
  const servers = [...new Map(plan.servers.filter((s) => s.outcome === 'withheld').reverse().map((s) => [s.serverName, { serverName: s.serverName, code: s.reason.code }])).values()].reverse();
  const tools = plan.servers.filter((s) => s.outcome !== 'withheld').flatMap((s) => (s.tools?.tools ?? [])
    .filter((t) => t.state === 'withheld')
    .map((t) => ({ serverName: s.serverName, name: t.name, publicName: t.publicName, code: t.reason.code })));
  const skills = (plan.skills?.withheld ?? []).map((w) => ({ name: w.name, root: w.root, ...(w.reason ? { code: w.reason.code } : {}) }));
  const lsp = plan.languageServers;
  return {
    servers, tools, skills,
    ...(lsp && lsp.outcome === 'withheld' ? { languageServers: { ids: lsp.servers.map((s) => s.id), code: lsp.reason.code } } : {}),
    ...(plan.skills?.error ? { skillsUnreadable: true } : {}),
  };
}

/** The counts of {@link WithheldItems} (the language servers count as one row). */
export function withheldCounts(w: WithheldItems): { servers: number; tools: number; skills: number; languageServers: number } {
  return { servers: w.servers.length, tools: w.tools.length, skills: w.skills.length, languageServers: w.languageServers ? 1 : 0 };
}

export function nothingWithheld(w: WithheldItems): boolean {
  return !w.servers.length && !w.tools.length && !w.skills.length && !w.languageServers && !w.skillsUnreadable;
}

export const WITHHELD_MESSAGES = {
  line: 'Withheld from DSH sessions here: {list}.',
  oneServer: '1 server ({names})',
  servers: '{count} servers ({names})',
  oneTool: '1 tool ({names})',
  tools: '{count} tools ({names})',
  oneSkill: '1 skill ({names})',
  skills: '{count} skills ({names})',
  languageServers: 'the language servers ({names})',
  languageServersUnnamed: 'the language servers',
  skillsUnreadable: 'every project and custom skill (the skill roots cannot be checked)',
  separator: '; ',
  nameSeparator: ', ',
} as const;

type Word = (template: string, args: PlanArgs) => string;

/**
 * The one sentence every face says of what is withheld ("Withheld from DSH sessions here: 1 server
 * (broken); 2 tools (mcp__a__x, mcp__a__y); 1 skill (alpha)."), or undefined when nothing is.
 * Names come from files and servers: the caller shows it escaped.
 */
export function withheldLine(w: WithheldItems, word: Word): string | undefined {
  if (nothingWithheld(w)) return undefined;
  const t = (template: keyof typeof WITHHELD_MESSAGES, args: PlanArgs = {}) => word(WITHHELD_MESSAGES[template], args);
  const names = (list: string[]) => list.join(t('nameSeparator'));
  const part = (list: string[], one: keyof typeof WITHHELD_MESSAGES, many: keyof typeof WITHHELD_MESSAGES) => (list.length === 0 ? undefined
    : list.length === 1 ? t(one, { names: list[0] }) : t(many, { count: list.length, names: names(list) }));
  const parts = [
    part(w.servers.map((s) => s.serverName), 'oneServer', 'servers'),
    part(w.tools.map((x) => x.publicName), 'oneTool', 'tools'),
    part(w.skills.map((s) => s.name), 'oneSkill', 'skills'),
    w.skillsUnreadable ? t('skillsUnreadable') : undefined,
    !w.languageServers ? undefined : w.languageServers.ids.length ? t('languageServers', { names: names(w.languageServers.ids) }) : t('languageServersUnnamed'),
  ].filter((p): p is string => p !== undefined);
  return t('line', { list: parts.join(t('separator')) });
}
