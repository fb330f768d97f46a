import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Analysis } from '../core/mcp/analyze';
import { ExportError, analyzeFolder, commitExport, verifyFolder } from '../core/app/export';
import { type VerifyResult } from '../core/declaration/declarationModel';
import { DECLARATION_PATH, type DeclaredServer } from '../core/declaration/declarationModel';
import { HostStore, HostStoreError, resolveDshHome } from '../core/node/hostStore';
import type { Problem } from '../core/problems/problems';
import { MAX_SOURCE_BYTES, readRegularFile, readWorkspaceFile } from '../core/node/reader';
import { readFailureReason } from '../core/problems/readFailure';
import { readVscodePolicyFile, VSCODE_POLICY_FILE } from '../core/node/policyFiles';
import { prepareFolderExport } from '../core/app/folderExport';
import {
  folderAnalyzeOptions, readSetting, SETTING, SETTING_SCHEMAS, settingLayerValues, settingLayersFromFiles, settingsViewFromFiles, type FolderIdentity, type SettingsFileLayer, type SettingsView,
} from '../core/settings/folderSettings';
import { nodeValue, parseJsonc, propertyValue } from '../core/json/jsonTree';
import { MODULE_COMMANDS, MODULE_OPTIONS, MODULE_USAGE } from './commands';
import { CommandUsageError } from './context';
import { dshOutlook } from '../core/app/dshOutlook';
import { policyWithheld } from '../core/app/policyWithheld';
import { folderSkills, printSkillGate } from './skills';
import { readSecret } from './readSecret';
import { countOf } from '../core/problems/plural';
import { checkToolChoice } from '../core/tools/toolChoice';
import { visibleJson, visibleLine, visibleText } from '../core/json/visibleText';
import { table } from './table';

const USAGE = `Usage: dsh-bridge <command> [options]

Commands:
  export   Write .dsh/declaration.json from .vscode/mcp.json
  check    Report problems only; writes nothing
  verify   Exit 0 only when the declaration is signed, intact and fresh
  inputs   Manage input values on this machine (never in the workspace):
             inputs set <id>      value read from stdin (masked on a terminal)
             inputs list          ids referenced by the declaration, stored or missing
             inputs forget [<id>] forget one value, or all of this folder's
${MODULE_USAGE}

Options:
  --workspace DIR        the workspace folder (default: the current directory)
  --code-workspace FILE  the .code-workspace file that holds the folder: its settings and
                         the folder's name apply, as in the editor
  --user-settings FILE   the editor's user settings.json: its settings apply, as in the editor
  --vscode-policy FILE   VS Code's policy file (default ${VSCODE_POLICY_FILE}, VS Code's on Linux):
                         its MCP policies override every settings file, as in the editor
  --dsh-home DIR         the DSH home (default: dsh.home of --user-settings, else $DSH_HOME,
                         else ~/.dsh)
  --dry-run              export: compute and report, write nothing
  --json                 print one JSON object (also on failure)
  -h, --help             this help
  -v, --version          the version

Settings (dsh.export.*, dsh.lsp.servers, dsh.skills.customRoots, \${config:...}) are read as the
editor merges them: --user-settings, then --code-workspace, then <folder>/.vscode/settings.json.
dsh.tools is read from each of them apart: every one only narrows.

Exit codes: 0 success; 1 the source or declaration could not be used; 2 usage error.`;

const VERSION = '0.1.0';

class UsageError extends Error {}

interface Io {
  out(text: string): void;
  err(text: string): void;
}

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

const processIo: Io = {
  out: writerOf(process.stdout),
  err: writerOf(process.stderr),
};

/**
 * The terminal seam: whatever a command prints, nothing hidden in a file, a server's answer or
 * an error reaches the terminal raw. Text keeps its line breaks (a value that must stay on one
 * line is made so where its line is formed); a JSON line keeps its value, with hidden characters
 * as JSON escapes. Text already shown passes unchanged.
 */
function shownIo(io: Io, json: boolean): Io {
  return {
    out: (text) => io.out(json ? visibleJson(text) : visibleText(text)),
    err: (text) => io.err(visibleText(text)),
  };
}

export async function main(argv: string[], terminal: Io = processIo): Promise<number> {
  let io = shownIo(terminal, argv.includes('--json'));
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        workspace: { type: 'string' },
        'code-workspace': { type: 'string' },
        'user-settings': { type: 'string' },
        'vscode-policy': { type: 'string' },
        'dsh-home': { type: 'string' },
        'dry-run': { type: 'boolean' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
        ...MODULE_OPTIONS,
      },
    });
  } catch (error) {
    return usageError((error as Error).message, argv.includes('--json'), io);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(USAGE);
    return 0;
  }
  if (values.version) {
    io.out(VERSION);
    return 0;
  }
  const [command, ...rest] = positionals;
  const json = values.json === true;
  io = shownIo(terminal, json);
  try {
    const { identity, userHomeSetting } = await folderIdentity(path.resolve(values.workspace ?? process.cwd()), values['code-workspace'], values['user-settings'], io, values['vscode-policy']);
    const folder = identity.folder;
    const dshHome = resolveDshHome(values['dsh-home'] ?? userHomeSetting);
    switch (command) {
      case 'export':
      case 'check':
        expectArgs(rest, 0, command);
        return await runExport(command, identity, dshHome, json, values['dry-run'] === true || command === 'check', io);
      case 'verify':
        expectArgs(rest, 0, command);
        return await runVerify(identity, dshHome, json, io);
      case 'inputs':
        return await runInputs(rest, identity, dshHome, json, io);
      case undefined:
        throw new UsageError('a command is required');
      default:
        if (Object.hasOwn(MODULE_COMMANDS, command)) return await MODULE_COMMANDS[command]({ args: rest, folder, dshHome, json, options: values, io, identity });
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (error) {
    if (error instanceof UsageError || error instanceof CommandUsageError) return usageError(error.message, json, io);
    if (error instanceof ExportError || error instanceof HostStoreError) {
      if (json) io.out(JSON.stringify({ declaration: null, servers: [], rejected: [], problems: [], error: error.message }));
      io.err(`dsh-bridge: ${error.message}`);
      return 1;
    }
    // A bug, not an input problem: still one JSON object for a caller that asked for one.
    const message = `internal error: ${(error as Error)?.message ?? String(error)}`;
    if (json) io.out(JSON.stringify({ declaration: null, servers: [], rejected: [], problems: [], error: message }));
    io.err(`dsh-bridge: ${message}`);
    return 1;
  }
}

/** Usage errors exit 2; with --json they still print the one JSON object. */
function usageError(message: string, json: boolean, io: Io): number {
  if (json) io.out(JSON.stringify({ declaration: null, servers: [], rejected: [], problems: [], error: message }));
  io.err(`dsh-bridge: ${message}\n\n${USAGE}`);
  return 2;
}

function expectArgs(rest: string[], count: number, command: string) {
  if (rest.length !== count) throw new UsageError(`"${command}" takes ${count === 0 ? 'no' : count} argument${count === 1 ? '' : 's'}`);
}


function serverSummaries(servers: readonly DeclaredServer[]) {
  return servers.map((s) => ({ name: s.name, serverName: s.serverName, transport: s.transport, pin: s.pin, ...(s.source ? { source: s.source } : {}) }));
}

function report(analysis: Analysis, declaration: string | null, extra: Record<string, unknown> = {}, settingProblems: readonly Problem[] = []) {
  return {
    declaration,
    servers: serverSummaries(analysis.servers),
    rejected: analysis.rejected,
    problems: [...analysis.problems, ...settingProblems].map(problemJson),
    ...extra,
  };
}

function problemJson(p: Problem) {
  const out: Record<string, unknown> = { code: p.code, severity: p.severity, message: p.message, file: p.file, range: p.range };
  if (p.related) out.related = p.related;
  return out;
}

async function runExport(command: string, identity: FolderIdentity, dshHome: string, json: boolean, dryRun: boolean, io: Io): Promise<number> {
  const { folder } = identity;
  // dsh.tools problems, placed in the settings files given (the editor shows the same ones).
  const settingProblems = checkToolChoice(settingLayerValues(identity, SETTING.tools)).problems;
  if (command === 'export' && !dryRun && (await new HostStore(dshHome).trustMode()) === 'deny') {
    const analysis = await analyzeFolder(folderAnalyzeOptions(identity));
    if (json) io.out(JSON.stringify(report(analysis, null, { error: 'trust mode is "deny": nothing is exported' }, settingProblems)));
    else io.err('dsh-bridge: trust mode is "deny" on this machine: nothing from this workspace is exported.');
    return 1;
  }
  const result = command === 'check'
    ? { analysis: await analyzeFolder(folderAnalyzeOptions(identity)), written: false, unchanged: false, sourceChanged: false, text: undefined }
    : await commitExport(await prepareFolderExport({ ...identity, dshHome }), { dshHome, dryRun });
  const { analysis } = result;
  if (result.sourceChanged) {
    const message = 'an MCP configuration file changed while it was being exported: nothing was written; run the export again';
    if (json) io.out(JSON.stringify(report(analysis, null, { written: false, error: message }, settingProblems)));
    else io.err(`dsh-bridge: ${message}.`);
    return 1;
  }
  const onDisk = command === 'export' && !dryRun && result.text !== undefined;
  if (json) {
    io.out(JSON.stringify(report(analysis, onDisk ? DECLARATION_PATH : null, command === 'export' ? { written: result.written } : {}, settingProblems)));
  } else {
    printHuman(analysis, folder, io, settingProblems);
    if (command === 'export') {
      const shown = path.relative(process.cwd(), path.join(folder, DECLARATION_PATH)) || DECLARATION_PATH;
      if (!analysis.usable) io.out('Nothing exported: the source could not be used (a previous declaration, if any, is left as it was and is now stale).');
      else if (dryRun) io.out(`Dry run: ${countOf(analysis.servers.length, 'server')} would be exported to ${shown}.`);
      else {
        const refused = analysis.rejected.length ? ` (${analysis.rejected.length} refused)` : '';
        io.out(`${result.written ? 'Exported' : 'Up to date:'} ${countOf(analysis.servers.length, 'server')} to ${shown}${refused}.`);
      }
    }
  }
  return analysis.usable ? 0 : 1;
}

/**
 * The folder and the settings the editor would see for it, from the files a CLI can read: the
 * user settings file (given), the .code-workspace file (given) and the folder's own
 * `.vscode/settings.json`. A given file is read as every source is: a regular file only (a FIFO
 * or a device is refused without waiting on it) of at most 1 MiB; one that cannot be read so is a
 * usage error.
 */
async function folderIdentity(folder: string, codeWorkspace: string | undefined, userSettings: string | undefined, io: Io, vscodePolicy?: string): Promise<{ identity: FolderIdentity; userHomeSetting?: string }> {
  const given = async (file: string, option: string) => {
    const read = await readRegularFile(file, MAX_SOURCE_BYTES);
    if (!read.ok) throw new UsageError(`${option} ${file} cannot be read (${readFailureReason(read.failure, MAX_SOURCE_BYTES)})`);
    return Buffer.from(read.bytes).toString('utf8');
  };
  const layers: SettingsFileLayer[] = [];
  if (userSettings !== undefined) layers.push({ level: 'user', kind: 'settings', text: await given(userSettings, '--user-settings'), file: path.resolve(userSettings) });
  let folderName = path.basename(folder);
  if (codeWorkspace !== undefined) {
    const text = await given(codeWorkspace, '--code-workspace');
    layers.push({ level: 'workspace', kind: 'code-workspace', text, file: path.resolve(codeWorkspace) });
    const entry = workspaceFolderEntry(text, path.dirname(path.resolve(codeWorkspace)), folder);
    if (!entry) throw new UsageError(`${codeWorkspace} does not list the folder ${folder}`);
    folderName = entry.name ?? folderName;
  }
  const settings = await readWorkspaceFile(folder, '.vscode/settings.json');
  if (settings.ok) layers.push({ level: codeWorkspace ? 'folder' : 'workspace', kind: 'settings', text: Buffer.from(settings.bytes).toString('utf8'), file: '.vscode/settings.json' });
  const filesView = settingsViewFromFiles(layers);
  const layerValues = settingLayersFromFiles(layers);
  // VS Code's policy file: a policy value overrides every settings level, as in the editor.
  const policyFile = await readVscodePolicyFile(path.resolve(vscodePolicy ?? VSCODE_POLICY_FILE));
  if (policyFile.error) io.err(`dsh-bridge: VS Code's policy file ${policyFile.path} cannot be used (${policyFile.error}); as in VS Code, none of it applies`);
  const policy = (key: string) => (Object.hasOwn(policyFile.values, key) ? structuredClone(policyFile.values[key]) : undefined);
  const view: SettingsView = (key) => policy(key) ?? filesView(key);
  const reported = new Set<string>();
  const invalidSetting = (key: string) => {
    if (reported.has(key)) return;
    reported.add(key);
    io.err(`dsh-bridge: setting ${key} has an invalid value; its default is used`);
  };
  const home = readSetting(view, SETTING.home, SETTING_SCHEMAS.home, '', invalidSetting);
  return {
    identity: {
      folder, folderName, userHome: os.homedir(), settings: view, settingLayers: layerValues, invalidSetting, ...(codeWorkspace !== undefined ? { codeWorkspaceFile: path.resolve(codeWorkspace) } : {}),
      policySettings: { policy, layers: (key) => layerValues(key).map((l) => l.value) },
      vscodePolicyFile: { path: policyFile.path, sha256: policyFile.sha256 },
    },
    userHomeSetting: home.trim() === '' ? undefined : home,
  };
}

/** What verify needs of the folder's settings to see a change of the editor's policy. */
export function verifySettings(identity: FolderIdentity): { settings: SettingsView; policySettings?: FolderIdentity['policySettings']; vscodePolicyFile?: string } {
  return { settings: identity.settings, policySettings: identity.policySettings, ...(identity.vscodePolicyFile ? { vscodePolicyFile: identity.vscodePolicyFile.path } : {}) };
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

function printHuman(analysis: Analysis, folder: string, io: Io, settingProblems: readonly Problem[] = []) {
  if (analysis.servers.length) {
    // The file column only when a server comes from a file other than .vscode/mcp.json.
    const from = analysis.servers.some((s) => s.source) ? (s: DeclaredServer) => [shownPath(folder, s.source ?? analysis.sourcePath)] : () => [];
    const rows = [['SERVER', 'DSH NAME', 'TRANSPORT', ...(analysis.servers.some((s) => s.source) ? ['FROM'] : []), 'PIN'],
      ...analysis.servers.map((s) => [s.name, s.serverName, s.transport, ...from(s), `${s.pin.slice(0, 19)}…`])];
    io.out(table(rows));
  }
  if (analysis.rejected.length) {
    io.out('\nRefused:');
    io.out(table(analysis.rejected.map((r) => [`  ${r.name}`, r.codes.join(', ')])));
  }
  const problems = [...analysis.problems, ...settingProblems];
  if (problems.length) {
    io.out('\nProblems:');
    for (const p of problems) {
      const where = `${shownPath(folder, p.file)}:${p.range.start.line + 1}:${p.range.start.character + 1}`;
      io.out(`  ${visibleLine(`${where} ${p.severity} ${p.code}: ${p.message}`)}`);
    }
  }
}

/** A problem's or server's file as a terminal shows it: relative to the current directory (a workspace file may be given absolute). */
function shownPath(folder: string, file: string): string {
  return path.isAbsolute(file) ? path.relative(process.cwd(), file) || file : path.join(path.relative(process.cwd(), folder) || '.', file);
}

async function runVerify(identity: FolderIdentity, dshHome: string, json: boolean, io: Io): Promise<number> {
  const { folder } = identity;
  const result: VerifyResult = await verifyFolder(folder, { dshHome, ...verifySettings(identity) });
  const skills = await folderSkills(folder, dshHome, result);
  const { withheld } = await policyWithheld(result.declaration, dshHome);
  const dsh = dshOutlook(result, await new HostStore(dshHome).trustMode(), skills, withheld);
  if (json) {
    io.out(JSON.stringify({
      declaration: result.declaration ? DECLARATION_PATH : null,
      servers: serverSummaries(result.declaration?.servers ?? []),
      rejected: result.declaration?.rejected ?? [],
      problems: [],
      verify: { ok: result.ok, reasons: result.reasons },
      dsh,
    }));
    return result.ok ? 0 : 1;
  }
  if (result.ok) {
    io.out(`${DECLARATION_PATH}: signed, intact and fresh (${countOf(result.declaration!.servers.length, 'server')}).`);
  } else {
    for (const r of result.reasons) io.out(visibleLine(`${DECLARATION_PATH}: ${r.code}: ${r.message}`));
  }
  const why = dsh.mounts ? '' : dsh.trustMode === 'deny' ? ': nothing is mounted' : ': the declaration does not verify, nothing from it is mounted';
  io.out(`\nWhat a DSH session in this folder gets (trust mode "${dsh.trustMode}"${why}):`);
  io.out(`  MCP servers:      ${visibleLine(dsh.servers.length ? dsh.servers.join(', ') : 'none')}`);
  for (const w of dsh.policyWithheld) io.out(`  Withheld:         ${visibleLine(`${w.serverName}: ${w.why}`)}`);
  io.out(`  Language servers: ${visibleLine(dsh.languageServers.length ? dsh.languageServers.map((l) => `${l.id} (${l.extensions.join(', ')})`).join(', ') : dsh.languageServersInvalid ? 'none (an entry of dsh.lsp.servers is invalid)' : 'none')}`);
  printSkillGate(skills, io, '  ', folder);
  return result.ok ? 0 : 1;
}

async function runInputs(rest: string[], identity: FolderIdentity, dshHome: string, json: boolean, io: Io): Promise<number> {
  const { folder } = identity;
  const [sub, ...args] = rest;
  const store = new HostStore(dshHome);
  switch (sub) {
    case 'set': {
      if (args.length !== 1) throw new UsageError('"inputs set" takes the input id; the value is read from stdin, never from the command line');
      const value = await readSecret(`Value for ${args[0]}: `);
      if (value === undefined) {
        io.err('dsh-bridge: no value given; nothing stored.');
        return 1;
      }
      await store.setInput(folder, args[0], value);
      if (json) io.out(JSON.stringify({ stored: args[0] }));
      else io.out(`Stored a value for "${args[0]}" for ${folder} (in ${store.bridgeDir}, not in the workspace).`);
      return 0;
    }
    case 'list': {
      if (args.length) throw new UsageError('"inputs list" takes no argument');
      const record = await store.readFolder(folder);
      const analysis = await analyzeFolder(folderAnalyzeOptions(identity));
      const declared = analysis.inputs.map((i) => i.id);
      const ids = [...new Set([...declared, ...record.inputs.keys()])].sort();
      const rows = ids.map((id) => ({ id, stored: record.inputs.has(id), referenced: declared.includes(id) }));
      if (json) io.out(JSON.stringify({ inputs: rows }));
      else if (!rows.length) io.out('No inputs referenced or stored for this folder.');
      else io.out(table([['INPUT', 'VALUE', 'REFERENCED'], ...rows.map((r) => [r.id, r.stored ? 'stored' : 'missing', r.referenced ? 'yes' : 'no'])]));
      return 0;
    }
    case 'forget': {
      if (args.length > 1) throw new UsageError('"inputs forget" takes at most one input id');
      await store.forgetInput(folder, args[0]);
      if (json) io.out(JSON.stringify({ forgotten: args[0] ?? null }));
      else io.out(args[0] ? `Forgot the value of "${args[0]}".` : 'Forgot every stored value of this folder.');
      return 0;
    }
    default:
      throw new UsageError('"inputs" needs one of: set <id>, list, forget [<id>]');
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
