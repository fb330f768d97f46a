import type { NodePorts } from '../core/node/ports';
import type { FolderIdentity } from '../core/settings/folderSettings';

/** Where a command prints: stdout and stderr, one line per call. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

/** What main.ts hands a command module: its arguments, the common options, the ports and where to print. */
export interface CommandContext {
  /** The command word. */
  command: string;
  /** Positionals after the command word. */
  args: string[];
  folder: string;
  dshHome: string;
  json: boolean;
  /** Every parsed option (the module's own ones included). */
  options: Readonly<Record<string, unknown>>;
  io: CliIo;
  /** The folder with the settings the editor would see for it (--user-settings, --code-workspace, .vscode/settings.json). */
  identity: FolderIdentity;
  /** The use cases' ports, built once for this run (the one host store of the DSH home). */
  ports: NodePorts;
}

/** A usage mistake: exit 2, with the usage text. */
export class CommandUsageError extends Error {}

/** A command that cannot do what was asked, for a reason the user can mend (said as it is, exit 1; not an internal error). */
export class CommandFailure extends Error {}

export const stringList = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : typeof value === 'string' ? [value] : []);

/** Refuses positionals for a command that takes none. */
export function expectNoArgs(ctx: Pick<CommandContext, 'args' | 'command'>): void {
  if (ctx.args.length) throw new CommandUsageError(`"${ctx.command}" takes no argument`);
}
