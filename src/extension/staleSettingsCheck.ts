import * as vscode from 'vscode';
import { staleSettingProblems } from '../core/app/settingsFiles';
import type { Ctx } from './ctx';
import { COMMAND } from './commandIds';
import { DIAGNOSTIC_SOURCE, diagnosticsByFile, type Check, type DiagnosticsOwner } from './diagnostics';
import type { FolderPlans } from './folderPlan';
import { fileFolders } from './mcpFiles';
import { l10n } from './l10nLookup';

const CODE = 'declaration-stale-setting';

/**
 * The Problems of a declaration made stale by a settings file: on the key of each session setting
 * edited since the export, in the settings file that changed (the core's `staleSettingProblems`
 * over the verify reasons of each folder's plan, the plan the status item shows). Runs (debounced)
 * whenever a plan is dropped; a run that a newer one overtook publishes nothing.
 */
export class StaleSettingsCheck implements Check, vscode.Disposable {
  readonly kind = CODE;
  private generation = 0;
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly owner: DiagnosticsOwner,
    private readonly plans: FolderPlans,
    private readonly ctx: Ctx,
    private readonly docsUri: (code: string) => vscode.Uri,
  ) {
    this.subscription = plans.onDidChange(() => this.refreshAll());
  }

  fileChanged(): void {
    // Settings files reach it through the plans (a configuration or declaration change drops them).
  }

  wants(): boolean {
    return false;
  }

  refreshAll(delay?: number): void {
    this.owner.schedule(this.kind, () => this.run(), (error) => this.ctx.log.error(`checking ${this.kind} failed`, error), delay);
  }

  private async run(): Promise<void> {
    const generation = ++this.generation;
    const problems = [];
    for (const folder of fileFolders()) {
      const planned = await this.plans.get(folder);
      problems.push(...await staleSettingProblems(this.ctx.ports(), planned.plan.declaration));
    }
    if (generation !== this.generation) return;
    this.owner.replace(this.kind, diagnosticsByFile(problems, (file) => vscode.Uri.file(file), this.docsUri).values());
  }

  dispose(): void {
    this.subscription.dispose();
  }
}

/** The quick fix of a stale setting: the export, which signs the setting's value as it is now (and changes nothing else). */
export class StaleSettingsCodeActions implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  provideCodeActions(document: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): vscode.CodeAction[] {
    const stale = context.diagnostics.filter((d) => d.source === DIAGNOSTIC_SOURCE && typeof d.code === 'object' && d.code.value === CODE);
    if (stale.length === 0 || !vscode.workspace.isTrusted) return [];
    // User settings and a .code-workspace file belong to no folder: the export then asks which.
    const folder = vscode.workspace.getWorkspaceFolder(document.uri);
    const title = l10n.t('Export MCP Servers to DSH');
    const action = new vscode.CodeAction(title, vscode.CodeActionKind.QuickFix);
    action.command = { title, command: COMMAND.export, arguments: folder ? [folder.uri] : [] };
    action.diagnostics = stale;
    action.isPreferred = true;
    return [action];
  }
}
