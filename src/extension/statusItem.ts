import * as vscode from 'vscode';
import { verifyFolder } from '../core/app/verify';
import { COMMAND } from './commandIds';
import type { Ctx } from './ctx';
import type { McpJsonCheck } from './mcpJsonCheck';
import { folderState, statusHeadline, type DeclarationState, type FolderState, type StatusAction } from './decisions';
import { fileFolders, folderOfMcpJson, MCP_SOURCES_SELECTOR } from './mcpFiles';
import { visibleLine } from '../core/json/visibleText';
import { l10n } from './l10nLookup';

/** The words of each declaration state, for the hover and tooltips. */
function stateWords(state: DeclarationState): string {
  switch (state) {
    case 'up-to-date': return l10n.t('the declaration is up to date');
    case 'stale': return l10n.t('stale: mcp.json changed since the export');
    case 'changed': return l10n.t('changed after the export: DSH refuses it');
    case 'older': return l10n.t('an older export restored over a newer one: DSH refuses it');
    case 'unsigned': return l10n.t('not signed: DSH refuses it');
    case 'other-folder': return l10n.t('made for another folder: DSH refuses it');
    case 'other-key': return l10n.t('signed with another key: DSH refuses it');
    case 'invalid': return l10n.t('unreadable: DSH refuses it');
    case 'missing': return l10n.t('Export writes .dsh/declaration.json for DSH.');
  }
}

function exportedWords(n: number): string {
  return n === 1 ? l10n.t('DSH: 1 server exported') : l10n.t('DSH: {0} servers exported', n);
}

function refusedWords(n: number): string {
  return n === 1 ? l10n.t('1 server refused') : l10n.t('{0} servers refused', n);
}

function missingWords(ids: string[]): string {
  return ids.length === 1
    ? l10n.t('DSH has no value for input {0}: enter it', ids[0])
    : l10n.t('DSH has no values for inputs {0}: enter them', ids.join(', '));
}

function unapprovedWords(names: string[]): string {
  return names.length === 1
    ? l10n.t('{0} is not approved: DSH will ask before it starts it', names[0])
    : l10n.t('{0} are not approved: DSH will ask before it starts them', names.join(', '));
}

/** Every line the status says about a folder, most important first (the hover's detail, the tooltip). */
function detailLines(s: FolderState, pending: string | undefined): string[] {
  const bySettings = s.staleSetting === 'policy'
    ? l10n.t('stale: the MCP server policy changed since the export')
    : l10n.t('stale: chat.mcp.access changed which files VS Code runs servers from since the export');
  const settingsWords = s.staleSettings ? l10n.t('stale: {0} changed since the export; DSH withholds the declaration until you export', s.staleSettings.join(', ')) : undefined;
  const lines = [pending, s.staleBySettings ? bySettings : settingsWords ?? stateWords(s.state)];
  if (s.state !== 'missing') {
    if (s.missingInputs.length) lines.push(missingWords(s.missingInputs));
    if (s.unapproved.length) lines.push(unapprovedWords(s.unapproved));
    if (s.refused) lines.push(refusedWords(s.refused));
  }
  return lines.filter((l): l is string => !!l);
}

/**
 * The folder's DSH state where users look: a language status item on every MCP source file and a
 * status bar item for the active folder, with a click that runs the action the state needs.
 * Counts come from one source, the declaration on disk. Each folder's state is computed once
 * (verify + host store) and kept until something it depends on changes: mcp.json analysed again,
 * the declaration or the host store changed on disk, the settings or trust changed, or a command
 * wrote. Switching editors only shows the kept state of another folder.
 */
export class DeclarationStatus implements vscode.Disposable {
  /** On every file the folder's servers come from (docs/sources.md), not only `.vscode/mcp.json`. */
  private readonly item = vscode.languages.createLanguageStatusItem('dsh-bridge.declaration', MCP_SOURCES_SELECTOR);
  private readonly bar = vscode.window.createStatusBarItem('dsh-bridge.status', vscode.StatusBarAlignment.Left, 50);
  private readonly disposables: vscode.Disposable[] = [this.item, this.bar];
  private readonly pending = new Map<string, string>();
  /** Each folder's state as last computed (by folder URI). */
  private readonly states = new Map<string, Promise<FolderState>>();
  private sequence = 0;
  private last: { folder: string; state: FolderState } | undefined;
  private shown = false;

  constructor(
    private readonly mcp: McpJsonCheck,
    private readonly ctx: Ctx,
  ) {
    this.item.name = l10n.t('DSH Declaration');
    this.item.text = l10n.t('DSH');
    this.bar.name = l10n.t('DSH Bridge');
    this.disposables.push(
      ctx.onDidChangeDeclaration((uri) => this.refresh(vscode.workspace.getWorkspaceFolder(uri))),
      mcp.onDidAnalyze((result) => this.refresh('folder' in result ? result.folder : result)),
      vscode.window.onDidChangeActiveTextEditor(() => this.show()),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.refresh()),
      ctx.onDidChangeHostStore(() => this.refresh()),
    );
  }

  /** A note for a folder, e.g. what an export on save still needs; cleared by the next export (which also wrote). */
  setPending(folder: vscode.WorkspaceFolder, note: string | undefined): void {
    if (note === undefined) this.pending.delete(folder.uri.toString());
    else this.pending.set(folder.uri.toString(), note);
    this.refresh(folder);
  }

  /** Drops the kept state of one folder (or of all) and shows the active folder's. */
  refresh(folder?: vscode.WorkspaceFolder): void {
    if (folder) this.states.delete(folder.uri.toString());
    else this.states.clear();
    this.show();
  }

  private show(): void {
    void this.update().catch((error) => this.log.error('updating the status items failed', error));
  }

  private get log(): vscode.LogOutputChannel {
    return this.ctx.log;
  }

  /** The folder's state: kept, or computed from the declaration on disk and the host store. */
  private stateOf(folder: vscode.WorkspaceFolder): Promise<FolderState> {
    const key = folder.uri.toString();
    let state = this.states.get(key);
    if (!state) {
      state = (async () => {
        const verify = await verifyFolder(this.ctx.ports(), folder.uri.fsPath, { settings: this.ctx.config.folder(folder).view, policySettings: this.ctx.config.folder(folder).policySettings });
        const trustMode = await this.ctx.storedTrustMode();
        const record = await this.ctx.storedFolder(folder.uri.fsPath).catch(() => undefined);
        return folderState({ verify, trustMode, storedInputs: new Set(record?.inputs.keys()), approvals: record?.approvals ?? [] });
      })();
      this.states.set(key, state);
      state.catch(() => this.states.get(key) === state && this.states.delete(key));
    }
    return state;
  }

  /** The active folder: the active editor's folder, else the first folder with an mcp.json analysis. */
  private activeFolder(): vscode.WorkspaceFolder | undefined {
    const uri = vscode.window.activeTextEditor?.document.uri;
    const own = uri ? folderOfMcpJson(uri) ?? vscode.workspace.getWorkspaceFolder(uri) : undefined;
    if (own) return own;
    const folders = fileFolders();
    return folders.find((f) => this.mcp.get(f)) ?? folders[0];
  }

  private async update(): Promise<void> {
    const folder = this.activeFolder();
    if (!folder) {
      this.hideBar();
      return;
    }
    const seq = ++this.sequence;
    // The host store's files change outside the editor too (the CLI, DSH recording approvals).
    this.ctx.watchHostStore();
    const state = await this.stateOf(folder);
    if (seq !== this.sequence) return;
    this.last = { folder: folder.uri.fsPath, state };
    const pending = this.pending.get(folder.uri.toString());
    const trusted = vscode.workspace.isTrusted;
    const { headline, action } = statusHeadline(state);
    const lines = detailLines(state, pending);
    if (!trusted) lines.push(l10n.t('Restricted Mode: export needs trust'));
    const command = trusted
      ? this.actionCommand(pending ? 'export' : action, folder)
      : { title: l10n.t('Manage Workspace Trust'), command: 'workbench.trust.manage' };
    const bad = headline === 'not-verified';
    const fine = headline === 'exported' && !pending;

    // The language status item on mcp.json: the count, then what matters.
    this.item.text = state.state === 'missing' ? l10n.t('DSH: not exported') : exportedWords(state.exported);
    // Lines name folders, inputs and servers from mcp.json: shown escaped.
    this.item.detail = visibleLine(lines.join(' \u2014 '));
    this.item.severity = bad ? vscode.LanguageStatusSeverity.Error : fine ? vscode.LanguageStatusSeverity.Information : vscode.LanguageStatusSeverity.Warning;
    this.item.command = command;

    // The status bar item: shown for a folder that has an mcp.json or a declaration.
    const relevant = !!this.mcp.get(folder) || state.state !== 'missing';
    if (!relevant) {
      this.hideBar();
      return;
    }
    const words: Record<typeof headline, string> = {
      'exported': l10n.t('DSH: exported'),
      'stale': l10n.t('DSH: stale'),
      'not-exported': l10n.t('DSH: not exported'),
      'needs-inputs': l10n.t('DSH: needs inputs'),
      'refused': l10n.t('DSH: {0} refused', state.refused),
      'unapproved': l10n.t('DSH: not approved'),
      'not-verified': l10n.t('DSH: refused by DSH'),
    };
    const icon = bad ? '$(error)' : fine ? '$(check)' : '$(warning)';
    this.bar.text = `${icon} ${pending ? l10n.t('DSH: needs your export') : words[headline]}`;
    const tooltip = new vscode.MarkdownString(undefined, true);
    tooltip.appendText(`${visibleLine(`${folder.name}: ${state.state === 'missing' ? l10n.t('DSH: not exported') : exportedWords(state.exported)}`)}\n\n`);
    for (const l of lines) tooltip.appendText(`${visibleLine(l)}\n\n`);
    tooltip.appendText(l10n.t('Click: {0}', command.title));
    this.bar.tooltip = tooltip;
    this.bar.command = command;
    this.bar.backgroundColor = bad ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    this.bar.show();
    this.shown = true;
  }

  private hideBar(): void {
    this.bar.hide();
    this.shown = false;
  }

  private actionCommand(action: StatusAction, folder: vscode.WorkspaceFolder): vscode.Command {
    switch (action) {
      case 'export': return { title: l10n.t('Export'), command: COMMAND.export, arguments: [folder.uri] };
      case 'enter-inputs': return { title: l10n.t('Enter Input Values'), command: COMMAND.enterInputValues, arguments: [folder.uri] };
      case 'show-problems': return { title: l10n.t('Show Problems'), command: 'workbench.actions.view.problems' };
      case 'verify': return { title: l10n.t('Verify'), command: COMMAND.verifyDeclaration, arguments: [folder.uri] };
      case 'open-declaration': return { title: l10n.t('Open Declaration'), command: COMMAND.openDeclaration, arguments: [folder.uri] };
    }
  }

  /** What the items show now (for tests and the activation API; nothing secret). */
  snapshot(): { text: string; detail: string | undefined; bar: string; barVisible: boolean; state: FolderState | undefined; folder: string | undefined; selector: vscode.DocumentSelector } {
    return { text: this.item.text, detail: this.item.detail, bar: this.bar.text, barVisible: this.shown, state: this.last?.state, folder: this.last?.folder, selector: this.item.selector };
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
