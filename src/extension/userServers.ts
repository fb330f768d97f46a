/**
 * The palette's "Export Your Own MCP Servers": the user's files of this editor's own profile
 * (its folder from the extension's global storage) and Copilot Global, exported by the core's
 * user export into the user declaration of the host store, which the DSH plugin mounts in every
 * session. It reads no workspace file, so it needs no workspace trust. Also where the editor names
 * the user's files and settings for the other faces of the user's servers (the servers view's
 * group, Verify, Doctor: {@link editorsUserReport}).
 */
import * as os from 'node:os';
import * as vscode from 'vscode';
import { l10n } from './l10nLookup';
import { commitExport, exportRefused } from '../core/app/export';
import { reviewUserExport, type UserFiles } from '../core/app/userExport';
import type { FolderIdentity } from '../core/settings/folderSettings';
import type { PlannedSession } from '../core/app/plan';
import { userServersReport, type UserServersReport } from '../core/app/userReport';
import { editorUserFiles } from '../core/app/userSources';
import type { Ctx } from './ctx';
import { showInformation, showWarning } from './visible';

export interface UserExportSummary {
  outcome: 'exported' | 'unchanged' | 'nothing' | 'denied' | 'unsupported' | 'source-changed';
  declarationPath?: string;
  profileFolder?: string;
  copilotGlobal?: string;
  servers: string[];
  refused: string[];
}

/** This editor's own user files (its profile's folder, Copilot Global); undefined where it keeps its profile out of reach (a remote or web host). */
export function editorsUserFiles(ctx: Pick<Ctx, 'globalStorageUri' | 'ports'>): UserFiles | undefined {
  const ports = ctx.ports();
  if (ctx.globalStorageUri.scheme !== 'file') return undefined;
  return editorUserFiles(ctx.globalStorageUri.fsPath, { platform: process.platform, home: ports.home, env: ports.env });
}

/** The user's settings as this editor sees them, for reading the user's files (no folder: they run in every one). */
export function editorsUserIdentity(ports: Pick<ReturnType<Ctx['ports']>, 'home'>): FolderIdentity {
  const config = vscode.workspace.getConfiguration();
  return { folder: ports.home, folderName: '', userHome: os.homedir(), settings: (key: string) => config.get<unknown>(key) };
}

/** The user's servers in a session of `folder` (whose plan is `workspace`), as the servers view, Verify and Doctor show them. */
export function editorsUserReport(ctx: Ctx, folder: vscode.WorkspaceFolder | undefined, workspace: PlannedSession | undefined): Promise<UserServersReport> {
  const ports = ctx.ports();
  const config = folder ? ctx.config.folder(folder) : undefined;
  const files = editorsUserFiles(ctx);
  return userServersReport(ports, {
    ...(config ? { settings: config.view, verifySettings: { policySettings: config.policySettings } } : {}),
    tools: false, identity: editorsUserIdentity(ports), ...(files ? { files } : {}),
  }, workspace);
}

export async function exportUserServers(ctx: Ctx): Promise<UserExportSummary> {
  const ports = ctx.ports();
  const files = editorsUserFiles(ctx);
  if (!files) {
    void showWarning(l10n.t('This editor keeps its profile where DSH Bridge cannot read it: run dsh-bridge export --user where the editor runs.'));
    return { outcome: 'unsupported', servers: [], refused: [] };
  }
  if (await exportRefused(ports)) {
    void showWarning(l10n.t('The DSH trust mode is "deny": none of your own MCP servers is exported or mounted.'));
    return { outcome: 'denied', ...files, servers: [], refused: [] };
  }
  const reviewed = await reviewUserExport(ports, editorsUserIdentity(ports), files);
  const result = await commitExport(ports, reviewed);
  const servers = result.analysis.servers.map((s) => s.name);
  const refused = result.analysis.rejected.map((r) => r.name);
  const summary = { declarationPath: reviewed.declarationPath, ...files, servers, refused };
  if (result.sourceChanged) {
    void showWarning(l10n.t('One of your MCP files changed while it was being exported: nothing was written; export again.'));
    return { outcome: 'source-changed', ...summary };
  }
  if (!result.analysis.usable) {
    void showInformation(l10n.t('None of your own MCP servers was exported: your profile\'s mcp.json and Copilot Global are missing or cannot be used.'));
    return { outcome: 'nothing', ...summary };
  }
  const n = servers.length;
  void showInformation(n === 1 ? l10n.t('Exported 1 of your own MCP servers to DSH: it runs in every DSH session.')
    : l10n.t('Exported {0} of your own MCP servers to DSH: they run in every DSH session.', n));
  ctx.log.info(`exported the user's servers to ${reviewed.declarationPath}: ${servers.join(', ') || 'none'}${refused.length ? `; refused ${refused.join(', ')}` : ''}`);
  return { outcome: result.written ? 'exported' : 'unchanged', ...summary };
}
