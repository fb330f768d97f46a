/**
 * The files VS Code runs MCP servers from for one workspace folder, as VS Code reads them
 * (docs/sources.md): where each file keeps its server map, and which file wins a server name.
 * Pure: paths and parse trees in, nodes and orders out.
 */
import { findDuplicateKeys, nodeValue, parseJsonc, propertyValue, type Node } from '../json/jsonTree';
import { canonicalJson, sha256Hex } from '../json/canonicalJson';
import { decodeText } from '../json/text';

/**
 * - `vscode`: `<folder>/.vscode/mcp.json`, `servers` and `inputs` at the top level;
 * - `dot-mcp`: `<folder>/.mcp.json`, Claude Code's format: `mcpServers` (or, in newer VS Code, a flat map of servers);
 * - `code-workspace`: a multi-root workspace file, the same shape under `settings.mcp`;
 * - `devcontainer`: a dev container configuration (see {@link isDevcontainerPath}), the same shape under `customizations.vscode.mcp`.
 */
export type SourceDialect = 'vscode' | 'dot-mcp' | 'code-workspace' | 'devcontainer';

export interface SourceSpec {
  /** Relative to the workspace folder ('/'-separated), or absolute for a file outside it (a `.code-workspace` file, a user file). */
  path: string;
  dialect: SourceDialect;
  /** VS Code's collection order when it is not the dialect's own (the user's files, see ./userSources). */
  order?: number;
}

export const VSCODE_SOURCE: SourceSpec = { path: '.vscode/mcp.json', dialect: 'vscode' };
export const DOT_MCP_SOURCE: SourceSpec = { path: '.mcp.json', dialect: 'dot-mcp' };
export const DEVCONTAINER_SOURCE: SourceSpec = { path: '.devcontainer/devcontainer.json', dialect: 'devcontainer' };
/** The dev container configuration at the folder's root, the spec's second location. */
export const ROOT_DEVCONTAINER_SOURCE: SourceSpec = { path: '.devcontainer.json', dialect: 'devcontainer' };
/** At most this many `.devcontainer/<name>/devcontainer.json` are read (sorted by name); a folder with more is not a real case. */
const MAX_DEVCONTAINER_SUBFOLDERS = 32;

/**
 * The places the Dev Containers specification (containers.dev, "devcontainer.json location") and
 * VS Code's Dev Containers extension take a configuration from, in the spec's order of
 * precedence: `.devcontainer/devcontainer.json`, `.devcontainer.json`, then
 * `.devcontainer/<name>/devcontainer.json` one level deep. They are alternatives (the container
 * is made from the one the user opens it with); the bridge reads each and exports a name defined
 * in two from the first in this order.
 */
export function isDevcontainerPath(file: string): boolean {
  return file === DEVCONTAINER_SOURCE.path || file === ROOT_DEVCONTAINER_SOURCE.path || /^\.devcontainer\/[^/\\]+\/devcontainer\.json$/.test(file);
}

/** `.devcontainer/<name>/devcontainer.json` for each subfolder name, in the order they are read. */
export function devcontainerSubfolderSources(names: readonly string[]): SourceSpec[] {
  return [...names].filter((n) => n !== '' && !/[/\\]/.test(n) && n !== '.' && n !== '..').sort().slice(0, MAX_DEVCONTAINER_SUBFOLDERS)
    .map((name) => ({ path: `.devcontainer/${name}/devcontainer.json`, dialect: 'devcontainer' as const }));
}

/** Where the MCP block (servers, inputs) sits in each kind of file. */
export const MCP_BLOCK_PATH: Record<SourceDialect, readonly string[]> = {
  vscode: [],
  'dot-mcp': [],
  'code-workspace': ['settings', 'mcp'],
  devcontainer: ['customizations', 'vscode', 'mcp'],
};

/**
 * VS Code's collection order (`McpCollectionSortOrder`): the folder's `.vscode/mcp.json` 0, its
 * `.mcp.json` 1, the workspace file 100, the remote (dev container) user configuration 200-50.
 * A name defined twice belongs to the lower order (see {@link MCP_COLLISION_SETTING}).
 */
export const SOURCE_ORDER: Record<SourceDialect, number> = { vscode: 0, 'dot-mcp': 1, 'code-workspace': 100, devcontainer: 150 };

/** A source's collection order: its own (a user file), else its dialect's. */
export function sourceOrder(spec: SourceSpec): number {
  return spec.order ?? SOURCE_ORDER[spec.dialect];
}

/** Copilot Global's file name (`$COPILOT_HOME/mcp-config.json`): the portable format, outside any folder. */
export const COPILOT_GLOBAL_FILE = 'mcp-config.json';

/**
 * The server maps of an MCP block, in the order VS Code merges them: a later map wins a name.
 * VS Code reads a legacy `mcpServers` beside `servers` as `{...servers, ...mcpServers}` (and
 * rewrites the file so); `.mcp.json` has only `mcpServers`.
 */
export const SERVER_MAP_KEYS: Record<SourceDialect, readonly string[]> = {
  vscode: ['servers', 'mcpServers'],
  'dot-mcp': ['mcpServers'],
  'code-workspace': ['servers', 'mcpServers'],
  devcontainer: ['servers', 'mcpServers'],
};

/** The MCP block of a parsed file (the root for `.vscode/mcp.json` and `.mcp.json`), if present. */
export function mcpBlockNode(root: Node | undefined, dialect: SourceDialect): Node | undefined {
  let node = root;
  for (const key of MCP_BLOCK_PATH[dialect]) {
    if (node?.type !== 'object') return undefined;
    node = propertyValue(node, key);
  }
  return node;
}

/**
 * The JSON path of a server's entry in its file: the map that defines `name` last, as VS Code
 * reads it; for a `.mcp.json` without `mcpServers`, the flat root map.
 */
export function serverEntryPath(root: Node | undefined, dialect: SourceDialect, name: string): string[] | undefined {
  const block = mcpBlockNode(root, dialect);
  if (block?.type !== 'object') return undefined;
  const maps = SERVER_MAP_KEYS[dialect];
  for (let i = maps.length - 1; i >= 0; i--) {
    const map = propertyValue(block, maps[i]);
    if (map?.type === 'object' && propertyValue(map, name)) return [...MCP_BLOCK_PATH[dialect], maps[i], name];
  }
  if (dialect === 'dot-mcp' && !propertyValue(block, 'mcpServers') && propertyValue(block, name)) return [name];
  return undefined;
}

/** Which kind of file a problem's `file` is (a file the bridge does not know is read as `.vscode/mcp.json`). */
export function dialectOf(file: string): SourceDialect {
  if (file === DOT_MCP_SOURCE.path) return 'dot-mcp';
  if (!isFolderRelative(file) && /[\\/]mcp-config\.json$/.test(file)) return 'dot-mcp'; // Copilot Global
  if (isDevcontainerPath(file)) return 'devcontainer';
  if (/\.code-workspace$/i.test(file)) return 'code-workspace';
  return 'vscode';
}

/** True when a source path is one of the folder's files (not a workspace file elsewhere). */
export function isFolderRelative(sourcePath: string): boolean {
  return !/^([A-Za-z]:[\\/]|[\\/])/.test(sourcePath);
}

/** VS Code's setting that decides whether `.mcp.json` is read. */
export const MCP_ACCESS_SETTING = 'chat.mcp.access';
const MCP_ACCESS_VALUES = ['all', 'registry', 'none'] as const;
export type McpAccess = (typeof MCP_ACCESS_VALUES)[number];

/**
 * The effective `chat.mcp.access`: VS Code compares the value with `none` and `registry`, so
 * anything else (unset, a value of the wrong shape) acts as `all`; `false` is the older "off".
 */
export function effectiveMcpAccess(value: unknown): McpAccess {
  if (value === 'none' || value === false) return 'none';
  return value === 'registry' ? 'registry' : 'all';
}

/** `chat.mcp.access`: `none` runs no server, `registry` only gallery ones; `.mcp.json` is read only with `all` (the default). */
export function dotMcpDiscoveryOn(access: unknown): boolean {
  return effectiveMcpAccess(access) === 'all';
}

/**
 * Whether the export of a declaration read `.mcp.json`: its pinned `mcpAccess` (absent: `all`),
 * or, for a declaration older than that field, whether `.mcp.json` (Copilot Global) is among its pins.
 */
export function declarationReadDotMcp(declaration: { mcpAccess?: McpAccess; source: { path: string }; sources?: ReadonlyArray<{ path: string }> }): boolean {
  if (declaration.mcpAccess !== undefined) return dotMcpDiscoveryOn(declaration.mcpAccess);
  // `.mcp.json`, or Copilot Global for the user declaration: the files of the portable format.
  return dialectOf(declaration.source.path) === 'dot-mcp' || (declaration.sources ?? []).some((s) => dialectOf(s.path) === 'dot-mcp');
}

/**
 * The pin of a source file, hex SHA-256. `.vscode/mcp.json` and `.mcp.json`: their exact bytes (the
 * record of what the export read; their freshness is {@link sourceContentDigest}'s). A workspace or
 * dev container file holds much else (editor settings, the image): its pin covers the canonical
 * JSON of its MCP block only, so an unrelated edit does not make the declaration stale. A file that
 * cannot be read that way (syntax errors, duplicate keys) is pinned by its bytes, which never equal
 * a block pin. Never throws.
 */
export function sourceDigest(bytes: Uint8Array, dialect: SourceDialect): string {
  const whole = sha256Hex(bytes);
  if (MCP_BLOCK_PATH[dialect].length === 0) return whole;
  const root = parsedSource(bytes);
  if (root === undefined) return whole;
  try {
    return sha256Hex(`mcp-section\n${canonicalJson(nodeValue(mcpBlockNode(root, dialect)) ?? null)}`);
  } catch {
    return whole;
  }
}

/**
 * What a session would get from a `.vscode/mcp.json` or `.mcp.json`, not its bytes: hex SHA-256 of
 * `mcp-content\n` + the JSON of its parsed value in file order. A comment, whitespace, CRLF or a
 * trailing comma leave it as it is; a changed value, or reordered servers, change it. Undefined
 * for the other dialects (their {@link sourceDigest} is a content pin already) and for a file that
 * does not parse (its bytes pin it). Never throws.
 */
export function sourceContentDigest(bytes: Uint8Array, dialect: SourceDialect): string | undefined {
  if (MCP_BLOCK_PATH[dialect].length !== 0) return undefined;
  const root = parsedSource(bytes);
  if (root === undefined) return undefined;
  try {
    return sha256Hex(`mcp-content\n${JSON.stringify(nodeValue(root) ?? null)}`);
  } catch {
    return undefined;
  }
}

/** The JSONC tree of a source file, or undefined when it does not decode or parse cleanly (syntax errors, too deep, duplicate keys). */
function parsedSource(bytes: Uint8Array): ReturnType<typeof parseJsonc>['root'] | undefined {
  const decoded = decodeText(bytes);
  if (!decoded.ok) return undefined;
  const { root, errors, tooDeep } = parseJsonc(decoded.text);
  if (errors.length || tooDeep || !root || findDuplicateKeys(root).length) return undefined;
  return root;
}

/**
 * VS Code's setting for servers of one name in several places (`mcpConfiguration.ts`,
 * `McpCollisionEnablementModel` in `mcpService.ts`): with `disable`, the default, a server whose
 * name (compared case-insensitively) an earlier server already has is disabled, whether that
 * earlier one can run or not; with `suffix` both run, their tool names told apart by a number.
 */
export const MCP_COLLISION_SETTING = 'chat.mcp.collisionBehavior';
export type CollisionBehavior = 'disable' | 'suffix';

/** VS Code compares the value with `disable` (unset: `disable`); any other value disables nothing, as `suffix` does. */
export function effectiveCollisionBehavior(value: unknown): CollisionBehavior {
  return value === undefined || value === null || value === 'disable' ? 'disable' : 'suffix';
}
