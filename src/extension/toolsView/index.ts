import * as vscode from 'vscode';
import type { InvalidSetting } from '../../core/settings/folderSettings';
import type { McpDiagnostics } from '../diagnostics';
import { ProbeDiagnostics, REPROBE_COMMAND } from './probeDiagnostics';
import { PROBE_COMMAND, ProbeRunner, type ProbeSummary } from './probeRunner';
import { McpServersView } from './serversView';

/**
 * The tools feature of the editor: the "MCP Servers for DSH" view, the probe command, its
 * diagnostics and the drift quick fix. One object for the composition root to own.
 */
export class ToolsFeature implements vscode.Disposable {
  readonly view: McpServersView;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(diagnostics: McpDiagnostics, settings: () => { dshHome: string; trustMode: string }, log: vscode.LogOutputChannel, invalidSetting: InvalidSetting) {
    const probes = new ProbeRunner(log, invalidSetting);
    const probeDiagnostics = new ProbeDiagnostics();
    this.view = new McpServersView(diagnostics, settings, log, probes, probeDiagnostics);
    const guard = (id: string, fn: () => Promise<unknown>) => fn().catch((error: unknown) => {
      log.error(`${id} failed`, error);
      const showLogs = vscode.l10n.t('Show Logs');
      void vscode.window.showErrorMessage(vscode.l10n.t('DSH Bridge: {0} failed. The log has the details.', id), showLogs).then((c) => {
        if (c === showLogs) log.show();
      });
      return undefined;
    });
    this.disposables.push(
      this.view,
      probes,
      probeDiagnostics,
      vscode.languages.registerCodeActionsProvider({ scheme: 'file' }, probeDiagnostics, { providedCodeActionKinds: ProbeDiagnostics.kinds }),
      // (node) from the view, (folder URI, names?) from code, nothing from the palette.
      vscode.commands.registerCommand(PROBE_COMMAND, (node?: unknown, names?: unknown) => guard(PROBE_COMMAND, () => {
        const target = this.view.target(node);
        const wanted = Array.isArray(names) && names.every((n) => typeof n === 'string') ? names as string[] : target?.name !== undefined ? [target.name] : undefined;
        return probes.run(target ? { folder: target.folder, ...(wanted ? { names: wanted } : {}) } : undefined);
      })),
      // The drift fix: probe the server again, then export, which signs the new tool pins.
      vscode.commands.registerCommand(REPROBE_COMMAND, (folderUri?: unknown, name?: unknown) => guard(REPROBE_COMMAND, async () => {
        const target = this.view.target(folderUri, name);
        if (!target?.name) return undefined;
        const summary: ProbeSummary = await probes.run({ folder: target.folder, names: [target.name] });
        if (summary.outcome !== 'probed' || summary.folders[0]?.servers[0]?.outcome !== 'ok') return summary;
        return vscode.commands.executeCommand('dsh.exportMcpServers', target.folder.uri);
      })),
    );
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
