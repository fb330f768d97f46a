import spawn from 'cross-spawn';
import { tryPlan, TRY_PROMPT } from '../core/app/trySession';
import { CommandFailure, type CommandContext } from './context';

export const TRY_USAGE = `try [PROMPT]                one DSH session in the folder against the bridge's stand-in model (no network, no API key): lists the tools of its first request and calls one (default prompt "${TRY_PROMPT}"; "lsp hover FILE:LINE:CHARACTER", "skill NAME" call those too)`;

/**
 * `dsh-bridge try`: runs the try-it session of docs/dsh-side.md (`dsh --profile P --patch
 * <bundle>/try/overlay.yml PROMPT` in the folder), its output as DSH prints it; exit DSH's.
 */
export async function runTry(ctx: CommandContext): Promise<number> {
  const profile = typeof ctx.options.profile === 'string' ? ctx.options.profile : undefined;
  const plan = tryPlan(ctx.ports, { folder: ctx.folder, profile, prompt: ctx.args.join(' ') });
  if (!plan.ok) {
    throw new CommandFailure(plan.missing === 'no-dsh'
      ? `No DSH found: none installed by dsh-bridge, and no dsh on PATH. Install it first: ${plan.fix}`
      : `Profile "${plan.profile}" does not load the bridge bundle dsh-bridge-dsh. Install it first: ${plan.fix}`);
  }
  ctx.io.err(`Running in ${plan.cwd}: ${plan.line}`);
  const child = spawn(plan.command, plan.args, { cwd: plan.cwd, stdio: 'inherit', env: { ...process.env, DSH_HOME: ctx.dshHome } }); // DSH reads the DSH home the bridge used
  return new Promise<number>((resolve) => {
    child.on('error', (error) => {
      ctx.io.err(`dsh-bridge try: ${plan.command} could not be started: ${error.message}`);
      resolve(1);
    });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}
