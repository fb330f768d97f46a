import * as os from 'node:os';
import * as vscode from 'vscode';
import * as z from 'zod/mini';
import type { AnalyzeOptions } from '../core/mcp/analyze';
import {
  folderAnalyzeOptions, readExportSettings, readSetting, SETTING, SETTING_SCHEMAS, type ExportSettings, type InvalidSetting, type SettingsView,
} from '../core/settings/folderSettings';
import { resolveDshHome } from '../core/node/hostStore';
import { codeWorkspaceFile } from './mcpFiles';
import { TRUST_MODES, type TrustMode } from '../core/settings/folderSettings';

/**
 * Settings as the editor sees them, read through the core's typed settings contract
 * (core/folderSettings): a value of the wrong shape falls back to its default (and is reported
 * once in the log), so nothing downstream sees an unchecked cast.
 */


export interface FolderSettings extends ExportSettings {
  auto: 'off' | 'onSave';
}

export interface GlobalSettings {
  trustMode: TrustMode;
  dshHome: string;
}

/** A folder's settings as VS Code resolves them (default, user, workspace and folder layers). */
export function folderSettingsView(folder: vscode.WorkspaceFolder | undefined): SettingsView {
  const config = vscode.workspace.getConfiguration(undefined, folder?.uri);
  return (key) => config.get<unknown>(key);
}

export function readGlobalSettings(invalid: InvalidSetting): GlobalSettings {
  const view = folderSettingsView(undefined);
  const home = readSetting(view, SETTING.home, SETTING_SCHEMAS.home, '', invalid);
  return { trustMode: readSetting(view, SETTING.trustMode, z.enum(TRUST_MODES), 'ask', invalid), dshHome: resolveDshHome(home) };
}

export function readFolderSettings(folder: vscode.WorkspaceFolder, invalid: InvalidSetting): FolderSettings {
  const view = folderSettingsView(folder);
  return { auto: readSetting(view, SETTING.auto, SETTING_SCHEMAS.auto, 'off', invalid), ...readExportSettings(view, invalid) };
}

/** What the core needs to analyze a folder, from the folder's settings. */
export function analyzeOptions(folder: vscode.WorkspaceFolder, invalid: InvalidSetting): AnalyzeOptions {
  const workspaceFile = codeWorkspaceFile();
  return folderAnalyzeOptions({
    folder: folder.uri.fsPath, folderName: folder.name, userHome: os.homedir(), settings: folderSettingsView(folder), invalidSetting: invalid,
    ...(workspaceFile ? { codeWorkspaceFile: workspaceFile } : {}),
  });
}

