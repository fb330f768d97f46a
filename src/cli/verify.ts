import { planSession } from '../core/app/plan';
import { DECLARATION_PATH } from '../core/declaration/declarationModel';
import { expectNoArgs, type CommandContext } from './context';
import { serverSummaries } from './export';
import { printSkillGate } from './skills';
import { visibleLine } from '../core/json/visibleText';
import { planJson, verifyReasonsOf } from '../core/app/planJson';
import { declarationLines, planLines } from './planText';
import { verifySettings } from './folderIdentity';
import { runUserVerify } from './userExport';

export const VERIFY_USAGE = 'verify   Exit 0 only when the declaration is signed, intact and fresh; says what a DSH session in the folder gets';

/**
 * `dsh-bridge verify`: the session plan of the folder (the declaration the DSH plugin would find
 * there, at or above it) and whether that declaration verifies. Exit 0 only when it does.
 */
export async function runVerify(ctx: CommandContext): Promise<number> {
  if (ctx.options.user === true) return runUserVerify(ctx);
  expectNoArgs(ctx);
  const { identity, json, io, ports } = ctx;
  const { settings, ...policy } = verifySettings(identity);
  const planned = await planSession(ports, { cwd: identity.folder, settings, verifySettings: policy });
  const { plan, verified, declaration, skillGate } = planned;
  const ok = verified?.ok === true;
  if (json) {
    io.out(JSON.stringify({
      declaration: declaration ? DECLARATION_PATH : null,
      servers: serverSummaries(declaration?.servers ?? []),
      rejected: declaration?.rejected ?? [],
      problems: [],
      verify: { ok, reasons: verifyReasonsOf(planned) },
      dsh: planJson(plan),
    }));
    return ok ? 0 : 1;
  }
  for (const line of declarationLines(plan, DECLARATION_PATH)) io.out(line);
  io.out(`\nWhat a DSH session in this folder gets (trust mode "${plan.trustMode}"):`);
  for (const line of planLines(plan)) io.out(line);
  if (skillGate) printSkillGate(skillGate, io, '  ', identity.folder);
  else if (plan.skills?.error) io.out(`  Skills: ${visibleLine(String(plan.skills.error.args.error))}`);
  return ok ? 0 : 1;
}
