import * as vscode from 'vscode';
import { COMMAND } from '../commandIds';
import type { Ctx } from '../ctx';
import type { McpJsonCheck } from '../mcpJsonCheck';
import type { FolderPlans } from '../folderPlan';
import { ProbeDiagnostics } from './probeDiagnostics';
import { ProbeRunner, type ProbeSummary } from './probeRunner';
import { McpServersView } from './serversView';

/**
 * The tools feature of the editor: the "MCP Servers for DSH" view, the probe, its diagnostics
 * and the drift quick fix. One object for the composition root to own; its commands are in the
 * command table (commands.ts).
 */
export class ToolsFeature implements vscode.Disposable {
  readonly view: McpServersView;
  private readonly probes: ProbeRunner;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(mcp: McpJsonCheck, ctx: Ctx, plans: FolderPlans) {
    this.probes = new ProbeRunner(ctx);
    const probeDiagnostics = new ProbeDiagnostics();
    this.view = new McpServersView(mcp, ctx, this.probes, probeDiagnostics, plans);
    this.disposables.push(
      this.view,
      this.probes,
      probeDiagnostics,
      vscode.languages.registerCodeActionsProvider({ scheme: 'file' }, probeDiagnostics, { providedCodeActionKinds: ProbeDiagnostics.kinds }),
    );
  }

  /** "DSH: Probe MCP Servers": (node) from the view, (folder URI, names?) from code, nothing from the palette. */
  probe(node?: unknown, names?: unknown): Promise<ProbeSummary> {
    const target = this.view.target(node);
    const wanted = Array.isArray(names) && names.every((n) => typeof n === 'string') ? names as string[] : target?.name !== undefined ? [target.name] : undefined;
    return this.probes.run(target ? { folder: target.folder, ...(wanted ? { names: wanted } : {}) } : undefined);
  }

  /** The drift fix: probe the server again, then export, which signs the new tool pins. */
  async reprobeAndAccept(folderUri?: unknown, name?: unknown): Promise<unknown> {
    const target = this.view.target(folderUri, name);
    if (!target?.name) return undefined;
    const summary: ProbeSummary = await this.probes.run({ folder: target.folder, names: [target.name] });
    if (summary.outcome !== 'probed' || summary.folders[0]?.servers[0]?.outcome !== 'ok') return summary;
    return vscode.commands.executeCommand(COMMAND.export, target.folder.uri);
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
