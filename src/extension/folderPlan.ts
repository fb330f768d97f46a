import type * as vscode from 'vscode';
import type { Ctx } from './ctx';
import { planSession, type PlannedSession } from '../core/app/plan';

/**
 * The session plan of a workspace folder as the status item and the servers view show it: the
 * same call as Verify Declaration (the folder's settings as the editor sees them), without the
 * skills (neither shows them).
 */
export function planOfFolder(ctx: Ctx, folder: vscode.WorkspaceFolder): Promise<PlannedSession> {
  const settings = ctx.config.folder(folder);
  return planSession(ctx.ports(), { cwd: folder.uri.fsPath, settings: settings.view, verifySettings: { policySettings: settings.policySettings }, skills: false });
}
