import * as vscode from 'vscode';
import type { Ctx } from './ctx';
import type { McpJsonCheck } from './mcpJsonCheck';
import { planSession, type PlannedSession } from '../core/app/plan';

/**
 * The session plan of each workspace folder as the status item, the servers view and the Problems
 * of stale settings show it: the same call as Verify Declaration (the folder's settings as the
 * editor sees them), without the skills (none of them shows them). Computed once per folder and
 * kept until something it reads changes: the folder's declaration or MCP files, the host store,
 * the settings, the folders or trust, a probe, or a command that wrote ({@link drop}); Verify
 * Declaration's own plan replaces it ({@link keep}).
 * `onDidChange` fires after a plan was dropped; the consumers compute again from there.
 */
export class FolderPlans implements vscode.Disposable {
  private readonly plans = new Map<string, Promise<PlannedSession>>();
  private readonly changed = new vscode.EventEmitter<vscode.WorkspaceFolder | undefined>();
  /** A folder's plan (undefined: every folder's) was dropped. */
  readonly onDidChange = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [this.changed];

  constructor(private readonly ctx: Ctx, mcp: McpJsonCheck) {
    this.disposables.push(
      ctx.onDidChangeDeclaration((uri) => this.drop(vscode.workspace.getWorkspaceFolder(uri))),
      mcp.onDidAnalyze((result) => this.drop('folder' in result ? result.folder : result)),
      // Approvals and the trust mode change outside the editor too (the CLI, DSH).
      ctx.onDidChangeHostStore(() => this.drop()),
      ctx.config.onDidChange(() => this.drop()),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.drop()),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.drop()),
    );
  }

  /** The folder's plan: kept, or computed now. */
  get(folder: vscode.WorkspaceFolder): Promise<PlannedSession> {
    const key = folder.uri.toString();
    let planned = this.plans.get(key);
    if (!planned) {
      const settings = this.ctx.config.folder(folder);
      planned = planSession(this.ctx.ports(), { cwd: folder.uri.fsPath, settings: settings.view, verifySettings: { policySettings: settings.policySettings } });
      this.plans.set(key, planned);
      planned.catch(() => this.plans.get(key) === planned && this.plans.delete(key));
    }
    return planned;
  }

  /**
   * Keeps a plan of the folder a command just made (Verify Declaration: the same request, skills
   * included) in place of the kept one, and says so: what the command showed, the status item and
   * the view show too, without planning the folder again.
   */
  keep(folder: vscode.WorkspaceFolder, planned: PlannedSession): void {
    this.plans.set(folder.uri.toString(), Promise.resolve(planned));
    this.changed.fire(folder);
  }

  /** Drops the plan of one folder (or of all) and says so. */
  drop(folder?: vscode.WorkspaceFolder): void {
    if (folder) this.plans.delete(folder.uri.toString());
    else this.plans.clear();
    this.changed.fire(folder);
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
