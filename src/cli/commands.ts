import { APPROVE_USAGE, runApprove } from './approve';
import type { CommandContext } from './context';
import { DOCTOR_USAGE, runDoctor } from './doctor';
import { DSH_OPTIONS, DSH_USAGE, runDsh } from './dshInstall';
import { IMPORT_OPTIONS, IMPORT_USAGE } from './importUsage';
import { PROBE_OPTIONS, PROBE_USAGE, runProbe } from './probe';
import { SKILLS_OPTIONS, SKILLS_USAGE, runSkills } from './skills';
import { TRUST_USAGE, runTrust } from './trust';
import { POLICY_USAGE, runPolicy } from './policy';
import { TOOLS_USAGE, runTools } from './tools';

/**
 * Commands that live in their own modules (registered in main.ts through this table), with
 * the options they add to the common ones and their usage lines.
 */
export const MODULE_COMMANDS: Record<string, (ctx: CommandContext) => Promise<number>> = {
  trust: runTrust,
  approve: (ctx) => runApprove(ctx),
  skills: runSkills,
  dsh: runDsh,
  doctor: runDoctor,
  probe: runProbe,
  policy: runPolicy,
  tools: runTools,
  import: async (ctx) => (await import('./import.js')).runImport(ctx),
};

export const MODULE_OPTIONS = {
  yes: { type: 'string', multiple: true },
  ...SKILLS_OPTIONS,
  ...DSH_OPTIONS,
  ...PROBE_OPTIONS,
  ...IMPORT_OPTIONS,
} as const;

export const MODULE_USAGE = [TRUST_USAGE, APPROVE_USAGE, SKILLS_USAGE, DOCTOR_USAGE, POLICY_USAGE, DSH_USAGE, PROBE_USAGE, TOOLS_USAGE, IMPORT_USAGE].map((line) => `  ${line}`).join('\n');
