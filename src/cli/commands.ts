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
export const COMMANDS: Record<string, { run: (ctx: CommandContext) => Promise<number>; usage: string }> = {
  export: { run: runExport, usage: EXPORT_USAGE },
  check: { run: runCheck, usage: CHECK_USAGE },
  verify: { run: runVerify, usage: VERIFY_USAGE },
  inputs: { run: runInputs, usage: INPUTS_USAGE },
  trust: { run: runTrust, usage: TRUST_USAGE },
  approve: { run: (ctx) => runApprove(ctx), usage: APPROVE_USAGE },
  skills: { run: runSkills, usage: SKILLS_USAGE },
  doctor: { run: runDoctor, usage: DOCTOR_USAGE },
  policy: { run: runPolicy, usage: POLICY_USAGE },
  dsh: { run: runDsh, usage: DSH_USAGE },
  probe: { run: runProbe, usage: PROBE_USAGE },
  tools: { run: runTools, usage: TOOLS_USAGE },
  // Loaded when it runs: the import brings its TOML parser and diff.
  import: { run: async (ctx) => (await import('./import.js')).runImport(ctx), usage: IMPORT_USAGE },
};

/** The options commands add to the common ones. */
export const COMMAND_OPTIONS = {
  yes: { type: 'string', multiple: true },
  ...SKILLS_OPTIONS,
  ...DSH_OPTIONS,
  ...PROBE_OPTIONS,
  ...IMPORT_OPTIONS,
} as const;

export const COMMANDS_USAGE = Object.values(COMMANDS).map((c) => `  ${c.usage}`).join('\n');
