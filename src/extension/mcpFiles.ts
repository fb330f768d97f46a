import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SourceSpec } from '../core/mcp/sources';
import { folderFileAt, IGNORE_FILE, SOURCE_PATH, sourceLocation, workspaceFileSource } from '../core/app/folderSources';
import { MAX_SOURCE_BYTES, readRegularFile } from '../core/node/reader';

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
const MCP_JSON_SELECTOR: vscode.DocumentFilter = { scheme: 'file', pattern: '**/.vscode/mcp.json' };

/** The multi-root workspace file, when the window was opened through one on disk. */
export function codeWorkspaceFile(): string | undefined {
  const file = vscode.workspace.workspaceFile;
  return file?.scheme === 'file' ? file.fsPath : undefined;
}

/** The URI of a source file named as the core names it: relative to the folder, or absolute (the workspace file). */
export function sourceUri(folderUri: vscode.Uri, file: string): vscode.Uri {
  const location = sourceLocation(file);
  return 'inFolder' in location ? vscode.Uri.joinPath(folderUri, ...location.inFolder) : vscode.Uri.file(location.absolute);
}

/**
 * The folders (and how to read the file) whose MCP servers this file defines: a folder's
 * `.vscode/mcp.json`, `.mcp.json` or dev container file, or the workspace file (every folder).
 */
export function sourceOf(uri: vscode.Uri): { folders: vscode.WorkspaceFolder[]; spec: SourceSpec } | undefined {
  if (uri.scheme !== 'file') return undefined;
  const workspaceFile = codeWorkspaceFile();
  if (workspaceFile !== undefined && vscode.Uri.file(workspaceFile).toString() === uri.toString()) {
    return { folders: [...fileFolders()], spec: workspaceFileSource(workspaceFile) };
  }
  const folder = vscode.workspace.getWorkspaceFolder(uri);
  if (!folder || folder.uri.scheme !== 'file') return undefined;
  const file = folderFileAt(path.posix.relative(folder.uri.path, uri.path));
  // The URI built back from the path must be this one (a case or encoding variant is another file to VS Code).
  return file?.kind === 'source' && sourceUri(folder.uri, file.spec.path).toString() === uri.toString() ? { folders: [folder], spec: file.spec } : undefined;
}

/** The folder whose `.dsh/.gitignore` this is (the analysis checks that it keeps the declaration out of git). */
export function folderOfDeclarationIgnore(uri: vscode.Uri): vscode.WorkspaceFolder | undefined {
  if (uri.scheme !== 'file') return undefined;
  const folder = vscode.workspace.getWorkspaceFolder(uri);
  if (!folder || folder.uri.scheme !== 'file') return undefined;
  return vscode.Uri.joinPath(folder.uri, ...IGNORE_FILE.split('/')).toString() === uri.toString() ? folder : undefined;
}

/** Selector and watcher pattern of every `.dsh/.gitignore` on disk. */
export const DECLARATION_IGNORE_SELECTOR: vscode.DocumentFilter = { scheme: 'file', pattern: '**/.dsh/.gitignore' };

/** Selector of every file VS Code runs MCP servers from (docs/sources.md), for diagnostics' code actions. */
export const MCP_SOURCES_SELECTOR: vscode.DocumentSelector = [
  MCP_JSON_SELECTOR,
  { scheme: 'file', pattern: '**/.mcp.json' },
  { scheme: 'file', pattern: '**/.devcontainer/devcontainer.json' },
  { scheme: 'file', pattern: '**/.devcontainer.json' },
  { scheme: 'file', pattern: '**/.devcontainer/*/devcontainer.json' },
  { scheme: 'file', pattern: '**/*.code-workspace' },
];

/** Watcher pattern of the same files. */
export const MCP_SOURCES_GLOB = '**/{.vscode/mcp.json,.mcp.json,.devcontainer/devcontainer.json,.devcontainer.json,.devcontainer/*/devcontainer.json,*.code-workspace}';

/**
 * The bytes of a settings or MCP file the extension reads itself: on disk through the safe reader
 * (a regular file of at most 1 MiB; a FIFO or a device is refused, never waited on), else through
 * the editor's file system. Undefined when it cannot be read.
 */
export async function readFileBytes(uri: vscode.Uri): Promise<Uint8Array | undefined> {
  if (uri.scheme === 'file') {
    const read = await readRegularFile(uri.fsPath, MAX_SOURCE_BYTES);
    return read.ok ? read.bytes : undefined;
  }
  try {
    return await vscode.workspace.fs.readFile(uri);
  } catch {
    return undefined;
  }
}
