import type { DeclaredInput, DeclaredServer, RejectedServer } from '../declaration/declarationModel';
import type { Problem } from '../problems/problems';
import type { Range } from '../json/text';
import type { InputDefinition } from './mcpModel';
import { VSCODE_SOURCE, type McpAccess } from './sources';

export const SOURCE_PATH = VSCODE_SOURCE.path;

/** One file the export read besides `.vscode/mcp.json`; `sha256` null: absent at export (its appearance makes the declaration stale). */
export interface SourcePin {
  path: string;
  sha256: string | null;
  /** `.vscode/mcp.json`, `.mcp.json`: the pin of its content (sources.ts sourceContentDigest), what freshness compares. */
  content?: string;
}

export interface Analysis {
  sourcePath: string;
  /** False when the file could not be used at all: nothing may be exported (CLI exit 1). */
  usable: boolean;
  sourceSha256: string;
  /** The pin of the source's content, when its dialect has one (see {@link SourcePin}). */
  sourceContent?: string;
  problems: Problem[];
  servers: DeclaredServer[];
  rejected: RejectedServer[];
  inputs: DeclaredInput[];
  /** Every valid input definition of the file, by id (for prompting: options, defaults, commands). */
  inputDefinitions: Record<string, InputDefinition>;
  /** The other files read (`.mcp.json`, dev container, workspace file), present or not; see {@link SourcePin}. */
  sources?: SourcePin[];
  /** The effective `chat.mcp.access` the folder's files were chosen by (analyzeFolder; absent: `all`). */
  mcpAccess?: McpAccess;
  /**
   * Where each exported server's name is written (its file is the server's `source`, else
   * `sourcePath`), for located diagnostics. Each name is an own property (`__proto__` too): look
   * names up with Object.hasOwn.
   */
  serverKeys?: Record<string, { file: string; range: Range }>;
  /**
   * Every server entry of the file that VS Code registers, exported or refused, in VS Code's order
   * (the merged server map's: a name keeps the place of its first definition): the first of a
   * name owns it (see mergeSources).
   */
  entries?: ReadonlyArray<ServerEntryKey>;
  /** The digest of the editor policy's server rules the export applied (core/policy/editorPolicy); absent: none. */
  policyDigest?: string;
  /** The digest of GitHub Copilot's managed MCP rules the export applied (core/policy/managedPolicy); absent: none set. */
  managedDigest?: string;
  /** VS Code's policy file as read at the export (absent: not read, or not there). */
  policyFile?: { path: string; sha256: string | null };
}

/** A server's name where it is written. */
export interface ServerEntryKey {
  name: string;
  file: string;
  range: Range;
}

/** An analysis that exports nothing: the source could not be used, or has no servers. */
export function emptyAnalysis(problems: Problem[], sourceSha256 = '', sourcePath = SOURCE_PATH): Analysis {
  return { sourcePath, usable: false, sourceSha256, problems, servers: [], rejected: [], inputs: [], inputDefinitions: {} };
}
