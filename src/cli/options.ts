import { VSCODE_POLICY_FILE } from '../core/node/policyFiles';
import { IMPORT_OPTIONS } from './importUsage';

/** A flag as help shows it (`--workspace DIR`) and its help, one or more lines. */
type Help = readonly [flag: string, ...lines: string[]];

interface OptionRow {
  type: 'string' | 'boolean';
  multiple?: boolean;
  short?: string;
  /** An option of every command (the folder, its settings, the DSH home, the output). */
  common?: Help;
  /** Only in the global help (`--version`). */
  global?: Help;
  /** The commands that read the option, each with its help there. */
  commands?: Readonly<Record<string, Help>>;
}

/**
 * THE option table of the CLI: main.ts parses with it, and both the global help and each
 * command's `--help` are written from it, so an option is never read without being in both.
 */
export const OPTIONS = {
  workspace: { type: 'string', common: ['--workspace DIR', 'the workspace folder (default: the current directory)'] },
  'code-workspace': { type: 'string', common: ['--code-workspace FILE', 'the .code-workspace file that holds the folder: its settings and', 'the folder\'s name apply, as in the editor'] },
  'user-settings': { type: 'string', common: ['--user-settings FILE', 'the editor\'s user settings.json: its settings apply, as in the editor'] },
  'vscode-policy': { type: 'string', common: ['--vscode-policy FILE', `VS Code's policy file (default ${VSCODE_POLICY_FILE}, VS Code's on Linux):`, 'its MCP policies override every settings file, as in the editor'] },
  'managed-settings': { type: 'string', common: ['--managed-settings FILE', 'one more GitHub Copilot managed-settings.json, read besides the machine\'s', 'channels (it can only narrow)'] },
  'dsh-home': { type: 'string', common: ['--dsh-home DIR', 'the DSH home (default: dsh.home of --user-settings, else $DSH_HOME,', 'else ~/.dsh)'] },
  json: { type: 'boolean', common: ['--json', 'print one JSON object (also on failure)'] },
  help: { type: 'boolean', short: 'h', common: ['-h, --help', 'this help'] },
  version: { type: 'boolean', short: 'v', global: ['-v, --version', 'the version'] },
  'dry-run': { type: 'boolean', commands: { export: ['--dry-run', 'compute and report, write nothing'], import: ['--dry-run', 'show the diff and the preview id, write nothing'], migrate: ['--dry-run', 'show both diffs and the preview id, write nothing'] } },
  yes: {
    type: 'string', multiple: true,
    commands: { approve: ['--yes PIN', 'approve this reviewed pin without a terminal (repeat for each)'], import: ['--yes PREVIEW', 'apply the previewed change without a terminal'], migrate: ['--yes PREVIEW', 'apply the previewed move without a terminal'] },
  },
  pin: {
    type: 'string',
    commands: {
      skills: ['--pin PIN', 'skills trust / accept: only if the root\'s or SKILL.md\'s pin is still PIN (without a terminal: needed)'],
      tools: ['--pin PIN', 'tools accept: accept the tool only if the last probe recorded this pin (without a terminal: needed)'],
    },
  },
  profile: {
    type: 'string',
    commands: { doctor: ['--profile NAME', 'the DSH profile whose sessions are meant (default headless)'], dsh: ['--profile NAME', 'the profile to create or add the bundle to (default headless)'] },
  },
  node: { type: 'string', commands: { dsh: ['--node PATH|auto', 'the Node (22.19 or newer) that runs DSH; auto: this one if it fits, else one from npm'] } },
  'bundle-only': { type: 'boolean', commands: { dsh: ['--bundle-only', 'only add the bundle to the dsh on PATH'] } },
  timeout: { type: 'string', commands: { probe: ['--timeout MS', 'how long one server may take (default 20000)'] } },
  user: {
    type: 'boolean',
    commands: {
      export: ['--user', 'the user\'s own servers (the profile\'s mcp.json, Copilot Global) into', 'the user declaration of the host store'],
      verify: ['--user', 'the user declaration'],
      approve: ['--user', 'the user declaration\'s servers'],
      probe: ['--user', 'the user\'s own servers (recorded for export --user)'],
    },
  },
  'user-data-dir': { type: 'string', commands: Object.fromEntries(['export', 'probe'].map((c) => [c, ['--user-data-dir DIR', 'with --user: the editor\'s user data folder (default: VS Code\'s,', 'Insiders\', VSCodium\'s or code-server\'s, the first that exists)'] as const])) },
  'editor-profile': { type: 'string', commands: Object.fromEntries(['export', 'probe'].map((c) => [c, ['--editor-profile ID', 'with --user: a named profile (its folder under User/profiles;', 'VS Code\'s ids may start with "-": --editor-profile=-1a2b)'] as const])) },
  from: { ...IMPORT_OPTIONS.from, commands: { import: ['--from CLIENT', 'cursor, claude, gemini or codex'] } },
  to: { ...IMPORT_OPTIONS.to, commands: { import: ['--to WHERE', 'auto (default: where MCP: Add Server writes, .mcp.json, or', '.vscode/mcp.json where the folder has one), .mcp.json or .vscode/mcp.json'] } },
} as const satisfies Record<string, OptionRow>;

const rows: ReadonlyArray<OptionRow> = Object.values(OPTIONS);

/** Options as help lists them: the flag, then its help beside it (further lines under it). */
function optionLines(helps: readonly Help[]): string[] {
  // A flag as long as the column goes on its own line, its help below it.
  return helps.flatMap(([flag, first, ...more]) => [
    ...(flag.length > 22 ? [`  ${flag}`, `${' '.repeat(25)}${first}`] : [`  ${flag.padEnd(23)}${first}`]),
    ...more.map((l) => `${' '.repeat(25)}${l}`),
  ]);
}

/** The global help's options: the common ones and `--version`, then every command's own, named by command. */
export function globalOptionsHelp(): string {
  const own = rows.flatMap((o) => Object.entries(o.commands ?? {}).map(([command, [flag, first, ...more]]): Help => [flag, `${command}: ${first}`, ...more]));
  return [
    'Options:',
    ...optionLines(rows.flatMap((o) => [o.common, o.global].filter((h): h is Help => h !== undefined))),
    '',
    'Options of one command (dsh-bridge <command> --help):',
    ...optionLines(own),
  ].join('\n');
}

/** A command's own options, then the common ones. */
export function commandOptionsHelp(command: string): string[] {
  return optionLines([
    ...rows.flatMap((o) => (o.commands && Object.hasOwn(o.commands, command) ? [(o.commands as Record<string, Help>)[command]] : [])),
    ...rows.flatMap((o) => (o.common ? [o.common] : [])),
  ]);
}
