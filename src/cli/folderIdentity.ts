import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeValue, parseJsonc, propertyValue } from '../core/json/jsonTree';
import { MAX_SOURCE_BYTES, readRegularFile, readWorkspaceFile } from '../core/node/reader';
import { readFailureReason } from '../core/problems/readFailure';
import {
  readSetting, SETTING, SETTING_SCHEMAS, settingLayersFromFiles, settingsViewFromFiles, type FolderIdentity, type SettingsFileLayer,
} from '../core/settings/folderSettings';
import { CommandUsageError, type CliIo } from './context';

/**
 * The folder and the settings the editor would see for it, from the files a CLI can read: the
 * user settings file (given), the .code-workspace file (given) and the folder's own
 * `.vscode/settings.json`. A given file is read as every source is: a regular file only (a FIFO
 * or a device is refused without waiting on it) of at most 1 MiB; one that cannot be read so is a
 * usage error.
 */
export async function folderIdentity(folder: string, codeWorkspace: string | undefined, userSettings: string | undefined, io: CliIo): Promise<{ identity: FolderIdentity; userHomeSetting?: string }> {
  const given = async (file: string, option: string) => {
    const read = await readRegularFile(file, MAX_SOURCE_BYTES);
    if (!read.ok) throw new CommandUsageError(`${option} ${file} cannot be read (${readFailureReason(read.failure, MAX_SOURCE_BYTES)})`);
    return Buffer.from(read.bytes).toString('utf8');
  };
  const layers: SettingsFileLayer[] = [];
  if (userSettings !== undefined) layers.push({ level: 'user', kind: 'settings', text: await given(userSettings, '--user-settings'), file: path.resolve(userSettings) });
  let folderName = path.basename(folder);
  if (codeWorkspace !== undefined) {
    const text = await given(codeWorkspace, '--code-workspace');
    layers.push({ level: 'workspace', kind: 'code-workspace', text, file: path.resolve(codeWorkspace) });
    const entry = workspaceFolderEntry(text, path.dirname(path.resolve(codeWorkspace)), folder);
    if (!entry) throw new CommandUsageError(`${codeWorkspace} does not list the folder ${folder}`);
    folderName = entry.name ?? folderName;
  }
  const settings = await readWorkspaceFile(folder, '.vscode/settings.json');
  if (settings.ok) layers.push({ level: codeWorkspace ? 'folder' : 'workspace', kind: 'settings', text: Buffer.from(settings.bytes).toString('utf8'), file: '.vscode/settings.json' });
  const view = settingsViewFromFiles(layers);
  const reported = new Set<string>();
  const invalidSetting = (key: string) => {
    if (reported.has(key)) return;
    reported.add(key);
    io.err(`dsh-bridge: setting ${key} has an invalid value; its default is used`);
  };
  const home = readSetting(view, SETTING.home, SETTING_SCHEMAS.home, '', invalidSetting);
  return {
    identity: { folder, folderName, userHome: os.homedir(), settings: view, settingLayers: settingLayersFromFiles(layers), invalidSetting, ...(codeWorkspace !== undefined ? { codeWorkspaceFile: path.resolve(codeWorkspace) } : {}) },
    userHomeSetting: home.trim() === '' ? undefined : home,
  };
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
