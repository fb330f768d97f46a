import * as vscode from 'vscode';
import { showWarning } from './visible';
import { l10n } from './l10nLookup';

/**
 * Workspace Trust, checked in code: the manifest hides the commands in Restricted Mode, but
 * commands can still be invoked programmatically (another extension, a keybinding, a link).
 */
export function isWorkspaceTrusted(): boolean {
  return vscode.workspace.isTrusted;
}

/** True when trusted; otherwise says why the action is refused, offering to manage trust. */
export function requireWorkspaceTrust(action: string, log: vscode.LogOutputChannel): boolean {
  if (vscode.workspace.isTrusted) return true;
  log.warn(`refused in Restricted Mode: ${action}`);
  const manage = l10n.t('Manage Workspace Trust');
  void showWarning(l10n.t('Restricted Mode: {0} needs a trusted workspace. Nothing was exported, prompted or run.', action), manage)
    .then((choice) => {
      if (choice === manage) void vscode.commands.executeCommand('workbench.trust.manage');
    });
  return false;
}
