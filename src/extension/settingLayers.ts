import * as vscode from 'vscode';
import { type JsonPath, type SettingsSource } from '../core/settings/settingsFile';
import {
  definingSettingLayer, FOLDER_SETTINGS_PATH, folderSettingsFiles, layersWithHiddenValues, mergedSettingValue, type SettingLayerRead,
} from '../core/app/settingsFiles';
import { readFileBytes } from './mcpFiles';

/** One layer of a setting (`dsh.lsp.servers`, `dsh.tools`) as VS Code's `inspect` reports it, with the file that holds it. */
export interface SettingLayer extends SettingLayerRead {
  /** The settings file of this layer; undefined for the default and when it cannot be located. `file`: its URI string. */
  uri?: vscode.Uri;
}

/**
 * The user settings file. VS Code does not expose its path; it is `<user data>/User/settings.json`,
 * and the extension's global storage is `<user data>/User/globalStorage/<extension id>`.
 * Best effort: a profile keeps its settings elsewhere; then user-level problems are not placed.
 */
export function userSettingsUri(globalStorageUri: vscode.Uri): vscode.Uri {
  return vscode.Uri.joinPath(globalStorageUri, '..', '..', 'settings.json');
}

/** Whether the window is a multi-root workspace (a saved `.code-workspace` file), and that file. */
function workspaceFileOf(): { multiRoot: boolean; workspaceFile?: vscode.Uri } {
  const workspaceFile = vscode.workspace.workspaceFile;
  return workspaceFile !== undefined && workspaceFile.scheme !== 'untitled' ? { multiRoot: true, workspaceFile } : { multiRoot: false };
}

/**
 * The settings files of a folder's layers as the declaration pins them (the core's list, of the
 * files that are local): an edit of a session setting in one of them makes the declaration stale.
 */
export function settingsFileRefs(userSettings: vscode.Uri | undefined): Array<{ path: string; layer: 'user' | 'workspace' | 'folder' }> {
  const { multiRoot, workspaceFile } = workspaceFileOf();
  const local = (uri: vscode.Uri | undefined) => (uri?.scheme === 'file' ? uri.fsPath : undefined);
  return folderSettingsFiles({ user: local(userSettings), codeWorkspace: local(workspaceFile), multiRoot, folder: FOLDER_SETTINGS_PATH })
    .map(({ level, file }) => ({ path: file, layer: level }));
}

/** The layers of a setting for a folder, lowest priority first (default, user, workspace, folder), each with the core's file of its layer. */
function settingLayers(folder: vscode.WorkspaceFolder, userSettings: vscode.Uri | undefined, setting: string): SettingLayer[] {
  const inspected = vscode.workspace.getConfiguration(undefined, folder.uri).inspect<unknown>(setting);
  const folderSettings = vscode.Uri.joinPath(folder.uri, FOLDER_SETTINGS_PATH);
  const { multiRoot, workspaceFile } = workspaceFileOf();
  const files = folderSettingsFiles({ user: userSettings, codeWorkspace: workspaceFile, multiRoot, folder: folderSettings });
  const workspace = files.find((f) => f.level === 'workspace');
  const at = (uri: vscode.Uri | undefined) => (uri ? { uri, file: uri.toString() } : {});
  return [
    { name: 'default', value: inspected?.defaultValue, kind: 'settings' },
    { name: 'user', value: inspected?.globalValue, ...at(userSettings), kind: 'settings' },
    { name: 'workspace', value: inspected?.workspaceValue, ...at(workspace?.file), kind: workspace?.kind ?? 'settings' },
    { name: 'folder', value: inspected?.workspaceFolderValue, ...at(folderSettings), kind: 'settings' },
  ];
}

/**
 * {@link settingLayers} with the settings texts read. In Restricted Mode VS Code hides the
 * workspace values of a restricted setting (`dsh.lsp.servers` is one) from extensions; they are
 * then read from the files themselves, so the problems still show (nothing is exported there).
 */
export async function loadSettingLayers(folder: vscode.WorkspaceFolder, userSettings: vscode.Uri | undefined, setting: string): Promise<{ layers: SettingLayer[]; texts: Map<string, string | undefined> }> {
  const layers = settingLayers(folder, userSettings, setting);
  const texts = new Map<string, string | undefined>();
  for (const layer of layers) {
    if (layer.uri && layer.file !== undefined && !texts.has(layer.file)) texts.set(layer.file, await readText(layer.uri));
  }
  return { layers: vscode.workspace.isTrusted ? layers : layersWithHiddenValues(layers, texts, setting), texts };
}

/** The effective value, merged from the layers as VS Code merges an object setting. */
export function mergedValue(layers: readonly SettingLayer[]): unknown {
  return mergedSettingValue(layers);
}

async function readText(uri: vscode.Uri): Promise<string | undefined> {
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString() && !d.isDirty);
  if (open) return open.getText();
  const bytes = await readFileBytes(uri);
  return bytes && Buffer.from(bytes).toString('utf8');
}

/**
 * A `locate` for `placeSettingProblems`: the file of the highest layer that defines each path.
 * `SettingsSource.file` is the file's URI string; `texts` come from {@link loadSettingLayers}.
 */
export function settingLocator(layers: readonly SettingLayer[], texts: ReadonlyMap<string, string | undefined>): (path: JsonPath) => SettingsSource | undefined {
  return (path) => {
    const defining = definingSettingLayer(layers, texts, path);
    return defining?.layer.file === undefined ? undefined : { file: defining.layer.file, text: defining.text, kind: defining.layer.kind };
  };
}
