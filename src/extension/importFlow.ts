import * as path from 'node:path';
import * as vscode from 'vscode';
import { showError, showInformation, showQuickPick, showWarning } from './visible';
import {
  applyImport, carriedOriginals, CLIENT_NAMES, IMPORT_TARGET_FILES, importChoices, importReport, importTargetChoice, isImportClient, removeCarriedOriginals, reviewImport,
  type ExportRefusal, type ExportWarning, type ImportClient, type ImportNote, type ImportPlan, type ImportReview, type ImportTargetChoice,
} from '../core/app/import';
import { importFiles } from '../core/node/importFiles';
import { portableFiles } from '../core/node/portableFiles';
import { sentences, translate } from './l10n';
import { requireWorkspaceTrust } from './workspaceTrust';
import type { Ctx } from './ctx';
import { l10n } from './l10nLookup';

/**
 * DSH: Import MCP Servers...: pick a client (and its files), preview the folder's MCP file(s) as
 * they would be in a diff editor each, then write them and put the credentials into secret
 * storage. Where it writes is `dsh.import.target` (auto: where *MCP: Add Server* would). The import is the
 * core's use case (core/app/import); this module asks, shows and reports. Loaded on first use.
 */

export const PREVIEW_SCHEME = 'dsh-bridge-import';

/** `dsh.import.target`: where the import writes (the CLI's `--to`). */
export const IMPORT_TARGET_SETTING = 'dsh.import.target';

type PlannedImport = Extract<ImportReview, { outcome: 'planned' }>;

/** What one run did; returned by the command for tests (ids and names only, never a value). */
export interface ImportSummary {
  outcome: 'imported' | 'cancelled' | 'nothing' | 'failed' | 'restricted' | 'changed';
  client?: ImportClient;
  /** The files written (or that would have been), as the user reads them. */
  writes?: string[];
  servers: string[];
  /** Warnings on the imported servers, by server and code (`secret-in-args`). */
  warnings?: Array<Pick<ExportWarning, 'server' | 'code'>>;
  /** Imported servers the export refuses (e.g. an `sse` one). */
  refused?: string[];
  /** Carried servers removed from their source file at the user's choice. */
  originalsRemoved?: string[];
  inputs: string[];
  secretsStored: string[];
  notes: Array<Pick<ImportNote, 'code' | 'kind' | 'server' | 'field'>>;
}

function importArgs(arg: unknown): ImportArgs {
  if (arg instanceof vscode.Uri) return { folder: arg };
  return typeof arg === 'object' && arg !== null ? arg as ImportArgs : {};
}

/** Arguments a caller (a test, a walkthrough link) may pass to skip the questions. */
export interface ImportArgs {
  folder?: vscode.Uri;
  client?: ImportClient;
  files?: string[];
  /** Answers the "import?" question after the preview opened (tests): true applies, false cancels. */
  apply?: boolean | ((preview: { left: vscode.Uri; right: vscode.Uri }) => boolean | Thenable<boolean>);
  /** Answers the offer to remove the carried originals from their source files (tests); default: ask, and keep them unless told. */
  removeOriginals?: boolean;
  /** Where to write (tests); default: the setting `dsh.import.target`. */
  to?: ImportTargetChoice;
}

const none = (outcome: ImportSummary['outcome'], client?: ImportClient, plan?: ImportPlan): ImportSummary => ({
  outcome, client, servers: [], inputs: [], secretsStored: [], notes: plan ? summaryNotes(plan) : [],
});
const summaryNotes = (plan: ImportPlan) => plan.notes.map(({ code, kind, server, field }) => ({ code, kind, server, field }));

export class ImportFlow implements vscode.Disposable {
  private readonly previews = new Map<string, string>();
  private readonly provider: vscode.Disposable;
  private running = false;

  private readonly log: vscode.LogOutputChannel;

  constructor(private readonly ctx: Ctx) {
    this.log = ctx.log;
    this.provider = vscode.workspace.registerTextDocumentContentProvider(PREVIEW_SCHEME, {
      provideTextDocumentContent: (uri) => this.previews.get(uri.toString()) ?? '',
    });
  }

  dispose(): void {
    this.provider.dispose();
  }

  /** The import's ports: the use cases' of the DSH home now, with the import's files (loaded with this flow). */
  private ports() {
    return { ...this.ctx.ports(), imports: importFiles, portable: portableFiles };
  }

  /** The command: `arg` is a folder URI (explorer), {@link ImportArgs}, or nothing (ask everything). */
  async run(arg?: unknown): Promise<ImportSummary> {
    if (this.running) return none('cancelled');
    this.running = true;
    try {
      return await this.runOnce(importArgs(arg));
    } finally {
      this.running = false;
    }
  }

  private async runOnce(args: ImportArgs): Promise<ImportSummary> {
    if (!requireWorkspaceTrust(l10n.t('Import'), this.log)) return none('restricted');
    const folder = await this.pickFolder(args.folder);
    if (!folder) return none('cancelled');
    const root = folder.uri.fsPath;

    if (args.client !== undefined && !isImportClient(args.client)) return none('cancelled');
    const choice = args.client ? { client: args.client, files: args.files ?? [] } : await this.pickSource(root);
    if (!choice) return none('cancelled');
    const { client } = choice;

    const dirty = Object.values(IMPORT_TARGET_FILES).find((file) => vscode.workspace.textDocuments.some((d) => d.isDirty && d.uri.fsPath === path.join(root, file)));
    if (dirty) {
      void showWarning(l10n.t('{0} has unsaved changes: save or revert them, then import again.', dirty));
      return none('cancelled', client);
    }
    const to = args.to ?? importTargetChoice(vscode.workspace.getConfiguration(undefined, folder.uri).get<unknown>(IMPORT_TARGET_SETTING)) ?? 'auto';
    // Ids with a stored value are the user's (here or stored by the CLI): the import gives its credentials other ids.
    const review = await reviewImport(this.ports(), { client, folder: root, files: choice.files, storedInputIds: await this.ctx.storedInputIds(root), to });
    if (review.outcome === 'target-unreadable') {
      this.log.warn(`import: the MCP files of ${root} cannot be edited (${review.reason})`);
      void showError(l10n.t('The MCP files of this folder cannot be edited ({0}); nothing was changed.', review.reason));
      return none('failed', client);
    }
    if (review.outcome === 'nothing-found') {
      void this.tell('info', l10n.t('No MCP configuration of {0} was found in this folder or your home folder.', CLIENT_NAMES[client]));
      return none('nothing', client, review.plan);
    }
    const { plan } = review;
    this.log.info(importReport(review));
    if (!plan.ok || !plan.changed) {
      const { failed } = review;
      const message = failed ? l10n.t('Nothing was imported from {0}: the log says why.', CLIENT_NAMES[client])
        : l10n.t('Nothing to import from {0}: {1} already has its servers.', CLIENT_NAMES[client], IMPORT_TARGET_FILES.vscode);
      void this.tell(failed ? 'error' : 'info', message);
      return none(failed ? 'failed' : 'nothing', client, plan);
    }

    // The preview: each file written, as it is on the left, as it would be on the right.
    const stamp = Date.now().toString(36);
    const previews = previewedFiles(review).map(({ file, before, after }, i) => {
      const right = vscode.Uri.from({ scheme: PREVIEW_SCHEME, path: `/${folder.name}/${file}`, query: `after-${stamp}-${i}` });
      const left = before === undefined ? vscode.Uri.from({ scheme: PREVIEW_SCHEME, path: `/${folder.name}/${file}`, query: `before-${stamp}-${i}` }) : vscode.Uri.file(path.join(root, file));
      this.previews.set(right.toString(), after ?? '');
      if (before === undefined) this.previews.set(left.toString(), '');
      return { file, left, right };
    });
    try {
      for (const { file, left, right } of previews) {
        await vscode.commands.executeCommand('vscode.diff', left, right, l10n.t('{0} (preview of the import from {1})', file, CLIENT_NAMES[client]), { preview: previews.length === 1 });
      }
      const first = previews[0];
      const answer = typeof args.apply === 'function' ? await args.apply({ left: first.left, right: first.right }) : args.apply ?? await this.ask(review, folder);
      if (!answer) {
        void showInformation(l10n.t('Import cancelled: nothing was written.'));
        return none('cancelled', client, plan);
      }
      return await this.apply(folder, review, args.removeOriginals);
    } finally {
      await this.closePreviews(previews.map((p) => p.right));
      for (const { left, right } of previews) {
        this.previews.delete(right.toString());
        this.previews.delete(left.toString());
      }
    }
  }

  private async apply(folder: vscode.WorkspaceFolder, review: PlannedImport, removeOriginals: boolean | undefined): Promise<ImportSummary> {
    const { plan, refusals } = review;
    const root = folder.uri.fsPath;
    const files = review.writes.join(', ');
    const result = await applyImport(this.ports(), root, plan, (inputId, value) => this.ctx.secrets.store(root, inputId, value), review.portable);
    if (!result.written) {
      this.log.warn(`import: nothing written: ${result.message}`);
      void showWarning(result.reason === 'changed'
        ? l10n.t('{0} changed while the preview was open: nothing was written. Import again to review the new content.', files)
        : l10n.t('{0} could not be written: the log has the details.', files));
      return none(result.reason === 'changed' ? 'changed' : 'failed', plan.client, plan);
    }
    this.log.info(`import: wrote ${files} of ${root}: ${plan.servers.map((s) => s.name).join(', ')}; credentials stored for ${result.secretsStored.join(', ') || 'none'}`);
    // The originals in the client's own project files still hold the servers (and their
    // credentials): offered for removal, kept unless the user says so.
    const carried = carriedOriginals(review);
    const removeLabel = l10n.t('Remove Them from {0}', carried.map((c) => c.source.file).join(', '));
    const summary = {
      outcome: 'imported' as const, client: plan.client, writes: review.writes, warnings: review.warnings.map(({ server, code }) => ({ server, code })), servers: plan.servers.map((s) => s.name), inputs: plan.inputs.map((i) => i.id),
      secretsStored: result.secretsStored, notes: summaryNotes(plan), refused: refusals.map((r) => r.server), originalsRemoved: [] as string[],
    };
    const remove = async () => {
      for (const c of carried) {
        const removal = await removeCarriedOriginals(this.ports(), root, c);
        summary.originalsRemoved.push(...removal.removed);
        if ('reason' in removal) {
          this.log.warn(`import: ${c.source.file} left as it is: ${removal.message}`);
          void showWarning(l10n.t('{0} was left as it is: the log says why.', c.source.file));
        } else {
          this.log.info(`import: removed ${removal.removed.join(', ')} from ${c.source.file}`);
          void showInformation(l10n.t('Removed from {0}: {1}.', c.source.file, removal.removed.join(', ')));
        }
      }
    };
    const message = sentences([importedMessage(review), ...(carried.length ? [l10n.t('The originals, with their credentials, are still in {0}.', carried.map((c) => c.source.file).join(', '))] : [])]);
    if (removeOriginals !== undefined) {
      void this.tell('info', message, { folder, file: review.writes[0] }, () => this.showReport(review, folder));
      if (removeOriginals) await remove();
    } else {
      void this.tell('info', message, { folder, file: review.writes[0] }, () => this.showReport(review, folder), carried.length ? { label: removeLabel, run: remove } : undefined);
    }
    return summary;
  }

  /**
   * The question, over the preview: a modal, since a notification with buttons hides itself after
   * its timeout (VS Code makes only errors with actions sticky: NotificationViewItem.sticky) and
   * leaves the diff with no visible way to answer. Its detail says everything the report flags.
   * When something is flagged (not carried, refused by the export, a warning), the first answer,
   * the one Enter presses, is Show Report, as askSafeFirst orders a consent: only a click (or Tab)
   * imports. Show Report opens the report beside the diff and asks again; Escape cancels.
   */
  private async ask(review: PlannedImport, folder: vscode.WorkspaceFolder): Promise<boolean> {
    const { plan } = review;
    const n = plan.servers.length;
    const files = review.writes.join(', ');
    const question = n === 1
      ? l10n.t('Add 1 MCP server from {0} to {1}, as the preview shows?', CLIENT_NAMES[plan.client], files)
      : l10n.t('Add {0} MCP servers from {1} to {2}, as the preview shows?', n, CLIENT_NAMES[plan.client], files);
    const importLabel = l10n.t('Import');
    const showReport = l10n.t('Show Report');
    const flagged = isFlagged(review);
    const answers = flagged ? [showReport, importLabel] : [importLabel, showReport];
    for (;;) {
      const options = { modal: true, detail: lossLine(review) };
      const choice = flagged ? await showWarning(question, options, ...answers) : await showInformation(question, options, ...answers);
      if (choice !== showReport) return choice === importLabel;
      await this.showReport(review, folder);
    }
  }

  /**
   * The report: a read-only Markdown document beside the preview, grouped by server, visible
   * whatever the log level. Notes never hold a credential, so neither does the report.
   */
  private async showReport(review: PlannedImport, folder: vscode.WorkspaceFolder): Promise<void> {
    const uri = vscode.Uri.from({ scheme: PREVIEW_SCHEME, path: `/${folder.name}/import-report.md`, query: `report-${Date.now().toString(36)}` });
    this.previews.set(uri.toString(), importReport(review, (english, args) => translate(english, args ?? {})));
    try {
      await vscode.window.showTextDocument(uri, { preview: true, viewColumn: vscode.ViewColumn.Beside, preserveFocus: true });
    } finally {
      this.previews.delete(uri.toString());
    }
  }

  private async tell(level: 'info' | 'error', message: string, written?: { folder: vscode.WorkspaceFolder; file: string }, report?: () => Promise<void>, extra?: { label: string; run: () => Promise<void> }): Promise<void> {
    const showLog = l10n.t('Show Logs');
    const open = l10n.t('Open mcp.json');
    const showReport = l10n.t('Show Report');
    // The report, not the log, when there is one: the log may be set above info.
    const actions = [...(written ? [open] : []), report ? showReport : showLog, ...(extra ? [extra.label] : [])];
    const choice = level === 'error' ? await showError(message, ...actions) : await showInformation(message, ...actions);
    if (extra && choice === extra.label) await extra.run();
    if (choice === showLog) this.log.show(true);
    if (choice === showReport && report) await report();
    if (choice === open && written) await vscode.window.showTextDocument(vscode.Uri.file(path.join(written.folder.uri.fsPath, written.file)));
  }

  private async closePreviews(rights: vscode.Uri[]): Promise<void> {
    const shown = new Set(rights.map((r) => r.toString()));
    const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputTextDiff && shown.has(t.input.modified.toString()));
    if (tabs.length) await vscode.window.tabGroups.close(tabs);
  }

  private async pickFolder(arg: vscode.Uri | undefined): Promise<vscode.WorkspaceFolder | undefined> {
    if (arg) return vscode.workspace.getWorkspaceFolder(arg);
    const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
    if (folders.length <= 1) {
      if (!folders.length) void showInformation(l10n.t('Open a folder to import MCP servers into it.'));
      return folders[0];
    }
    return vscode.window.showWorkspaceFolderPick({ placeHolder: l10n.t('Import MCP servers into which folder?'), ignoreFocusOut: true });
  }

  /** The clients whose usual files exist come first; any client's file can be chosen too. */
  private async pickSource(root: string): Promise<{ client: ImportClient; files: string[] } | undefined> {
    type Item = vscode.QuickPickItem & { client?: ImportClient; browse?: boolean };
    const detected: Item[] = [];
    const browse: Item[] = [];
    for (const { client, found, looked } of await importChoices(this.ports(), root)) {
      if (found.length) detected.push({ label: CLIENT_NAMES[client], description: found.join(', '), client });
      browse.push({ label: `$(folder-opened) ${l10n.t('{0}: Choose a File...', CLIENT_NAMES[client])}`, client, browse: true, description: looked.join(', ') });
    }
    const items: Item[] = [...detected, { label: '', kind: vscode.QuickPickItemKind.Separator }, ...browse];
    const picked = await showQuickPick(items, {
      title: l10n.t('Import MCP Servers'),
      placeHolder: detected.length ? l10n.t('Import from which client? Found files are listed first.') : l10n.t('No MCP file of Cursor, Claude Code, Gemini CLI or Codex was found here: choose a file.'),
      ignoreFocusOut: true,
    });
    if (!picked?.client) return undefined;
    if (!picked.browse) return { client: picked.client, files: [] };
    const uris = await vscode.window.showOpenDialog({
      canSelectMany: true, defaultUri: vscode.Uri.file(root), openLabel: l10n.t('Import'),
      filters: picked.client === 'codex' ? { TOML: ['toml'] } : { JSON: ['json'] },
    });
    return uris?.length ? { client: picked.client, files: uris.map((u) => u.fsPath) } : undefined;
  }
}

/** What the export refuses of the carried servers: named, with the reason in the report. */
function refusedLine(refusals: ExportRefusal[]): string[] {
  if (!refusals.length) return [];
  const names = refusals.map((r) => `"${r.server}"`).join(', ');
  return [refusals.length === 1
    ? l10n.t('{0} is carried, but the export refuses it ({1}): Show Report says why.', names, refusals[0].reasons.map((r) => r.code).join(', '))
    : l10n.t('{0} carried servers are refused by the export ({1}): Show Report says why.', refusals.length, names)];
}

/** The files of the folder the import changes, each as it is (undefined: no file yet) and as it would be. */
function previewedFiles(review: PlannedImport): Array<{ file: string; before: string | undefined; after: string | undefined }> {
  const { plan, portable } = review;
  if (!portable) return [{ file: IMPORT_TARGET_FILES.vscode, before: review.targetExists ? plan.before : undefined, after: plan.after }];
  return [
    { file: IMPORT_TARGET_FILES['dot-mcp'], before: portable.dotMcpBefore, after: portable.dotMcpAfter },
    { file: IMPORT_TARGET_FILES.vscode, before: portable.vscodeBefore, after: portable.vscodeAfter },
  ].filter((f) => f.before !== f.after);
}

/** Whether the report flags anything: then the question's default answer is not Import. */
function isFlagged({ refusals, warnings, uncarried }: PlannedImport): boolean {
  return uncarried > 0 || refusals.length > 0 || warnings.length > 0;
}

/** The warnings on the imported servers, by count, with their codes. */
function warningLine(warnings: readonly ExportWarning[]): string[] {
  if (!warnings.length) return [];
  const codes = [...new Set(warnings.map((w) => w.code))].join(', ');
  return [warnings.length === 1
    ? l10n.t('1 warning on the imported servers ({0}): Show Report lists it.', codes)
    : l10n.t('{0} warnings on the imported servers ({1}): Show Report lists them.', warnings.length, codes)];
}

/** "3 fields could not be carried" etc., said with the question: "Everything was carried" only when nothing is flagged. */
function lossLine(review: PlannedImport): string {
  const { plan, refusals, warnings, uncarried: lost } = review;
  const parts = [
    ...(!isFlagged(review) ? [l10n.t('Everything was carried.')] : []),
    ...(lost === 1 ? [l10n.t('1 item could not be carried: Show Report lists it.')] : lost > 1 ? [l10n.t('{0} items could not be carried: Show Report lists them.', lost)] : []),
    ...refusedLine(refusals),
    ...warningLine(warnings),
  ];
  if (plan.secrets.length === 1) parts.push(l10n.t('1 credential goes to secret storage, not into the file.'));
  else if (plan.secrets.length > 1) parts.push(l10n.t('{0} credentials go to secret storage, not into the file.', plan.secrets.length));
  return sentences(parts);
}

function importedMessage({ plan, refusals, warnings, writes, uncarried: lost }: PlannedImport): string {
  const n = plan.servers.length;
  const files = writes.join(', ');
  const parts = [n === 1
    ? l10n.t('Imported 1 MCP server from {0} into {1}.', CLIENT_NAMES[plan.client], files)
    : l10n.t('Imported {0} MCP servers from {1} into {2}.', n, CLIENT_NAMES[plan.client], files)];
  if (lost === 1) parts.push(l10n.t('1 item could not be carried: Show Report lists it.'));
  else if (lost > 1) parts.push(l10n.t('{0} items could not be carried: Show Report lists them.', lost));
  parts.push(...refusedLine(refusals), ...warningLine(warnings));
  if (plan.secrets.length === 1) parts.push(l10n.t('1 credential was moved to secret storage.'));
  else if (plan.secrets.length > 1) parts.push(l10n.t('{0} credentials were moved to secret storage.', plan.secrets.length));
  const toEnter = plan.inputs.length - plan.secrets.length;
  if (toEnter === 1) parts.push(l10n.t('Enter 1 input value with DSH: Enter MCP Input Values.'));
  else if (toEnter > 1) parts.push(l10n.t('Enter {0} input values with DSH: Enter MCP Input Values.', toEnter));
  return sentences(parts);
}
