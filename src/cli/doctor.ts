import { doctorLines, doctorReport, verdictText, DOCTOR_MESSAGES } from '../core/app/doctor';
import { planMessage } from '../core/app/planReasons';
import { DEFAULT_PROFILE } from '../core/node/dshSide';
import { formatMessage } from '../core/problems/problems';
import { expectNoArgs, type CommandContext } from './context';
import { bundleMatchesCheckout } from './dshLayout';
import { visibleLine } from '../core/json/visibleText';
import { runUserDoctor } from './userDoctor';

export const DOCTOR_USAGE = 'doctor [--profile NAME] [--user]   what stands between this folder (--user: your own servers) and a DSH session, and the command that fixes each';

/**
 * `dsh-bridge doctor`: the core's report (the session plan of the folder and the DSH install's
 * facts), as text or one JSON object; exit 0 only when everything would mount.
 */
export async function runDoctor(ctx: CommandContext): Promise<number> {
  if (ctx.options.user === true) return runUserDoctor(ctx);
  expectNoArgs(ctx);
  const profile = typeof ctx.options.profile === 'string' ? ctx.options.profile : DEFAULT_PROFILE;
  const report = await doctorReport(ctx.ports, { folder: ctx.folder, profile, identity: ctx.identity, bundleMatches: bundleMatchesCheckout });
  if (ctx.json) {
    const word = (m: keyof typeof DOCTOR_MESSAGES, args: Record<string, string | number> = {}) => formatMessage(DOCTOR_MESSAGES[m], args);
    ctx.io.out(JSON.stringify({
      folder: report.folder, dshHome: report.dshHome, profile: report.profile, headless: report.headless, ok: report.ok,
      // The install's facts, then what holds for the whole declaration (area "plan": the plan's reason codes).
      findings: [
        ...report.findings.map((f) => ({ area: f.area, status: f.status, code: f.message, message: word(f.message, f.args), fix: f.fix ?? null })),
        ...report.planFindings.map(({ status, reason: r }) => ({ area: 'plan', status, code: r.code, message: planMessage(r, formatMessage), fix: r.fix?.command ?? null })),
      ],
      wouldMount: report.servers.filter((s) => s.mount).map((s) => s.serverName),
      // Servers the last DSH session's first request went without (still starting), as the plugin recorded them.
      slowStarts: report.servers.flatMap((s) => s.slowStart ? [{ serverName: s.serverName, at: s.slowStart.at, startingMs: s.slowStart.startingMs, waitMs: s.slowStart.waitMs, headless: s.slowStart.headless, ...(s.slowStart.upAfterMs === undefined ? {} : { upAfterMs: s.slowStart.upAfterMs }) }] : []),
      wouldNot: report.servers.filter((s) => !s.mount).map((s) => ({ serverName: s.serverName, name: s.name, outcome: s.outcome, code: s.why, why: verdictText(report, s), fix: s.fix ?? null })),
      // Everything a session goes without (servers, tools, skills, language servers), as verify --json and export --json list it.
      withheldItems: report.withheld,
      plan: report.plan,
    }));
  } else {
    ctx.io.out(`DSH Bridge doctor: ${report.folder} (DSH home ${report.dshHome}, profile ${report.profile})`);
    // Each line on one line, hidden characters escaped: names and messages come from files.
    for (const line of doctorLines(report)) ctx.io.out(visibleLine(line));
  }
  return report.ok ? 0 : 1;
}
