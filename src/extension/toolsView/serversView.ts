import * as vscode from 'vscode';
import { askSafeFirst, showInformation, showWarning, shownTreeItem } from '../visible';
import { COMMAND, SERVERS_VIEW_ID } from '../commandIds';
import type { Ctx } from '../ctx';
import type { McpJsonCheck } from '../mcpJsonCheck';
import { fileFolders, mcpJsonUri, readFileBytes, sourceUri } from '../mcpFiles';
import { serverEntries } from './serverEntries';
import type { FolderPlans } from '../folderPlan';
import { blockedState, folderViewModel, type FolderViewModel, type ServerRowState, type ServerViewRow } from '../planView';
import { countWords } from '../planWords';
import { planMessage } from '../../core/app/planReasons';
import { sentences, translate } from '../l10n';
import { PROBE_FAILED } from './probeDiagnostics';
import { serverTools, type ServerTools, type ToolRow } from '../../core/app/probedTools';
import { acceptProbedTool } from '../../core/app/scanFindings';
import { visibleLine } from '../../core/json/visibleText';
import type { ProbeDiagnostics } from './probeDiagnostics';
import type { ProbeRunner } from './probeRunner';
import { folderToolChoice, toggleTool, toolChoiceTarget, TOOL_CHOICE_TARGET_SETTING } from './toolSettings';
import type { ScanFinding } from '../../core/scan/scan';
import { findingCountWords, findingLines, findingStateWords } from '../findingWords';
import { l10n } from '../l10nLookup';

/** Set while the view's provider runs: the view is contributed `when` it is, so it shows only where the bridge is active. */
const ACTIVE_CONTEXT = 'dsh.serversViewActive';
const REFRESH_DEBOUNCE_MS = 150;

type FolderNode = { kind: 'folder'; folder: vscode.WorkspaceFolder };
type ServerNode = { kind: 'server'; folder: vscode.WorkspaceFolder; row: ServerViewRow };
type MessageNode = { kind: 'message'; folder: vscode.WorkspaceFolder; text: string; tooltip: string };
type ToolNode = { kind: 'tool'; folder: vscode.WorkspaceFolder; server: string; serverName?: string; tool: ToolRow };
export type ViewNode = FolderNode | ServerNode | MessageNode | ToolNode;

/** What the view knows of a folder: its rows (the session plan over its MCP files), and the tools of the servers probed. */
interface FolderFacts {
  view: FolderViewModel;
  tools: Map<string, ServerTools>;
}

/** The short words of a reason that withholds a server (its sentence is the plan's message). */
function withheldWords(row: ServerViewRow): string {
  const args = row.reason?.args ?? {};
  switch (row.reason?.code) {
    case 'input-missing': return l10n.t('withheld: input {0} has no value', String(args.id));
    case 'env-missing': return l10n.t('withheld: {0} is not set', String(args.name));
    case 'dsh-policy-denied':
    case 'dsh-policy-not-allowed':
    case 'dsh-policy-unreadable': return l10n.t('withheld by the DSH policy');
    default: return l10n.t('withheld: it cannot start as declared');
  }
}

/** The declaration-wide words (stale, deny, refused by DSH, not exported): on the folder and on every row. */
function blockedWords(state: ServerRowState): { short: string; long: string } | undefined {
  switch (state) {
    case 'not-exported': return { short: l10n.t('not exported'), long: l10n.t('Not in the declaration yet: DSH sessions do not get it until you export.') };
    case 'stale': return { short: l10n.t('stale'), long: l10n.t('The declaration is stale (an MCP file changed since the export): DSH sessions get none of this folder\'s servers until you export again.') };
    case 'deny': return { short: l10n.t('trust mode deny'), long: l10n.t('The trust mode is "deny" on this machine: DSH sessions get no server.') };
    case 'declaration-refused': return { short: l10n.t('refused by DSH'), long: l10n.t('DSH refuses the declaration of this folder as a whole. Verify it to see why, then export again.') };
    default: return undefined;
  }
}

/** The words of a server's state: the short one beside its name, and the sentence of its tooltip. */
function stateWords(row: ServerViewRow): { short: string; long: string } {
  const codes = row.codes.join(', ');
  // "Not exported" beside a refused entry says nothing new: the entry never is.
  const blocked = row.blocked && row.blocked.code !== 'no-declaration' ? blockedWords(blockedState(row.blocked.code)) : undefined;
  const withBlocked = (w: { short: string; long: string }) => (blocked ? { short: `${w.short} \u00b7 ${blocked.short}`, long: `${w.long}\n${blocked.long}` } : w);
  switch (row.state) {
    case 'shadowed': return withBlocked({
      short: l10n.t('shadowed by {0}', row.shadowedBy ?? ''),
      long: l10n.t('{0} defines this name too and takes precedence, as in VS Code: this entry is not exported.', row.shadowedBy ?? ''),
    });
    case 'refused': return withBlocked({ short: l10n.t('refused: {0}', codes), long: l10n.t('The export refuses this entry ({0}): DSH does not get it. Problems says why.', codes) });
    case 'changed': return { short: l10n.t('changed'), long: l10n.t('Changed since the export: DSH still runs the exported entry until you export again.') };
    case 'not-approved': return { short: l10n.t('not approved'), long: l10n.t('Exported, but not approved for its current pin (trust mode "pinned"): DSH asks before it starts it.') };
    case 'withheld': {
      const fix = row.reason?.fix ? `\n${l10n.t('Fix: {0}', row.reason.fix.command)}` : '';
      return { short: withheldWords(row), long: `${row.reason ? planMessage(row.reason, translate) : ''}${fix}` };
    }
    case 'exported': return {
      short: l10n.t('exported'),
      long: row.reason?.code === 'ask-mode'
        ? sentences([l10n.t('Exported as it is: DSH sessions of this folder get it.'), l10n.t('DSH asks before it starts it (trust mode "ask").')])
        : l10n.t('Exported as it is: DSH sessions of this folder get it.'),
    };
    default: return blockedWords(row.state)!;
  }
}

const STATE_ICONS: Record<ServerRowState, [string, string | undefined]> = {
  'shadowed': ['circle-slash', undefined],
  'refused': ['error', 'problemsErrorIcon.foreground'],
  'declaration-refused': ['error', 'problemsErrorIcon.foreground'],
  'not-exported': ['circle-large-outline', undefined],
  'stale': ['warning', 'problemsWarningIcon.foreground'],
  'deny': ['circle-slash', 'problemsWarningIcon.foreground'],
  'changed': ['warning', 'problemsWarningIcon.foreground'],
  'not-approved': ['shield', 'problemsWarningIcon.foreground'],
  'withheld': ['warning', 'problemsWarningIcon.foreground'],
  'exported': ['pass', 'testing.iconPassed'],
};

/** The folder's count, and the declaration-wide state beside it (stale, deny, ...). */
function folderWords(view: FolderViewModel): string {
  // Without a declaration every row says "not exported" already.
  const blocked = view.blocked[0] && view.blocked[0].code !== 'no-declaration' ? blockedWords(blockedState(view.blocked[0].code)) : undefined;
  return blocked && view.rows.length ? `${countWords(view.counts)} \u00b7 ${blocked.short}` : countWords(view.counts);
}

function toolCountWords(n: number): string {
  return n === 1 ? l10n.t('1 tool') : l10n.t('{0} tools', n);
}

/** A finding in a tooltip or dialog, its lines under a bullet (the tree item seam escapes the rest). */
function findingItem(f: ScanFinding): string[] {
  return findingLines(f).map((line, i) => (i ? `  ${line}` : `\u2022 ${line}`));
}

/** What the scan says beside a tool and at the head of its findings in the tooltip. */
function scanWords(tool: ToolRow): { short: string; long: string } | undefined {
  if (tool.scan === 'clean') return undefined;
  const count = findingCountWords(tool.findings.length);
  const short = findingStateWords(tool.scan === 'flagged' ? undefined : tool.scan, tool.findings.length);
  switch (tool.scan) {
    case 'flagged': return { short, long: l10n.t('Hidden or model-directed text ({0}), no error: DSH offers it.', count) };
    case 'accepted': return { short, long: l10n.t('You accepted this definition despite its findings ({0}); any change withholds it again.', count) };
    case 'withheld': return { short, long: l10n.t('Withheld from DSH sessions: hidden or model-directed instructions ({0}). Accept this exact definition from the tool\'s menu if you trust it.', count) };
  }
}

function tokenWords(n: number): string {
  return l10n.t('~{0} tokens', n.toLocaleString(vscode.env.language));
}

/** What a probed server adds beside its state: its tool count, allowed of them, and their tokens. */
function toolsWords(t: ServerTools): string {
  if (!t.current) return l10n.t('probed an earlier launch: probe again');
  const allowed = t.tools.filter((x) => x.allowed).length;
  const count = allowed === t.tools.length ? toolCountWords(t.tools.length) : l10n.t('{0} of {1} tools', allowed, t.tools.length);
  return `${count} \u00b7 ${tokenWords(t.allowedTokens)}`;
}

/**
 * The "MCP Servers for DSH" view in the Explorer: each folder's servers of its MCP files, one row
 * per file and name, with the session plan's state, inline actions (export, probe, open the entry),
 * and under each probed server its tools (token estimate, DSH's public name, description,
 * collisions, drift) with a checkbox that writes `dsh.tools` where `dsh.toolChoiceTarget` says.
 * The states are the session plan's (folderViewModel over the cached analysis of McpJsonCheck)
 * with the recorded probes; they are recomputed, debounced, when any of those changes, and only while the view
 * asks (a collapsed or hidden view computes nothing), except for folders with a probe, whose
 * tool diagnostics follow every change.
 */
export class McpServersView implements vscode.Disposable, vscode.TreeDataProvider<ViewNode> {
  private readonly disposables: vscode.Disposable[] = [];
  private readonly changed = new vscode.EventEmitter<ViewNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly view: vscode.TreeView<ViewNode>;
  /** Facts per folder URI; undefined: the folder has no mcp.json. Dropped on every refresh. */
  private readonly facts = new Map<string, Promise<FolderFacts | undefined>>();
  private timer: NodeJS.Timeout | undefined;

  private readonly log: vscode.LogOutputChannel;

  constructor(
    private readonly mcp: McpJsonCheck,
    private readonly ctx: Ctx,
    private readonly probes: ProbeRunner,
    private readonly probeDiagnostics: ProbeDiagnostics,
    private readonly plans: FolderPlans,
  ) {
    this.log = ctx.log;
    this.view = vscode.window.createTreeView(SERVERS_VIEW_ID, { treeDataProvider: this, showCollapseAll: false, manageCheckboxStateManually: true });
    this.disposables.push(
      this.view,
      this.changed,
      // The plans are dropped on every change the rows depend on (the MCP files analysed again included).
      plans.onDidChange(() => this.redraw()),
      // A probe records the tool pins the plan compares with the declaration's.
      probes.onDidProbe((folder) => plans.drop(folder)),
      this.view.onDidChangeCheckboxState((e) => this.onCheckboxes(e.items)),
      { dispose: () => clearTimeout(this.timer) },
      { dispose: () => void vscode.commands.executeCommand('setContext', ACTIVE_CONTEXT, false) },
    );
    void vscode.commands.executeCommand('setContext', ACTIVE_CONTEXT, true);
  }

  /** Computes every folder's rows again, from new plans (the refresh command, a checkbox written). */
  refresh(): void {
    this.plans.drop();
  }

  /** Forgets every folder's facts and redraws (debounced: a save fires analysis and the watcher). */
  private redraw(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.facts.clear();
      this.changed.fire(undefined);
      void this.updateProbeDiagnostics();
    }, REFRESH_DEBOUNCE_MS);
  }

  /** Drift and probe failures stay current for folders that were probed, whether the view is open or not. */
  private async updateProbeDiagnostics(): Promise<void> {
    for (const folder of fileFolders()) {
      const facts = await this.folderFacts(folder);
      const last = this.probes.lastProbe(folder);
      if (!facts || (!last && facts.tools.size === 0)) {
        this.probeDiagnostics.clear(folder);
        continue;
      }
      this.probeDiagnostics.update(folder, last, facts.tools, this.mcp.get(folder)?.analysis.serverKeys ?? {});
    }
  }

  private folderFacts(folder: vscode.WorkspaceFolder): Promise<FolderFacts | undefined> {
    const key = folder.uri.toString();
    let facts = this.facts.get(key);
    if (!facts) {
      facts = this.computeFacts(folder).catch((error: unknown) => {
        this.log.error(`computing the MCP servers view of ${folder.name} failed`, error);
        return undefined;
      });
      this.facts.set(key, facts);
    }
    return facts;
  }

  private async folderView(folder: vscode.WorkspaceFolder): Promise<FolderViewModel | undefined> {
    return (await this.folderFacts(folder))?.view;
  }

  private async computeFacts(folder: vscode.WorkspaceFolder): Promise<FolderFacts | undefined> {
    const analysed = this.mcp.get(folder) ?? await this.mcp.analyzeNow(folder);
    if (!analysed) return undefined;
    const store = this.ctx.hostStore();
    const [planned, text, records, accepted] = await Promise.all([
      this.plans.get(folder),
      this.sourceText(folder),
      store.probedServers(folder.uri.fsPath).catch((error: unknown) => {
        this.log.warn(`the recorded probes of ${folder.name} cannot be read: ${error instanceof Error ? error.message : String(error)}`);
        return {};
      }),
      store.acceptedDefinitions().then((a) => a.tools, () => []),
    ]);
    // A probe that just failed is said on the server's row (a warning), not only in Problems.
    const probeFailures = new Map((this.probes.lastProbe(folder)?.servers ?? []).filter((p) => Object.hasOwn(PROBE_FAILED, p.outcome)).map((p) => [p.name, p.message]));
    const view = folderViewModel(planned.plan, analysed.analysis, {
      ...(text === undefined ? {} : { order: serverEntries(text).map((e) => e.name) }),
      probeFailures,
    });
    const tools = serverTools({
      servers: analysed.analysis.servers,
      records,
      choices: folderToolChoice(folder),
      declared: (planned.declaration?.servers ?? []).map((d) => ({ serverName: d.serverName, pin: d.pin, ...(d.tools?.pins ? { toolPins: d.tools.pins } : {}) })),
      folder: folder.uri.fsPath,
      accepted,
    });
    return { view, tools };
  }

  /** The text the user sees: an open document's (maybe unsaved), else the file's. */
  private async sourceText(folder: vscode.WorkspaceFolder): Promise<string | undefined> {
    const uri = mcpJsonUri(folder);
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString() && !d.isClosed);
    if (open) return open.getText();
    const bytes = await readFileBytes(uri);
    return bytes && new TextDecoder().decode(bytes);
  }

  async getChildren(node?: ViewNode): Promise<ViewNode[]> {
    if (!node) {
      const folders = fileFolders();
      const withFile: Array<{ folder: vscode.WorkspaceFolder; view: FolderViewModel }> = [];
      for (const folder of folders) {
        const view = await this.folderView(folder);
        if (view) withFile.push({ folder, view });
      }
      const rows = withFile.reduce((n, f) => n + f.view.rows.length, 0);
      // The counts add up to the rows; one folder: its declaration-wide state beside them too.
      this.view.description = rows === 0 ? undefined
        : withFile.length === 1 ? folderWords(withFile[0].view)
          : countWords(withFile.reduce((c, f) => ({ servers: c.servers + f.view.counts.servers, refused: c.refused + f.view.counts.refused, shadowed: c.shadowed + f.view.counts.shadowed }), { servers: 0, refused: 0, shadowed: 0 }));
      // One folder: its servers at the top; several: a node per folder (the Explorer's own habit).
      if (folders.length === 1 && withFile.length === 1) return this.folderChildren(withFile[0].folder, withFile[0].view);
      return withFile.filter((f) => f.view.rows.length || !f.view.usable).map((f) => ({ kind: 'folder', folder: f.folder }));
    }
    if (node.kind === 'folder') {
      const view = await this.folderView(node.folder);
      return view ? this.folderChildren(node.folder, view) : [];
    }
    if (node.kind === 'server') {
      const tools = await this.toolsOf(node);
      return tools ? tools.tools.map((tool) => ({ kind: 'tool', folder: node.folder, server: node.row.name, serverName: node.row.serverName, tool })) : [];
    }
    return [];
  }

  /** A server row's probed tools: the exported entry's (a shadowed or refused entry has none of its own). */
  private async toolsOf(node: ServerNode): Promise<ServerTools | undefined> {
    if (node.row.state === 'shadowed' || node.row.state === 'refused') return undefined;
    return (await this.folderFacts(node.folder))?.tools.get(node.row.name);
  }

  private folderChildren(folder: vscode.WorkspaceFolder, view: FolderViewModel): ViewNode[] {
    if (!view.usable) {
      return [{ kind: 'message', folder, text: l10n.t('{0} cannot be used: see Problems', '.vscode/mcp.json'), tooltip: l10n.t('DSH gets no server of this folder until the errors are fixed.') }];
    }
    return view.rows.map((row) => ({ kind: 'server', folder, row }));
  }

  /** Names, tool names and descriptions come from mcp.json and the servers: every item is shown escaped. */
  async getTreeItem(node: ViewNode): Promise<vscode.TreeItem> {
    return shownTreeItem(await this.treeItem(node));
  }

  private async treeItem(node: ViewNode): Promise<vscode.TreeItem> {
    switch (node.kind) {
      case 'folder': {
        const view = await this.folderView(node.folder);
        const item = new vscode.TreeItem(node.folder.name, vscode.TreeItemCollapsibleState.Expanded);
        item.id = `folder:${node.folder.uri.toString()}`;
        item.iconPath = vscode.ThemeIcon.Folder;
        item.resourceUri = node.folder.uri;
        item.description = view ? folderWords(view) : undefined;
        item.contextValue = 'dsh.folder';
        return item;
      }
      case 'server': {
        const { row, folder } = node;
        const words = stateWords(row);
        const tools = await this.toolsOf(node);
        const item = new vscode.TreeItem(row.name, tools?.tools.length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
        // By file and name: the same name in two files (an import's original) is two rows.
        item.id = `server:${folder.uri.toString()}:${row.key}`;
        const failed = row.probeFailed !== undefined ? l10n.t('probe failed') : undefined;
        item.description = [words.short, failed, tools ? toolsWords(tools) : undefined].filter((w) => w !== undefined).join(' \u00b7 ');
        const [icon, color] = failed ? ['warning', 'problemsWarningIcon.foreground'] : STATE_ICONS[row.state];
        item.iconPath = new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
        const dshName = row.serverName && row.serverName !== row.name ? ` \u2014 ${l10n.t('DSH name: {0}', row.serverName)}` : '';
        const where = row.file !== '.vscode/mcp.json' ? ` \u2014 ${row.file}` : '';
        const probed = tools ? `\n${l10n.t('Probed {0}.', new Date(tools.probedAt).toLocaleString(vscode.env.language))}` : '';
        const probeLine = row.probeFailed !== undefined ? `\n${l10n.t('The last probe failed: {0}', row.probeFailed)}` : '';
        item.tooltip = `${row.name}${dshName}${where}\n${words.long}${probeLine}${probed}`;
        // Flags read by the menus' `viewItem =~` clauses.
        item.contextValue = ['dsh.server', row.state === 'refused' || row.state === 'shadowed' ? 'refused' : 'exportable probeable'].join(' ');
        item.accessibilityInformation = { label: `${row.name}, ${item.description}` };
        return item;
      }
      case 'tool': {
        const { tool } = node;
        const item = new vscode.TreeItem(tool.name, vscode.TreeItemCollapsibleState.None);
        item.id = `tool:${node.folder.uri.toString()}:${node.server}:${tool.name}`;
        // The estimate first: the default sidebar width cuts the end of the long DSH name.
        const flags = [tokenWords(tool.tokens), tool.publicName];
        if (tool.collision) flags.push(l10n.t('same DSH name as another tool'));
        if (tool.drift?.state === 'changed') flags.push(l10n.t('changed since the pinned probe'));
        if (tool.drift?.state === 'new') flags.push(l10n.t('new since the pinned probe'));
        const scan = scanWords(tool);
        if (scan) flags.unshift(scan.short);
        item.description = flags.join(' \u00b7 ');
        item.iconPath = tool.scan === 'withheld'
          ? new vscode.ThemeIcon('error', new vscode.ThemeColor('problemsErrorIcon.foreground'))
          : tool.collision || tool.drift || tool.scan === 'flagged'
            ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'))
            : new vscode.ThemeIcon('tools');
        item.tooltip = [
          tool.description || l10n.t('(no description)'),
          '',
          l10n.t('DSH name: {0}', tool.publicName),
          l10n.t('Adds about {0} tokens to every request.', tool.tokens.toLocaleString(vscode.env.language)),
          ...(tool.collision ? [l10n.t('Another tool of this folder gets the same DSH name: DSH drops one of the two servers\' tools.')] : []),
          ...(scan ? ['', scan.long, ...tool.findings.flatMap(findingItem)] : []),
        ].join('\n');
        item.checkboxState = {
          state: tool.allowed ? vscode.TreeItemCheckboxState.Checked : vscode.TreeItemCheckboxState.Unchecked,
          tooltip: tool.allowed ? l10n.t('DSH offers this tool: uncheck to leave it out') : l10n.t('Left out of DSH (dsh.tools): check to offer it'),
        };
        // Flags read by the menus' `viewItem =~` clauses.
        item.contextValue = tool.scan === 'withheld' ? 'dsh.tool withheld' : 'dsh.tool';
        item.accessibilityInformation = { label: `${tool.name}, ${item.description}` };
        return item;
      }
      case 'message': {
        const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
        item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('problemsErrorIcon.foreground'));
        item.tooltip = node.tooltip;
        item.command = { title: l10n.t('Show Problems'), command: 'workbench.actions.view.problems' };
        item.contextValue = 'dsh.message';
        return item;
      }
    }
  }

  /** A tool's checkbox writes the folder's `dsh.tools`; a tool another layer leaves out stays unchecked, and the user is told where. */
  private async onCheckboxes(items: ReadonlyArray<readonly [ViewNode, vscode.TreeItemCheckboxState]>): Promise<void> {
    for (const [node, state] of items) {
      if (node.kind !== 'tool') continue;
      const allow = state === vscode.TreeItemCheckboxState.Checked;
      try {
        const target = toolChoiceTarget();
        const result = await toggleTool(node.folder, node.server, node.tool.name, allow, target);
        this.log.info(`dsh.tools of ${node.folder.name} in ${target === 'user' ? 'user settings' : 'the folder settings'}: ${node.server} / ${node.tool.name} ${allow ? 'allowed' : 'left out'} (${result})`);
        if (result === 'still-left-out') {
          void showWarning(l10n.t('"{0}" stays left out: your user or workspace settings leave it out in dsh.tools, and a folder can only narrow them.', node.tool.name));
        } else if (result === 'invalid') {
          void showWarning(l10n.t('The folder\'s dsh.tools is not of the expected shape, so it was not changed: see Problems in its settings.'));
        } else {
          void this.saidWhere(node.folder, node.tool.name, allow, target);
        }
      } catch (error) {
        this.log.error(`writing dsh.tools of ${node.folder.name} failed`, error);
      }
    }
    this.refresh();
  }

  /**
   * Says where a tool choice was written (the folder's settings are usually committed) and what
   * happens next: a narrowing is exported at once with `dsh.export.auto`, anything else waits for
   * Export (the declaration is stale until then). Offers the other place for later choices.
   */
  private async saidWhere(folder: vscode.WorkspaceFolder, tool: string, allow: boolean, target: 'folder' | 'user'): Promise<void> {
    const where = target === 'user'
      ? l10n.t('"{0}" is {1} in your user settings (dsh.tools, every folder).', tool, allow ? l10n.t('allowed') : l10n.t('left out'))
      : l10n.t('"{0}" is {1} in {2} (dsh.tools; this file is usually committed).', tool, allow ? l10n.t('allowed') : l10n.t('left out'), vscode.workspace.asRelativePath(vscode.Uri.joinPath(folder.uri, '.vscode', 'settings.json')));
    const next = !allow && this.ctx.config.folder(folder).settings.auto === 'onSave'
      ? l10n.t('It is exported at once (dsh.export.auto).')
      : l10n.t('The declaration is stale until you export: DSH withholds its servers until then.');
    const other = target === 'user' ? l10n.t('Write to the Folder\'s Settings from Now On') : l10n.t('Write to My User Settings from Now On');
    const exportNow = l10n.t('Export');
    const pick = await showInformation(sentences([where, next]), ...(allow || this.ctx.config.folder(folder).settings.auto !== 'onSave' ? [exportNow] : []), other);
    if (pick === other) await vscode.workspace.getConfiguration().update(TOOL_CHOICE_TARGET_SETTING, target === 'user' ? 'folder' : 'user', vscode.ConfigurationTarget.Global);
    if (pick === exportNow) await vscode.commands.executeCommand(COMMAND.export, folder.uri);
  }

  /** Opens mcp.json of the node's folder with the server's key selected. */
  async openEntry(node: unknown, name?: unknown): Promise<void> {
    const target = this.target(node, name);
    if (!target) return;
    // A server of another file (.mcp.json, the dev container or workspace file) opens there (docs/sources.md).
    const analysis = this.mcp.get(target.folder)?.analysis;
    const keys = analysis?.serverKeys;
    const exported = target.name !== undefined && keys && Object.hasOwn(keys, target.name) ? keys[target.name] : undefined;
    // A row of another file's entry of the name (shadowed, refused): its own file, where its problem is.
    const own = target.file !== undefined && target.file !== exported?.file
      ? analysis?.problems.find((p) => p.file === target.file && p.server === target.name) ?? { file: target.file, range: undefined }
      : undefined;
    const elsewhere = own ? (own.range ? { file: own.file, range: own.range } : undefined) : exported;
    const ownFile = own && !own.range && own.file !== '.vscode/mcp.json' ? own.file : undefined;
    const doc = await vscode.workspace.openTextDocument(elsewhere ? sourceUri(target.folder.uri, elsewhere.file) : ownFile ? sourceUri(target.folder.uri, ownFile) : mcpJsonUri(target.folder));
    const entry = elsewhere ?? (target.name === undefined ? undefined : serverEntries(doc.getText()).find((e) => e.name === target.name));
    const selection = entry ? new vscode.Range(entry.range.start.line, entry.range.start.character, entry.range.end.line, entry.range.end.character) : undefined;
    await vscode.window.showTextDocument(doc, { selection, preview: false });
  }

  /**
   * Accepts a withheld tool's definition (its pin, as the last probe recorded it) after a modal
   * that shows its findings, Keep Withheld its default. Returns whether it was accepted. `confirm: false` skips the dialog
   * (tests, the activation API).
   */
  async acceptTool(node: unknown, options?: unknown): Promise<boolean> {
    if (typeof node !== 'object' || node === null || (node as ViewNode).kind !== 'tool') return false;
    const n = node as ToolNode;
    if (!vscode.workspace.isTrusted || !n.serverName) return false;
    const confirm = !(typeof options === 'object' && options !== null && (options as { confirm?: unknown }).confirm === false);
    if (confirm) {
      const accept = l10n.t('Accept This Definition');
      const answer = await askSafeFirst('warning',
        l10n.t('Offer tool "{0}" of "{1}" to DSH sessions despite what its definition says?', n.tool.name, n.server),
        [...n.tool.findings.flatMap(findingItem), '', l10n.t('Any change of its definition withholds it again.')].join('\n'),
        l10n.t('Keep Withheld'), accept,
      );
      if (answer !== accept) return false;
    }
    // The CLI's use case: it accepts only the definition reviewed here, if the last probe still has it.
    const accepted = await acceptProbedTool(this.ctx.ports(), n.folder.uri.fsPath, n.serverName, n.tool.name, n.tool.pin);
    this.refresh();
    if (accepted.outcome !== 'accepted') {
      void showWarning(l10n.t('Tool "{0}" of "{1}" was not accepted: its definition is no longer the one the last probe recorded. Probe again, then review it.', n.tool.name, n.server));
      return false;
    }
    this.log.info(visibleLine(`accepted tool ${n.tool.name} of ${accepted.serverName} in ${n.folder.name} at ${accepted.pin}`));
    return true;
  }

  exportFolder(node: unknown): Thenable<unknown> | undefined {
    const target = this.target(node);
    return target ? vscode.commands.executeCommand(COMMAND.export, target.folder.uri) : vscode.commands.executeCommand(COMMAND.export);
  }

  /** A view node, or (programmatic use) a folder URI and an entry name. */
  target(node: unknown, name?: unknown): { folder: vscode.WorkspaceFolder; name?: string; file?: string } | undefined {
    if (node instanceof vscode.Uri) {
      const folder = vscode.workspace.getWorkspaceFolder(node);
      return folder ? { folder, name: typeof name === 'string' ? name : undefined } : undefined;
    }
    if (typeof node !== 'object' || node === null || !('kind' in node) || !('folder' in node)) return undefined;
    const n = node as ViewNode;
    if (n.kind === 'server') return { folder: n.folder, name: n.row.name, file: n.row.file };
    return { folder: n.folder, name: n.kind === 'tool' ? n.server : undefined };
  }

  /** What the view shows now, as rendered items (for tests and the activation API; nothing secret). */
  async snapshot(): Promise<{ description: string | undefined; items: Array<RenderedItem> }> {
    const render = async (node: ViewNode): Promise<RenderedItem> => {
      const item = await this.getTreeItem(node);
      const children = await this.getChildren(node);
      const checkbox = typeof item.checkboxState === 'object' ? item.checkboxState.state : item.checkboxState;
      return {
        label: typeof item.label === 'string' ? item.label : item.label?.label ?? '',
        description: typeof item.description === 'string' ? item.description : undefined,
        tooltip: typeof item.tooltip === 'string' ? item.tooltip : item.tooltip?.value,
        contextValue: item.contextValue,
        state: node.kind === 'server' ? node.row.state : undefined,
        ...(node.kind === 'server' ? { file: node.row.file } : {}),
        ...(checkbox !== undefined ? { checked: checkbox === vscode.TreeItemCheckboxState.Checked } : {}),
        children: await Promise.all(children.map(render)),
      };
    };
    const roots = await this.getChildren();
    return { description: this.view.description, items: await Promise.all(roots.map(render)) };
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

export interface RenderedItem {
  label: string;
  description: string | undefined;
  tooltip: string | undefined;
  contextValue: string | undefined;
  state: ServerRowState | undefined;
  /** Servers: the file that defines the entry. */
  file?: string;
  /** Tools: whether the checkbox is checked (DSH offers the tool). */
  checked?: boolean;
  children: RenderedItem[];
}
