/**
 * The servers view's row for the folder's last recorded DSH session (the status item shows the
 * same line): what it had and what it went without, from the record the DSH plugin wrote.
 */
import * as vscode from 'vscode';
import { summarizeSession } from '../../core/app/sessions';
import type { SessionRecord } from '../../core/node/sessionRecords';
import { l10n } from '../l10nLookup';
import { lastSessionLine } from '../sessionWords';

export type SessionNode = { kind: 'session'; folder: vscode.WorkspaceFolder; record: SessionRecord };

export function sessionItem(node: SessionNode): vscode.TreeItem {
  const s = summarizeSession(node.record, Date.now());
  const item = new vscode.TreeItem(lastSessionLine(s), vscode.TreeItemCollapsibleState.None);
  item.iconPath = new vscode.ThemeIcon(s.failed.length || s.blocked.length ? 'warning' : 'history');
  item.tooltip = l10n.t('Recorded by the DSH plugin ({0}). dsh-bridge sessions lists the folder\'s last sessions.', node.record.updatedAt);
  item.contextValue = 'dsh.session';
  return item;
}
