/**
 * A workspace folder and its settings as a face sees them ({@link FolderIdentity}), and what the
 * faces read of them: the CLI from the settings files it is given ({@link readFolderIdentity}),
 * the editor from its configuration ({@link editorFolderSettings}, {@link editorPolicySettings},
 * {@link machineSettings}). The settings contract is core/settings/folderSettings. Never throws.
 */
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as z from 'zod/mini';
import { nodeValue, parseJsonc, propertyValue } from '../json/jsonTree';
import { MAX_SOURCE_BYTES, readFailureReason } from '../problems/readFailure';
import { policyValueFromEffective } from '../policy/editorPolicy';
import {
  folderAnalyzeOptions, readCustomSkillRoots, readExportSettings, readSetting, SETTING, SETTING_SCHEMAS, settingLayersFromFiles, settingsViewFromFiles, TRUST_MODES,
  type ExportSettings, type FolderIdentity, type InvalidSetting, type SettingsFileLayer, type SettingsView, type TrustMode,
} from '../settings/folderSettings';
import type { AnalyzeOptions } from '../mcp/analyzeOptions';
import { FOLDER_SETTINGS_PATH, folderSettingsFiles } from './settingsFiles';
import type { FilePort, PolicyPort } from './ports';

/** What reading a folder's settings files needs: a CLI has these before it knows its DSH home. */
export interface SettingsFilesPorts {
  files: Pick<FilePort, 'readRegularFile' | 'readWorkspaceFile'>;
  policy: Pick<PolicyPort, 'vscodePolicyFile' | 'readVscodePolicyFile'>;
  home: string;
}

/** The settings files a CLI is given (absolute or relative to the working directory). */
export interface GivenSettingsFiles {
  codeWorkspace?: string;
  userSettings?: string;
  /** VS Code's policy file; default: where VS Code reads it on Linux. */
  vscodePolicy?: string;
}

export type FolderIdentityRead =
  | { ok: true; identity: FolderIdentity; userHomeSetting?: string }
  /** `message`: which and why; `cause` `given`: a file the caller named cannot be used (its usage), `failure`: anything else. */
  | { ok: false; message: string; cause: 'given' | 'failure' };

/**
 * The folder and the settings the editor would see for it, from the files a CLI can read: the
 * user settings file (given), the .code-workspace file (given), the folder's own
 * `.vscode/settings.json` and VS Code's policy file (given, or VS Code's on Linux). A given file is
 * read as every source is: a regular file only (a FIFO or a device is refused without waiting on
 * it) of at most 1 MiB. `warn` hears what is used otherwise than written (a policy file that cannot
 * be used, a setting whose invalid value falls back to its default, once each).
 */
export async function readFolderIdentity(ports: SettingsFilesPorts, folder: string, given: GivenSettingsFiles, warn: (message: string) => void): Promise<FolderIdentityRead> {
  try {
    const files = folderSettingsFiles({
      user: given.userSettings === undefined ? undefined : { path: path.resolve(given.userSettings), option: '--user-settings' },
      codeWorkspace: given.codeWorkspace === undefined ? undefined : { path: path.resolve(given.codeWorkspace), option: '--code-workspace' },
      folder: { path: FOLDER_SETTINGS_PATH, option: undefined },
    });
    const layers: SettingsFileLayer[] = [];
    for (const { level, kind, file } of files) {
      if (file.option === undefined) {
        // The folder's own, through the confined reader: it may not exist.
        const read = await ports.files.readWorkspaceFile(folder, file.path);
        if (read.ok) layers.push({ level, kind, text: Buffer.from(read.bytes).toString('utf8'), file: file.path });
        continue;
      }
      const read = await ports.files.readRegularFile(file.path, MAX_SOURCE_BYTES);
      if (!read.ok) return { ok: false, cause: 'given', message: `${file.option} ${file.path} cannot be read (${readFailureReason(read.failure, MAX_SOURCE_BYTES)})` };
      layers.push({ level, kind, text: Buffer.from(read.bytes).toString('utf8'), file: file.path });
    }
    let folderName = path.basename(folder);
    const workspaceLayer = layers.find((l) => l.kind === 'code-workspace');
    if (given.codeWorkspace !== undefined && workspaceLayer) {
      const entry = workspaceFolderEntry(workspaceLayer.text, path.dirname(path.resolve(given.codeWorkspace)), folder);
      if (!entry) return { ok: false, cause: 'given', message: `${given.codeWorkspace} does not list the folder ${folder}` };
      folderName = entry.name ?? folderName;
    }
    const filesView = settingsViewFromFiles(layers);
    const layerValues = settingLayersFromFiles(layers);
    // VS Code's policy file: a policy value overrides every settings level, as in the editor.
    const policyFile = await ports.policy.readVscodePolicyFile(path.resolve(given.vscodePolicy ?? ports.policy.vscodePolicyFile));
    if (policyFile.error) warn(`VS Code's policy file ${policyFile.path} cannot be used (${policyFile.error}); as in VS Code, none of it applies`);
    const policy = (key: string) => (Object.hasOwn(policyFile.values, key) ? structuredClone(policyFile.values[key]) : undefined);
    const view: SettingsView = (key) => policy(key) ?? filesView(key);
    const reported = new Set<string>();
    const invalidSetting = (key: string) => {
      if (reported.has(key)) return;
      reported.add(key);
      warn(`setting ${key} has an invalid value; its default is used`);
    };
    const home = readSetting(view, SETTING.home, SETTING_SCHEMAS.home, '', invalidSetting);
    return {
      ok: true,
      identity: {
        folder, folderName, userHome: ports.home, settings: view, settingLayers: layerValues, invalidSetting, ...(given.codeWorkspace !== undefined ? { codeWorkspaceFile: path.resolve(given.codeWorkspace) } : {}),
        // The files of the layers, pinned by the export (the folder's own also when it does not exist yet).
        settingsFiles: files.map(({ level, file }) => ({ path: file.path, layer: level })),
        policySettings: { policy, layers: (key) => layerValues(key).map((l) => l.value) },
        vscodePolicyFile: { path: policyFile.path, sha256: policyFile.sha256 },
      },
      ...(home.trim() === '' ? {} : { userHomeSetting: home }),
    };
  } catch (error) {
    return { ok: false, cause: 'failure', message: `the settings of ${folder} cannot be read (${error instanceof Error ? error.message : String(error)})` };
  }
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

/** The folder's settings the editor's features read, each checked against its schema (an invalid one: its default, reported). */
export interface EditorFolderSettings {
  settings: ExportSettings & { auto: 'off' | 'onSave' };
  /** What the core needs to analyze the folder's MCP sources. */
  analyzeOptions: AnalyzeOptions;
  /** `dsh.skills.customRoots` (machine scope: only user or remote settings can set it). */
  customSkillRoots: string[];
}

export function editorFolderSettings(identity: FolderIdentity, invalid: InvalidSetting): EditorFolderSettings {
  const view = identity.settings;
  return {
    settings: { auto: readSetting(view, SETTING.auto, SETTING_SCHEMAS.auto, 'off', invalid), ...readExportSettings(view, invalid) },
    analyzeOptions: folderAnalyzeOptions(identity),
    customSkillRoots: readCustomSkillRoots(view, invalid),
  };
}

/** The machine's settings in the editor: `dsh.trustMode` and `dsh.home` as written (blank: not set). */
export function machineSettings(view: SettingsView, invalid: InvalidSetting): { trustMode: TrustMode; home: string } {
  const home = readSetting(view, SETTING.home, SETTING_SCHEMAS.home, '', invalid);
  return { trustMode: readSetting(view, SETTING.trustMode, z.enum(TRUST_MODES), 'ask', invalid), home };
}

/** One setting as the editor's configuration reports it: the effective value, and each level's. */
export interface InspectedSetting {
  effective: unknown;
  user?: unknown;
  workspace?: unknown;
  folder?: unknown;
}

/**
 * The policy settings beyond their effective values: the editor's API returns a policy's value when
 * one is set but has no policy value of its own; it is told from the user's (see
 * policyValueFromEffective). Each level's value serves the deny entries of allowManagedServersOnly.
 */
export function editorPolicySettings(inspect: (key: string) => InspectedSetting): NonNullable<FolderIdentity['policySettings']> {
  return {
    policy: (key) => {
      const setting = inspect(key);
      return policyValueFromEffective(setting.effective, setting.user);
    },
    layers: (key) => {
      const setting = inspect(key);
      return [setting.user, setting.workspace, setting.folder];
    },
  };
}
