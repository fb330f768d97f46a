import { APPROVE_USAGE, runApprove } from './approve';
import type { CommandContext } from './context';
import { DOCTOR_USAGE, runDoctor } from './doctor';
import { DSH_OPTIONS, DSH_USAGE, runDsh } from './dshInstall';
import { CHECK_USAGE, EXPORT_USAGE, runCheck, runExport } from './export';
import { IMPORT_OPTIONS, IMPORT_USAGE } from './importUsage';
import { INPUTS_USAGE, runInputs } from './inputs';
import { PROBE_OPTIONS, PROBE_USAGE, runProbe } from './probe';
import { SKILLS_OPTIONS, SKILLS_USAGE, runSkills } from './skills';
import { TRUST_USAGE, runTrust } from './trust';
import { VERIFY_USAGE, runVerify } from './verify';
import { POLICY_USAGE, runPolicy } from './policy';
import { TOOLS_USAGE, runTools } from './tools';

/**
 * THE command table: one module per command, each with its usage. main.ts parses the common
 * options and the ones below, builds the context (folder settings, ports) once, and runs the
 * command's handler. A new command: its module, then its row here.
 */
export interface CommandRow {
  run: (ctx: CommandContext) => Promise<number>;
  usage: string;
  /** `dsh-bridge <command> --help`: the command's own options (beyond the common ones), one line each. */
  options: string[];
  /** Example command lines. */
  examples: string[];
}

const SETTINGS_OPTIONS = [
  '--code-workspace FILE  the .code-workspace file that holds the folder (its settings apply)',
  '--user-settings FILE   the editor\'s user settings.json (its settings apply)',
];

export const COMMANDS: Record<string, CommandRow> = {
  export: {
    run: runExport, usage: EXPORT_USAGE,
    options: ['--dry-run              compute and report, write nothing', ...SETTINGS_OPTIONS, '--vscode-policy FILE   VS Code\'s policy file (its MCP policies apply)'],
    examples: ['dsh-bridge export --workspace ~/src/my-app', 'dsh-bridge export --dry-run --json'],
  },
  check: { run: runCheck, usage: CHECK_USAGE, options: [...SETTINGS_OPTIONS], examples: ['dsh-bridge check --workspace ~/src/my-app'] },
  verify: { run: runVerify, usage: VERIFY_USAGE, options: [...SETTINGS_OPTIONS], examples: ['dsh-bridge verify --workspace ~/src/my-app', 'dsh-bridge verify --json'] },
  inputs: {
    run: runInputs, usage: INPUTS_USAGE, options: [],
    examples: ['printf %s "$GITHUB_TOKEN" | dsh-bridge inputs set github-token --workspace ~/src/my-app', 'dsh-bridge inputs list'],
  },
  trust: { run: runTrust, usage: TRUST_USAGE, options: [], examples: ['dsh-bridge trust', 'dsh-bridge trust pinned'] },
  approve: {
    run: (ctx) => runApprove(ctx), usage: APPROVE_USAGE,
    options: ['--yes PIN              approve this reviewed pin without a terminal (repeat for each)'],
    examples: ['dsh-bridge approve --workspace ~/src/my-app', 'dsh-bridge approve github --yes sha256:...'],
  },
  skills: {
    run: runSkills, usage: SKILLS_USAGE, options: ['--pin PIN              skills trust / accept: only if the root\'s or SKILL.md\'s pin is still PIN'],
    examples: ['dsh-bridge skills list', 'dsh-bridge skills trust .dsh/skills --workspace ~/src/my-app', 'dsh-bridge skills accept .dsh/skills/review/SKILL.md --pin sha256:...'],
  },
  doctor: {
    run: runDoctor, usage: DOCTOR_USAGE, options: ['--profile NAME         the DSH profile whose sessions are meant (default headless)'],
    examples: ['dsh-bridge doctor --workspace ~/src/my-app', 'dsh-bridge doctor --profile work --json'],
  },
  policy: { run: runPolicy, usage: POLICY_USAGE, options: ['--vscode-policy FILE   VS Code\'s policy file'], examples: ['dsh-bridge policy --workspace ~/src/my-app'] },
  dsh: {
    run: runDsh, usage: DSH_USAGE,
    options: ['--profile NAME         the profile to create or add the bundle to (default headless)', '--node PATH            the Node (22.19 or newer) that runs DSH', '--bundle-only          only add the bundle to the dsh on PATH'],
    examples: ['dsh-bridge dsh install', 'dsh-bridge dsh install --node "$(command -v node)" --profile work'],
  },
  probe: {
    run: runProbe, usage: PROBE_USAGE, options: ['--timeout MS           how long one server may take (default 20000)'],
    examples: ['dsh-bridge probe --workspace ~/src/my-app', 'dsh-bridge probe github --timeout 60000'],
  },
  tools: {
    run: runTools, usage: TOOLS_USAGE, options: ['--pin PIN              accept the tool only if the last probe recorded this pin'],
    examples: ['dsh-bridge tools accept github create_issue --pin sha256:...', 'dsh-bridge tools accept github create_issue --workspace ~/src/my-app'],
  },
  // Loaded when it runs: the import brings its TOML parser and diff.
  import: {
    run: async (ctx) => (await import('./import.js')).runImport(ctx), usage: IMPORT_USAGE,
    options: ['--from CLIENT          cursor, claude, gemini or codex', '--dry-run              show the diff and the preview id, write nothing', '--yes PREVIEW          apply the previewed change without a terminal'],
    examples: ['dsh-bridge import --from cursor', 'dsh-bridge import --from claude --dry-run'],
  },
};

/** `dsh-bridge <command> --help`: the command's usage, its options, the common ones, examples. */
export function commandHelp(name: string, row: CommandRow): string {
  const indent = (lines: readonly string[]) => lines.map((l) => `  ${l}`).join('\n');
  const common = ['--workspace DIR        the workspace folder (default: the current directory)', '--dsh-home DIR         the DSH home (default: $DSH_HOME, else ~/.dsh)', '--json                 print one JSON object', '-h, --help             this help'];
  return [
    `Usage: dsh-bridge ${row.usage}`,
    '',
    'Options:',
    indent([...row.options, ...common]),
    '',
    row.examples.length > 1 ? 'Examples:' : 'Example:',
    indent(row.examples),
    '',
    "All commands: dsh-bridge --help",
  ].join('\n');
}

/** The options commands add to the common ones. */
export const COMMAND_OPTIONS = {
  yes: { type: 'string', multiple: true },
  ...SKILLS_OPTIONS,
  ...DSH_OPTIONS,
  ...PROBE_OPTIONS,
  ...IMPORT_OPTIONS,
} as const;

export const COMMANDS_USAGE = Object.values(COMMANDS).map((c) => `  ${c.usage}`).join('\n');
