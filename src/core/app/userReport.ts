/**
 * The user's own servers as the editor's view, Verify and Doctor and `dsh-bridge doctor --user`
 * show them: the user declaration planned beside a workspace's ({@link planUserServers}, what the
 * DSH plugin mounts from), and the user's files as they read now, so that a server not exported
 * yet, or refused by the editor's policy, is named too. Reads only; never throws.
 */
import { emptyAnalysis, type Analysis } from '../mcp/analysis';
import type { FolderIdentity } from '../settings/folderSettings';
import type { PlannedSession, PlanRequest, ServerPlan } from './plan';
import { planFix, type PlanFix, type PlanReason } from './planReasons';
import { reviewUserExport, userDeclarationPaths, type UserFiles } from './userExport';
import { planUserServers, type UserServersPlanned } from './userPlan';
import type { Ports } from './ports';

export interface UserServersReport {
  /** `<DSH home>/bridge/user/.dsh/declaration.json`. */
  declarationPath: string;
  /** The user declaration's plan, its servers with the workspace's names withheld. */
  user: UserServersPlanned;
  /** Those servers, and what holds for the whole user declaration, each fix worded for the user declaration (`--user`). */
  servers: ServerPlan[];
  blocked: PlanReason[];
  /** The user's files as the export would read them now; undefined when the face cannot name them (or they fail to read). */
  files?: UserFiles;
  analysis?: Analysis;
}

type ReportPorts = Parameters<typeof planUserServers>[0] & Pick<Ports, 'store' | 'files' | 'home'>;

/**
 * The user's servers in a session beside `workspace` (undefined: a session whose folder has no
 * declaration), with `files` read as the export reads them under `identity`'s settings.
 */
export async function userServersReport(
  ports: ReportPorts,
  request: Omit<PlanRequest, 'cwd' | 'skills'> & { identity: FolderIdentity; files?: UserFiles },
  workspace?: PlannedSession,
): Promise<UserServersReport> {
  const { identity, files, ...planRequest } = request;
  const none: PlannedSession = workspace ?? { plan: { cwd: identity.folder, trustMode: 'deny', declaration: { state: 'missing', looked: [], reasons: [] }, blocked: [], notes: [], servers: [] }, values: { input: () => undefined, env: () => undefined }, folder: identity.folder };
  const user = await planUserServers(ports, planRequest, none);
  const { declarationPath } = userDeclarationPaths(ports.dshHome);
  const withUserFix = (r: PlanReason): PlanReason => (r.fix ? { ...r, fix: userFix(r.fix) } : r);
  const own = { declarationPath, user, servers: user.servers.map((s) => ({ ...s, reason: withUserFix(s.reason) })), blocked: user.planned.plan.blocked.map(withUserFix) };
  if (!files) return own;
  // A file that cannot be analyzed (invalid export options) is said by the export; here it is a file with no server.
  const analysis = await reviewUserExport(ports, identity, files).then((r) => r.analysis, () => emptyAnalysis([], '', `${files.profileFolder}/mcp.json`));
  return { ...own, files, analysis };
}

/** The commands that take `--user` in place of `--workspace` (`check` has none: the export's dry run says what it refuses). */
const USER_COMMANDS: ReadonlySet<PlanFix['code']> = new Set(['export', 'approve', 'probe', 'policy', 'check']);

/** A plan fix for the user declaration's folder, worded as the CLI takes it: `--user`, not that folder's path. */
export function userFix(fix: PlanFix): PlanFix {
  if (!USER_COMMANDS.has(fix.code)) return fix;
  const { workspace: _folder, ...args } = fix.args;
  if (fix.code === 'check') return { ...fix, args, command: 'dsh-bridge export --user --dry-run' };
  return { ...fix, args, command: planFix(fix.code, args).command.split(' && ').map((c) => `${c} --user`).join(' && ') };
}

/** The names in the user's files that the user declaration does not have (not exported yet, or added since). */
export function userServersNotExported(report: UserServersReport): string[] {
  if (!report.analysis?.usable) return [];
  const declared = new Set((report.user.planned.declaration?.servers ?? []).map((s) => `${s.name}\u0000${s.pin}`));
  return report.analysis.servers.filter((s) => !declared.has(`${s.name}\u0000${s.pin}`)).map((s) => s.name);
}
