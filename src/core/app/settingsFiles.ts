/**
 * The settings files of a folder's layers as the declaration pins them (core/settings/sessionSettings):
 * the export pins them, verify reads them again. Read as sources are: a folder file through the
 * confined reader, a file outside the folder (user settings, the `.code-workspace` file) as a regular file.
 */
import * as path from 'node:path';
import type { VerifyResult } from '../declaration/declarationModel';
import { decodeText, EMPTY_RANGE } from '../json/text';
import { formatMessage, type Problem } from '../problems/problems';
import { FOLDER_SETTINGS_PATH, folderSettingsFiles, type FolderIdentity } from '../settings/folderSettings';
import { settingRange, type JsonPath, type SettingsFileKind } from '../settings/settingsFile';
import { definingLayer, mergeSettingLayers, settingValueInText } from '../settings/settingLayers';
import { changedSettings, pinSettingsFile, SESSION_SETTING_PROBLEM_CODES, SESSION_SETTINGS, settingsFileKind, type SettingsFilePin, type SettingsFileRef } from '../settings/sessionSettings';
import { deepFreeze, KeptByBytes } from '../json/keptByBytes';
import { readSource } from './folderSources';
import type { Ports } from './ports';

/** The settings files of a folder, in layer order: the one list every face reads and pins (re-exported for the faces). */
export { FOLDER_SETTINGS_PATH, folderSettingsFiles };

/** The files a face reads the folder's settings layers from (see {@link FolderIdentity.settingsFiles}). */
export function settingsFilesOf(identity: Pick<FolderIdentity, 'settingsFiles' | 'codeWorkspaceFile'>): SettingsFileRef[] {
  if (identity.settingsFiles) return identity.settingsFiles.map((f) => ({ path: path.isAbsolute(f.path) ? path.resolve(f.path) : f.path, layer: f.layer }));
  // A face that names no files: the folder's own (the only one the core can find by itself).
  return folderSettingsFiles({ folder: FOLDER_SETTINGS_PATH, multiRoot: identity.codeWorkspaceFile !== undefined }).map((f) => ({ path: f.file, layer: f.level }));
}

/** One layer of a setting as a face reads it: its value, and the settings file that holds it (a face's key of it, absent: none). */
export interface SettingLayerRead {
  name: 'default' | 'user' | 'workspace' | 'folder';
  value: unknown;
  file?: string;
  kind: SettingsFileKind;
}

/**
 * The layers with the workspace and folder values read from their files' `texts` (by file) where
 * the face was not given them: in Restricted Mode VS Code hides a restricted setting's workspace
 * values (`dsh.lsp.servers` is one) from extensions, and its problems must still show.
 */
export function layersWithHiddenValues<L extends SettingLayerRead>(layers: readonly L[], texts: ReadonlyMap<string, string | undefined>, setting: string): L[] {
  const seen = new Set<string>();
  const filled = [...layers];
  for (let i = filled.length - 1; i >= 0; i--) {
    const layer = filled[i];
    if ((layer.name !== 'workspace' && layer.name !== 'folder') || layer.file === undefined || layer.value !== undefined) continue;
    if (seen.has(layer.file)) continue; // single-folder: workspace and folder are the same file
    seen.add(layer.file);
    const text = texts.get(layer.file);
    if (text !== undefined) filled[i] = { ...layer, value: settingValueInText(text, layer.kind, setting) };
  }
  return filled;
}

/** The effective value, merged from the layers (lowest priority first) as VS Code merges an object setting. */
export function mergedSettingValue(layers: readonly Pick<SettingLayerRead, 'value'>[]): unknown {
  return mergeSettingLayers(layers.map((l) => l.value));
}

/** The layer whose file defines `path`, the highest that does, with that file's text; undefined: none, or its text is unknown. */
export function definingSettingLayer<L extends SettingLayerRead>(layers: readonly L[], texts: ReadonlyMap<string, string | undefined>, path: JsonPath): { layer: L; text: string } | undefined {
  const index = definingLayer(layers.map((l) => l.value), path);
  if (index === undefined) return undefined;
  const layer = layers[index];
  const text = layer.file === undefined ? undefined : texts.get(layer.file);
  return text === undefined ? undefined : { layer, text };
}

type Read = { pin: SettingsFilePin } | { unreadable: string };

/** The settings files pinned, by file and bytes: verify pins each one again at every model step (the user's settings.json too). Frozen: shared. */
const pinnedSettings = new KeptByBytes<SettingsFilePin>(32);

async function readPin(ports: Pick<Ports, 'files'>, folder: string, ref: SettingsFileRef): Promise<Read> {
  const read = await readSource(ports, folder, ref.path);
  if (read.ok) return { pin: pinnedSettings.of(`${ref.layer} ${ref.path}`, read.bytes, () => deepFreeze(pinSettingsFile(ref, read.bytes))) };
  if (read.failure.kind === 'missing') return { pin: pinSettingsFile(ref, undefined) };
  return { unreadable: read.failure.kind };
}

/** The pins of the files (a file that cannot be read is left out: it gives the face no settings either). */
export async function pinSettingsFiles(ports: Pick<Ports, 'files'>, folder: string, refs: readonly SettingsFileRef[]): Promise<SettingsFilePin[]> {
  const pins: SettingsFilePin[] = [];
  for (const ref of refs) {
    const read = await readPin(ports, folder, ref);
    if ('pin' in read) pins.push(read.pin);
  }
  return pins;
}

/** A pinned settings file that is no longer as pinned: the settings that changed, or why it cannot be read. */
export type SettingsFileChange = { path: string; settings: string[] } | { path: string; unreadable: string };

/** Every pinned settings file whose session settings changed since the export (or that cannot be read now). */
export async function changedSettingsFiles(ports: Pick<Ports, 'files'>, folder: string, pins: readonly SettingsFilePin[]): Promise<SettingsFileChange[]> {
  const changes: SettingsFileChange[] = [];
  const reads = await Promise.all(pins.map((pinned) => readPin(ports, folder, pinned)));
  for (const [i, pinned] of pins.entries()) {
    const read = reads[i];
    if ('unreadable' in read) changes.push({ path: pinned.path, unreadable: read.unreadable });
    else {
      const settings = changedSettings(pinned.settings, read.pin.settings);
      if (settings.length) changes.push({ path: pinned.path, settings });
    }
  }
  return changes;
}

/**
 * The problem of each session setting whose edit made the declaration stale, on the setting's key
 * in the settings file that changed as VS Code writes it, dotted (at the file's start when the edit
 * removed it or nested it), with the file's
 * absolute path. Made from the verify reasons of the plan, so a face shows them exactly while its
 * status says stale. Never throws (a file that cannot be read now gets its problems at its start).
 */
export async function staleSettingProblems(ports: Pick<Ports, 'files'>, declaration: { folder?: string; reasons: VerifyResult['reasons'] }): Promise<Problem[]> {
  const { folder } = declaration;
  if (folder === undefined) return [];
  const byFile = new Map<string, string[]>();
  for (const r of declaration.reasons) {
    if (r.code !== 'stale' || r.editorOnly || r.file === undefined || r.setting === undefined || !SESSION_SETTINGS.includes(r.setting)) continue;
    byFile.set(r.file, [...(byFile.get(r.file) ?? []), r.setting]);
  }
  const code = 'declaration-stale-setting';
  const [severity, template] = SESSION_SETTING_PROBLEM_CODES[code];
  const problems: Problem[] = [];
  for (const [file, settings] of byFile) {
    const text = await readText(ports, folder, file);
    for (const setting of settings) {
      const range = (text === undefined ? undefined : settingRange(text, settingsFileKind(file), [setting], 'key')) ?? EMPTY_RANGE;
      const args = { setting };
      problems.push({ code, severity, message: formatMessage(template, args), args, file: path.resolve(folder, file), range });
    }
  }
  return problems;
}

async function readText(ports: Pick<Ports, 'files'>, folder: string, file: string): Promise<string | undefined> {
  try {
    const read = await readSource(ports, folder, file);
    const decoded = read.ok ? decodeText(read.bytes) : undefined;
    return decoded?.ok ? decoded.text : undefined;
  } catch {
    return undefined;
  }
}
