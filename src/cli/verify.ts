import { planSession } from '../core/app/plan';
import { withheldLine, withheldOf } from '../core/app/planWithheld';
import { formatMessage } from '../core/problems/problems';
import { DECLARATION_PATH } from '../core/declaration/declarationModel';
import { expectNoArgs, type CommandContext } from './context';
import { serverSummaries } from './export';
import { printSkillGate } from './skills';
import { visibleLine } from '../core/json/visibleText';
import { planJson, verifyReasonsOf } from '../core/app/planJson';
import { declarationLines, planLines, userPlanLines } from './planText';
import { planUserServers } from '../core/app/userPlan';
import { userDeclarationPaths } from '../core/app/userExport';
import { verifySettings } from './folderIdentity';
import { runUserVerify } from './userExport';
import { shownPath } from './output';

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
  // The user's own servers, mounted beside the workspace's (a workspace server of the same name wins).
  const user = await planUserServers(ports, { settings, verifySettings: policy }, planned);
  const userPath = userDeclarationPaths(ports.dshHome).declarationPath;
  if (json) {
    io.out(JSON.stringify({
      declaration: declaration ? DECLARATION_PATH : null,
      servers: serverSummaries(declaration?.servers ?? []),
      rejected: declaration?.rejected ?? [],
      problems: [],
      verify: { ok, reasons: verifyReasonsOf(planned) },
      dsh: planJson(plan),
      user: {
        declaration: user.planned.plan.declaration.state === 'missing' ? null : userPath,
        verify: { ok: user.planned.verified?.ok === true, reasons: user.planned.verified?.reasons ?? [] },
        blocked: user.planned.plan.blocked,
        servers: user.servers,
      },
    }));
    return ok ? 0 : 1;
  }
  for (const line of declarationLines(plan, shownPath(identity.folder, plan.declaration.path ?? DECLARATION_PATH))) io.out(line);
  io.out(`\nWhat a DSH session in this folder gets (trust mode "${plan.trustMode}"):`);
  for (const line of planLines(plan)) io.out(line);
  if (skillGate) printSkillGate(skillGate, io, '  ', identity.folder);
  else if (plan.skills?.error) io.out(`  Skills: ${visibleLine(String(plan.skills.error.args.error))}`);
  // Everything withheld in one sentence, as doctor, export and the editor say it.
  const withheld = withheldLine(withheldOf(plan), formatMessage);
  if (withheld) io.out(`  ${visibleLine(withheld)}`);
  io.out('\nThe user\'s own servers (every session of this user, beside the workspace\'s):');
  for (const line of userPlanLines(user.planned.plan, user.servers, userPath)) io.out(line);
  return ok ? 0 : 1;
}
