import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeValue, parseJsonc, propertyValue } from '../core/json/jsonTree';
import { MAX_SOURCE_BYTES, readRegularFile, readWorkspaceFile } from '../core/node/reader';
import { readFailureReason } from '../core/problems/readFailure';
import { readVscodePolicyFile, VSCODE_POLICY_FILE } from '../core/node/policyFiles';
import {
  FOLDER_SETTINGS_PATH, folderSettingsFiles, readSetting, SETTING, SETTING_SCHEMAS, settingLayersFromFiles, settingsViewFromFiles, type FolderIdentity, type SettingsFileLayer, type SettingsView,
} from '../core/settings/folderSettings';
import { CommandUsageError, type CliIo } from './context';

/**
 * The folder and the settings the editor would see for it, from the files a CLI can read: the
 * user settings file (given), the .code-workspace file (given), the folder's own
 * `.vscode/settings.json` and VS Code's policy file (given, or VS Code's on Linux). A given file is read as every source is: a regular file only (a FIFO
 * or a device is refused without waiting on it) of at most 1 MiB; one that cannot be read so is a
 * usage error.
 */
export async function folderIdentity(folder: string, codeWorkspace: string | undefined, userSettings: string | undefined, io: CliIo, vscodePolicy?: string): Promise<{ identity: FolderIdentity; userHomeSetting?: string }> {
  const readGiven = async (file: string, option: string) => {
    const read = await readRegularFile(file, MAX_SOURCE_BYTES);
    if (!read.ok) throw new CommandUsageError(`${option} ${file} cannot be read (${readFailureReason(read.failure, MAX_SOURCE_BYTES)})`);
    return Buffer.from(read.bytes).toString('utf8');
  };
  // Each file of the layers, with how this face reads it: a given file as above, the folder's own
  // through the confined reader (it may not exist).
  const given = (file: string | undefined, option: string) => file === undefined ? undefined : { path: path.resolve(file), read: () => readGiven(file, option) };
  const files = folderSettingsFiles({
    user: given(userSettings, '--user-settings'),
    codeWorkspace: given(codeWorkspace, '--code-workspace'),
    folder: { path: FOLDER_SETTINGS_PATH, read: async () => {
      const read = await readWorkspaceFile(folder, FOLDER_SETTINGS_PATH);
      return read.ok ? Buffer.from(read.bytes).toString('utf8') : undefined;
    } },
  });
  const layers: SettingsFileLayer[] = [];
  for (const { level, kind, file } of files) {
    const text = await file.read();
    if (text !== undefined) layers.push({ level, kind, text, file: file.path });
  }
  let folderName = path.basename(folder);
  const workspaceLayer = layers.find((l) => l.kind === 'code-workspace');
  if (codeWorkspace !== undefined && workspaceLayer) {
    const entry = workspaceFolderEntry(workspaceLayer.text, path.dirname(path.resolve(codeWorkspace)), folder);
    if (!entry) throw new CommandUsageError(`${codeWorkspace} does not list the folder ${folder}`);
    folderName = entry.name ?? folderName;
  }
  const filesView = settingsViewFromFiles(layers);
  const layerValues = settingLayersFromFiles(layers);
  // VS Code's policy file: a policy value overrides every settings level, as in the editor.
  const policyFile = await readVscodePolicyFile(path.resolve(vscodePolicy ?? VSCODE_POLICY_FILE));
  if (policyFile.error) io.err(`dsh-bridge: VS Code's policy file ${policyFile.path} cannot be used (${policyFile.error}); as in VS Code, none of it applies`);
  const policy = (key: string) => (Object.hasOwn(policyFile.values, key) ? structuredClone(policyFile.values[key]) : undefined);
  const view: SettingsView = (key) => policy(key) ?? filesView(key);
  const reported = new Set<string>();
  const invalidSetting = (key: string) => {
    if (reported.has(key)) return;
    reported.add(key);
    io.err(`dsh-bridge: setting ${key} has an invalid value; its default is used`);
  };
  const home = readSetting(view, SETTING.home, SETTING_SCHEMAS.home, '', invalidSetting);
  return {
    identity: {
      folder, folderName, userHome: os.homedir(), settings: view, settingLayers: layerValues, invalidSetting, ...(codeWorkspace !== undefined ? { codeWorkspaceFile: path.resolve(codeWorkspace) } : {}),
      // The files of the layers, pinned by the export (the folder's own also when it does not exist yet).
      settingsFiles: files.map(({ level, file }) => ({ path: file.path, layer: level })),
      policySettings: { policy, layers: (key) => layerValues(key).map((l) => l.value) },
      vscodePolicyFile: { path: policyFile.path, sha256: policyFile.sha256 },
    },
    userHomeSetting: home.trim() === '' ? undefined : home,
  };
}

/** What verify needs of the folder's settings to see a change of the editor's policy. */
export function verifySettings(identity: FolderIdentity): { settings: SettingsView; policySettings?: FolderIdentity['policySettings']; vscodePolicyFile?: string } {
  return { settings: identity.settings, policySettings: identity.policySettings, ...(identity.vscodePolicyFile ? { vscodePolicyFile: identity.vscodePolicyFile.path } : {}) };
}

/** The entry of `folders` in a .code-workspace text that is `folder` (a `path`, relative to the file, or a `file:` `uri`). */
function workspaceFolderEntry(text: string, base: string, folder: string): { name?: string } | undefined {
  const folders = nodeValue(propertyValue(parseJsonc(text).root, 'folders'));
  if (!Array.isArray(folders)) return undefined;
  for (const entry of folders as unknown[]) {
    if (typeof entry !== 'object' || entry === null) continue;
    const { path: p, uri, name } = entry as { path?: unknown; uri?: unknown; name?: unknown };
    const location = typeof p === 'string' ? path.resolve(base, p) : typeof uri === 'string' && uri.startsWith('file:') ? fileUriPath(uri) : undefined;
    if (location !== undefined && path.resolve(location) === folder) return { name: typeof name === 'string' && name !== '' ? name : undefined };
  }
  return undefined;
}

function fileUriPath(uri: string): string | undefined {
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}
