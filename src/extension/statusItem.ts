import { folderSessions, summarizeSession } from '../core/app/sessions';
import type { SessionRecord } from '../core/node/sessionRecords';
import { lastSessionLine } from './sessionWords';
import * as vscode from 'vscode';
import { COMMAND } from './commandIds';
import type { Ctx } from './ctx';
import type { McpJsonCheck } from './mcpJsonCheck';
import { declarationState, staleCauses, type DeclarationState } from '../core/app/verify';
import type { FolderPlans } from './folderPlan';
import { verifyReasonsOf } from '../core/app/planJson';
import { folderHeadline, folderViewModel, type FolderAction, type FolderHeadline, type FolderViewModel } from './planView';
import { countWords } from './planWords';
import { fileFolders, folderOfMcpJson, MCP_SOURCES_SELECTOR } from './mcpFiles';
import { visibleLine } from '../core/json/visibleText';
import { l10n } from './l10nLookup';
import { translate } from './l10n';
import { withheldLine, withheldOf, type WithheldItems } from '../core/app/planWithheld';

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

/** What the status items show now: their texts, the tooltip's Markdown, the screen reader's label, the state and its counts. */
export interface StatusSnapshot {
  text: string;
  detail: string | undefined;
  bar: string;
  barVisible: boolean;
  tooltip: string | undefined;
  accessibilityLabel: string | undefined;
  state: { state: DeclarationState; headline: FolderHeadline; counts: FolderViewModel['counts']; rows: number; withheld: WithheldItems } | undefined;
  folder: string | undefined;
  selector: vscode.DocumentSelector;
}

/** What the status items keep of a folder: the plan's view of its files, and the declaration's state as verify names it. */
export interface StatusState {
  state: DeclarationState;
  view: FolderViewModel;
  headline: FolderHeadline;
  action: FolderAction;
  /** Stale only through VS Code's settings: which (DSH, which cannot see them, still mounts it). */
  staleSetting?: 'access' | 'policy';
  /** Stale only because GitHub Copilot's managed settings changed (DSH still mounts it, applying them at mount). */
  staleManaged?: true;
  /** Stale (for DSH too) because session settings or files the export read changed: their names (core staleCauses). */
  staleSettings?: string[];
  /** The folder's last recorded DSH session (its age is taken when shown). */
  lastSession?: SessionRecord;
  /** Everything the plan withholds from a session here (core/app/planWithheld.ts). */
  withheld: WithheldItems;
}

/** The declaration-wide line: what the declaration is, and for one that is current, whether every server is in it. */
function declarationLine(s: StatusState): string {
  if (s.staleSetting) {
    return s.staleSetting === 'policy'
      ? l10n.t('stale: the MCP server policy changed since the export')
      : l10n.t('stale: chat.mcp.access changed which files VS Code runs servers from since the export');
  }
  if (s.staleManaged) return l10n.t('stale: GitHub Copilot\'s managed settings changed since the export; DSH still mounts it and applies them at mount');
  if (s.staleSettings) return l10n.t('stale: {0} changed since the export; DSH withholds the declaration until you export', s.staleSettings.join(', '));
  if (s.headline === 'no-servers') return l10n.t('No MCP server in this folder yet: add one to .vscode/mcp.json, then export.');
  if (s.headline === 'deny') return l10n.t('Trust mode "deny": DSH mounts nothing of this folder.');
  const refused = s.view.counts.refused;
  if (s.state === 'up-to-date' && refused) {
    return refused === 1 ? l10n.t('the declaration is up to date, but 1 server was refused: see Problems')
      : l10n.t('the declaration is up to date, but {0} servers were refused: see Problems', refused);
  }
  return stateWords(s.state);
}

/** Every line the status says about a folder, most important first (the hover's detail, the tooltip). */
function detailLines(s: StatusState, pending: string | undefined): string[] {
  const lines = [pending, declarationLine(s)];
  if (s.state !== 'missing' && !s.view.blocked.length) {
    const missing = [...new Set(s.view.rows.filter((r) => r.reason?.code === 'input-missing').map((r) => String(r.reason!.args.id)))];
    if (missing.length) lines.push(missingWords(missing));
    const unapproved = s.view.rows.filter((r) => r.state === 'not-approved').map((r) => r.serverName ?? r.name);
    if (unapproved.length) lines.push(unapprovedWords(unapproved));
  }
  // Everything the plan withholds (servers, tools, skills, language servers), in the words of verify and doctor.
  lines.push(withheldLine(s.withheld, translate));
  return lines.filter((l): l is string => !!l);
}

/**
 * The folder's DSH state where users look: a language status item on every MCP source file and a
 * status bar item for the active folder, with a click that runs the action the state needs.
 * Counts come from one source, the session plan over the folder's MCP files (folderViewModel), the
 * rows the servers view shows. Each folder's state is computed once and kept until its plan is
 * dropped (FolderPlans says when). Switching editors only shows the kept state of another folder.
 */
export class DeclarationStatus implements vscode.Disposable {
  /** On every file the folder's servers come from (docs/sources.md), not only `.vscode/mcp.json`. */
  private readonly item = vscode.languages.createLanguageStatusItem('dsh-bridge.declaration', MCP_SOURCES_SELECTOR);
  private readonly bar = vscode.window.createStatusBarItem('dsh-bridge.status', vscode.StatusBarAlignment.Left, 50);
  private readonly disposables: vscode.Disposable[] = [this.item, this.bar];
  private readonly pending = new Map<string, string>();
  /** Each folder's state as last computed (by folder URI). */
  private readonly states = new Map<string, Promise<StatusState>>();
  private sequence = 0;
  private last: { folder: string; state: StatusState } | undefined;
  private shown = false;

  constructor(
    private readonly mcp: McpJsonCheck,
    private readonly ctx: Ctx,
    private readonly plans: FolderPlans,
  ) {
    this.item.name = l10n.t('DSH Declaration');
    this.item.text = l10n.t('DSH');
    this.bar.name = l10n.t('DSH Bridge');
    this.disposables.push(
      // The plans are dropped on every change the state depends on (the MCP files analysed again included).
      plans.onDidChange((folder) => this.forget(folder)),
      vscode.window.onDidChangeActiveTextEditor(() => this.show()),
    );
  }

  /** A note for a folder, e.g. what an export on save still needs; cleared by the next export (which also wrote). */
  setPending(folder: vscode.WorkspaceFolder, note: string | undefined): void {
    if (note === undefined) this.pending.delete(folder.uri.toString());
    else this.pending.set(folder.uri.toString(), note);
    this.refresh(folder);
  }

  /** Computes the state of one folder (or of all) again, from a new plan: after a command wrote. */
  refresh(folder?: vscode.WorkspaceFolder): void {
    this.plans.drop(folder);
  }

  /** Drops the kept state of one folder (or of all) and shows the active folder's. */
  private forget(folder: vscode.WorkspaceFolder | undefined): void {
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

  /** The folder's state: kept, or computed from the session plan (the declaration on disk, the host store) over its MCP files. */
  private stateOf(folder: vscode.WorkspaceFolder): Promise<StatusState> {
    const key = folder.uri.toString();
    let state = this.states.get(key);
    if (!state) {
      state = (async () => {
        const [planned, analysed, sessions] = await Promise.all([
          this.plans.get(folder), this.mcp.get(folder) ?? this.mcp.analyzeNow(folder), folderSessions(this.ctx.ports(), folder.uri.fsPath),
        ]);
        const lastSession = sessions.sessions[0];
        const verify = { ok: planned.verified?.ok === true, reasons: verifyReasonsOf(planned) };
        const view = folderViewModel(planned.plan, analysed?.analysis ?? { usable: true, sourcePath: '.vscode/mcp.json', servers: [], rejected: [], problems: [] });
        const causes = staleCauses(verify.reasons);
        const editorOnly = verify.reasons.length > 0 && verify.reasons.every((r) => r.editorOnly);
        const staleSetting = editorOnly ? (causes.editor.every((k) => k === 'access') ? 'access' as const : 'policy' as const) : undefined;
        const staleSettings = causes.changed;
        const staleManaged = causes.managed && verify.reasons.every((r) => r.editorOnly || r.enforcedAtMount);
        return {
          state: declarationState(verify), view, ...folderHeadline(view), withheld: withheldOf(planned.plan), ...(staleSetting ? { staleSetting } : {}), ...(staleSettings.length ? { staleSettings } : {}),
          ...(staleManaged ? { staleManaged: true as const } : {}),
          ...(lastSession ? { lastSession } : {}),
        };
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
    const { headline, action } = state;
    const lines = detailLines(state, pending);
    if (!trusted) lines.push(l10n.t('Restricted Mode: export needs trust'));
    if (state.lastSession) lines.push(lastSessionLine(summarizeSession(state.lastSession, Date.now())));
    const command = trusted
      ? this.actionCommand(pending ? 'export' : action, folder)
      : { title: l10n.t('Manage Workspace Trust'), command: 'workbench.trust.manage' };
    const bad = headline === 'not-verified';
    const fine = (headline === 'exported' || headline === 'no-servers') && !pending;
    const counts = state.view.rows.length ? countWords(state.view.counts) : undefined;

    // The language status item on the MCP files: the headline, then the counts the view shows and what matters.
    const words: Record<FolderHeadline, string> = {
      'no-servers': l10n.t('DSH: no servers'),
      'exported': l10n.t('DSH: exported'),
      'stale': l10n.t('DSH: stale'),
      'not-exported': l10n.t('DSH: not exported'),
      'deny': l10n.t('DSH: trust mode deny'),
      'needs-inputs': l10n.t('DSH: needs inputs'),
      'refused': state.view.counts.refused === 1 ? l10n.t('DSH: 1 refused') : l10n.t('DSH: {0} refused', state.view.counts.refused),
      'unapproved': l10n.t('DSH: not approved'),
      'withheld': l10n.t('DSH: withheld'),
      'not-verified': l10n.t('DSH: refused by DSH'),
    };
    const title = pending ? l10n.t('DSH: needs your export') : words[headline];
    this.item.text = title;
    // Lines name folders, inputs and servers from the MCP files: shown escaped.
    this.item.detail = visibleLine([counts, ...lines].filter((l) => l !== undefined).join(' \u2014 '));
    this.item.severity = bad ? vscode.LanguageStatusSeverity.Error : fine ? vscode.LanguageStatusSeverity.Information : vscode.LanguageStatusSeverity.Warning;
    this.item.command = command;
    this.item.accessibilityInformation = { label: visibleLine([title, counts, ...lines].filter((l) => l !== undefined).join('. ')) };

    // The status bar item: shown for a folder that has an MCP file or a declaration.
    const relevant = !!this.mcp.get(folder) || state.state !== 'missing';
    if (!relevant) {
      this.hideBar();
      return;
    }
    const icon = bad ? '$(error)' : headline === 'no-servers' && !pending ? '$(info)' : fine ? '$(check)' : '$(warning)';
    this.bar.text = `${icon} ${title}`;
    const tooltip = new vscode.MarkdownString(undefined, true);
    tooltip.appendText(`${visibleLine(counts ? `${folder.name}: ${counts}` : folder.name)}\n\n`);
    for (const l of lines) tooltip.appendText(`${visibleLine(l)}\n\n`);
    // What a click does, as a link that does it (trusted for that one command only).
    const args = command.arguments ? `?${encodeURIComponent(JSON.stringify(command.arguments))}` : '';
    tooltip.appendMarkdown(`[${escapeLinkText(command.title)}](command:${command.command}${args})`);
    tooltip.isTrusted = { enabledCommands: [command.command] };
    this.bar.tooltip = tooltip;
    this.bar.command = command;
    // The screen reader reads this, not the Markdown tooltip (whose spaces are written as &nbsp;).
    this.bar.accessibilityInformation = { label: visibleLine([`${folder.name}: ${title}`, counts, ...lines].filter((l) => l !== undefined).join('. ')) };
    this.bar.backgroundColor = bad ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    this.bar.show();
    this.shown = true;
  }

  private hideBar(): void {
    this.bar.hide();
    this.shown = false;
  }

  /** The command a click runs, titled with what it does (the words of its command where there is one). */
  private actionCommand(action: FolderAction, folder: vscode.WorkspaceFolder): vscode.Command {
    switch (action) {
      case 'export': return { title: l10n.t('Export MCP Servers to DSH'), command: COMMAND.export, arguments: [folder.uri] };
      case 'enter-inputs': return { title: l10n.t('Enter MCP Input Values'), command: COMMAND.enterInputValues, arguments: [folder.uri] };
      case 'show-problems': return { title: l10n.t('Show Problems'), command: 'workbench.actions.view.problems' };
      case 'verify': return { title: l10n.t('Verify Declaration'), command: COMMAND.verifyDeclaration, arguments: [folder.uri] };
      case 'open-declaration': return { title: l10n.t('Open Declaration'), command: COMMAND.openDeclaration, arguments: [folder.uri] };
      case 'trust': return { title: l10n.t('Change the Trust Mode'), command: 'workbench.action.openSettings', arguments: ['dsh.trustMode'] };
    }
  }

  /** What the items show now (for tests and the activation API; nothing secret). */
  snapshot(): StatusSnapshot {
    const tooltip = this.bar.tooltip;
    const s = this.last?.state;
    return {
      text: this.item.text, detail: this.item.detail, bar: this.bar.text, barVisible: this.shown,
      tooltip: typeof tooltip === 'string' ? tooltip : tooltip?.value,
      accessibilityLabel: this.bar.accessibilityInformation?.label,
      state: s && { state: s.state, headline: s.headline, counts: s.view.counts, rows: s.view.rows.length, withheld: s.withheld },
      folder: this.last?.folder, selector: this.item.selector,
    };
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

/** A link's text in Markdown: its brackets and backslashes escaped. */
function escapeLinkText(text: string): string {
  return text.replace(/[\\[\]]/g, (c) => `\\${c}`);
}
