/**
 * The settings that change what a DSH session gets (`dsh.tools`, `dsh.lsp.servers`,
 * `dsh.skills.customRoots`, the `dsh.export.*` values every row carries), pinned per settings file: the export records, for
 * each file a face reads a layer from, the SHA-256 of each of these settings' value in that file;
 * `verify` reads the same files again (every face can: they are files, not the editor's memory)
 * and reports `stale`, naming the file and the setting, when one of them changed.
 * Pure; never throws.
 */
import { canonicalHash } from '../json/canonicalJson';
import { decodeText } from '../json/text';
import type { Severity } from '../problems/problems';
import { SETTING, settingLayersFromFiles, type SettingsFileLayer } from './folderSettings';

/**
 * The settings pinned, in the order they are reported: those that change what a session gets.
 * `dsh.export.auto` is not one (it says when the editor exports, not what).
 */
export const SESSION_SETTINGS: readonly string[] = [
  SETTING.tools, SETTING.lspServers, SETTING.customSkillRoots, SETTING.toolCallTimeoutMs, SETTING.failOnStartupError, SETTING.reconnect,
];

/** The problem on a session setting whose edit since the export made the declaration stale. */
export const SESSION_SETTING_PROBLEM_CODES = {
  'declaration-stale-setting': ['warning', '{setting} changed in this file since the export, so the declaration is stale: DSH sessions get nothing from it until you export again.'],
} as const satisfies Record<string, readonly [Severity, string]>;

/** The layer of a settings file, and the file (absolute, or relative to the folder: `.vscode/settings.json`). */
export interface SettingsFileRef {
  path: string;
  layer: SettingsFileLayer['level'];
}

/** A settings file as the declaration pins it: each session setting it sets, with `sha256:` of its value. */
export interface SettingsFilePin extends SettingsFileRef {
  settings: Record<string, string>;
}

export function settingsFileKind(file: string): SettingsFileLayer['kind'] {
  return file.endsWith('.code-workspace') ? 'code-workspace' : 'settings';
}

/**
 * The session settings a settings file sets at its layer, each with the pin of its value, read
 * as VS Code reads the file (dotted keys, user-only settings dropped outside user settings).
 * `bytes` undefined: the file does not exist (it sets nothing).
 */
export function pinSettingsFile(ref: SettingsFileRef, bytes: Uint8Array | undefined): SettingsFilePin {
  const settings: Record<string, string> = {};
  const decoded = bytes === undefined ? undefined : decodeText(bytes);
  if (decoded?.ok) {
    const layerValue = settingLayersFromFiles([{ level: ref.layer, kind: settingsFileKind(ref.path), text: decoded.text }]);
    for (const key of SESSION_SETTINGS) {
      const value = layerValue(key)[0]?.value;
      if (value !== undefined) settings[key] = canonicalHash(value);
    }
  } else if (decoded) {
    settings['(text)'] = canonicalHash(Buffer.from(bytes!).toString('base64'));
  }
  return { path: ref.path, layer: ref.layer, settings };
}

/** The session settings whose pin differs between the export's record and now, sorted as {@link SESSION_SETTINGS}. */
export function changedSettings(pinned: Readonly<Record<string, string>>, now: Readonly<Record<string, string>>): string[] {
  const keys = new Set([...Object.keys(pinned), ...Object.keys(now)]);
  const order = (key: string) => (SESSION_SETTINGS.includes(key) ? SESSION_SETTINGS.indexOf(key) : SESSION_SETTINGS.length);
  return [...keys]
    .filter((key) => (Object.hasOwn(pinned, key) ? pinned[key] : undefined) !== (Object.hasOwn(now, key) ? now[key] : undefined))
    .sort((a, b) => order(a) - order(b) || a.localeCompare(b));
}
