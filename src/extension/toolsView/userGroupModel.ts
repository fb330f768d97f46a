/**
 * The servers view's group of the user's own servers (the profile's `mcp.json`, Copilot Global):
 * the rows of the user's files in the state the user declaration's plan gives them, as a folder's
 * rows are made ({@link folderViewModel}), with one state more: a user server the workspace
 * defines too is `shadowed` (the plan withholds it, `shadowed-by-workspace`: the workspace's
 * runs). Free of `vscode` (test/unit/extension/toolsView/userGroupModel.test.ts).
 */
import type { UserServersReport } from '../../core/app/userReport';
import { folderViewModel, type FolderViewModel, type ServerViewRow } from '../planView';

export interface UserGroupModel {
  declarationPath: string;
  /** Whether there is a user declaration at all (the group's description says "not exported" otherwise). */
  exported: boolean;
  /** False when the editor cannot name the user's files (a remote or web host): the rows are the declaration's alone. */
  filesKnown: boolean;
  view: FolderViewModel;
}

export function userGroupModel(report: UserServersReport): UserGroupModel {
  const { plan } = report.user.planned;
  // Without the user's files (a remote host) there is nothing to row: the group's tooltip says why.
  const sources = report.analysis ?? { usable: false, sourcePath: report.declarationPath, servers: [], rejected: [], problems: [] };
  const view = folderViewModel({ ...plan, servers: report.servers, blocked: report.blocked }, sources);
  const rows = view.rows.map((row): ServerViewRow => (row.reason?.code === 'shadowed-by-workspace'
    ? { ...row, state: 'shadowed', codes: ['shadowed-by-workspace'], shadowedBy: String(row.reason.args.owner ?? '') }
    : row));
  const refused = rows.filter((r) => r.state === 'refused').length;
  const shadowed = rows.filter((r) => r.state === 'shadowed').length;
  return {
    declarationPath: report.declarationPath,
    exported: plan.declaration.state !== 'missing',
    filesKnown: report.analysis !== undefined,
    view: { ...view, rows, counts: { servers: rows.length - refused - shadowed, refused, shadowed } },
  };
}
