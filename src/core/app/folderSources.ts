/**
 * The MCP sources of a folder as VS Code would run them: which files, read and analyzed and
 * merged (with each stdio server's envFile pinned), and which of them changed since a pin. The
 * export reads a folder through {@link analyzeFolder}; verify and the export's changed-since-review
 * check share {@link changedSources}.
 */
import * as path from 'node:path';
import { analyzeSource } from '../mcp/analyze';
import { emptyAnalysis, SOURCE_PATH, type Analysis, type SourcePin } from '../mcp/analysis';
import { type AnalyzeOptions } from '../mcp/analyzeOptions';
import { withPin } from '../json/canonicalJson';
import type { DeclaredServer } from '../declaration/declarationModel';
import { nodeAtPath, parseJsonc } from '../json/jsonTree';
import { makeProblem, type Problem } from '../problems/problems';
import { MAX_SOURCE_BYTES, type ReadFailure } from '../problems/readFailure';
import {
  DEVCONTAINER_SOURCE, devcontainerSubfolderSources, ROOT_DEVCONTAINER_SOURCE, dialectOf, DOT_MCP_SOURCE, dotMcpDiscoveryOn, effectiveCollisionBehavior, effectiveMcpAccess,
  isDevcontainerPath, isFolderRelative, MCP_ACCESS_SETTING, MCP_COLLISION_SETTING, serverEntryPath, sourceContentDigest, sourceDigest, VSCODE_SOURCE, type SourceDialect, type SourceSpec,
} from '../mcp/sources';
import { declarationIgnoreProblem, IGNORE_FILE, MAX_IGNORE_BYTES } from '../mcp/ignoreRules';
import { mergeSources, type SourceRead } from '../mcp/mergeSources';
import { decodeText, EMPTY_RANGE, LineIndex } from '../json/text';
import type { ReadResult } from '../node/reader';
import { applyEditorPolicy, readEditorPolicy, type PolicySettingsView } from '../policy/editorPolicy';
import { applyManagedPolicy } from '../policy/managedPolicy';
import type { ManagedRules } from '../policy/managedSettings';
import { folderAnalyzeOptions, type FolderIdentity } from '../settings/folderSettings';
import type { Ports } from './ports';

export function readFailureProblem(failure: ReadFailure, file = SOURCE_PATH): Problem {
  switch (failure.kind) {
    case 'missing': return makeProblem('missing-source', file, EMPTY_RANGE, { path: file });
    case 'not-a-regular-file': return makeProblem('not-a-regular-file', file, EMPTY_RANGE, { path: file });
    case 'outside-workspace': return makeProblem('path-outside-workspace', file, EMPTY_RANGE, { path: file });
    case 'too-large': return makeProblem('file-too-large', file, EMPTY_RANGE, { size: failure.size, limit: MAX_SOURCE_BYTES });
    case 'unreadable': return makeProblem('unreadable-source', file, EMPTY_RANGE, { reason: failure.reason });
  }
}

/**
 * The files VS Code would run this folder's servers from: `.vscode/mcp.json`, `.mcp.json` (unless
 * `chat.mcp.access` turns its discovery off), the workspace file when there is one, and the dev
 * container configurations (`subfolders`: the names under `.devcontainer/` that hold one).
 */
function folderSources(options: Pick<AnalyzeOptions, 'resolveConfig' | 'codeWorkspaceFile'>, subfolders: readonly string[] = []): SourceSpec[] {
  const specs = [VSCODE_SOURCE];
  if (dotMcpDiscoveryOn(options.resolveConfig?.(MCP_ACCESS_SETTING))) specs.push(DOT_MCP_SOURCE);
  if (options.codeWorkspaceFile) specs.push({ path: path.resolve(options.codeWorkspaceFile), dialect: 'code-workspace' });
  specs.push(DEVCONTAINER_SOURCE, ROOT_DEVCONTAINER_SOURCE, ...devcontainerSubfolderSources(subfolders));
  return specs;
}

/** A source's bytes: a folder file through the confined reader, the workspace file (outside the folder) as a regular file. */
export function readSource(ports: Pick<Ports, 'files'>, folder: string, sourcePath: string): Promise<ReadResult> {
  return isFolderRelative(sourcePath) ? ports.files.readWorkspaceFile(folder, sourcePath, MAX_SOURCE_BYTES) : ports.files.readRegularFile(sourcePath, MAX_SOURCE_BYTES);
}

/**
 * Reads and analyzes every source of a folder and merges them; a file that cannot be read gives an
 * unusable analysis. `unsaved` gives the text of a source an editor holds with unsaved edits.
 */
export async function analyzeFolder(ports: Pick<Ports, 'files'> & { policy?: Pick<Ports['policy'], 'readManagedSettings'> }, options: AnalyzeOptions, unsaved?: (sourcePath: string) => Uint8Array | undefined): Promise<Analysis> {
  // GitHub Copilot's managed settings, read while the sources are (a face without the port reads none).
  const managed = ports.policy ? managedChannels(ports.policy) : Promise.resolve([]);
  const reads: SourceRead[] = [];
  for (const spec of folderSources(options, await ports.files.devcontainerSubfolders(options.folder))) {
    const held = unsaved?.(spec.path);
    const read: ReadResult = held ? { ok: true, bytes: held, realPath: spec.path } : await readSource(ports, options.folder, spec.path);
    if (!read.ok) {
      if (read.failure.kind === 'missing') reads.push({ spec, missing: true });
      else reads.push({ spec, analysis: emptyAnalysis([readFailureProblem(read.failure, spec.path)], '', spec.path) });
      continue;
    }
    const content = sourceContentDigest(read.bytes, spec.dialect);
    const analysis = { ...analyzeSource(read.bytes, options, spec), sourceSha256: sourceDigest(read.bytes, spec.dialect), ...(content !== undefined ? { sourceContent: content } : {}) };
    const decoded = decodeText(read.bytes);
    reads.push({ spec, analysis: decoded.ok ? await pinEnvFiles(ports, analysis, options.folder, decoded.text, spec.dialect) : analysis });
  }
  const merged = mergeSources(reads, readFailureProblem({ kind: 'missing' }, SOURCE_PATH), { collisionBehavior: effectiveCollisionBehavior(options.resolveConfig?.(MCP_COLLISION_SETTING)) });
  const committable = await declarationCommittable(ports, options.folder, unsaved?.(IGNORE_FILE));
  if (committable) merged.problems.push(committable);
  const mcpAccess = effectiveMcpAccess(options.resolveConfig?.(MCP_ACCESS_SETTING));
  // The organization's policy decides what is exported, after collisions (a blocked server keeps its name).
  const edited = applyEditorPolicy(mcpAccess === 'all' ? merged : { ...merged, mcpAccess }, readEditorPolicy(policyView(options)));
  // Then the managed settings, every channel (the DSH plugin applies the same ones at mount).
  const policed = applyManagedPolicy(edited, await managed);
  return options.vscodePolicyFile ? { ...policed, policyFile: options.vscodePolicyFile } : policed;
}

/** The managed settings' channels; a read that fails blocks every server (it fails closed). Export and verify read them so. */
export function managedChannels(policy: Pick<Ports['policy'], 'readManagedSettings'>): Promise<readonly ManagedRules[]> {
  return policy.readManagedSettings().catch((error: unknown) => [{ channel: 'file', location: 'the managed settings', deny: [], managedOnly: false, sandboxForced: false, refused: error instanceof Error ? error.message : String(error) }]);
}

/** {@link analyzeFolder} with the folder's settings as a face sees them. */
export function analyzeWorkspaceFolder(ports: Parameters<typeof analyzeFolder>[0], identity: FolderIdentity): Promise<Analysis> {
  return analyzeFolder(ports, folderAnalyzeOptions(identity));
}

/** The policy settings as the face sees them (no settings: nothing set). */
export function policyView(options: Pick<AnalyzeOptions, 'resolveConfig' | 'policySettings'>): PolicySettingsView {
  return { effective: (key) => options.resolveConfig?.(key), ...options.policySettings };
}

/**
 * `declaration-committable` when the folder's `.dsh/.gitignore` (a repository's own, or one edited
 * since) exists and does not ignore the declaration, evaluated as git evaluates it. None when there
 * is no such file: the export writes one that does. `held`: the text an editor holds unsaved.
 */
async function declarationCommittable(ports: Pick<Ports, 'files'>, folder: string, held?: Uint8Array): Promise<Problem | undefined> {
  const read: ReadResult = held ? { ok: true, bytes: held, realPath: IGNORE_FILE } : await ports.files.readWorkspaceFile(folder, IGNORE_FILE, MAX_IGNORE_BYTES);
  return read.ok ? declarationIgnoreProblem(Buffer.from(read.bytes).toString('utf8')) : undefined;
}

/**
 * Pins each exported stdio server's envFile: its content is part of what is signed. The file is
 * read now; the server gets `envFileSha256` (the bytes) and `envFileNames` (the variables it sets,
 * for the approval review) and a new pin, so a later edit of the file makes the declaration stale
 * and, in the pinned mode, asks again. A server whose envFile cannot be read, or whose path is only
 * known when DSH starts it (an input or env reference), cannot be pinned and is not exported.
 */
export async function pinEnvFiles(ports: Pick<Ports, 'files'>, analysis: Analysis, folder: string, sourceText: string, dialect: SourceDialect): Promise<Analysis> {
  if (!analysis.usable || !analysis.servers.some((s) => s.transport === 'stdio' && s.envFile !== undefined)) return analysis;
  const lines = new LineIndex(sourceText);
  const root = parseJsonc(sourceText).root;
  const servers: DeclaredServer[] = [];
  const rejected = [...analysis.rejected];
  const problems = [...analysis.problems];
  for (const server of analysis.servers) {
    if (server.transport !== 'stdio' || server.envFile === undefined) {
      servers.push(server);
      continue;
    }
    const entryPath = serverEntryPath(root, dialect, server.name);
    const node = entryPath ? nodeAtPath(root, [...entryPath, 'envFile']) : undefined;
    const range = node ? lines.rangeAt(node.offset, node.length) : EMPTY_RANGE;
    const refuse = (code: 'env-file-unpinnable' | 'env-file-unreadable', args: Record<string, string> = {}) => {
      problems.push(makeProblem(code, analysis.sourcePath, range, args, { server: server.name }));
      rejected.push({ name: server.name, codes: [code] });
    };
    if (typeof server.envFile !== 'string') {
      refuse('env-file-unpinnable');
      continue;
    }
    const loaded = await ports.files.loadEnvFile(server.envFile, folder);
    if (!loaded.ok) {
      refuse('env-file-unreadable', { reason: loaded.reason });
      continue;
    }
    const { pin: _pin, ...entry } = server;
    servers.push(withPin({ ...entry, envFileSha256: loaded.sha256, envFileNames: loaded.names }) as DeclaredServer);
  }
  const used = new Set(servers.flatMap((s) => s.inputRefs));
  problems.sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
  return { ...analysis, servers, rejected, problems, inputs: analysis.inputs.filter((i) => used.has(i.id)) };
}

export type SourceChange = { path: string; now: 'changed' | 'removed' | 'created' | 'unreadable' };

/** Whether the file a pin names no longer holds the pinned bytes (changed, removed, created or unreadable). */
async function changedSource(ports: Pick<Ports, 'files'>, folder: string, pin: SourcePin): Promise<SourceChange | undefined> {
  const read = await readSource(ports, folder, pin.path);
  if (!read.ok) {
    if (read.failure.kind === 'missing') return pin.sha256 !== null ? { path: pin.path, now: 'removed' } : undefined;
    return { path: pin.path, now: 'unreadable' };
  }
  if (pin.sha256 === null) return { path: pin.path, now: 'created' };
  const dialect = dialectOf(pin.path);
  if (sourceDigest(read.bytes, dialect) === pin.sha256) return undefined;
  // Other bytes, the same content (a comment, whitespace): a session would get the same servers.
  if (pin.content === undefined || sourceContentDigest(read.bytes, dialect) !== pin.content) return { path: pin.path, now: 'changed' };
  return undefined;
}

/**
 * Every source not as pinned: each pinned file changed, removed, created or unreadable, and each
 * `.devcontainer/<name>/devcontainer.json` no pin names (a new source: absence of those cannot be
 * pinned one by one). The one enumeration that verify and the export's review check both use.
 */
export async function changedSources(ports: Pick<Ports, 'files'>, folder: string, pins: ReadonlyArray<SourcePin>): Promise<SourceChange[]> {
  // Read at once, told in the pins' order.
  const [changed, subfolders] = await Promise.all([Promise.all(pins.map((pin) => changedSource(ports, folder, pin))), ports.files.devcontainerSubfolders(folder)]);
  const changes = changed.filter((c): c is SourceChange => c !== undefined);
  const pinnedPaths = new Set(pins.map((p) => p.path));
  for (const name of subfolders) {
    const file = `.devcontainer/${name}/devcontainer.json`;
    if (!pinnedPaths.has(file)) changes.push({ path: file, now: 'created' });
  }
  return changes;
}

/** What a file of a folder is to the bridge: a source VS Code runs MCP servers from, or the declaration's `.dsh/.gitignore` the analysis checks. */
export type FolderFile = { kind: 'source'; spec: SourceSpec } | { kind: 'declaration-ignore'; path: string };

/** The role of the file at `relativePath` ('/'-separated, inside a folder), or undefined for any other file. */
export function folderFileAt(relativePath: string): FolderFile | undefined {
  if (relativePath === IGNORE_FILE) return { kind: 'declaration-ignore', path: IGNORE_FILE };
  for (const spec of [VSCODE_SOURCE, DOT_MCP_SOURCE]) if (relativePath === spec.path) return { kind: 'source', spec };
  if (isDevcontainerPath(relativePath)) return { kind: 'source', spec: { path: relativePath, dialect: 'devcontainer' } };
  return undefined;
}

/** A multi-root workspace file as a source (it defines the servers of every folder). */
export function workspaceFileSource(file: string): SourceSpec {
  return { path: file, dialect: 'code-workspace' };
}

/** Where a source the analysis names lies: inside the folder (its '/'-separated segments) or at an absolute path (the workspace file). */
export function sourceLocation(file: string): { inFolder: string[] } | { absolute: string } {
  return isFolderRelative(file) ? { inFolder: file.split('/') } : { absolute: file };
}

/** Where a folder's `.vscode/mcp.json` and the declaration's `.dsh/.gitignore` are: names of the contract. */
export { IGNORE_FILE, SOURCE_PATH };

/** The source file of a declared server: a declaration entry without one came from `.vscode/mcp.json`. */
export function declaredServerSource(server: { source?: string }): string {
  return server.source ?? SOURCE_PATH;
}
