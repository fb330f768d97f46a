/**
 * The "Your Own Servers" group of the servers view: the user's own servers (the profile's
 * `mcp.json`, Copilot Global) in the state the user declaration's plan gives them beside the
 * first folder's (userGroupModel), with the export of the user's servers on the group. Its model
 * is computed when the view asks and kept until the view redraws; the user's files are watched
 * (they live outside the workspace) so that an edit shows as a change.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Ctx } from '../ctx';
import type { FolderPlans } from '../folderPlan';
import { fileFolders } from '../mcpFiles';
import { countWords } from '../planWords';
import type { ServerViewRow } from '../planView';
import { planMessage } from '../../core/app/planReasons';
import { translate } from '../l10n';
import { l10n } from '../l10nLookup';
import { editorsUserFiles, editorsUserReport } from '../userServers';
import { userGroupModel, type UserGroupModel } from './userGroupModel';

export type UserGroupNode = { kind: 'userGroup' };
export type UserServerNode = { kind: 'userServer'; row: ServerViewRow };

export class UserServersGroup implements vscode.Disposable {
  private model: Promise<UserGroupModel | undefined> | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly ctx: Ctx, private readonly plans: FolderPlans, changed: () => void) {
    const files = editorsUserFiles(ctx);
    if (files) {
      for (const [dir, name] of [[files.profileFolder, 'mcp.json'], [path.dirname(files.copilotGlobal), path.basename(files.copilotGlobal)]]) {
        const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(dir), name));
        this.disposables.push(watcher, watcher.onDidChange(changed), watcher.onDidCreate(changed), watcher.onDidDelete(changed));
      }
    }
  }

  /** Forgets the model (the view redraws: a plan, the host store or a user file changed). */
  forget(): void {
    this.model = undefined;
  }

  /** The group, when there is something to show: a user declaration, or a server in the user's files. */
  async roots(): Promise<UserGroupNode[]> {
    const model = await this.get();
    return model && (model.exported || model.view.rows.length) ? [{ kind: 'userGroup' }] : [];
  }

  async children(): Promise<UserServerNode[]> {
    return ((await this.get())?.view.rows ?? []).map((row) => ({ kind: 'userServer', row }));
  }

  private get(): Promise<UserGroupModel | undefined> {
    this.model ??= this.compute().catch((error: unknown) => {
      this.ctx.log.error('computing the user\'s own servers for the servers view failed', error);
      return undefined;
    });
    return this.model;
  }

  private async compute(): Promise<UserGroupModel> {
    // Beside the first folder's servers (a session there: its server of the same name wins).
    const folder = fileFolders()[0];
    const workspace = folder ? await this.plans.get(folder) : undefined;
    return userGroupModel(await editorsUserReport(this.ctx, folder, workspace));
  }

  async groupItem(): Promise<vscode.TreeItem> {
    const model = await this.get();
    const item = new vscode.TreeItem(l10n.t('Your Own Servers'), vscode.TreeItemCollapsibleState.Expanded);
    item.id = 'userGroup';
    item.iconPath = new vscode.ThemeIcon('account');
    const blocked = model?.view.blocked[0];
    const state = !model?.exported ? l10n.t('not exported') : blocked?.code === 'declaration-stale' ? l10n.t('stale') : blocked ? l10n.t('refused by DSH') : undefined;
    item.description = [model ? countWords(model.view.counts) : undefined, state].filter((w) => w !== undefined).join(' \u00b7 ');
    item.tooltip = [
      l10n.t('Your profile\'s mcp.json and Copilot Global: DSH mounts them in every session, beside the workspace\'s servers (a workspace server of the same name wins).'),
      model ? l10n.t('User declaration: {0}', model.declarationPath) : '',
      blocked && model?.exported ? planMessage(blocked, translate) : '',
      model && !model.filesKnown ? l10n.t('This editor keeps its profile where DSH Bridge cannot read it: run dsh-bridge export --user where the editor runs.') : '',
    ].filter(Boolean).join('\n');
    // Read by the menus' `viewItem` clauses: the group's export.
    item.contextValue = 'dsh.userGroup';
    return item;
  }

  serverItem(node: UserServerNode): vscode.TreeItem {
    const { row } = node;
    const words = userRowWords(row);
    const item = new vscode.TreeItem(row.name, vscode.TreeItemCollapsibleState.None);
    item.id = `userServer:${row.key}`;
    item.description = words.short;
    item.iconPath = new vscode.ThemeIcon(...USER_ICONS[row.state === 'exported' ? 'exported' : row.state === 'shadowed' ? 'shadowed' : row.state === 'refused' || row.state === 'declaration-refused' ? 'refused' : 'warn']);
    const dshName = row.serverName && row.serverName !== row.name ? ` \u2014 ${l10n.t('DSH name: {0}', row.serverName)}` : '';
    item.tooltip = `${row.name}${dshName} \u2014 ${row.file}\n${words.long}`;
    if (path.isAbsolute(row.file)) item.command = { title: l10n.t('Open File'), command: 'vscode.open', arguments: [vscode.Uri.file(row.file)] };
    item.contextValue = 'dsh.userServer';
    item.accessibilityInformation = { label: `${row.name}, ${item.description}` };
    return item;
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

const USER_ICONS: Record<'exported' | 'shadowed' | 'refused' | 'warn', [string, vscode.ThemeColor | undefined]> = {
  exported: ['pass', new vscode.ThemeColor('testing.iconPassed')],
  shadowed: ['circle-slash', undefined],
  refused: ['error', new vscode.ThemeColor('problemsErrorIcon.foreground')],
  warn: ['warning', new vscode.ThemeColor('problemsWarningIcon.foreground')],
};

/** A user server's state in words: the short one beside its name, the sentence of its tooltip. */
function userRowWords(row: ServerViewRow): { short: string; long: string } {
  const reason = row.reason ? planMessage(row.reason, translate) : '';
  const fix = row.reason?.fix ? `\n${l10n.t('Fix: {0}', row.reason.fix.command)}` : '';
  switch (row.state) {
    case 'exported': return { short: l10n.t('exported'), long: l10n.t('Exported as it is: every DSH session gets it.') };
    case 'not-exported': return { short: l10n.t('not exported'), long: l10n.t('Not in the user declaration yet: DSH sessions do not get it until you export your own servers.') };
    case 'changed': return { short: l10n.t('changed'), long: l10n.t('Changed since the export: DSH still runs the exported entry until you export your own servers again.') };
    case 'stale': return { short: l10n.t('stale'), long: l10n.t('The user declaration is stale (your MCP files changed since the export): DSH sessions get none of your own servers until you export them again.') };
    case 'shadowed': return { short: l10n.t('shadowed by the workspace\'s {0}', row.shadowedBy ?? ''), long: reason };
    case 'refused': return { short: l10n.t('refused: {0}', row.codes.join(', ')), long: l10n.t('The export refuses this entry ({0}): DSH does not get it.', row.codes.join(', ')) };
    case 'not-approved': return { short: l10n.t('not approved'), long: l10n.t('Exported, but not approved for its current pin (trust mode "pinned"): DSH asks before it starts it.') };
    case 'deny': return { short: l10n.t('trust mode deny'), long: l10n.t('The trust mode is "deny" on this machine: DSH sessions get no server.') };
    default: return { short: row.state === 'withheld' ? l10n.t('withheld') : l10n.t('refused by DSH'), long: `${reason}${fix}` };
  }
}
