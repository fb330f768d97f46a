import { APPROVE_USAGE, runApprove } from './approve';
import type { CommandContext } from './context';
import { DOCTOR_USAGE, runDoctor } from './doctor';
import { DSH_USAGE, runDsh } from './dshInstall';
import { CHECK_USAGE, EXPORT_USAGE, runCheck, runExport } from './export';
import { IMPORT_USAGE } from './importUsage';
import { MIGRATE_USAGE } from './migrateUsage';
import { INPUTS_USAGE, runInputs } from './inputs';
import { PROBE_USAGE, runProbe } from './probe';
import { SESSIONS_USAGE, runSessions } from './sessions';
import { SKILLS_USAGE, runSkills } from './skills';
import { TRUST_USAGE, runTrust } from './trust';
import { VERIFY_USAGE, runVerify } from './verify';
import { POLICY_USAGE, runPolicy } from './policy';
import { TOOLS_USAGE, runTools } from './tools';
import { TRY_USAGE, runTry } from './try';
import { commandOptionsHelp } from './options';

/**
 * THE command table: one module per command, each with its usage. main.ts parses the options of
 * options.ts (which also say which command reads which), builds the context (folder settings,
 * ports) once, and runs the command's handler. A new command: its module, then its row here.
 */
export interface CommandRow {
  run: (ctx: CommandContext) => Promise<number>;
  usage: string;
  /** Example command lines. */
  examples: string[];
}

export const COMMANDS: Record<string, CommandRow> = {
  export: {
    run: runExport, usage: EXPORT_USAGE,
    examples: ['dsh-bridge export --workspace ~/src/my-app', 'dsh-bridge export --dry-run --json'],
  },
  check: { run: runCheck, usage: CHECK_USAGE, examples: ['dsh-bridge check --workspace ~/src/my-app'] },
  verify: { run: runVerify, usage: VERIFY_USAGE, examples: ['dsh-bridge verify --workspace ~/src/my-app', 'dsh-bridge verify --json'] },
  inputs: {
    run: runInputs, usage: INPUTS_USAGE,
    examples: ['printf %s "$GITHUB_TOKEN" | dsh-bridge inputs set github-token --workspace ~/src/my-app', 'dsh-bridge inputs list'],
  },
  trust: { run: runTrust, usage: TRUST_USAGE, examples: ['dsh-bridge trust', 'dsh-bridge trust pinned'] },
  approve: {
    run: (ctx) => runApprove(ctx), usage: APPROVE_USAGE,
    examples: ['dsh-bridge approve --workspace ~/src/my-app', 'dsh-bridge approve github --yes sha256:...'],
  },
  skills: {
    run: runSkills, usage: SKILLS_USAGE,
    examples: ['dsh-bridge skills list', 'dsh-bridge skills trust .dsh/skills --workspace ~/src/my-app', 'dsh-bridge skills accept .dsh/skills/review/SKILL.md --pin sha256:...'],
  },
  doctor: {
    run: runDoctor, usage: DOCTOR_USAGE,
    examples: ['dsh-bridge doctor --workspace ~/src/my-app', 'dsh-bridge doctor --profile work --json'],
  },
  try: {
    run: runTry, usage: TRY_USAGE,
    examples: ['dsh-bridge try --workspace ~/src/my-app', 'dsh-bridge try "try lsp hover main.ts:1:14 and skill hello"'],
  },
  sessions: { run: runSessions, usage: SESSIONS_USAGE, examples: ['dsh-bridge sessions --workspace ~/src/my-app', 'dsh-bridge sessions --json'] },
  policy: { run: runPolicy, usage: POLICY_USAGE, examples: ['dsh-bridge policy --workspace ~/src/my-app'] },
  dsh: {
    run: runDsh, usage: DSH_USAGE,
    examples: ['dsh-bridge dsh install', 'dsh-bridge dsh install --node "$(command -v node)" --profile work'],
  },
  probe: {
    run: runProbe, usage: PROBE_USAGE,
    examples: ['dsh-bridge probe --workspace ~/src/my-app', 'dsh-bridge probe github --timeout 60000'],
  },
  tools: {
    run: runTools, usage: TOOLS_USAGE,
    examples: ['dsh-bridge tools accept github create_issue --pin sha256:...', 'dsh-bridge tools accept github create_issue --workspace ~/src/my-app'],
  },
  // Loaded when it runs: the import brings its TOML parser and diff.
  import: {
    run: async (ctx) => (await import('./import.js')).runImport(ctx), usage: IMPORT_USAGE,
    examples: ['dsh-bridge import --from cursor', 'dsh-bridge import --from claude --dry-run'],
  },
  // Loaded when it runs, with its diff.
  migrate: {
    run: async (ctx) => (await import('./migrate.js')).runMigrate(ctx), usage: MIGRATE_USAGE,
    examples: ['dsh-bridge migrate --dry-run', 'dsh-bridge migrate --yes 0123456789abcdef'],
  },
};

/** `dsh-bridge <command> --help`: the command's usage, its options and the common ones, examples. */
export function commandHelp(name: string, row: CommandRow): string {
  return [
    `Usage: dsh-bridge ${row.usage}`,
    '',
    'Options:',
    ...commandOptionsHelp(name),
    '',
    row.examples.length > 1 ? 'Examples:' : 'Example:',
    ...row.examples.map((l) => `  ${l}`),
    '',
    'All commands: dsh-bridge --help',
  ].join('\n');
}

export const COMMANDS_USAGE = Object.values(COMMANDS).map((c) => `  ${c.usage}`).join('\n');
