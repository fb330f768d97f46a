import * as vscode from 'vscode';
import { showInformation, showQuickPick, showWarning } from './visible';
import { isLanguageServersApproval } from '../core/app/approve';
import { analyzeFolder } from '../core/app/folderSources';
import { planSession, type PlanOutcome } from '../core/app/plan';
import { planMessage } from '../core/app/planReasons';
import { planJson, verifyReasonsOf } from '../core/app/planJson';
import { withheldLine, withheldOf } from '../core/app/planWithheld';
import { DECLARATION_PATH } from '../core/declaration/declarationModel';
import { COMMAND, type CommandId } from './commandIds';
import type { Ctx } from './ctx';
import type { DiagnosticsOwner } from './diagnostics';
import { showDoctorReport } from './doctorCommand';
import { runDoctorFix } from './doctorFixes';
import { installDshSide } from './dshSide';
import { InputCommandError, type Exporter, type ExportSummary } from './exporter';
import type { ImportFlow } from './importFlow';
import type { LspSettingsCheck } from './lsp/lspSettingsCheck';
import type { McpJsonCheck } from './mcpJsonCheck';
import type { SkillsPart } from './skills/index';
import type { DeclarationStatus } from './statusItem';
import type { FolderPlans } from './folderPlan';
import type { ToolsFeature } from './toolsView';
import { whichLanguageServer } from './lsp/whichServer';
import { movePortable } from './portableMoveFlow';
import { folderExportOutcome, type FolderExportOutcome } from '../core/app/export';
import { fileFolders, sourceOf } from './mcpFiles';
import { promptForInput } from './prompts';
import { requireWorkspaceTrust } from './workspaceTrust';
import { sentences, translate } from './l10n';
import { planViewModel, rowsWith } from './planView';
import { staleWords } from './planWords';
import { staleCauses, toolChoiceChange, verifyFolder } from '../core/app/verify';
import { folderToolChoice } from './toolsView/toolSettings';
import { l10n } from './l10nLookup';
import { exportUserServers } from './userServers';
import { verifyUserServers, type UserVerifyResult } from './userVerify';

/** One folder for a command: the folder of a URI argument, the only folder, or a pick. */
async function oneFolder(arg: unknown): Promise<vscode.WorkspaceFolder | undefined> {
  if (arg instanceof vscode.Uri) return vscode.workspace.getWorkspaceFolder(arg);
  const folders = fileFolders();
  if (folders.length <= 1) return folders[0];
  const active = vscode.window.activeTextEditor?.document.uri;
  return vscode.window.showWorkspaceFolderPick({ placeHolder: active ? vscode.workspace.getWorkspaceFolder(active)?.name : undefined, ignoreFocusOut: true });
}

/** What the commands work with: the context, the checks and their cached results, the status, the export. */
export interface Features {
  ctx: Ctx;
  diagnostics: DiagnosticsOwner;
  mcp: McpJsonCheck;
  lsp: LspSettingsCheck;
  /** The skills part, loaded on first use (it brings the YAML parser). */
  skills(): Promise<SkillsPart>;
  status: DeclarationStatus;
  /** Each folder's session plan, as the status item and the view show it. */
  plans: FolderPlans;
  tools: ToolsFeature;
  exporter: Exporter;
  /** DSH: Import MCP Servers..., loaded on first use (it brings the TOML parser). */
  importFlow(): Promise<ImportFlow>;
}

export type CommandHandler = (...args: unknown[]) => unknown;

/**
 * THE command table: one handler per command id (the type requires each). The composition root
 * registers every id once and runs it through {@link runCommand}, the one guard. Every command
 * that exports, prompts or runs something checks Workspace Trust itself (commands can be invoked
 * programmatically). A new command: its id in commandIds.ts, its handler here, its manifest entry.
 */
export function commandTable(features: Features, c = new Commands(features)): Record<CommandId, CommandHandler> {
  const { ctx } = features;
  return {
    [COMMAND.export]: (arg) => c.exportCommand(arg),
    // The servers view's group shows the new user declaration at once (the host store's watcher may come later).
    [COMMAND.exportUserServers]: async () => exportUserServers(ctx).finally(() => features.tools.view.refresh()),
    [COMMAND.enterInputValues]: (arg) => c.enterInputValues(arg),
    [COMMAND.forgetInputValues]: (arg) => c.forgetInputValues(arg),
    [COMMAND.openDeclaration]: (arg) => c.openDeclaration(arg),
    [COMMAND.verifyDeclaration]: (arg, options) => c.verifyDeclaration(arg, options),
    [COMMAND.showLogs]: () => ctx.log.show(),
    [COMMAND.doctor]: async (arg) => {
      const folder = await oneFolder(arg);
      return folder ? showDoctorReport(folder, ctx.config.folder(folder).identity, ctx, features.plans.get(folder)) : undefined;
    },
    // Second argument: {silent: true} answers without a notification (tests).
    [COMMAND.whichLanguageServer]: (arg, options) => whichLanguageServer(arg, features.lsp, (options ?? {}) as { silent?: boolean }),
    [COMMAND.reviewSkillRoots]: async (arg) => (await features.skills()).review.run(arg),
    [COMMAND.openServerEntry]: (node, name) => features.tools.view.openEntry(node, name),
    [COMMAND.exportFromView]: (node) => features.tools.view.exportFolder(node),
    [COMMAND.refreshServersView]: () => features.tools.view.refresh(),
    [COMMAND.probeMcpServers]: (node, names) => features.tools.probe(node, names),
    [COMMAND.importMcpServers]: async (arg) => (await features.importFlow()).run(arg),
    [COMMAND.moveToPortableFile]: (arg) => movePortable(ctx, arg),
    [COMMAND.installDshSide]: () => installDshSide(ctx.config.globalSettings().dshHome, ctx.log),
    [COMMAND.reprobeAndAccept]: (folderUri, name) => features.tools.reprobeAndAccept(folderUri, name),
    [COMMAND.acceptToolDefinition]: (node, options) => features.tools.view.acceptTool(node, options),
    [COMMAND.runDoctorFix]: (folder, fix) => runDoctorFix(ctx, folder, fix),
  };
}

/** THE guard: runs a command; an unexpected error is logged with its stack and shown once. */
export async function runCommand(ctx: Ctx, table: Record<CommandId, CommandHandler>, id: CommandId, args: unknown[]): Promise<unknown> {
  try {
    return await table[id](...args);
  } catch (error) {
    ctx.log.error(`${id} failed`, error);
    ctx.showError(error instanceof InputCommandError
      ? l10n.t('The command "{0}" of input "{1}" did not return a text value; nothing was exported.', error.command, error.inputId)
      : l10n.t('DSH Bridge: {0} failed. The log has the details.', id));
    return undefined;
  }
}

/** The handlers that need more than a line, and export on save, which shares the export queue. */
export class Commands {
  private readonly ctx: Ctx;
  private readonly log: vscode.LogOutputChannel;
  private exporting: Promise<unknown> = Promise.resolve();

  constructor(private readonly features: Features) {
    this.ctx = features.ctx;
    this.log = features.ctx.log;
  }

  private get secrets() {
    return this.ctx.secrets;
  }

  private get status() {
    return this.features.status;
  }

  private get exporter() {
    return this.features.exporter;
  }

  /** Exports serially: two exports never interleave their prompts or writes. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.exporting.then(fn, fn);
    this.exporting = next.catch(() => undefined);
    return next;
  }

  async exportCommand(arg?: unknown): Promise<ExportSummary | undefined> {
    if (!requireWorkspaceTrust(l10n.t('Export'), this.log)) return { outcome: 'restricted', exported: 0, refused: 0, folders: [] };
    const folders = await this.exporter.pickFolders(arg);
    if (!folders) return { outcome: 'cancelled', exported: 0, refused: 0, folders: [] };
    if (folders.length === 0) {
      void showInformation(l10n.t('Open a folder that has .vscode/mcp.json to export its MCP servers.'));
      return { outcome: 'no-folder', exported: 0, refused: 0, folders: [] };
    }
    // Export what the user sees: save an edited source (mcp.json, .mcp.json, ...) first.
    for (const doc of vscode.workspace.textDocuments) {
      if (doc.isDirty && sourceOf(doc.uri)?.folders.some((f) => folders.some((g) => g.uri.toString() === f.uri.toString()))) await doc.save();
    }
    const summary = await this.serial(() => this.exporter.run({ folders, interactive: true }));
    for (const f of folders) this.status.setPending(f, undefined);
    this.report(summary, summary.outcome === 'exported' ? await this.withheldAfterExport(folders) : undefined);
    return summary;
  }

  /** What a session still goes without after the export (the new plans, as the status and the view show them), per folder. */
  private async withheldAfterExport(folders: readonly vscode.WorkspaceFolder[]): Promise<string | undefined> {
    const lines = await Promise.all(folders.map(async (f) => {
      const line = withheldLine(withheldOf((await this.features.plans.get(f)).plan), translate);
      return line && (folders.length > 1 ? l10n.t('{0}: {1}', f.name, line) : line);
    }).map((p) => p.catch((error: unknown) => {
      this.log.warn(`the plan after the export could not be worked out: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    })));
    const said = lines.filter((l): l is string => !!l);
    return said.length ? sentences(said) : undefined;
  }

  private report(summary: ExportSummary, withheld?: string): void {
    switch (summary.outcome) {
      case 'cancelled':
        void showInformation(l10n.t('Export cancelled: nothing was written.'));
        return;
      case 'denied': {
        const open = l10n.t('Open Settings');
        void showWarning(l10n.t('The DSH trust mode is "deny": nothing from this workspace is exported or mounted.'), open).then((c) => {
          if (c === open) void vscode.commands.executeCommand('workbench.action.openSettings', 'dsh.trustMode');
        });
        return;
      }
      case 'source-changed': {
        const exportAgain = l10n.t('Export Again');
        void showWarning(
          l10n.t('{0} changed while the export was asking: nothing was written. Export again to review the new content.', summary.file ?? '.vscode/mcp.json'),
          exportAgain,
        ).then((c) => {
          if (c === exportAgain) void vscode.commands.executeCommand(COMMAND.export);
        });
        return;
      }
      case 'failed': {
        this.ctx.showError(l10n.t('The export was refused: .dsh must be a folder inside the workspace. The log has the details.'));
        return;
      }
      case 'exported': {
        const unusable = summary.folders.filter((f) => !f.usable);
        const openDeclaration = l10n.t('Open Declaration');
        const showProblems = l10n.t('Show Problems');
        const nothing = unusable.length === summary.folders.length;
        const exported = nothing && summary.folders.length === 1 ? l10n.t('Nothing was exported to DSH: {0} has errors.', unusable[0].errorFile ?? '.vscode/mcp.json') : exportMessage(summary);
        // Everything a session still goes without, in the words of the status, Verify and doctor.
        const message = withheld ? sentences([exported, withheld]) : exported;
        const actions = nothing ? [showProblems] : summary.refused ? [openDeclaration, showProblems] : [openDeclaration];
        const show = summary.folders.some((f) => f.skipped.length) ? showWarning : showInformation;
        void show(message, ...actions).then((c) => {
          if (c === openDeclaration) {
            const first = summary.folders.find((f) => f.usable);
            if (first) void this.openDeclaration(vscode.Uri.file(first.folder));
          } else if (c === showProblems) {
            void vscode.commands.executeCommand('workbench.actions.view.problems');
          }
        });
        return;
      }
      default:
        return;
    }
  }

  /** Export on save: only trusted, only when nothing must be asked; otherwise the status item says what is needed. */
  exportOnSave(doc: vscode.TextDocument): void {
    // Any file a folder's servers come from (docs/sources.md); a workspace file holds every folder's.
    if (!vscode.workspace.isTrusted) return;
    for (const folder of sourceOf(doc.uri)?.folders ?? []) this.exportFolderOnSave(folder);
  }

  /**
   * After a change of `dsh.tools`: with `dsh.export.auto`, a folder whose declaration is stale only
   * because its tool choice narrowed is exported again at once (nothing needs a review: tools are
   * outside the launch pin). A wider choice is never applied here: it waits for Export and its
   * review, and until then the declaration is stale everywhere (DSH withholds it).
   */
  async exportNarrowedToolChoices(): Promise<void> {
    if (!vscode.workspace.isTrusted) return;
    for (const folder of fileFolders()) {
      const config = this.ctx.config.folder(folder);
      if (config.settings.auto !== 'onSave') continue;
      const verified = await verifyFolder(this.ctx.ports(), folder.uri.fsPath, { settings: config.view, policySettings: config.policySettings });
      const change = toolChoiceChange(verified, folderToolChoice(folder));
      if (!change) continue;
      const narrowing = change === 'narrowed';
      this.log.info(`dsh.tools of ${folder.name} changed since the export: ${narrowing ? 'a narrowing, exported again (dsh.export.auto)' : 'wider, so it waits for Export and its review'}`);
      if (narrowing) this.exportFolderOnSave(folder);
    }
  }

  private exportFolderOnSave(folder: vscode.WorkspaceFolder): void {
    if (this.ctx.config.folder(folder).settings.auto !== 'onSave') return;
    void this.serial(() => this.exporter.run({ folders: [folder], interactive: false })).then((summary) => {
      if (summary.outcome === 'needs-input') {
        this.status.setPending(folder, l10n.t('Export on save needs input values ({0}): run Export', summary.needed?.join(', ') ?? ''));
      } else if (summary.outcome === 'needs-approval') {
        this.status.setPending(folder, l10n.t('Export on save needs your approval of {0}: run Export', summary.needed?.join(', ') ?? ''));
      } else if (summary.outcome === 'denied') {
        this.status.setPending(folder, l10n.t('Trust mode "deny": nothing is exported'));
      } else {
        this.status.setPending(folder, undefined);
      }
      this.log.info(`export on save of ${folder.name}: ${summary.outcome}`);
    }, (error) => this.log.error(`export on save of ${folder.name} failed`, error));
  }

  async enterInputValues(arg?: unknown): Promise<string[] | undefined> {
    if (!requireWorkspaceTrust(l10n.t('Entering input values'), this.log)) return undefined;
    const folder = await oneFolder(arg);
    if (!folder) return undefined;
    const analysis = await analyzeFolder(this.ctx.ports(), this.ctx.config.folder(folder).analyzeOptions);
    const definitions = analysis.inputDefinitions;
    const ids = Object.keys(definitions);
    if (ids.length === 0) {
      void showInformation(l10n.t('{0} defines no inputs.', '.vscode/mcp.json'));
      return [];
    }
    const stored = new Set(await this.secrets.ids(folder.uri.fsPath));
    const picked = await showQuickPick(
      ids.map((id) => ({ label: id, description: definitions[id].description, detail: stored.has(id) ? l10n.t('a value is stored') : undefined, picked: !stored.has(id) })),
      { canPickMany: true, title: l10n.t('Enter values for which inputs?'), ignoreFocusOut: true },
    );
    if (!picked?.length) return undefined;
    const values = new Map<string, string>();
    for (const p of picked) {
      const answer = await promptForInput(definitions[p.label], folder, fileFolders().length > 1);
      if (!answer) return undefined; // cancelled: nothing stored
      values.set(p.label, answer.value);
    }
    const store = this.ctx.hostStore();
    for (const [id, value] of values) {
      await this.secrets.store(folder.uri.fsPath, id, value);
      await store.setInput(folder.uri.fsPath, id, value);
    }
    this.log.info(`stored values of ${values.size} input(s) of ${folder.name}: ${[...values.keys()].join(', ')}`);
    this.status.refresh();
    void showInformation(values.size === 1
      ? l10n.t('Stored 1 input value. Export again if the declaration changed.')
      : l10n.t('Stored {0} input values. Export again if the declaration changed.', values.size));
    return [...values.keys()];
  }

  async forgetInputValues(arg?: unknown): Promise<string[] | undefined> {
    const folder = await oneFolder(arg);
    if (!folder) return undefined;
    const store = this.ctx.hostStore();
    const fsPath = folder.uri.fsPath;
    const ids = await this.ctx.storedInputIds(fsPath);
    if (ids.length === 0) {
      void showInformation(l10n.t('No input values are stored for {0}.', folder.name));
      return [];
    }
    const all = l10n.t('All stored values of {0}', folder.name);
    const picked = arg instanceof vscode.Uri || ids.length === 1
      ? [{ label: all, id: undefined as string | undefined }]
      : await showQuickPick([{ label: all, id: undefined as string | undefined }, ...ids.map((id) => ({ label: id, id: id as string | undefined }))],
        { canPickMany: true, title: l10n.t('Forget which stored input values?') });
    if (!picked?.length) return undefined;
    const everything = picked.some((p) => p.id === undefined);
    const chosen = everything ? ids : picked.map((p) => p.id!);
    // A palette user confirms; a caller that names the folder (an API use) already decided.
    if (!(arg instanceof vscode.Uri) && !(await confirmForget(chosen, folder))) return undefined;
    const forgotten = new Set<string>();
    if (everything) {
      for (const id of await this.secrets.forget(fsPath, undefined, ids)) forgotten.add(id);
      await store.forgetInput(fsPath);
    } else {
      for (const id of chosen) {
        await this.secrets.forget(fsPath, id);
        await store.forgetInput(fsPath, id);
        forgotten.add(id);
      }
    }
    this.log.info(`forgot stored input values of ${folder.name}: ${[...forgotten].join(', ')}`);
    this.status.refresh();
    void showInformation(forgotten.size === 1
      ? l10n.t('Forgot the stored value of {0} in {1}, in VS Code and in the DSH host store.', [...forgotten][0], folder.name)
      : l10n.t('Forgot {0} stored input values of {1}, in VS Code and in the DSH host store.', forgotten.size, folder.name));
    return [...forgotten];
  }

  async openDeclaration(arg?: unknown): Promise<boolean> {
    const folder = await oneFolder(arg);
    if (!folder) return false;
    const uri = vscode.Uri.joinPath(folder.uri, ...DECLARATION_PATH.split('/'));
    try {
      await vscode.workspace.fs.stat(uri);
    } catch {
      const exportNow = l10n.t('Export');
      void showInformation(l10n.t('{0} has no DSH declaration yet.', folder.name), ...(vscode.workspace.isTrusted ? [exportNow] : []))
        .then((c) => { if (c === exportNow) void vscode.commands.executeCommand(COMMAND.export, folder.uri); });
      return false;
    }
    await vscode.window.showTextDocument(uri, { preview: true });
    // The declaration is written by the export and signed: an edit would only break it.
    await vscode.commands.executeCommand('workbench.action.files.setActiveEditorReadonlyInSession');
    return true;
  }

  /**
   * The declaration a DSH session in the folder finds (the folder's, or the nearest above it) and
   * whether it verifies, with what a session there gets: the session plan, as the DSH plugin
   * mounts from it. Second argument `{dsh: true}` (programmatic use): the result also carries the
   * plan (`dsh`, the shape of `dsh-bridge verify --json`).
   */
  async verifyDeclaration(arg?: unknown, options?: unknown): Promise<{ ok: boolean; reasons: Array<{ code: string; message: string }>; dsh?: ReturnType<typeof planJson>; user: UserVerifyResult } | undefined> {
    const folder = await oneFolder(arg);
    if (!folder) return undefined;
    const planned = await planSession(this.ctx.ports(), { cwd: folder.uri.fsPath, settings: this.ctx.config.folder(folder).view, verifySettings: { policySettings: this.ctx.config.folder(folder).policySettings } });
    const { plan, verified } = planned;
    // What Verify found is what the status item and the view show from now on.
    this.features.plans.keep(folder, planned);
    const verifyReasons = verifyReasonsOf(planned);
    const reasons = verifyReasons.map((r) => ({ code: r.code, message: r.message }));
    const ok = verified?.ok === true;
    this.log.info(`verify ${folder.name}: ${ok ? 'ok' : reasons.map((r) => `${r.code} (${r.message})`).join('; ')}`);
    const model = planViewModel(plan);
    this.log.info(`verify ${folder.name}: DSH sessions start [${rowsWith(model, 'starts').join(', ')}], ask before [${rowsWith(model, 'asks').join(', ')}], withhold [${rowsWith(model, 'withheld').join(', ')}]; language servers ${plan.languageServers?.outcome ?? 'none'}; withheld skills [${model.skillsWithheld.join(', ')}]`);
    const none = l10n.t('none');
    const list = (names: string[]) => names.join(', ') || none;
    const lspIds = rowsWith(model, plan.languageServers?.outcome ?? 'withheld', 'language-servers').join(', ');
    const lsp = plan.languageServers ? (lspIds ? `${lspIds} (${outcomeWord(plan.languageServers.outcome)})` : outcomeWord(plan.languageServers.outcome)) : none;
    // The user's own servers mount beside the folder's: said after them.
    const user = await verifyUserServers(this.ctx, folder, planned);
    // The tools withheld from servers that do start: the plan's one list (core/app/planWithheld), as every face names them.
    const toolsWithheld = withheldOf(plan).tools.map((t) => t.publicName);
    const outlook = ` ${sentences([l10n.t('DSH sessions there start MCP servers: {0}; after asking: {1}; withheld: {2}; tools withheld: {3}; language servers: {4}; skills withheld: {5}.',
      list(rowsWith(model, 'starts')), list(rowsWith(model, 'asks')), list(rowsWith(model, 'withheld')), list(toolsWithheld), lsp, list(model.skillsWithheld)), user.words].filter(Boolean))}`;
    const blocked = plan.blocked.find((r) => r.code === 'trust-deny' || r.code === 'store-unreadable');
    const why = blocked ? ` ${planMessage(blocked, translate)}` : '';
    const subfolder = model.declarationFolder !== undefined && model.declarationFolder !== folder.uri.fsPath
      ? ` ${l10n.t('(The declaration of {0}, the nearest above this folder.)', model.declarationFolder)}` : '';
    // Up to date, and what the export refused said in the same sentence: never "up to date" alone while something is refused.
    const refusedAtExport = plan.servers.filter((s) => s.reason.code === 'refused-at-export').length;
    if (ok && refusedAtExport) {
      const upToDate = refusedAtExport === 1
        ? l10n.t('The DSH declaration of {0} is signed by you and up to date, but 1 server was refused at the export: see Problems.', folder.name)
        : l10n.t('The DSH declaration of {0} is signed by you and up to date, but {1} servers were refused at the export: see Problems.', folder.name, refusedAtExport);
      void showWarning(`${upToDate}${subfolder}${outlook}${why}`);
    } else if (ok) {
      void showInformation(`${l10n.t('The DSH declaration of {0} is signed by you and up to date.', folder.name)}${subfolder}${outlook}${why}`);
    } else {
      const exportNow = l10n.t('Export');
      const words: Record<string, string> = {
        missing: l10n.t('there is no declaration yet'),
        unreadable: l10n.t('the declaration cannot be read'),
        unsigned: l10n.t('the declaration is not signed'),
        'bad-signature': l10n.t('it was signed with another key (another user or machine)'),
        tampered: l10n.t('the declaration was changed after the export'),
        'wrong-folder': l10n.t('the declaration was made for another folder'),
        rollback: l10n.t('it is an older export restored over a newer one'),
      };
      const text = [...new Set(verifyReasons.flatMap((r) => (r.code === 'stale' ? [] : [words[r.code] ?? r.code]))), ...staleWords(staleCauses(verifyReasons))].join('; ');
      void showWarning(`${l10n.t('The DSH declaration of {0} does not verify: {1}.', folder.name, text)}${subfolder}${outlook}${why}`, ...(vscode.workspace.isTrusted ? [exportNow] : []))
        .then((c) => { if (c === exportNow) void vscode.commands.executeCommand(COMMAND.export, folder.uri); });
    }
    const wantsPlan = typeof options === 'object' && options !== null && (options as { dsh?: unknown }).dsh === true;
    return wantsPlan ? { ok, reasons, dsh: planJson(plan), user: user.result } : { ok, reasons, user: user.result };
  }

}

/** How a plan outcome reads in a notification. */
function outcomeWord(outcome: PlanOutcome): string {
  return outcome === 'starts' ? l10n.t('they start') : outcome === 'asks' ? l10n.t('DSH asks first') : l10n.t('withheld');
}

/** The export notification: real plural forms, no clause about nothing. */
function exportMessage(summary: ExportSummary): string {
  const n = summary.exported;
  const parts = [n === 0
    ? l10n.t('No MCP server was exported to DSH.')
    : n === 1 ? l10n.t('Exported 1 MCP server to DSH.') : l10n.t('Exported {0} MCP servers to DSH.', n)];
  if (summary.refused === 1) parts.push(l10n.t('1 server was refused: see Problems.'));
  else if (summary.refused > 1) parts.push(l10n.t('{0} servers were refused: see Problems.', summary.refused));
  const skipped = summary.folders.flatMap((f) => f.skipped).map((name) => (isLanguageServersApproval(name) ? l10n.t('language servers') : name));
  if (skipped.length === 1) parts.push(l10n.t('{0} is not approved: DSH will ask before it starts it.', skipped[0]));
  else if (skipped.length > 1) parts.push(l10n.t('{0} are not approved: DSH will ask before it starts them.', skipped.join(', ')));
  // Several folders: each is named with what came of it.
  if (summary.folders.length > 1) {
    const named = (outcome: FolderExportOutcome) => summary.folders.filter((f) => folderExportOutcome(f) === outcome).map((f) => f.name);
    const exported = named('exported');
    const nothing = named('nothing-to-export');
    const failed = named('failed');
    if (exported.length) parts.push(l10n.t('Exported from {0}.', exported.join(', ')));
    if (nothing.length) parts.push(l10n.t('Nothing to export in {0}.', nothing.join(', ')));
    if (failed.length === 1) parts.push(l10n.t('Not exported: {0} has errors (see Problems).', failed[0]));
    else if (failed.length > 1) parts.push(l10n.t('Not exported: {0} have errors (see Problems).', failed.join(', ')));
  }
  return sentences(parts);
}

async function confirmForget(ids: string[], folder: vscode.WorkspaceFolder): Promise<boolean> {
  const forget = l10n.t('Forget');
  const message = ids.length === 1
    ? l10n.t('Forget the stored value of {0} in {1}?', ids[0], folder.name)
    : l10n.t('Forget {0} stored input values of {1}?', ids.length, folder.name);
  const detail = l10n.t('DSH sessions of this folder will miss the value until you enter it again (DSH: Enter MCP Input Values).');
  return (await showWarning(message, { modal: true, detail }, forget)) === forget;
}
