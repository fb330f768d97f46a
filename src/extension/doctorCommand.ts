import * as vscode from 'vscode';
import { showInformation, showWarning } from './visible';
import { doctorLines, doctorReport, doctorSummary, type DoctorReport } from '../core/app/doctor';
import { translate } from './l10n';
import { visibleLine } from '../core/json/visibleText';
import { l10n } from './l10nLookup';

/**
 * *DSH: Diagnose Setup (Doctor)*: the core's doctor report for one folder (the same as
 * `dsh-bridge doctor`), worded through l10n, opened as a document, with the summary as a message.
 */
export async function showDoctorReport(folder: vscode.WorkspaceFolder, dshHome: string, log: vscode.LogOutputChannel): Promise<DoctorReport> {
  const report = await doctorReport({ folder: folder.uri.fsPath, dshHome });
  const title = l10n.t('DSH Bridge doctor: {0} (DSH home {1}, profile {2})', folder.name, dshHome, report.profile);
  const lines = doctorLines(report, translate);
  log.info(`doctor ${folder.name}: ${doctorSummary(report)}`);
  // The report quotes the folder, the DSH home and the declaration: each line shown escaped.
  const document = await vscode.workspace.openTextDocument({ content: [title, '', ...lines, ''].map(visibleLine).join('\n'), language: 'plaintext' });
  await vscode.window.showTextDocument(document, { preview: true });
  const summary = doctorSummary(report, translate);
  if (report.ok) void showInformation(summary);
  else void showWarning(summary);
  return report;
}
