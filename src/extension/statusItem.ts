import * as vscode from 'vscode';
import { verifyFolder } from '../core/declaration/declaration';
import { declarationState, type DeclarationState } from './decisions';
import type { McpDiagnostics } from './diagnostics';
import { folderOfMcpJson, MCP_JSON_SELECTOR } from './mcpFiles';

/**
 * A language status item on `.vscode/mcp.json`: how many servers are exported and refused,
 * and whether the declaration is up to date, stale or tampered, with the command that fixes it.
 */
export class DeclarationStatus implements vscode.Disposable {
  private readonly item = vscode.languages.createLanguageStatusItem('dsh-bridge.declaration', MCP_JSON_SELECTOR);
  private readonly disposables: vscode.Disposable[] = [this.item];
  private readonly pending = new Map<string, string>();
  private sequence = 0;

  constructor(private readonly diagnostics: McpDiagnostics, private readonly dshHome: () => string, private readonly log: vscode.LogOutputChannel) {
    this.item.name = vscode.l10n.t('DSH Declaration');
    this.item.text = vscode.l10n.t('DSH');
    this.disposables.push(
      diagnostics.onDidAnalyze(() => this.refresh()),
      vscode.window.onDidChangeActiveTextEditor(() => this.refresh()),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.refresh()),
    );
  }

  /** A note for a folder, e.g. what an export on save still needs; cleared by the next export. */
  setPending(folder: vscode.WorkspaceFolder, note: string | undefined): void {
    if (note === undefined) this.pending.delete(folder.uri.toString());
    else this.pending.set(folder.uri.toString(), note);
    this.refresh();
  }

  refresh(): void {
    void this.update().catch((error) => this.log.error('updating the status item failed', error));
  }

  private async update(): Promise<void> {
    const uri = vscode.window.activeTextEditor?.document.uri;
    const folder = uri ? folderOfMcpJson(uri) : vscode.workspace.workspaceFolders?.[0];
    if (!folder) return;
    const seq = ++this.sequence;
    const analysed = this.diagnostics.get(folder);
    const verify = await verifyFolder(folder.uri.fsPath, { dshHome: this.dshHome() });
    if (seq !== this.sequence) return;
    const state = declarationState(verify);
    const exported = verify.declaration?.servers.length ?? 0;
    const refused = analysed ? analysed.analysis.rejected.length : verify.declaration?.rejected.length ?? 0;
    const pending = this.pending.get(folder.uri.toString());
    const trusted = vscode.workspace.isTrusted;
    const exportCommand = { title: vscode.l10n.t('Export'), command: 'dsh.exportMcpServers', arguments: [folder.uri] };
    const verifyCommand = { title: vscode.l10n.t('Verify'), command: 'dsh.verifyDeclaration', arguments: [folder.uri] };
    const words: Record<DeclarationState, string> = {
      'up-to-date': vscode.l10n.t('up to date'),
      'stale': vscode.l10n.t('stale: mcp.json changed since the export'),
      'tampered': vscode.l10n.t('tampered: not what this user exported'),
      'missing': vscode.l10n.t('not exported yet'),
      'invalid': vscode.l10n.t('unreadable'),
    };
    this.item.text = state === 'missing'
      ? vscode.l10n.t('DSH: not exported')
      : vscode.l10n.t('DSH: {0} exported, {1} refused', exported, refused);
    this.item.detail = pending ?? words[state];
    this.item.severity = state === 'tampered' ? vscode.LanguageStatusSeverity.Error
      : state === 'up-to-date' && !pending ? vscode.LanguageStatusSeverity.Information : vscode.LanguageStatusSeverity.Warning;
    this.item.command = !trusted ? { title: vscode.l10n.t('Manage Workspace Trust'), command: 'workbench.trust.manage' }
      : state === 'tampered' ? verifyCommand
        : state === 'up-to-date' && !pending ? { title: vscode.l10n.t('Open Declaration'), command: 'dsh.openDeclaration', arguments: [folder.uri] }
          : exportCommand;
    if (!trusted) this.item.detail = `${this.item.detail} \u2014 ${vscode.l10n.t('Restricted Mode: export needs trust')}`;
  }

  /** The item's current text and detail (for tests and the activation API). */
  snapshot(): { text: string; detail: string | undefined } {
    return { text: this.item.text, detail: this.item.detail };
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
