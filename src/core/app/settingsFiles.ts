/**
 * The settings files of a folder's layers as the declaration pins them (core/settings/sessionSettings):
 * the export pins them, verify reads them again. Read as sources are: a folder file through the
 * confined reader, a file outside the folder (user settings, the `.code-workspace` file) as a regular file.
 */
import * as path from 'node:path';
import type { FolderIdentity } from '../settings/folderSettings';
import { changedSettings, pinSettingsFile, type SettingsFilePin, type SettingsFileRef } from '../settings/sessionSettings';
import { readSource } from './folderSources';
import type { Ports } from './ports';

export const FOLDER_SETTINGS_PATH = '.vscode/settings.json';

/** The files a face reads the folder's settings layers from (see {@link FolderIdentity.settingsFiles}). */
export function settingsFilesOf(identity: Pick<FolderIdentity, 'settingsFiles' | 'codeWorkspaceFile'>): SettingsFileRef[] {
  if (identity.settingsFiles) return identity.settingsFiles.map((f) => ({ path: path.isAbsolute(f.path) ? path.resolve(f.path) : f.path, layer: f.layer }));
  return [{ path: FOLDER_SETTINGS_PATH, layer: identity.codeWorkspaceFile ? 'folder' : 'workspace' }];
}

type Read = { pin: SettingsFilePin } | { unreadable: string };

async function readPin(ports: Pick<Ports, 'files'>, folder: string, ref: SettingsFileRef): Promise<Read> {
  const read = await readSource(ports, folder, ref.path);
  if (read.ok) return { pin: pinSettingsFile(ref, read.bytes) };
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
  for (const pinned of pins) {
    const read = await readPin(ports, folder, pinned);
    if ('unreadable' in read) changes.push({ path: pinned.path, unreadable: read.unreadable });
    else {
      const settings = changedSettings(pinned.settings, read.pin.settings);
      if (settings.length) changes.push({ path: pinned.path, settings });
    }
  }
  return changes;
}
