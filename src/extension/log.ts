import type * as vscode from 'vscode';
import { showError } from './visible';
import { l10n } from './l10nLookup';

/**
 * The one error popup that points at the log: the message and a "Show Logs" action. Kept apart
 * from the context (ctx.ts) so that the composition root can use it without loading the features.
 */
export async function showErrorWithLogs(log: vscode.LogOutputChannel, message: string): Promise<void> {
  const showLogs = l10n.t('Show Logs');
  if (await showError(message, showLogs) === showLogs) log.show();
}
