import * as vscode from 'vscode';
import { showInformation, showWarning } from './visible';
import { doctorLines, doctorReport, doctorSummary, type DoctorReport } from '../core/app/doctor';
import { DEFAULT_PROFILE } from '../core/node/dshSide';
import type { FolderIdentity } from '../core/settings/folderSettings';
import type { Ctx } from './ctx';
import { translate } from './l10n';
import { visibleLine } from '../core/json/visibleText';
import { l10n } from './l10nLookup';

/**
 * *DSH: Diagnose Setup (Doctor)*: the core's doctor report for one folder (the same as
 * `dsh-bridge doctor`: the session plan and the DSH install's facts), worded through l10n, opened
 * as a document, with the summary as a message.
 */
export async function showDoctorReport(folder: vscode.WorkspaceFolder, identity: FolderIdentity, ctx: Ctx): Promise<DoctorReport> {
  const ports = ctx.ports();
  const report = await doctorReport(ports, { folder: folder.uri.fsPath, profile: DEFAULT_PROFILE, identity });
  const title = l10n.t('DSH Bridge doctor: {0} (DSH home {1}, profile {2})', folder.name, ports.dshHome, report.profile);
  const lines = doctorLines(report, translate);
  ctx.log.info(`doctor ${folder.name}: ${doctorSummary(report)}`);
  // The report quotes the folder, the DSH home and the declaration: each line shown escaped.
  const document = await vscode.workspace.openTextDocument({ content: [title, '', ...lines, ''].map(visibleLine).join('\n'), language: 'plaintext' });
  await vscode.window.showTextDocument(document, { preview: true });
  const summary = doctorSummary(report, translate);
  if (report.ok) void showInformation(summary);
  else void showWarning(summary);
  return report;
}
