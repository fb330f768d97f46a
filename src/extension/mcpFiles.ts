import * as vscode from 'vscode';
import { SOURCE_PATH } from '../core/mcp/analyze';

/** `<folder>/.vscode/mcp.json` of a workspace folder. */
export function mcpJsonUri(folder: vscode.WorkspaceFolder): vscode.Uri {
  return vscode.Uri.joinPath(folder.uri, ...SOURCE_PATH.split('/'));
}

/** The workspace folder whose `.vscode/mcp.json` this is, if it is one. */
export function folderOfMcpJson(uri: vscode.Uri): vscode.WorkspaceFolder | undefined {
  if (uri.scheme !== 'file') return undefined;
  const folder = vscode.workspace.getWorkspaceFolder(uri);
  if (!folder) return undefined;
  return mcpJsonUri(folder).toString() === uri.toString() ? folder : undefined;
}

export function fileFolders(): readonly vscode.WorkspaceFolder[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
}

/** Selector of every `.vscode/mcp.json` on disk (for code actions and the status item). */
export const MCP_JSON_SELECTOR: vscode.DocumentFilter = { scheme: 'file', pattern: '**/.vscode/mcp.json' };
