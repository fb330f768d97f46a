import * as vscode from 'vscode';
import { LSP_PROBLEM_CODES, LSP_SETTING, placeSettingProblems, validateLspServers, type LspValidation } from '../../core/lsp/lsp';
import { createPathResolver } from '../../core/node/commandPath';
import type { Problem } from '../../core/problems/problems';
import { fileFolders } from '../mcpFiles';
import { diagnosticsByFile } from '../sectionDiagnostics';
import { loadLspSettingLayers, mergedValue, settingLocator } from './lspSettingLayers';
import { Debounced } from '../debounce';


export interface FolderLsp {
  folder: vscode.WorkspaceFolder;
  /** The merged value of `dsh.lsp.servers` for the folder. */
  value: unknown;
  validation: LspValidation;
  /** Problems that could not be placed in any settings file (e.g. a profile's user settings). */
  unplaced: number;
}

/** Validates `dsh.lsp.servers` for one folder, reading its layers (so Restricted Mode sees the workspace value too). */
export async function validateFolderLsp(folder: vscode.WorkspaceFolder, userSettings: vscode.Uri | undefined): Promise<{ value: unknown; validation: LspValidation; placed: Problem[]; unplaced: number }> {
  const { layers, texts } = await loadLspSettingLayers(folder, userSettings);
  const value = mergedValue(layers);
  const validation = await validateLspServers(value, { resolveCommand: createPathResolver({ env: process.env }) });
  const placed = placeSettingProblems(validation.problems, settingLocator(layers, texts));
  return { value, validation, placed, unplaced: validation.problems.length - placed.length };
}

/**
 * Owns the `dsh-bridge-lsp` diagnostic collection: problems of `dsh.lsp.servers` on the exact node
 * of the settings file (user, `.code-workspace` or `.vscode/settings.json`) that defines each entry.
 * Refreshed (debounced) when the setting changes, a settings file changes on disk, or folders change.
 */
export class LspDiagnostics implements vscode.Disposable {
  private readonly collection = vscode.languages.createDiagnosticCollection('dsh-bridge-lsp');
  private readonly disposables: vscode.Disposable[] = [this.collection];
  private readonly results = new Map<string, FolderLsp>();
  private readonly debounced = new Debounced(() => this.refreshNow(), (error) => this.log.error('checking dsh.lsp.servers failed', error));
  private generation = 0;
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidRefresh = this.changed.event;

  constructor(
    private readonly userSettings: vscode.Uri | undefined,
    private readonly docsUri: (code: string) => vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
  ) {
    const watcher = vscode.workspace.createFileSystemWatcher('**/{.vscode/settings.json,*.code-workspace}');
    this.disposables.push(
      this.changed,
      watcher,
      watcher.onDidChange(() => this.schedule()),
      watcher.onDidCreate(() => this.schedule()),
      watcher.onDidDelete(() => this.schedule()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(LSP_SETTING)) this.schedule();
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.schedule()),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.schedule()),
    );
  }

  schedule(delay?: number): void {
    this.debounced.schedule(delay);
  }

  get(folder: vscode.WorkspaceFolder): FolderLsp | undefined {
    return this.results.get(folder.uri.toString());
  }

  /** Validates every folder now and replaces the diagnostics. */
  async refreshNow(): Promise<void> {
    const generation = ++this.generation;
    const problems: Problem[] = [];
    const results = new Map<string, FolderLsp>();
    for (const folder of fileFolders()) {
      const { value, validation, placed, unplaced } = await validateFolderLsp(folder, this.userSettings);
      problems.push(...placed);
      results.set(folder.uri.toString(), { folder, value, validation, unplaced });
      const servers = Object.keys(validation.servers).length;
      if (validation.problems.length || servers) {
        this.log.info(`dsh.lsp.servers for ${folder.name}: ${servers} valid, registers ${validation.registersAll ? 'all' : 'none'}, ${validation.problems.length} problems (${unplaced} not placed in a settings file)`);
      }
    }
    if (generation !== this.generation) return; // a newer refresh started
    this.results.clear();
    for (const [k, v] of results) this.results.set(k, v);
    this.collection.clear();
    for (const { uri, diagnostics } of diagnosticsByFile(problems, LSP_PROBLEM_CODES, (file) => vscode.Uri.parse(file), this.docsUri).values()) this.collection.set(uri, diagnostics);
    this.changed.fire();
  }

  dispose(): void {
    this.debounced.dispose();
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
