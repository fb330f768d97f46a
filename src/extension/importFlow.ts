import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { showError, showInformation, showQuickPick, showWarning } from './visible';
import { CLIENT_NAMES, IMPORT_CLIENTS, noteTemplate, type ImportClient, type ImportNote } from '../core/import/importNotes';
import { planImport, type ImportPlan } from '../core/import/importPlan';
import { displayPath, importLocations, readImportSources, readImportTarget, TARGET_PATH, writeImportTarget } from '../core/node/importFiles';
import { translate } from './l10n';
import { visibleLine } from '../core/json/visibleText';
import { requireTrust } from './trust';
import type { Ctx } from './ctx';
import { l10n } from './l10nLookup';

/**
 * DSH: Import MCP Servers...: pick a client (and its files), preview the new .vscode/mcp.json in a
 * diff editor, then write it and put the credentials into secret storage. The conversion is the
 * core's (core/import); this module asks, shows and reports. Loaded on first use.
 */

export const PREVIEW_SCHEME = 'dsh-bridge-import';

/** What one run did; returned by the command for tests (ids and names only, never a value). */
export interface ImportSummary {
  outcome: 'imported' | 'cancelled' | 'nothing' | 'failed' | 'restricted' | 'changed';
  client?: ImportClient;
  servers: string[];
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
    if (!requireTrust(l10n.t('Import'), this.log)) return none('restricted');
    const folder = await this.pickFolder(args.folder);
    if (!folder) return none('cancelled');
    const root = folder.uri.fsPath;
    const home = os.homedir();

    if (args.client !== undefined && !(IMPORT_CLIENTS as readonly string[]).includes(args.client)) return none('cancelled');
    const choice = args.client ? { client: args.client, files: args.files ?? [] } : await this.pickSource(root, home);
    if (!choice) return none('cancelled');
    const { client } = choice;

    const doc = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === path.join(root, TARGET_PATH));
    if (doc?.isDirty) {
      void showWarning(l10n.t('.vscode/mcp.json has unsaved changes: save or revert them, then import again.'));
      return none('cancelled', client);
    }
    const read = await readImportSources(client, root, choice.files, home, process.env);
    const target = await readImportTarget(root);
    if ('reason' in target) {
      this.log.warn(`import: ${TARGET_PATH} cannot be edited (${target.reason})`);
      void showError(l10n.t('.vscode/mcp.json cannot be edited ({0}); nothing was changed.', target.reason));
      return none('failed', client);
    }
    // Ids with a stored value are the user's (here or stored by the CLI): the import gives its credentials other ids.
    const storedInputIds = await this.ctx.storedInputIds(root);
    const plan = planImport({ client, sources: read.sources, folder: root, target: target.text, readNotes: read.notes, storedInputIds });
    this.logReport(plan, read.sources.map((s) => s.file));
    if (!plan.ok || !plan.changed) {
      const failed = !plan.ok || plan.notes.some((n) => n.kind === 'error');
      const message = !read.sources.length && !read.notes.length
        ? l10n.t('No MCP configuration of {0} was found in this folder or your home folder.', CLIENT_NAMES[client])
        : failed ? l10n.t('Nothing was imported from {0}: the log says why.', CLIENT_NAMES[client])
          : l10n.t('Nothing to import from {0}: .vscode/mcp.json already has its servers.', CLIENT_NAMES[client]);
      void this.tell(failed ? 'error' : 'info', message);
      return none(failed ? 'failed' : 'nothing', client, plan);
    }

    // The preview: the file as it is on the left, as it would be on the right.
    const stamp = Date.now().toString(36);
    const right = vscode.Uri.from({ scheme: PREVIEW_SCHEME, path: `/${folder.name}/${TARGET_PATH}`, query: `after-${stamp}` });
    const left = target.text === undefined ? vscode.Uri.from({ scheme: PREVIEW_SCHEME, path: `/${folder.name}/${TARGET_PATH}`, query: `before-${stamp}` }) : vscode.Uri.file(path.join(root, TARGET_PATH));
    this.previews.set(right.toString(), plan.after);
    if (target.text === undefined) this.previews.set(left.toString(), '');
    try {
      await vscode.commands.executeCommand('vscode.diff', left, right, l10n.t('{0} (preview of the import from {1})', TARGET_PATH, CLIENT_NAMES[client]), { preview: true });
      const answer = typeof args.apply === 'function' ? await args.apply({ left, right }) : args.apply ?? await this.ask(plan, folder, read.sources.map((s) => s.file));
      if (!answer) {
        void showInformation(l10n.t('Import cancelled: nothing was written.'));
        return none('cancelled', client, plan);
      }
      return await this.apply(folder, plan, read.sources.map((s) => s.file));
    } finally {
      await this.closePreview(right);
      this.previews.delete(right.toString());
      this.previews.delete(left.toString());
    }
  }

  private async apply(folder: vscode.WorkspaceFolder, plan: ImportPlan, files: string[]): Promise<ImportSummary> {
    const root = folder.uri.fsPath;
    // Values first: a file naming an input whose value is missing is worse than a stored value unused.
    for (const s of plan.secrets) await this.ctx.secrets.store(root, s.inputId, s.value);
    const result = await writeImportTarget(root, plan.before, plan.after);
    if (!result.written) {
      this.log.warn(`import: nothing written: ${result.message}`);
      void showWarning(result.reason === 'changed'
        ? l10n.t('.vscode/mcp.json changed while the preview was open: nothing was written. Import again to review the new content.')
        : l10n.t('.vscode/mcp.json could not be written: the log has the details.'));
      return none(result.reason === 'changed' ? 'changed' : 'failed', plan.client, plan);
    }
    this.log.info(`import: wrote ${TARGET_PATH} of ${root}: ${plan.servers.map((s) => s.name).join(', ')}; credentials stored for ${plan.secrets.map((s) => s.inputId).join(', ') || 'none'}`);
    void this.tell('info', importedMessage(plan), folder, () => this.showReport(plan, folder, files));
    return {
      outcome: 'imported', client: plan.client, servers: plan.servers.map((s) => s.name), inputs: plan.inputs.map((i) => i.id),
      secretsStored: plan.secrets.map((s) => s.inputId), notes: summaryNotes(plan),
    };
  }

  private async ask(plan: ImportPlan, folder: vscode.WorkspaceFolder, files: string[]): Promise<boolean> {
    const n = plan.servers.length;
    const question = n === 1
      ? l10n.t('Add 1 MCP server from {0} to .vscode/mcp.json, as the preview shows?', CLIENT_NAMES[plan.client])
      : l10n.t('Add {0} MCP servers from {1} to .vscode/mcp.json, as the preview shows?', n, CLIENT_NAMES[plan.client]);
    const importLabel = l10n.t('Import');
    const showLog = l10n.t('Show Report');
    for (;;) {
      // Modal: nothing else happens until the user has decided, and the preview stays in view.
      const choice = await showInformation(question, { modal: true, detail: lossLine(plan) }, importLabel, showLog);
      if (choice !== showLog) return choice === importLabel;
      await this.showReport(plan, folder, files);
    }
  }

  /**
   * The report in a read-only document beside the preview: visible whatever the log level (the
   * log has it at info only). Notes never hold a credential, so neither does the report.
   */
  private async showReport(plan: ImportPlan, folder: vscode.WorkspaceFolder, files: string[]): Promise<void> {
    const uri = vscode.Uri.from({ scheme: PREVIEW_SCHEME, path: `/${folder.name}/import-report.txt`, query: `report-${Date.now().toString(36)}` });
    this.previews.set(uri.toString(), [this.reportHeader(plan, files), ...this.reportLines(plan)].map(visibleLine).join('\n') + '\n');
    try {
      await vscode.window.showTextDocument(uri, { preview: true, viewColumn: vscode.ViewColumn.Beside });
    } finally {
      this.previews.delete(uri.toString());
    }
  }

  private reportHeader(plan: ImportPlan, files: string[]): string {
    return `import from ${CLIENT_NAMES[plan.client]} (${files.join(', ') || 'no file'}): ${plan.servers.length} to add, ${plan.notes.length} notes`;
  }

  private reportLines(plan: ImportPlan): string[] {
    return plan.notes.map((n) => {
      const where = [n.file, n.server && `server "${n.server}"`, n.field].filter(Boolean).join(': ');
      const template = noteTemplate(n.code);
      return `import: ${n.kind}: ${where}: ${template ? translate(template, n.args) : n.message}`;
    });
  }

  private logReport(plan: ImportPlan, files: string[]): void {
    this.log.info(this.reportHeader(plan, files));
    for (const line of this.reportLines(plan)) this.log.info(line);
  }

  private async tell(level: 'info' | 'error', message: string, folder?: vscode.WorkspaceFolder, report?: () => Promise<void>): Promise<void> {
    const showLog = l10n.t('Show Logs');
    const open = l10n.t('Open mcp.json');
    const showReport = l10n.t('Show Report');
    // The report, not the log, when there is one: the log may be set above info.
    const actions = [...(folder ? [open] : []), report ? showReport : showLog];
    const choice = level === 'error' ? await showError(message, ...actions) : await showInformation(message, ...actions);
    if (choice === showLog) this.log.show(true);
    if (choice === showReport && report) await report();
    if (choice === open && folder) await vscode.window.showTextDocument(vscode.Uri.file(path.join(folder.uri.fsPath, TARGET_PATH)));
  }

  private async closePreview(right: vscode.Uri): Promise<void> {
    const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.toString() === right.toString());
    if (tabs.length) await vscode.window.tabGroups.close(tabs);
  }

  private async pickFolder(arg: vscode.Uri | undefined): Promise<vscode.WorkspaceFolder | undefined> {
    if (arg) return vscode.workspace.getWorkspaceFolder(arg);
    const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
    if (folders.length <= 1) {
      if (!folders.length) void showInformation(l10n.t('Open a folder to import MCP servers into its .vscode/mcp.json.'));
      return folders[0];
    }
    return vscode.window.showWorkspaceFolderPick({ placeHolder: l10n.t('Import MCP servers into which folder?'), ignoreFocusOut: true });
  }

  /** The clients whose usual files exist come first; any client's file can be chosen too. */
  private async pickSource(root: string, home: string): Promise<{ client: ImportClient; files: string[] } | undefined> {
    type Item = vscode.QuickPickItem & { client?: ImportClient; browse?: boolean };
    const detected: Item[] = [];
    const browse: Item[] = [];
    for (const client of IMPORT_CLIENTS) {
      const found = await readImportSources(client, root, [], home, process.env);
      const files = found.sources.map((s) => s.file);
      if (files.length) detected.push({ label: CLIENT_NAMES[client], description: files.join(', '), client });
      browse.push({ label: `$(folder-opened) ${l10n.t('{0}: Choose a File...', CLIENT_NAMES[client])}`, client, browse: true,
        description: importLocations(client, root, home, process.env).map((l) => displayPath(l.file, root, home)).join(', ') });
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

/** "3 fields could not be carried" etc., for the question's detail. */
function lossLine(plan: ImportPlan): string {
  const lost = plan.notes.filter((n) => n.kind === 'lost' || n.kind === 'skipped' || n.kind === 'error').length;
  const parts = [
    lost === 0 ? l10n.t('Everything was carried.') : lost === 1 ? l10n.t('1 item could not be carried: Show Report lists it.') : l10n.t('{0} items could not be carried: Show Report lists them.', lost),
  ];
  if (plan.secrets.length === 1) parts.push(l10n.t('1 credential goes to secret storage, not into the file.'));
  else if (plan.secrets.length > 1) parts.push(l10n.t('{0} credentials go to secret storage, not into the file.', plan.secrets.length));
  return parts.join(' ');
}

function importedMessage(plan: ImportPlan): string {
  const n = plan.servers.length;
  const parts = [n === 1
    ? l10n.t('Imported 1 MCP server from {0} into .vscode/mcp.json.', CLIENT_NAMES[plan.client])
    : l10n.t('Imported {0} MCP servers from {1} into .vscode/mcp.json.', n, CLIENT_NAMES[plan.client])];
  const lost = plan.notes.filter((n) => n.kind === 'lost' || n.kind === 'skipped' || n.kind === 'error').length;
  if (lost === 1) parts.push(l10n.t('1 item could not be carried: Show Report lists it.'));
  else if (lost > 1) parts.push(l10n.t('{0} items could not be carried: Show Report lists them.', lost));
  if (plan.secrets.length === 1) parts.push(l10n.t('1 credential was moved to secret storage.'));
  else if (plan.secrets.length > 1) parts.push(l10n.t('{0} credentials were moved to secret storage.', plan.secrets.length));
  const toEnter = plan.inputs.length - plan.secrets.length;
  if (toEnter === 1) parts.push(l10n.t('Enter 1 input value with DSH: Enter MCP Input Values.'));
  else if (toEnter > 1) parts.push(l10n.t('Enter {0} input values with DSH: Enter MCP Input Values.', toEnter));
  return parts.join(' ');
}
