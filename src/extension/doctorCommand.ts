import * as vscode from 'vscode';
import { showInformation, showQuickPick, showWarning } from './visible';
import { doctorFixes, doctorLines, doctorReport, doctorSummary, type DoctorReport } from '../core/app/doctor';
import { userDoctorFixes, userDoctorLines, userDoctorSection, type UserDoctorSection } from '../core/app/doctorUser';
import type { PlannedSession } from '../core/app/plan';
import { editorsUserReport } from './userServers';
import type { PlanFixCode } from '../core/app/planReasons';
import { bridgeProfiles, DEFAULT_PROFILE } from '../core/node/dshSide';
import type { FolderIdentity } from '../core/settings/folderSettings';
import { COMMAND } from './commandIds';
import type { Ctx } from './ctx';
import { translate } from './l10n';
import { visibleLine } from '../core/json/visibleText';
import { l10n } from './l10nLookup';

/** The editor's command for each kind of fix (none: the report shows the command line only). */
const FIX_COMMANDS: Partial<Record<PlanFixCode | 'install', string>> = {
  install: COMMAND.installDshSide, export: COMMAND.export, approve: COMMAND.export, 'inputs-set': COMMAND.enterInputValues,
  probe: COMMAND.probeMcpServers, 'skills-trust': COMMAND.reviewSkillRoots, check: 'workbench.actions.view.problems',
};

/** The user declaration's fixes: its own export (the folder's commands act on the folder). */
const USER_FIX_COMMANDS: Partial<Record<PlanFixCode | 'install', string>> = { install: COMMAND.installDshSide, export: COMMAND.exportUserServers, 'inputs-set': COMMAND.enterInputValues };

const html = (text: string) => visibleLine(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * *DSH: Diagnose Setup (Doctor)*: the core's doctor report for one folder (the same as
 * `dsh-bridge doctor`: the session plan and the DSH install's facts) for the profile the user
 * runs (the DSH home's profile with the bridge; asked when there are several), worded through
 * l10n, in a read-only view whose links run each fix (command links enabled for those commands
 * only), each fix once; the summary as a message without the fixes. Below the folder's part, the
 * user's own servers in a session there (core/app/doctorUser, as `dsh-bridge doctor --user`).
 */
export async function showDoctorReport(folder: vscode.WorkspaceFolder, identity: FolderIdentity, ctx: Ctx, workspace: Promise<PlannedSession>): Promise<(DoctorReport & { user: UserDoctorSection }) | undefined> {
  const ports = ctx.ports();
  const profiles = bridgeProfiles(ports.dshHome);
  const profile = profiles.length <= 1 ? profiles[0] ?? DEFAULT_PROFILE
    : (await showQuickPick(profiles.map((label) => ({ label })), { placeHolder: l10n.t('Diagnose which DSH profile?'), ignoreFocusOut: true }))?.label;
  if (!profile) return undefined;
  // The editor's user is at a terminal: a profile not installed yet is not taken as headless.
  const report = await doctorReport(ports, { folder: folder.uri.fsPath, profile, identity, interactive: true });
  const user = userDoctorSection(report, await editorsUserReport(ctx, folder, await workspace));
  const title = l10n.t('DSH Bridge doctor: {0} (DSH home {1}, profile {2})', folder.name, ports.dshHome, report.profile);
  ctx.log.info(`doctor ${folder.name}: ${doctorSummary(report)}`);

  // Each line as the CLI has it, without the fixes (the summary too): every fix is listed once, below, with its command.
  const fixes = new Map([...doctorFixes(report, translate)].map(([text, code]) => [text, code && FIX_COMMANDS[code]] as const));
  for (const [text, code] of userDoctorFixes(user)) if (!fixes.has(text)) fixes.set(text, code && USER_FIX_COMMANDS[code]);
  const summary = doctorSummary(report, translate, false);
  const lines = [...doctorLines(report, translate, false), '', ...userDoctorLines(user, report, translate, false)];
  const fixItems = [...fixes].map(([command, id]) => `<li><code>${html(command)}</code>${id ? ` <a href="command:${id}">${html(l10n.t('Run the fix'))}</a>` : ''}</li>`);
  const panel = vscode.window.createWebviewPanel('dsh.doctor', title, vscode.ViewColumn.Active, {
    enableScripts: false, enableCommandUris: [...new Set([...fixes.values()].filter((id): id is string => id !== undefined))],
  });
  panel.webview.html = `<!DOCTYPE html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<style>body{font-family:var(--vscode-font-family);color:var(--vscode-foreground)}li{margin:.3em 0}pre{white-space:pre-wrap}</style></head><body>
<h2>${html(title)}</h2><pre>${lines.map(html).join('\n')}</pre>${fixItems.length ? `<h3>${html(l10n.t('Fixes'))}</h3><ul>${fixItems.join('')}</ul>` : ''}</body></html>`;
  if (report.ok) void showInformation(summary);
  else void showWarning(summary);
  return { ...report, user };
}
