/**
 * The doctor's part on the user's own servers (`dsh-bridge doctor --user`, the editor's Doctor):
 * how the user declaration stands, what each of its servers does in a session of the folder (the
 * user report's plan: a workspace server of the same name wins), under the same install as the
 * folder's report, and which servers of the user's files it lacks. Decides nothing itself.
 */
import { formatMessage } from '../problems/problems';
import { DOCTOR_MESSAGES, verdictText, type Args, type DoctorMessage, type DoctorReport, type ServerVerdict } from './doctor';
import { byDshPolicy, planMessage, type PlanReason } from './planReasons';
import { userServersNotExported, type UserServersReport } from './userReport';

export interface UserDoctorSection {
  declarationPath: string;
  /** The user declaration's state as the plan found it (`missing`: never exported). */
  state: 'missing' | 'verified' | 'refused';
  /** What holds for the whole user declaration (stale, another key, the trust mode...), fixes worded with `--user`. */
  blocked: PlanReason[];
  servers: ServerVerdict[];
  /** Servers of the user's files the declaration does not have as they are now. */
  notExported: string[];
  /** Nothing blocks the user declaration, every server of it would mount, and none of the files' is left out. */
  ok: boolean;
}

const EXPORT_USER = 'dsh-bridge export --user';

/** The user's servers under the install `report` describes (its profile, headless or not, its bundle). */
export function userDoctorSection(report: Pick<DoctorReport, 'headless' | 'findings'>, user: UserServersReport): UserDoctorSection {
  const { plan } = user.user.planned;
  const noBundle = report.findings.find((f) => f.message === 'bundleMissing' || f.message === 'profileMissing');
  const servers = user.servers.map((s): ServerVerdict => {
    const base = { name: s.name, serverName: s.serverName, outcome: s.outcome };
    const ownReason = user.blocked.length === 0 && s.reason.code !== 'shadowed-by-workspace' && !byDshPolicy(s.reason);
    if (ownReason && noBundle) return { ...base, mount: false, why: 'whyNoBundle', args: {}, fix: noBundle.fix ?? 'dsh-bridge dsh install', fixCode: 'install' };
    const mount = s.outcome === 'starts' || (s.outcome === 'asks' && !report.headless);
    return { ...base, mount, why: s.reason.code, args: s.reason.args, ...(s.reason.fix ? { fix: s.reason.fix.command, fixCode: s.reason.fix.code } : {}) };
  });
  const notExported = userServersNotExported(user);
  const state = plan.declaration.state === 'missing' ? 'missing' : plan.declaration.state === 'verified' ? 'verified' : 'refused';
  // A shadowed server is not a fault: the workspace's of that name runs, as in VS Code.
  const ok = user.blocked.length === 0 && notExported.length === 0 && servers.every((s) => s.mount || s.why === 'shadowed-by-workspace');
  return { declarationPath: user.declarationPath, state, blocked: user.blocked, servers, notExported, ok };
}

type Word = (template: string, args: Args) => string;

/** The section as lines (the CLI's text, the editor's Doctor through `word`); `fixes: false` leaves the fixes out. */
export function userDoctorLines(section: UserDoctorSection, report: Pick<DoctorReport, 'headless'>, word: Word = formatMessage, fixes = true): string[] {
  const t = (m: DoctorMessage, args: Args = {}) => word(DOCTOR_MESSAGES[m], args);
  const lines = [t('userHeading')];
  const line = (mark: string, text: string, fix?: string) => {
    lines.push(`${mark} ${text}`);
    if (fix && fixes) lines.push(`  ${t('fix', { command: fix })}`);
  };
  // Never exported: the export is the fix only when the user's files hold servers (said on their own line below).
  if (section.state === 'missing') line('\u2139', t('userNone', { path: section.declarationPath }));
  else if (section.state === 'verified' && !section.blocked.length) line('\u2714', t('userOk', { path: section.declarationPath, count: section.servers.length }));
  // The plan's "no declaration" is said above; every other reason of the whole declaration on its own line.
  for (const r of section.blocked) if (r.code !== 'no-declaration') line('\u2716', planMessage(r, word), r.fix?.command);
  if (section.notExported.length) line('\u2716', t('userNotExported', { list: section.notExported.join(t('listSeparator')) }), EXPORT_USER);
  if (!section.blocked.length) {
    for (const s of section.servers) {
      if (s.mount) continue;
      line(s.why === 'shadowed-by-workspace' ? '\u2139' : s.outcome === 'asks' ? '\u26a0' : '\u2716', t('serverNotMount', { server: s.serverName, why: verdictText(report, s, word) }), s.fix);
    }
  }
  const none = t('none');
  const mount = section.servers.filter((s) => s.mount).map((s) => s.serverName);
  const notMount = section.servers.filter((s) => !s.mount).map((s) => s.serverName);
  lines.push(t('userSummary', { mount: mount.join(t('listSeparator')) || none, notMount: notMount.join(t('listSeparator')) || none }));
  return lines;
}

/** The section's fixes, once each, with their codes (the editor's Doctor lists them with its own commands). */
export function userDoctorFixes(section: UserDoctorSection): Map<string, ServerVerdict['fixCode'] | undefined> {
  const fixes = new Map<string, ServerVerdict['fixCode'] | undefined>();
  if (section.notExported.length) fixes.set(EXPORT_USER, 'export');
  for (const r of section.blocked) if (r.fix) fixes.set(r.fix.command, r.fix.code);
  for (const s of section.servers) if (s.fix && !fixes.has(s.fix)) fixes.set(s.fix, s.fixCode);
  return fixes;
}

/** The user section's plan messages worded in English (the CLI's JSON). */
export function userSectionJson(section: UserDoctorSection, report: Pick<DoctorReport, 'headless'>) {
  return {
    declaration: section.state === 'missing' ? null : section.declarationPath,
    state: section.state,
    ok: section.ok,
    blocked: section.blocked.map((r) => ({ code: r.code, message: planMessage(r, formatMessage), fix: r.fix?.command ?? null })),
    wouldMount: section.servers.filter((s) => s.mount).map((s) => s.serverName),
    wouldNot: section.servers.filter((s) => !s.mount).map((s) => ({ serverName: s.serverName, name: s.name, outcome: s.outcome, code: s.why, why: verdictText(report, s), fix: s.fix ?? null })),
    notExported: section.notExported,
  };
}
