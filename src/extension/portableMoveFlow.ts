import * as path from 'node:path';
import * as vscode from 'vscode';
import { showError, showInformation, showWarning } from './visible';
import { applyPortableMove, MOVE_BLOCK_TEMPLATES, MOVE_HOLD_TEMPLATES, reviewPortableMove, type MoveHold } from '../core/app/portableMove';
import { portableFiles } from '../core/node/portableFiles';
import { translate } from './l10n';
import { l10n } from './l10nLookup';
import { requireWorkspaceTrust } from './workspaceTrust';
import type { Ctx } from './ctx';

/**
 * DSH: Move Servers to .mcp.json...: the core's move of `.vscode/mcp.json` into the portable
 * `.mcp.json` (core/app/portableMove), asked in a modal that lists what moves and what stays
 * and why; the texts written are the reviewed ones.
 */

/** What one run did; returned by the command for tests (names and codes only). */
export interface PortableMoveSummary {
  outcome: 'moved' | 'cancelled' | 'nothing' | 'failed' | 'restricted' | 'changed';
  moved: string[];
  held: Array<Pick<MoveHold, 'name' | 'code'>>;
  removedVscodeFile?: boolean;
}

/** Arguments a caller (a test, the explorer) may pass: the folder, and the answer to the question. */
export interface PortableMoveArgs {
  folder?: vscode.Uri;
  apply?: boolean;
}

const FILES = ['.vscode/mcp.json', '.mcp.json'];

function moveArgs(arg: unknown): PortableMoveArgs {
  if (arg instanceof vscode.Uri) return { folder: arg };
  return typeof arg === 'object' && arg !== null ? arg as PortableMoveArgs : {};
}

export function holdText(hold: MoveHold): string {
  return `"${hold.name}": ${translate(MOVE_HOLD_TEMPLATES[hold.code], hold.args)}`;
}

export async function movePortable(ctx: Ctx, arg?: unknown): Promise<PortableMoveSummary> {
  const args = moveArgs(arg);
  const none = (outcome: PortableMoveSummary['outcome'], held: MoveHold[] = []): PortableMoveSummary => ({ outcome, moved: [], held: held.map(({ name, code }) => ({ name, code })) });
  if (!requireWorkspaceTrust(l10n.t('Move to .mcp.json'), ctx.log)) return none('restricted');
  const folders = vscode.workspace.workspaceFolders ?? [];
  const folder = args.folder ? vscode.workspace.getWorkspaceFolder(args.folder)
    : folders.length === 1 ? folders[0] : await vscode.window.showWorkspaceFolderPick({ placeHolder: l10n.t('Folder whose .vscode/mcp.json moves to .mcp.json') });
  if (!folder) return none('cancelled');
  const root = folder.uri.fsPath;
  if (vscode.workspace.textDocuments.some((d) => d.isDirty && FILES.some((f) => d.uri.fsPath === path.join(root, f)))) {
    void showWarning(l10n.t('.vscode/mcp.json or .mcp.json has unsaved changes: save or revert them, then move again.'));
    return none('cancelled');
  }
  const ports = { portable: portableFiles };
  const review = await reviewPortableMove(ports, root);
  if (review.outcome === 'unreadable') {
    ctx.log.warn(`move to .mcp.json: ${review.reason}`);
    void showError(l10n.t('The MCP files of this folder cannot be edited ({0}); nothing was changed.', review.reason));
    return none('failed');
  }
  const { plan } = review;
  for (const h of plan.held) ctx.log.info(`move to .mcp.json: ${h.name} stays in .vscode/mcp.json: ${h.code} ${JSON.stringify(h.args)}`);
  if (!plan.ok) {
    void showError(translate(MOVE_BLOCK_TEMPLATES[plan.blocked!.code], plan.blocked!.args));
    return none('failed', plan.held);
  }
  const heldLines = plan.held.map(holdText);
  if (!plan.changed) {
    void showInformation([l10n.t('No server of .vscode/mcp.json can move to .mcp.json:'), ...heldLines].join('\n'));
    return none('nothing', plan.held);
  }
  const detail = [
    l10n.t('Moves to .mcp.json, with its comments: {0}', plan.moved.join(', ')),
    ...(plan.held.length ? [l10n.t('Stays in .vscode/mcp.json:'), ...heldLines] : []),
    ...(plan.vscodeAfter === undefined ? [l10n.t('Nothing is left in .vscode/mcp.json: the file is removed.')] : []),
  ].join('\n');
  const move = l10n.t('Move');
  const answer = args.apply ?? (await showWarning(l10n.t('Move servers from .vscode/mcp.json to .mcp.json?'), { modal: true, detail }, move)) === move;
  if (!answer) return none('cancelled', plan.held);
  const written = await applyPortableMove(ports, root, plan);
  if (!written.written) {
    ctx.log.warn(`move to .mcp.json: nothing written: ${written.message}`);
    void showWarning(written.reason === 'changed'
      ? l10n.t('.vscode/mcp.json or .mcp.json changed after the review: nothing was written. Move again to review the new content.')
      : l10n.t('The move could not be written: the log has the details.'));
    return none(written.reason === 'changed' ? 'changed' : 'failed', plan.held);
  }
  ctx.log.info(`move to .mcp.json: moved ${plan.moved.join(', ')} of ${root}`);
  void showInformation(l10n.t('Moved to .mcp.json: {0}. Export again: the declaration pins both files.', plan.moved.join(', ')));
  return { outcome: 'moved', moved: plan.moved, held: plan.held.map(({ name, code }) => ({ name, code })), removedVscodeFile: plan.vscodeAfter === undefined };
}
