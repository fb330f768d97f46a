import * as os from 'node:os';
import * as path from 'node:path';
import { readFolderIdentity } from '../core/app/folderIdentity';
import { readRegularFile, readWorkspaceFile } from '../core/node/reader';
import { readVscodePolicyFile, VSCODE_POLICY_FILE } from '../core/node/policyFiles';
import type { FolderIdentity, SettingsView } from '../core/settings/folderSettings';
import { CommandFailure, CommandUsageError, type CliIo } from './context';

/**
 * The folder and the settings the editor would see for it, from the files a CLI can read (the
 * core's readFolderIdentity); a given file that cannot be used is a usage error, any other failure
 * fails the command (exit 1, without the usage).
 */
export async function folderIdentity(folder: string, codeWorkspace: string | undefined, userSettings: string | undefined, io: CliIo, vscodePolicy?: string, managedSettings?: string): Promise<{ identity: FolderIdentity; userHomeSetting?: string }> {
  if (managedSettings !== undefined) {
    // A file the user named must be there: a missing one would read as "no managed settings".
    const given = await readRegularFile(path.resolve(managedSettings), 1024 * 1024);
    if (!given.ok) throw new CommandUsageError(`--managed-settings ${managedSettings} cannot be read (${given.failure.kind.replace(/-/g, ' ')})`);
  }
  // The readers this face has before it knows its DSH home (the settings may name it).
  const ports = { files: { readRegularFile, readWorkspaceFile }, policy: { vscodePolicyFile: VSCODE_POLICY_FILE, readVscodePolicyFile }, home: os.homedir() };
  const read = await readFolderIdentity(ports, folder, { codeWorkspace, userSettings, vscodePolicy }, (message) => io.err(`dsh-bridge: ${message}`));
  // A file the user named is a usage error (with the usage); anything else fails the command.
  if (!read.ok) throw read.cause === 'given' ? new CommandUsageError(read.message) : new CommandFailure(read.message);
  return read;
}

/** What verify needs of the folder's settings to see a change of the editor's policy. */
export function verifySettings(identity: FolderIdentity): { settings: SettingsView; policySettings?: FolderIdentity['policySettings']; vscodePolicyFile?: string } {
  return { settings: identity.settings, policySettings: identity.policySettings, ...(identity.vscodePolicyFile ? { vscodePolicyFile: identity.vscodePolicyFile.path } : {}) };
}
