import * as vscode from 'vscode';
import { showInformation, showQuickPick, showWarning } from './visible';
import { doctorFixes, doctorLines, doctorReport, doctorSummary, type DoctorReport } from '../core/app/doctor';
import { userDoctorFixes, userDoctorLines, userDoctorSection, type UserDoctorSection } from '../core/app/doctorUser';
import type { PlannedSession } from '../core/app/plan';
import { editorsUserReport } from './userServers';
import { doctorProfiles } from '../core/app/doctorProfile';
import type { Ports } from '../core/app/ports';
import { editorFixes, type EditorFix } from './doctorFixes';
import type { FolderIdentity } from '../core/settings/folderSettings';
import { COMMAND } from './commandIds';
import type { Ctx } from './ctx';
import { translate } from './l10n';
import { visibleLine } from '../core/json/visibleText';
import { l10n } from './l10nLookup';

/** The user declaration's fixes in the editor's words, each with its own command (the folder's fixes act on the folder, through COMMAND.runDoctorFix). */
const USER_FIX_COMMANDS: Partial<Record<string, { id: string; title: () => string; words: () => string }>> = {
  export: { id: COMMAND.exportUserServers, title: () => l10n.t('Export Your Own MCP Servers'), words: () => l10n.t('Export your own MCP servers (the profile\'s mcp.json, Copilot Global): every DSH session gets them from the user declaration.') },
  'inputs-set': { id: COMMAND.enterInputValues, title: () => l10n.t('Enter MCP Input Values...'), words: () => l10n.t('Enter the input values your own servers need.') },
};

const html = (text: string) => visibleLine(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The profile to diagnose: asked only when several load the bridge; with the words that say which and why. */
async function pickProfile(ports: Pick<Ports, 'dshInstall' | 'dshHome'>): Promise<{ profile: string; why: string } | undefined> {
  const choice = doctorProfiles(ports);
  if (choice.kind === 'only') return { profile: choice.profile, why: l10n.t('Profile "{0}": the only DSH profile in {1} that loads the bridge.', choice.profile, ports.dshHome) };
  if (choice.kind === 'none') return { profile: choice.profile, why: l10n.t('No DSH profile in {0} loads the bridge yet: this is profile "{1}", the one Install the DSH Side sets up.', ports.dshHome, choice.profile) };
  const picked = await showQuickPick(choice.profiles.map((label) => ({ label })), { placeHolder: l10n.t('Diagnose which DSH profile?'), ignoreFocusOut: true });
  return picked && { profile: picked.label, why: l10n.t('Profile "{0}", which you picked: {1} load the bridge.', picked.label, choice.profiles.join(l10n.t(', '))) };
}

/**
 * *DSH: Diagnose Setup (Doctor)*: the core's doctor report for one folder (the same as
 * `dsh-bridge doctor`: the session plan and the DSH install's facts) for the profile the user
 * runs (the one with the bridge; asked when there are several, and said which), worded through
 * l10n, in a read-only view. Each fix is listed once in the editor's words with a button that
 * runs the editor's own command (command links enabled for those commands only); a command line
 * only for what only the CLI does. The summary as a message without the fixes. Below the folder's
 * part, the user's own servers in a session there (core/app/doctorUser, as `dsh-bridge doctor --user`).
 */
export async function showDoctorReport(folder: vscode.WorkspaceFolder, identity: FolderIdentity, ctx: Ctx, workspace: Promise<PlannedSession>): Promise<(DoctorReport & { user: UserDoctorSection }) | undefined> {
  const ports = ctx.ports();
  const picked = await pickProfile(ports);
  if (!picked) return undefined;
  // The editor's user is at a terminal: a profile not installed yet is not taken as headless.
  const report = await doctorReport(ports, { folder: folder.uri.fsPath, profile: picked.profile, identity, interactive: true });
  const user = userDoctorSection(report, await editorsUserReport(ctx, folder, await workspace));
  const title = l10n.t('DSH Bridge doctor: {0} (DSH home {1}, profile {2})', folder.name, ports.dshHome, report.profile);
  ctx.log.info(`doctor ${folder.name} (profile ${report.profile}): ${doctorSummary(report)}`);

  // Each line as the CLI has it, without the fixes (the summary too): every fix is listed once, below, with its button.
  const fixes = editorFixes(doctorFixes(report, translate), folder, report.profile);
  const summary = doctorSummary(report, translate, false);
  const lines = [...doctorLines(report, translate, false), '', ...userDoctorLines(user, report, translate, false)];
  const link = (b: NonNullable<EditorFix['button']>) => ` <a href="command:${COMMAND.runDoctorFix}?${encodeURIComponent(JSON.stringify(b.args))}">${html(b.title)}</a>`;
  const fixItems = fixes.map((f) => `<li>${html(f.text)}${f.cli ? ` <code>${html(f.cli)}</code>` : ''}${f.button ? link(f.button) : ''}</li>`);
  // The user's own servers: their fixes in the editor's words with their own commands; installing
  // the DSH side is the folder's fix already; what the editor cannot do shows its command line.
  const listed = new Set(fixes.map((f) => f.cli ?? f.text));
  for (const [text, code] of userDoctorFixes(user)) {
    if (listed.has(text) || code === 'install') continue;
    const run = code === undefined ? undefined : USER_FIX_COMMANDS[code];
    fixItems.push(run ? `<li>${html(run.words())} <a href="command:${run.id}">${html(run.title())}</a></li>` : `<li><code>${html(text)}</code></li>`);
  }
  const panel = vscode.window.createWebviewPanel('dsh.doctor', title, vscode.ViewColumn.Active, {
    enableScripts: false, enableCommandUris: [COMMAND.runDoctorFix, ...Object.values(USER_FIX_COMMANDS).map((c) => c!.id)],
  });
  panel.webview.html = `<!DOCTYPE html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<style>body{font-family:var(--vscode-font-family);color:var(--vscode-foreground)}li{margin:.3em 0}pre{white-space:pre-wrap}</style></head><body>
<h2>${html(title)}</h2><p class="profile">${html(picked.why)}</p><pre>${lines.map(html).join('\n')}</pre>${fixItems.length ? `<h3>${html(l10n.t('Fixes'))}</h3><ul>${fixItems.join('')}</ul>` : ''}</body></html>`;
  if (report.ok) void showInformation(summary);
  else void showWarning(summary);
  return { ...report, user };
}
