import * as vscode from 'vscode';
import { askSafeFirst, showInformation, showWarning, shownTreeItem } from '../visible';
import { COMMAND, SERVERS_VIEW_ID } from '../commandIds';
import type { Ctx } from '../ctx';
import type { McpJsonCheck } from '../mcpJsonCheck';
import { fileFolders, mcpJsonUri, readFileBytes, sourceUri } from '../mcpFiles';
import { serverEntries } from './serverEntries';
import { sessionItem } from './sessionItem';
import { folderSessions } from '../../core/app/sessions';
import type { FolderPlans } from '../folderPlan';
import { folderViewModel, type FolderViewModel, type ServerRowState } from '../planView';
import { countWords } from '../planWords';
import { sentences } from '../l10n';
import { PROBE_FAILED } from './probeDiagnostics';
import { serverTools, type ServerTools } from '../../core/app/probedTools';
import { acceptProbedTool } from '../../core/app/scanFindings';
import { visibleLine } from '../../core/json/visibleText';
import type { ProbeDiagnostics } from './probeDiagnostics';
import type { ProbeRunner } from './probeRunner';
import { folderToolChoice, toggleTool, toolChoiceTarget, TOOL_CHOICE_TARGET_SETTING } from './toolSettings';
import { l10n } from '../l10nLookup';
import { findingItem, folderItem, folderWords, messageItem, serverItem, toolItem, type FolderFacts, type ServerNode, type ToolNode, type ViewNode } from './serverTreeItems';
import { UserServersGroup } from './userGroup';

export type { ViewNode } from './serverTreeItems';

/** Set while the view's provider runs: the view is contributed `when` it is, so it shows only where the bridge is active. */
const ACTIVE_CONTEXT = 'dsh.serversViewActive';
const REFRESH_DEBOUNCE_MS = 150;

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
  /** The user's own servers, a group below the folders'. */
  private readonly userGroup: UserServersGroup;

  constructor(
    private readonly mcp: McpJsonCheck,
    private readonly ctx: Ctx,
    private readonly probes: ProbeRunner,
    private readonly probeDiagnostics: ProbeDiagnostics,
    private readonly plans: FolderPlans,
  ) {
    this.log = ctx.log;
    this.view = vscode.window.createTreeView(SERVERS_VIEW_ID, { treeDataProvider: this, showCollapseAll: false, manageCheckboxStateManually: true });
    this.userGroup = new UserServersGroup(ctx, plans, () => this.redraw());
    this.disposables.push(
      this.view,
      this.userGroup,
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
      this.userGroup.forget();
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
    const [planned, text, records, accepted, sessions] = await Promise.all([
      this.plans.get(folder),
      this.sourceText(folder),
      store.probedServers(folder.uri.fsPath).catch((error: unknown) => {
        this.log.warn(`the recorded probes of ${folder.name} cannot be read: ${error instanceof Error ? error.message : String(error)}`);
        return {};
      }),
      store.acceptedDefinitions().then((a) => a.tools, () => []),
      folderSessions(this.ctx.ports(), folder.uri.fsPath),
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
    const lastSession = sessions.sessions[0];
    return { view, tools, ...(lastSession ? { lastSession } : {}) };
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
      const user = await this.userGroup.roots();
      if (folders.length === 1 && withFile.length === 1) return [...this.folderChildren(withFile[0].folder, withFile[0].view), ...await this.sessionNodes(withFile[0].folder), ...user];
      return [...withFile.filter((f) => f.view.rows.length || !f.view.usable).map((f): ViewNode => ({ kind: 'folder', folder: f.folder })), ...user];
    }
    if (node.kind === 'userGroup') return this.userGroup.children();
    if (node.kind === 'folder') {
      const view = await this.folderView(node.folder);
      return view ? [...this.folderChildren(node.folder, view), ...await this.sessionNodes(node.folder)] : [];
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

  /** The folder's last recorded DSH session, as one row below its servers. */
  private async sessionNodes(folder: vscode.WorkspaceFolder): Promise<ViewNode[]> {
    const record = (await this.folderFacts(folder))?.lastSession;
    return record ? [{ kind: 'session', folder, record }] : [];
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
      case 'folder': return folderItem(node, await this.folderView(node.folder));
      case 'server': return serverItem(node, await this.toolsOf(node));
      case 'tool': return toolItem(node);
      case 'message': return messageItem(node);
      case 'session': return sessionItem(node);
      case 'userGroup': return this.userGroup.groupItem();
      case 'userServer': return this.userGroup.serverItem(node);
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
    // The user's group and its rows have no folder: `'folder' in node` left them out.
    const n = node as Exclude<ViewNode, { kind: 'userGroup' | 'userServer' }>;
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
        state: node.kind === 'server' || node.kind === 'userServer' ? node.row.state : undefined,
        ...(node.kind === 'server' || node.kind === 'userServer' ? { file: node.row.file } : {}),
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
