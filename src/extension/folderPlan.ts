import type * as vscode from 'vscode';
import type { Ctx } from './ctx';
import type { PlannedSession } from '../core/app/plan';

/**
 * The session plan of a workspace folder as the status item and the servers view show it: the
 * same call as Verify Declaration (the folder's settings as the editor sees them), without the
 * skills (neither shows them). Loaded on first use: the plan brings the skills code.
 */
export async function planOfFolder(ctx: Ctx, folder: vscode.WorkspaceFolder): Promise<PlannedSession> {
  const { planSession } = await import('../core/app/plan.js');
  const settings = ctx.config.folder(folder);
  return planSession(ctx.ports(), { cwd: folder.uri.fsPath, settings: settings.view, verifySettings: { policySettings: settings.policySettings }, skills: false });
}
