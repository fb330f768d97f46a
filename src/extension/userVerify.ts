/**
 * What Verify Declaration says of the user's own servers beside the folder's: the same report as
 * the servers view's group and the Doctor (core/app/userReport), as one or two sentences for its
 * notification and as data for its result (`user`, the shape of `dsh-bridge verify --json`'s).
 */
import type * as vscode from 'vscode';
import type { PlannedSession } from '../core/app/plan';
import { planMessage } from '../core/app/planReasons';
import { userServersNotExported } from '../core/app/userReport';
import type { Ctx } from './ctx';
import { sentences, translate } from './l10n';
import { l10n } from './l10nLookup';
import { editorsUserReport } from './userServers';

export interface UserVerifyResult {
  /** The user declaration's path, or null when there is none. */
  declaration: string | null;
  ok: boolean;
  servers: Array<{ name: string; serverName: string; outcome: string; code: string }>;
  notExported: string[];
}

export async function verifyUserServers(ctx: Ctx, folder: vscode.WorkspaceFolder, workspace: PlannedSession): Promise<{ words: string; result: UserVerifyResult }> {
  const report = await editorsUserReport(ctx, folder, workspace);
  const { plan, verified } = report.user.planned;
  const notExported = userServersNotExported(report);
  const exported = plan.declaration.state !== 'missing';
  const result: UserVerifyResult = {
    declaration: exported ? report.declarationPath : null,
    ok: verified?.ok === true,
    servers: report.servers.map((s) => ({ name: s.name, serverName: s.serverName, outcome: s.outcome, code: s.reason.code })),
    notExported,
  };
  const none = l10n.t('none');
  const names = (list: string[]) => list.join(', ') || none;
  const parts: string[] = [];
  if (!exported) {
    if (notExported.length) parts.push(l10n.t('Your own MCP servers ({0}) are not exported: DSH sessions get none of them until you run DSH: Export Your Own MCP Servers.', notExported.join(', ')));
  } else if (report.blocked.length) {
    parts.push(l10n.t('Your own MCP servers: DSH sessions get none of them: {0}', planMessage(report.blocked[0], translate)));
  } else {
    const by = (outcome: string) => report.servers.filter((s) => s.outcome === outcome && s.reason.code !== 'shadowed-by-workspace').map((s) => s.serverName);
    const shadowed = report.servers.filter((s) => s.reason.code === 'shadowed-by-workspace').map((s) => s.serverName);
    parts.push(l10n.t('Your own MCP servers in every DSH session start: {0}; after asking: {1}; withheld: {2}; this folder\'s of the same name instead: {3}.', names(by('starts')), names(by('asks')), names(by('withheld')), names(shadowed)));
    if (notExported.length) parts.push(l10n.t('Changed or added since their export: {0}.', notExported.join(', ')));
  }
  return { words: sentences(parts), result };
}
