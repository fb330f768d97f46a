import * as os from 'node:os';
import * as vscode from 'vscode';
import { showQuickPick } from './visible';
import { ExportError, changedSinceReview, commitExport, reviewExport, type ExportResult, type ReviewedExport } from '../core/app/export';
import { analyzeFolder } from '../core/app/folderSources';
import { type TrustMode } from '../core/settings/folderSettings';
import { unapprovedLaunches } from '../core/app/approve';
import { askLspApproval, reviewServers } from './approval';
import { InputCommandError, promptForInput } from './prompts';
import type { InputSecrets } from './secrets';
import type { Ctx } from './ctx';
import { isWorkspaceTrusted } from './workspaceTrust';
import { codeWorkspaceFile, fileFolders } from './mcpFiles';
import { offersExport } from '../core/app/export';
import { settingsFileRefs, userSettingsUri } from './settingLayers';
import { toolSettingLayers } from './toolsView/toolSettings';
import { countOf } from '../core/problems/plural';
import { l10n } from './l10nLookup';

/** What one export run did; returned by the command (nothing secret in it). */
export interface ExportSummary {
  outcome: 'exported' | 'cancelled' | 'denied' | 'restricted' | 'needs-input' | 'needs-approval' | 'source-changed' | 'no-folder' | 'failed';
  trustMode?: TrustMode;
  exported: number;
  refused: number;
  folders: Array<{ folder: string; name: string; declarationPath: string; written: boolean; unchanged: boolean; usable: boolean; servers: number; refused: number; approved: string[]; skipped: string[]; errorFile?: string }>;
  /** For needs-input / needs-approval: input ids or server names (never values); for source-changed: folder names. */
  needed?: string[];
  /** For source-changed: the file that changed (relative to its folder, or the workspace file's path); for an unusable folder: the first file with errors. */
  file?: string;
}

interface Plan {
  folder: vscode.WorkspaceFolder;
  /** The source as read and analyzed once: the prompts and reviews below are about exactly this. */
  reviewed: ReviewedExport;
  values: Map<string, string>;
  entered: Set<string>;
  approve: Array<{ serverName: string; pin: string }>;
  skipped: string[];
}

export interface ExportRequest {
  folders: vscode.WorkspaceFolder[];
  /** False for export on save: nothing may be asked; missing values or approvals stop it. */
  interactive: boolean;
}

/**
 * The export flow around the core's one export (core/folderExport): read and analyze each
 * folder once, collect every input value (secret storage, else a prompt), review servers in the
 * `pinned` trust mode, and only then write anything, from the reviewed analysis: the host-side
 * store, the declaration, the secrets. Cancelling at any prompt, or a source that changed since
 * it was read, leaves every file as it was.
 */
export class Exporter {
  private readonly secrets: InputSecrets;
  private readonly log: vscode.LogOutputChannel;

  constructor(private readonly ctx: Ctx) {
    this.secrets = ctx.secrets;
    this.log = ctx.log;
  }

  async run(request: ExportRequest): Promise<ExportSummary> {
    const empty = (outcome: ExportSummary['outcome'], extra: Partial<ExportSummary> = {}): ExportSummary => ({ outcome, exported: 0, refused: 0, folders: [], ...extra });
    if (!isWorkspaceTrusted()) return empty('restricted');
    if (request.folders.length === 0) return empty('no-folder');
    const ports = this.ctx.ports();
    const { store } = ports;
    // The machine's mode, as DSH enforces it (a mode set with dsh-bridge trust included).
    const trustMode = await this.ctx.trustMode();
    if (trustMode === 'deny') {
      this.log.info('export skipped: the trust mode is "deny"');
      return empty('denied', { trustMode });
    }
    const refused = (error: unknown, folder: vscode.WorkspaceFolder): ExportSummary => {
      if (!(error instanceof ExportError)) throw error;
      this.log.error(`export of ${folder.name} refused: ${error.message}`);
      return empty('failed', { trustMode });
    };

    const multiRoot = fileFolders().length > 1;
    const plans: Plan[] = [];
    await this.ctx.config.policyFileReady(); // the export pins VS Code's policy file as it is now
    for (const folder of request.folders) {
      let reviewed: ReviewedExport;
      try {
        const config = this.ctx.config.folder(folder);
        reviewed = await reviewExport(ports, {
          folder: folder.uri.fsPath, folderName: folder.name, userHome: os.homedir(),
          settings: config.view, invalidSetting: this.ctx.config.invalidSetting,
          policySettings: config.policySettings,
          ...(config.identity.vscodePolicyFile ? { vscodePolicyFile: config.identity.vscodePolicyFile } : {}),
          ...(codeWorkspaceFile() ? { codeWorkspaceFile: codeWorkspaceFile() } : {}),
          // dsh.tools: every layer narrows (the merged value would let a folder's list replace the user's).
          settingLayers: toolSettingLayers(folder),
          settingsFiles: settingsFileRefs(userSettingsUri(this.ctx.globalStorageUri)),
        });
      } catch (error) {
        return refused(error, folder);
      }
      const { analysis } = reviewed;
      const plan: Plan = { folder, reviewed, values: new Map(), entered: new Set(), approve: [], skipped: [] };
      plans.push(plan);
      if (!analysis.usable) continue;
      const missing: string[] = [];
      for (const input of analysis.inputs) {
        const stored = await this.secrets.get(folder.uri.fsPath, input.id);
        if (stored !== undefined) {
          plan.values.set(input.id, stored);
          continue;
        }
        if (!request.interactive) {
          missing.push(input.id);
          continue;
        }
        const definition = Object.hasOwn(analysis.inputDefinitions, input.id) ? analysis.inputDefinitions[input.id] : undefined;
        if (!definition) continue;
        const answer = await promptForInput(definition, folder, multiRoot);
        if (!answer) {
          this.log.info(`export cancelled at input "${input.id}" of ${folder.name}: nothing was written`);
          return empty('cancelled', { trustMode });
        }
        plan.values.set(input.id, answer.value);
        plan.entered.add(input.id);
      }
      if (missing.length) return empty('needs-input', { trustMode, needed: missing });

      if (trustMode === 'pinned') {
        // The language servers DSH will start from this declaration: one review, one pin.
        const { servers: unapproved, languageServers: lspToReview } = await unapprovedLaunches(store, folder.uri.fsPath, analysis.servers, reviewed.sections.lsp);
        if ((unapproved.length || lspToReview) && !request.interactive) {
          return empty('needs-approval', { trustMode, needed: [...unapproved.map((s) => s.name), ...(lspToReview ? [l10n.t('language servers')] : [])] });
        }
        const choices = await reviewServers(unapproved, folder);
        if (choices === 'cancel') {
          this.log.info(`export cancelled at the review of ${folder.name}: nothing was written`);
          return empty('cancelled', { trustMode });
        }
        for (const server of unapproved) {
          if (choices.get(server.serverName) === 'approve') plan.approve.push({ serverName: server.serverName, pin: server.pin });
          else plan.skipped.push(server.serverName);
        }
        if (lspToReview) {
          const choice = await askLspApproval(lspToReview, folder);
          if (choice === 'cancel') {
            this.log.info(`export cancelled at the review of the language servers in ${folder.name}: nothing was written`);
            return empty('cancelled', { trustMode });
          }
          if (choice === 'approve') plan.approve.push({ serverName: lspToReview.approvalName, pin: lspToReview.pin });
          else plan.skipped.push(lspToReview.approvalName);
        }
      }
    }

    // Nothing was written so far. What was reviewed must still be what is on disk.
    const changed: string[] = [];
    let changedFile: string | undefined;
    for (const plan of plans) {
      const file = plan.reviewed.analysis.usable ? await changedSinceReview(ports, plan.reviewed) : undefined;
      if (file === undefined) continue;
      changed.push(plan.folder.name);
      changedFile ??= file;
    }
    if (changed.length) return this.sourceChanged({ ...empty('source-changed', { trustMode, needed: changed }), file: changedFile });

    // Now write, folder by folder, each from its reviewed analysis.
    const summary = empty('exported', { trustMode });
    for (const plan of plans) {
      const { folder } = plan;
      const path = folder.uri.fsPath;
      let result: ExportResult;
      try {
        result = await commitExport(ports, plan.reviewed, { inputs: plan.values, approvals: plan.approve });
      } catch (error) {
        return { ...refused(error, folder), exported: summary.exported, refused: summary.refused, folders: summary.folders };
      }
      if (result.sourceChanged) return this.sourceChanged({ ...summary, outcome: 'source-changed', needed: [folder.name] });
      for (const id of plan.entered) await this.secrets.store(path, id, plan.values.get(id)!);
      const a = result.analysis;
      summary.exported += result.text ? a.servers.length : 0;
      summary.refused += a.rejected.length;
      summary.folders.push({
        folder: path,
        name: folder.name,
        declarationPath: result.declarationPath,
        written: result.written,
        unchanged: result.unchanged,
        usable: a.usable,
        servers: result.text ? a.servers.length : 0,
        refused: a.rejected.length,
        approved: plan.approve.map((x) => x.serverName),
        skipped: plan.skipped,
        ...(a.usable ? {} : { errorFile: a.problems.find((p) => p.severity === 'error')?.file ?? a.sourcePath }),
      });
      this.log.info(`exported ${folder.name}: ${countOf(a.servers.length, 'server')}, ${a.rejected.length} refused, ` +
        `${result.written ? 'declaration written' : result.unchanged ? 'declaration unchanged' : 'nothing written (the file is not usable)'}; ` +
        `inputs stored: ${[...plan.values.keys()].join(', ') || 'none'}; trust mode ${trustMode}`);
    }
    return summary;
  }

  private sourceChanged(summary: ExportSummary): ExportSummary {
    this.log.warn(`export stopped: .vscode/mcp.json of ${summary.needed?.join(', ')} changed after it was read for this export; nothing more was written`);
    return summary;
  }

  /**
   * Folders to export for a command invocation: an explicit folder/URI argument, else a pick.
   * Programmatic use only (the palette passes no argument): an array of URIs exports the
   * workspace folders they belong to without the pick, e.g.
   * `executeCommand('dsh.exportMcpServers', vscode.workspace.workspaceFolders.map((f) => f.uri))`.
   */
  async pickFolders(arg: unknown): Promise<vscode.WorkspaceFolder[] | undefined> {
    const folders = fileFolders();
    const uri = arg instanceof vscode.Uri ? arg : undefined;
    if (uri) {
      const f = vscode.workspace.getWorkspaceFolder(uri);
      return f ? [f] : [];
    }
    if (Array.isArray(arg) && arg.length > 0 && arg.every((u) => u instanceof vscode.Uri)) {
      const byUri = new Map<string, vscode.WorkspaceFolder>();
      for (const u of arg as vscode.Uri[]) {
        const f = vscode.workspace.getWorkspaceFolder(u);
        if (f) byUri.set(f.uri.toString(), f);
      }
      return [...byUri.values()];
    }
    if (folders.length <= 1) return [...folders];
    // Every folder with servers in any file VS Code runs them from (.vscode/mcp.json, .mcp.json,
    // the workspace file, the dev container configuration), as the export reads them.
    const withServers: vscode.WorkspaceFolder[] = [];
    for (const f of folders) {
      const analysis = await analyzeFolder(this.ctx.ports(), this.ctx.config.folder(f).analyzeOptions).catch((error: unknown) => {
        this.log.error(`reading the MCP files of ${f.name} failed`, error);
        return undefined;
      });
      if (!analysis || offersExport(analysis)) withServers.push(f);
    }
    const candidates = withServers.length ? withServers : [...folders];
    if (candidates.length === 1) return candidates;
    const picked = await showQuickPick(
      candidates.map((f) => ({ label: f.name, description: f.uri.fsPath, picked: true, folder: f })),
      { canPickMany: true, title: l10n.t('Export MCP servers of which folders?'), ignoreFocusOut: true },
    );
    return picked?.map((p) => p.folder);
  }
}

export { InputCommandError };
