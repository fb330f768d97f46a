import * as vscode from 'vscode';
import { LSP_SETTING } from '../../core/lsp/lspModel';
import { validateLanguageServerSetting, type LspValidation } from '../../core/app/languageServers';
import { placeSettingProblems } from '../../core/settings/settingsFile';
import { createPathResolver } from '../../core/node/commandPath';
import type { Problem } from '../../core/problems/problems';
import { countOf } from '../../core/problems/plural';
import { fileFolders } from '../mcpFiles';
import { diagnosticsByFile, type DiagnosticsOwner } from '../diagnostics';
import type { ChangedConcerns } from '../../core/app/settingChanges';
import { loadSettingLayers, mergedValue, settingLocator } from '../settingLayers';
import { SettingsFileCheck } from '../settingsFileCheck';

export interface FolderLsp {
  folder: vscode.WorkspaceFolder;
  /** The merged value of `dsh.lsp.servers` for the folder. */
  value: unknown;
  validation: LspValidation;
  /** Problems that could not be placed in any settings file (e.g. a profile's user settings). */
  unplaced: number;
}

/** Validates `dsh.lsp.servers` for one folder, reading its layers (so Restricted Mode sees the workspace value too). */
async function validateFolderLsp(folder: vscode.WorkspaceFolder, userSettings: vscode.Uri | undefined): Promise<{ value: unknown; validation: LspValidation; placed: Problem[]; unplaced: number }> {
  const { layers, texts } = await loadSettingLayers(folder, userSettings, LSP_SETTING);
  const value = mergedValue(layers);
  const validation = await validateLanguageServerSetting(value, createPathResolver({ env: process.env }));
  const placed = placeSettingProblems(validation.problems, settingLocator(layers, texts));
  return { value, validation, placed, unplaced: validation.problems.length - placed.length };
}

/**
 * The check of `dsh.lsp.servers`: its problems on the exact node of the settings file (user,
 * `.code-workspace` or `.vscode/settings.json`) that defines each entry, and the cache of each
 * folder's validated value, which "Which Language Server" reads. Runs (debounced) when the
 * setting changes, a settings file changes on disk, or folders or trust change.
 */
export class LspSettingsCheck extends SettingsFileCheck {
  private readonly results = new Map<string, FolderLsp>();
  private running: Promise<void> | undefined;

  constructor(owner: DiagnosticsOwner, userSettings: vscode.Uri | undefined, docsUri: (code: string) => vscode.Uri, log: vscode.LogOutputChannel) {
    super(LSP_SETTING, owner, userSettings, docsUri, log);
  }

  wants(changed: ChangedConcerns): boolean {
    return changed.lsp;
  }

  /**
   * The folder's validated `dsh.lsp.servers` as last checked; a check that waits for its
   * debounce, or runs, is awaited first, so a reader never gets a value older than the settings.
   */
  async current(folder: vscode.WorkspaceFolder): Promise<FolderLsp> {
    const waiting = this.owner.flush(this.kind);
    if (waiting) await waiting;
    else if (this.running) await this.running;
    let result = this.results.get(folder.uri.toString());
    if (!result) {
      await this.refreshNow();
      result = this.results.get(folder.uri.toString());
    }
    if (result) return result;
    const { value, validation, unplaced } = await validateFolderLsp(folder, this.userSettings);
    return { folder, value, validation, unplaced };
  }

  /** Validates every folder now and replaces the diagnostics. */
  refreshNow(): Promise<void> {
    const run = this.run();
    this.running = run;
    return run.finally(() => {
      if (this.running === run) this.running = undefined;
    });
  }

  protected async check(isCurrent: () => boolean): Promise<void> {
    const problems: Problem[] = [];
    const results = new Map<string, FolderLsp>();
    for (const folder of fileFolders()) {
      const { value, validation, placed, unplaced } = await validateFolderLsp(folder, this.userSettings);
      problems.push(...placed);
      results.set(folder.uri.toString(), { folder, value, validation, unplaced });
      const servers = Object.keys(validation.servers).length;
      if (validation.problems.length || servers) {
        this.log.info(`dsh.lsp.servers for ${folder.name}: ${servers} valid, registers ${validation.registersAll ? 'all' : 'none'}, ${countOf(validation.problems.length, 'problem')} (${unplaced} not placed in a settings file)`);
      }
    }
    if (!isCurrent()) return;
    this.results.clear();
    for (const [k, v] of results) this.results.set(k, v);
    this.owner.replace(this.kind, diagnosticsByFile(problems, (file) => vscode.Uri.parse(file), this.docsUri).values());
  }
}
