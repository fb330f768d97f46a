import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { ExportError } from '../core/app/export';
import { visibleJson, visibleText } from '../core/json/visibleText';
import { HostStoreError, resolveDshHome } from '../core/node/hostStore';
import { nodePorts } from '../core/node/ports';
import { probeRowOnDemand } from '../core/node/probe/probeOnDemand';
import { commandHelp, COMMANDS, COMMANDS_USAGE } from './commands';
import { CommandFailure, CommandUsageError, type CliIo } from './context';
import { folderIdentity } from './folderIdentity';
import { globalOptionsHelp, OPTIONS } from './options';

const USAGE = `Usage: dsh-bridge <command> [options]

Commands:
${COMMANDS_USAGE}

${globalOptionsHelp()}

Settings (dsh.export.*, dsh.lsp.servers, dsh.skills.customRoots, \${config:...}) are read as the
editor merges them: --user-settings, then --code-workspace, then <folder>/.vscode/settings.json.
dsh.tools is read from each of them apart: every one only narrows.

Exit codes: 0 success; 1 the source or declaration could not be used; 2 usage error.`;

const VERSION = '0.1.0';

/** A stream whose reader went away (`dsh-bridge check | head`): later writes are dropped, and the
 *  command still finishes with its own exit code instead of dying of an unhandled EPIPE. */
function writerOf(stream: NodeJS.WriteStream): (text: string) => void {
  let closed = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    closed = true;
  });
  return (text) => {
    if (!closed) stream.write(`${text}\n`);
  };
}

const processIo: CliIo = {
  out: writerOf(process.stdout),
  err: writerOf(process.stderr),
};

/**
 * The terminal seam: whatever a command prints, nothing hidden in a file, a server's answer or
 * an error reaches the terminal raw. Text keeps its line breaks (a value that must stay on one
 * line is made so where its line is formed); a JSON line keeps its value, with hidden characters
 * as JSON escapes. Text already shown passes unchanged.
 */
function shownIo(io: CliIo, json: boolean): CliIo {
  return {
    out: (text) => io.out(json ? visibleJson(text) : visibleText(text)),
    err: (text) => io.err(visibleText(text)),
  };
}

/** The one JSON object a failed run prints for a caller that asked for JSON. */
const failureJson = (message: string) => JSON.stringify({ declaration: null, servers: [], rejected: [], problems: [], error: message });

export async function main(argv: string[], terminal: CliIo = processIo): Promise<number> {
  let io = shownIo(terminal, argv.includes('--json'));
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: OPTIONS,
    });
  } catch (error) {
    return usageError((error as Error).message, argv.includes('--json'), io, argv.find((a) => Object.hasOwn(COMMANDS, a)));
  }
  const { values, positionals } = parsed;
  if (values.help) {
    // `dsh-bridge <command> --help`: that command's help; otherwise the global one.
    const name = positionals[0];
    io.out(name !== undefined && Object.hasOwn(COMMANDS, name) ? commandHelp(name, COMMANDS[name]) : USAGE);
    return 0;
  }
  if (values.version) {
    io.out(VERSION);
    return 0;
  }
  const [command, ...args] = positionals;
  const json = values.json === true;
  io = shownIo(terminal, json);
  try {
    if (command === undefined) throw new CommandUsageError('a command is required');
    if (!Object.hasOwn(COMMANDS, command)) throw new CommandUsageError(`unknown command "${command}"`);
    // Forgetting what the host store keeps for a folder works after the folder is gone.
    const storeOnly = (command === 'inputs' && args[0] === 'forget') || command === 'sessions';
    if (values.workspace !== undefined && !storeOnly) checkWorkspace(values.workspace);
    const { identity, userHomeSetting } = await folderIdentity(path.resolve(values.workspace ?? process.cwd()), values['code-workspace'], values['user-settings'], io, values['vscode-policy'], values['managed-settings']);
    const dshHome = resolveDshHome(values['dsh-home'] ?? userHomeSetting);
    const managedSettingsFile = values['managed-settings'] === undefined ? undefined : path.resolve(values['managed-settings']);
    const ports = nodePorts({ dshHome, probeRow: probeRowOnDemand, ...(managedSettingsFile ? { managedSettingsFile } : {}) });
    return await COMMANDS[command].run({ command, args, folder: identity.folder, dshHome, json, options: values, io, identity, ports });
  } catch (error) {
    if (error instanceof CommandUsageError) return usageError(error.message, json, io, command !== undefined && Object.hasOwn(COMMANDS, command) ? command : undefined);
    if (error instanceof ExportError || error instanceof HostStoreError || error instanceof CommandFailure) {
      if (json) io.out(failureJson(error.message));
      io.err(`dsh-bridge: ${error.message}`);
      return 1;
    }
    // A bug, not an input problem: still one JSON object for a caller that asked for one.
    const message = `internal error: ${(error as Error)?.message ?? String(error)}`;
    if (json) io.out(failureJson(message));
    io.err(`dsh-bridge: ${message}`);
    return 1;
  }
}

/**
 * Usage errors exit 2 with one line and where to read more: the whole usage only when no command
 * was named. With --json they still print the one JSON object.
 */
function usageError(message: string, json: boolean, io: CliIo, command: string | undefined): number {
  if (json) io.out(failureJson(message));
  if (command !== undefined) io.err(`dsh-bridge: ${message}\nRun "dsh-bridge ${command} --help" for its usage.`);
  else io.err(`dsh-bridge: ${message}\n\n${USAGE}`);
  return 2;
}

/** A --workspace that cannot be a workspace folder, said as what it is (not as a missing mcp.json inside it). */
function checkWorkspace(given: string): void {
  const folder = path.resolve(given);
  let stat;
  try {
    stat = fs.statSync(folder);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CommandFailure(code === 'ENOENT' || code === 'ENOTDIR' ? `--workspace ${folder}: no such folder` : `--workspace ${folder}: cannot be read (${code ?? (error as Error).message})`);
  }
  if (!stat.isDirectory()) throw new CommandFailure(`--workspace ${folder}: a file, not a folder`);
  try {
    fs.readdirSync(folder);
  } catch (error) {
    throw new CommandFailure(`--workspace ${folder}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`dsh-bridge: internal error: ${(error as Error)?.message ?? String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
