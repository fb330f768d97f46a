import { doctorReport, findingLines } from '../core/app/doctor';
import { userDoctorLines, userDoctorSection, userSectionJson } from '../core/app/doctorUser';
import { planSession } from '../core/app/plan';
import { userServersReport } from '../core/app/userReport';
import { DEFAULT_PROFILE } from '../core/node/dshSide';
import { formatMessage } from '../core/problems/problems';
import { visibleLine } from '../core/json/visibleText';
import { DOCTOR_MESSAGES } from '../core/app/doctor';
import { expectNoArgs, type CommandContext } from './context';
import { bundleMatchesCheckout } from './dshLayout';
import { verifySettings } from './folderIdentity';
import { chosenUserFiles } from './userExport';

/**
 * `dsh-bridge doctor --user`: the DSH install's facts (as `doctor` has them) and the user's own
 * servers in a session of the folder: the user declaration's state, each server's verdict (a
 * workspace server of the same name wins), the servers of the user's files it lacks. Exit 0 only
 * when nothing of the install fails and every server of the user's would mount.
 */
export async function runUserDoctor(ctx: CommandContext): Promise<number> {
  expectNoArgs(ctx);
  const { ports, identity, io } = ctx;
  const profile = typeof ctx.options.profile === 'string' ? ctx.options.profile : DEFAULT_PROFILE;
  const files = await chosenUserFiles(ctx);
  const report = await doctorReport(ports, { folder: ctx.folder, profile, identity, bundleMatches: bundleMatchesCheckout });
  const { settings, ...policy } = verifySettings(identity);
  const workspace = await planSession(ports, { cwd: ctx.folder, settings, verifySettings: policy, skills: false, tools: false });
  const user = await userServersReport(ports, { settings, verifySettings: policy, identity, files }, workspace);
  const section = userDoctorSection(report, user);
  const ok = report.findings.every((f) => f.status !== 'fail') && section.ok;
  if (ctx.json) {
    io.out(JSON.stringify({
      folder: report.folder, dshHome: report.dshHome, profile: report.profile, headless: report.headless, ok, files,
      findings: report.findings.map((f) => ({ area: f.area, status: f.status, code: f.message, message: formatMessage(DOCTOR_MESSAGES[f.message], f.args), fix: f.fix ?? null })),
      user: userSectionJson(section, report),
    }));
    return ok ? 0 : 1;
  }
  io.out(`DSH Bridge doctor, the user's own servers in a session of ${report.folder} (DSH home ${report.dshHome}, profile ${report.profile})`);
  for (const line of [...findingLines(report), '', ...userDoctorLines(section, report)]) io.out(visibleLine(line));
  return ok ? 0 : 1;
}
