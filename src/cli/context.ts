import type { FolderIdentity } from '../core/settings/folderSettings';

/** What main.ts hands a command module: its arguments, the common options, and where to print. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

export interface CommandContext {
  /** Positionals after the command word. */
  args: string[];
  folder: string;
  dshHome: string;
  json: boolean;
  /** Every parsed option (the module's own ones included). */
  options: Readonly<Record<string, unknown>>;
  io: CliIo;
  /** The folder with the settings the editor would see for it (--user-settings, --code-workspace, .vscode/settings.json). */
  identity?: FolderIdentity;
}

/** A usage mistake inside a command module: exit 2, with the module's own usage line. */
export class CommandUsageError extends Error {}

export const stringList = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : typeof value === 'string' ? [value] : []);
