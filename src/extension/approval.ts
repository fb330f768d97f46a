import * as vscode from 'vscode';
import type { DeclaredServer, LspDeclarationSection } from '../core/declaration/declarationModel';
import { lspLaunchLine } from '../core/lsp/lspRow';
import { DANGER_MESSAGES, reviewLaunch } from '../core/mcp/launchReview';
import { translate } from './l10n';

export type ApprovalChoice = 'approve' | 'skip' | 'cancel';

/** The text of the review: the exact launch, untruncated, and what is dangerous in it. */
export function reviewText(server: DeclaredServer, folder: vscode.WorkspaceFolder): { message: string; detail: string } {
  const r = reviewLaunch(server);
  const lines: string[] = [];
  if (r.dangers.length) {
    lines.push(vscode.l10n.t('DANGER:'));
    for (const d of r.dangers) lines.push(`  \u26a0 ${translate(DANGER_MESSAGES[d.code], { token: d.token })}`);
    lines.push('');
  }
  if (r.transport === 'stdio') {
    lines.push(vscode.l10n.t('It will run this command on this computer with your user\'s privileges:'));
    lines.push('', r.launch, '');
    lines.push(vscode.l10n.t('Working folder: {0}', r.cwd ?? ''));
    lines.push(vscode.l10n.t('Environment variables (names only): {0}', r.envNames.length ? r.envNames.join(', ') : vscode.l10n.t('none')));
    if (r.envFile !== undefined) {
      lines.push(vscode.l10n.t('Environment file: {0}', r.envFile));
      lines.push(vscode.l10n.t('Variables it sets (names only): {0}', r.envFileNames.length ? r.envFileNames.join(', ') : vscode.l10n.t('none')));
    }
  } else {
    lines.push(vscode.l10n.t('It will connect to this URL with your user\'s privileges:'));
    lines.push('', r.launch, '');
    lines.push(vscode.l10n.t('Headers (names only): {0}', r.headerNames.length ? r.headerNames.join(', ') : vscode.l10n.t('none')));
  }
  lines.push('', vscode.l10n.t('Folder: {0}', folder.uri.fsPath), vscode.l10n.t('Pin: {0}', server.pin));
  lines.push(vscode.l10n.t('Approval is bound to this exact entry: any change asks again. Skip exports it unapproved, so DSH will not start it without asking.'));
  return {
    message: vscode.l10n.t('Approve MCP server "{0}" for DSH?', r.name),
    detail: lines.join('\n'),
  };
}

/** A modal review of one server. Escape or Cancel aborts the whole export. */
export async function askApproval(server: DeclaredServer, folder: vscode.WorkspaceFolder): Promise<ApprovalChoice> {
  const { message, detail } = reviewText(server, folder);
  const approve = vscode.l10n.t('Approve');
  const skip = vscode.l10n.t('Skip');
  // With a danger, Skip is the default button: Enter must not approve it.
  const dangerous = reviewLaunch(server).dangers.length > 0;
  const choice = dangerous
    ? await vscode.window.showWarningMessage(message, { modal: true, detail }, skip, approve)
    : await vscode.window.showInformationMessage(message, { modal: true, detail }, approve, skip);
  if (choice === approve) return 'approve';
  if (choice === skip) return 'skip';
  return 'cancel';
}

/**
 * A modal review of a folder's language servers (the declaration's `lsp` section). DSH starts
 * them as one row, all or none, so one approval covers the section's pin. Escape or Cancel
 * aborts the whole export.
 */
export async function askLspApproval(section: LspDeclarationSection, folder: vscode.WorkspaceFolder): Promise<ApprovalChoice> {
  const lines: string[] = [vscode.l10n.t('DSH starts each of them on the first query for its files, with your user\'s privileges:'), ''];
  for (const [id, server] of Object.entries(section.servers)) {
    lines.push(vscode.l10n.t('"{0}" for {1}:', id, Object.keys(server.extensionToLanguage).join(', ')));
    lines.push(`  ${lspLaunchLine(server)}`);
    lines.push(`  ${vscode.l10n.t('Environment variables (names only): {0}', Object.keys(server.env).length ? Object.keys(server.env).join(', ') : vscode.l10n.t('none'))}`);
    lines.push('');
  }
  lines.push(vscode.l10n.t('Folder: {0}', folder.uri.fsPath), vscode.l10n.t('Pin: {0}', section.pin));
  lines.push(vscode.l10n.t('Approval is bound to these exact servers: any change asks again. Skip exports them unapproved, so DSH will not start them without asking.'));
  const approve = vscode.l10n.t('Approve');
  const skip = vscode.l10n.t('Skip');
  const choice = await vscode.window.showInformationMessage(vscode.l10n.t('Approve the language servers of {0} for DSH?', folder.name), { modal: true, detail: lines.join('\n') }, approve, skip);
  if (choice === approve) return 'approve';
  if (choice === skip) return 'skip';
  return 'cancel';
}
