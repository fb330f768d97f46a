import type { SessionRecord } from '../../core/node/sessionRecords';
import type { SessionNode } from './sessionItem';
import type { UserGroupNode, UserServerNode } from './userGroup';
import * as vscode from 'vscode';
import { blockedState, type FolderViewModel, type ServerRowState, type ServerViewRow } from '../planView';
import { countWords } from '../planWords';
import { planMessage } from '../../core/app/planReasons';
import { sentences, translate } from '../l10n';
import type { ServerTools, ToolRow } from '../../core/app/probedTools';
import type { ScanFinding } from '../../core/scan/scan';
import { findingCountWords, findingLines, findingStateWords } from '../findingWords';
import { l10n } from '../l10nLookup';

/** What the servers view shows of each node: its tree item and the words of its states (the view decides nothing: it renders the session plan and the recorded probes). */

export type FolderNode = { kind: 'folder'; folder: vscode.WorkspaceFolder };
export type ServerNode = { kind: 'server'; folder: vscode.WorkspaceFolder; row: ServerViewRow };
export type MessageNode = { kind: 'message'; folder: vscode.WorkspaceFolder; text: string; tooltip: string };
export type ToolNode = { kind: 'tool'; folder: vscode.WorkspaceFolder; server: string; serverName?: string; tool: ToolRow };
export type ViewNode = FolderNode | ServerNode | MessageNode | ToolNode | SessionNode | UserGroupNode | UserServerNode;

/** What the view knows of a folder: its rows (the session plan over its MCP files), and the tools of the servers probed. */
export interface FolderFacts {
  view: FolderViewModel;
  tools: Map<string, ServerTools>;
  /** The folder's last recorded DSH session, when there is one. */
  lastSession?: SessionRecord;
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
    case 'dsh-managed-denied':
    case 'dsh-managed-not-allowed':
    case 'dsh-managed-unreadable':
    case 'dsh-managed-sandbox': return l10n.t('withheld by the managed settings');
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
  const blocked = row.blocked && !row.blocked.code.startsWith('no-declaration') ? blockedWords(blockedState(row.blocked.code)) : undefined;
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
export function folderWords(view: FolderViewModel): string {
  // Without a declaration every row says "not exported" already.
  const blocked = view.blocked[0] && !view.blocked[0].code.startsWith('no-declaration') ? blockedWords(blockedState(view.blocked[0].code)) : undefined;
  return blocked && view.rows.length ? `${countWords(view.counts)} \u00b7 ${blocked.short}` : countWords(view.counts);
}

function toolCountWords(n: number): string {
  return n === 1 ? l10n.t('1 tool') : l10n.t('{0} tools', n);
}

/** A finding in a tooltip or dialog, its lines under a bullet (the tree item seam escapes the rest). */
export function findingItem(f: ScanFinding): string[] {
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


export function folderItem(node: FolderNode, view: FolderViewModel | undefined): vscode.TreeItem {
    const item = new vscode.TreeItem(node.folder.name, vscode.TreeItemCollapsibleState.Expanded);
    item.id = `folder:${node.folder.uri.toString()}`;
    item.iconPath = vscode.ThemeIcon.Folder;
    item.resourceUri = node.folder.uri;
    item.description = view ? folderWords(view) : undefined;
    item.contextValue = 'dsh.folder';
    return item;
}

export function serverItem(node: ServerNode, tools: ServerTools | undefined): vscode.TreeItem {
    const { row, folder } = node;
    const words = stateWords(row);
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

export function toolItem(node: ToolNode): vscode.TreeItem {
    const { tool } = node;
    const item = new vscode.TreeItem(tool.name, vscode.TreeItemCollapsibleState.None);
    item.id = `tool:${node.folder.uri.toString()}:${node.server}:${tool.name}`;
    // The estimate first: the default sidebar width cuts the end of the long DSH name.
    const flags = [tokenWords(tool.tokens), tool.publicName];
    if (tool.collision) flags.push(l10n.t('same DSH name as another tool'));
    if (tool.drift?.state === 'changed') flags.push(l10n.t('changed since the pinned probe'));
    if (tool.drift?.state === 'new') flags.push(l10n.t('new since the pinned probe'));
    if (tool.carriesInputs) flags.unshift(l10n.t('withheld: carries a stored input value'));
    const scan = scanWords(tool);
    if (scan) flags.unshift(scan.short);
    item.description = flags.join(' \u00b7 ');
    item.iconPath = tool.scan === 'withheld'
      ? new vscode.ThemeIcon('error', new vscode.ThemeColor('problemsErrorIcon.foreground'))
      : tool.collision || tool.drift || tool.scan === 'flagged'
        ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground'))
        : new vscode.ThemeIcon('tools');
    // A tool with findings: they come first, each with its decoded text, and the description (maybe
    // full of escaped hidden characters) last. A clean tool: its description first.
    const description = tool.description || l10n.t('(no description)');
    const facts = [
      l10n.t('DSH name: {0}', tool.publicName),
      l10n.t('Adds about {0} tokens to every request.', tool.tokens.toLocaleString(vscode.env.language)),
      ...(tool.collision ? [l10n.t('Another tool of this folder gets the same DSH name: DSH drops one of the two servers\' tools.')] : []),
    ];
    item.tooltip = (scan ? [scan.long, ...tool.findings.flatMap(findingItem), '', ...facts, '', description] : [description, '', ...facts]).join('\n');
    item.checkboxState = {
      state: tool.allowed ? vscode.TreeItemCheckboxState.Checked : vscode.TreeItemCheckboxState.Unchecked,
      tooltip: tool.allowed ? l10n.t('DSH offers this tool: uncheck to leave it out') : l10n.t('Left out of DSH (dsh.tools): check to offer it'),
    };
    // Flags read by the menus' `viewItem =~` clauses.
    item.contextValue = tool.scan === 'withheld' ? 'dsh.tool withheld' : 'dsh.tool';
    item.accessibilityInformation = { label: `${tool.name}, ${item.description}` };
    return item;
}

export function messageItem(node: MessageNode): vscode.TreeItem {
    const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
    item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('problemsErrorIcon.foreground'));
    item.tooltip = node.tooltip;
    item.command = { title: l10n.t('Show Problems'), command: 'workbench.actions.view.problems' };
    item.contextValue = 'dsh.message';
    return item;
}
