import * as path from 'node:path';
import type { JsonPath } from '../settings/settingsFile';
import { lspProblem, type LspSettingProblem } from './lspCodes';

/** Resolves a bare command on PATH (or verifies an absolute one); `undefined` when not found. */
export type CommandResolver = (command: string, env: Readonly<Record<string, string>>) => string | undefined | Promise<string | undefined>;

/**
 * A server's command as DSH resolves it: an absolute path or a bare name found on PATH (with the
 * server's env); a relative path is refused. The problem, or undefined when the command is fine
 * or cannot be checked (no resolver, or `env` undefined: the server's env is not valid).
 */
export async function lspCommandProblem(
  command: string, env: Readonly<Record<string, string>> | undefined, at: JsonPath, id: string, resolveCommand: CommandResolver | undefined,
): Promise<LspSettingProblem | undefined> {
  if (!path.isAbsolute(command) && /[/\\]/.test(command)) {
    return lspProblem('lsp-relative-command', [...at, 'command'], 'value', { server: id, command }, id);
  }
  if (!resolveCommand || env === undefined) return undefined;
  const resolved = await resolveCommand(command, env);
  return resolved === undefined ? lspProblem('lsp-command-not-found', [...at, 'command'], 'value', { server: id, command }, id) : undefined;
}
