import * as path from 'node:path';
import * as vscode from 'vscode';
import { showInformation } from '../visible';
import { routeFile, type RouteOutcome as SettingRouteOutcome } from '../../core/app/languageServers';
import { LSP_SETTING } from '../../core/lsp/lspModel';
import { fileFolders } from '../mcpFiles';
import type { LspSettingsCheck } from './lspSettingsCheck';
import { l10n } from '../l10nLookup';

export type RouteOutcome = SettingRouteOutcome | 'no-file';

/** What the command answers (also its return value, for tests). */
export interface RouteAnswer {
  outcome: RouteOutcome;
  file?: string;
  extension?: string;
  providerId?: string;
  languageId?: string;
  message: string;
}

/**
 * "DSH: Which Language Server Handles This File?": DSH's routing rule (the final extension of the
 * basename, lowercased) over the folder's `dsh.lsp.servers`, as the settings check last validated it. Argument: a file URI (explorer or
 * editor title menus); default: the active editor's document.
 */
export async function whichLanguageServer(arg: unknown, lsp: LspSettingsCheck, options: { silent?: boolean } = {}): Promise<RouteAnswer> {
  const uri = arg instanceof vscode.Uri ? arg : vscode.window.activeTextEditor?.document.uri;
  const answer = await route(uri, lsp);
  if (!options.silent) {
    const openSettings = l10n.t('Open Settings');
    const actions = answer.outcome === 'routed' || answer.outcome === 'no-file' ? [] : [openSettings];
    void showInformation(answer.message, ...actions).then((c) => {
      if (c === openSettings) void vscode.commands.executeCommand('workbench.action.openSettings', LSP_SETTING);
    });
  }
  return answer;
}

async function route(uri: vscode.Uri | undefined, lsp: LspSettingsCheck): Promise<RouteAnswer> {
  if (!uri) return { outcome: 'no-file', message: l10n.t('Open a file first: DSH routes a file to a language server by its name.') };
  const folder = vscode.workspace.getWorkspaceFolder(uri) ?? fileFolders()[0];
  const base = path.posix.basename(uri.path);
  if (!folder) return { outcome: 'not-configured', file: base, message: l10n.t('Open a folder: DSH language servers come from the setting dsh.lsp.servers of a workspace folder.') };
  // The check's cached result of the folder (current: a pending check runs first).
  const { validation, value } = await lsp.current(folder);
  const { outcome, extension, providerId, languageId } = routeFile(base, value, validation);
  const answer = { outcome, file: base, extension, ...(providerId ? { providerId, languageId } : {}) };
  switch (outcome) {
    case 'not-configured': return { ...answer, message: l10n.t('No language server is configured for DSH: the setting dsh.lsp.servers is empty.') };
    case 'no-extension': return { ...answer, message: l10n.t('DSH sends {0} to no language server: the file name has no final extension (DSH routes by the final extension of the file name, lowercased).', base) };
    case 'routed': return { ...answer, message: l10n.t('DSH sends {0} to language server "{1}" as language "{2}" (final extension {3}).', base, providerId!, languageId!, extension) };
    case 'routed-but-none-registered':
      return { ...answer, message: l10n.t('Language server "{0}" claims {1} (final extension {2}), but DSH registers no language server while any entry of dsh.lsp.servers is invalid: see the Problems panel.', providerId!, base, extension) };
    case 'none-registered': return { ...answer, message: l10n.t('DSH sends {0} to no language server: DSH registers none while any entry of dsh.lsp.servers is invalid (see the Problems panel).', base) };
    case 'unclaimed': return { ...answer, message: l10n.t('DSH sends {0} to no language server: no entry of dsh.lsp.servers maps its final extension {1}.', base, extension) };
  }
}
