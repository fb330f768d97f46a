import * as path from 'node:path';
import * as vscode from 'vscode';
import { showInformation, showWarning, shownItem } from './visible';
import { visibleLine } from '../core/json/visibleText';
import type { DeclaredServer } from '../core/declaration/declarationModel';
import { reviewServer, shortPin, type LanguageServersReview, type ReviewWarning, type ServerReview } from '../core/app/approve';
import { translate } from './l10n';
import { l10n } from './l10nLookup';

export type ApprovalChoice = 'approve' | 'skip' | 'cancel';

/** The review's warnings of one kind, in the editor's language (the core's list: the CLI prints the same). */
function warningTexts(review: ServerReview, kind?: ReviewWarning['kind']): string[] {
  return review.warnings.filter((w) => kind === undefined || w.kind === kind).map((w) => translate(w.template, w.args));
}

/** The text of the review: the exact launch, untruncated, what is dangerous in it, and the pin (short unless `fullPin`). */
function reviewText(server: DeclaredServer, folder: vscode.WorkspaceFolder, fullPin = false): { message: string; detail: string } {
  const reviewed = reviewServer(server);
  const r = reviewed.review;
  const lines: string[] = [];
  const dangers = warningTexts(reviewed, 'danger');
  if (dangers.length) {
    lines.push(l10n.t('DANGER:'));
    for (const d of dangers) lines.push(`  \u26a0 ${d}`);
    lines.push('');
  }
  if (r.transport === 'stdio') {
    lines.push(l10n.t('It will run this command on this computer with your user\'s privileges:'));
    lines.push('', r.launch, '');
    for (const unpinned of warningTexts(reviewed, 'unpinned')) lines.push(`\u26a0 ${unpinned}`, '');
    // The working folder is said only where it is not the folder itself (said below).
    if (r.cwd && path.resolve(r.cwd) !== path.resolve(folder.uri.fsPath)) lines.push(l10n.t('Working folder: {0}', r.cwd));
    lines.push(l10n.t('Environment variables (names only): {0}', r.envNames.length ? r.envNames.join(', ') : l10n.t('none')));
    if (r.envFile !== undefined) {
      lines.push(l10n.t('Environment file: {0}', r.envFile));
      lines.push(l10n.t('Variables it sets (names only): {0}', r.envFileNames.length ? r.envFileNames.join(', ') : l10n.t('none')));
    }
  } else {
    lines.push(l10n.t('It will connect to this URL with your user\'s privileges:'));
    lines.push('', r.launch, '');
    lines.push(l10n.t('Headers (names only): {0}', r.headerNames.length ? r.headerNames.join(', ') : l10n.t('none')));
  }
  lines.push('', l10n.t('Folder: {0}', folder.uri.fsPath), l10n.t('Pin: {0}', fullPin ? server.pin : shortPin(server.pin)));
  lines.push(l10n.t('Approval is bound to this exact entry: any change asks again. Skip exports it unapproved, so DSH will not start it without asking.'));
  return {
    message: l10n.t('Approve MCP server "{0}" for DSH?', r.name),
    // Each line on its own line: a folder path or a name cannot add one.
    detail: lines.map(visibleLine).join('\n'),
  };
}

/**
 * A modal review of one server, its pin short until asked for in full. Escape or Cancel aborts
 * the whole export. A flagged launch (a danger, an unpinned launcher) is asked as VS Code asks
 * before it trusts an MCP server: a warning, and Skip is the default button, so neither Enter
 * nor Escape approves it; only a click on Approve does.
 */
async function askApproval(server: DeclaredServer, folder: vscode.WorkspaceFolder): Promise<ApprovalChoice> {
  const approve = l10n.t('Approve');
  const skip = l10n.t('Skip');
  const showPin = l10n.t('Show Full Pin');
  const { flagged } = reviewServer(server);
  for (let fullPin = false; ;) {
    const { message, detail } = reviewText(server, folder, fullPin);
    const buttons = [...(flagged ? [skip, approve] : [approve, skip]), ...(fullPin ? [] : [showPin])];
    const choice = flagged
      ? await showWarning(message, { modal: true, detail }, ...buttons)
      : await showInformation(message, { modal: true, detail }, ...buttons);
    if (choice === showPin) {
      fullPin = true;
      continue;
    }
    if (choice === approve) return 'approve';
    if (choice === skip) return 'skip';
    return 'cancel';
  }
}

interface ServerItem extends vscode.QuickPickItem {
  server: DeclaredServer;
}

/**
 * Reviews every unapproved server of a folder at once: one server is one modal review; several
 * are one checklist (what each runs, its dangers, its short pin), with the full review of any
 * row one click away. Nothing starts checked: the user checks what to approve, the others are
 * exported unapproved (DSH asks); Escape cancels the export. A flagged server checked in the
 * list (not approved in its full review) gets its full review on OK before it is approved.
 */
export async function reviewServers(servers: DeclaredServer[], folder: vscode.WorkspaceFolder): Promise<Map<string, ApprovalChoice> | 'cancel'> {
  if (servers.length === 0) return new Map();
  if (servers.length === 1) {
    const choice = await askApproval(servers[0], folder);
    return choice === 'cancel' ? 'cancel' : new Map([[servers[0].serverName, choice]]);
  }
  const fullReview: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('eye'), tooltip: l10n.t('Show the full review') };
  const items: ServerItem[] = servers.map((server) => {
    const reviewed = reviewServer(server);
    const r = reviewed.review;
    const warnings = warningTexts(reviewed);
    return shownItem({
      server,
      label: `${reviewed.flagged ? '$(warning) ' : ''}${r.name}`,
      description: l10n.t('pin {0}', shortPin(server.pin)),
      detail: [r.launch, ...warnings].join(' \u2014 '),
      buttons: [fullReview],
    });
  });
  const pick = vscode.window.createQuickPick<ServerItem>();
  pick.title = visibleLine(l10n.t('Approve MCP servers of {0} for DSH', folder.name));
  pick.placeholder = l10n.t('Check the servers to approve; the others are exported unapproved and DSH asks before starting them.');
  pick.canSelectMany = true;
  pick.ignoreFocusOut = true;
  pick.matchOnDetail = true;
  pick.items = items;
  pick.selectedItems = [];
  /** Approved in their full review (a click on Approve there). */
  const reviewed = new Set<ServerItem>();
  try {
    const checked = await new Promise<ServerItem[] | 'cancel'>((resolve) => {
      let reviewing = false;
      pick.onDidTriggerItemButton(async ({ item }) => {
        reviewing = true;
        const choice = await askApproval(item.server, folder);
        reviewing = false;
        const others = pick.selectedItems.filter((i) => i !== item);
        if (choice === 'approve') {
          reviewed.add(item);
          pick.selectedItems = [...others, item];
        } else if (choice === 'skip') {
          reviewed.delete(item);
          pick.selectedItems = others;
        }
        pick.show();
      });
      pick.onDidAccept(() => {
        resolve([...pick.selectedItems]);
        pick.hide();
      });
      pick.onDidHide(() => {
        if (!reviewing) resolve('cancel');
      });
      pick.show();
    });
    if (checked === 'cancel') return 'cancel';
    const approved = new Set<string>();
    for (const item of items) {
      if (!checked.includes(item)) continue;
      if (reviewed.has(item) || !reviewServer(item.server).flagged) {
        approved.add(item.server.serverName);
        continue;
      }
      // A flagged launch is approved only from its own review, never by a checkbox and Enter.
      const choice = await askApproval(item.server, folder);
      if (choice === 'cancel') return 'cancel';
      if (choice === 'approve') approved.add(item.server.serverName);
    }
    return new Map(servers.map((s) => [s.serverName, approved.has(s.serverName) ? 'approve' : 'skip']));
  } finally {
    pick.dispose();
  }
}

/**
 * A modal review of a folder's language servers (the declaration's `lsp` section). DSH starts
 * them as one row, all or none, so one approval covers the section's pin. Escape or Cancel
 * aborts the whole export.
 */
export async function askLspApproval(review: LanguageServersReview, folder: vscode.WorkspaceFolder): Promise<ApprovalChoice> {
  const lines: string[] = [l10n.t('DSH starts each of them on the first query for its files, with your user\'s privileges:'), ''];
  for (const server of review.servers) {
    lines.push(l10n.t('"{0}" for {1}:', server.id, server.extensions.join(', ')));
    lines.push(`  ${server.launch}`);
    lines.push(`  ${l10n.t('Environment variables (names only): {0}', server.envNames.length ? server.envNames.join(', ') : l10n.t('none'))}`);
    lines.push('');
  }
  lines.push(l10n.t('Folder: {0}', folder.uri.fsPath), l10n.t('Pin: {0}', review.pin));
  lines.push(l10n.t('Approval is bound to these exact servers: any change asks again. Skip exports them unapproved, so DSH will not start them without asking.'));
  const approve = l10n.t('Approve');
  const skip = l10n.t('Skip');
  const choice = await showInformation(l10n.t('Approve the language servers of {0} for DSH?', folder.name), { modal: true, detail: lines.map(visibleLine).join('\n') }, approve, skip);
  if (choice === approve) return 'approve';
  if (choice === skip) return 'skip';
  return 'cancel';
}
