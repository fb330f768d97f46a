/**
 * The palette's "Export Your Own MCP Servers": the user's files of this editor's own profile
 * (its folder from the extension's global storage) and Copilot Global, exported by the core's
 * user export into the user declaration of the host store, which the DSH plugin mounts in every
 * session. It reads no workspace file, so it needs no workspace trust.
 */
import * as os from 'node:os';
import * as vscode from 'vscode';
import { l10n } from './l10nLookup';
import { commitExport, exportRefused } from '../core/app/export';
import { reviewUserExport } from '../core/app/userExport';
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

export async function exportUserServers(ctx: Ctx): Promise<UserExportSummary> {
  const ports = ctx.ports();
  const files = editorUserFiles(ctx.globalStorageUri.fsPath, { platform: process.platform, home: ports.home, env: ports.env });
  if (!files || ctx.globalStorageUri.scheme !== 'file') {
    void showWarning(l10n.t('This editor keeps its profile where DSH Bridge cannot read it: run dsh-bridge export --user where the editor runs.'));
    return { outcome: 'unsupported', servers: [], refused: [] };
  }
  if (await exportRefused(ports)) {
    void showWarning(l10n.t('The DSH trust mode is "deny": none of your own MCP servers is exported or mounted.'));
    return { outcome: 'denied', ...files, servers: [], refused: [] };
  }
  const config = vscode.workspace.getConfiguration();
  const identity = { folder: ports.home, folderName: '', userHome: os.homedir(), settings: (key: string) => config.get<unknown>(key) };
  const reviewed = await reviewUserExport(ports, identity, files);
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
