/**
 * The user's own servers as VS Code would run them in every folder: the active profile's
 * `mcp.json` and Copilot Global (core/mcp/userSources), each read and analyzed as a folder's files
 * are (folderSources), merged in VS Code's order, then the editor's policy and GitHub Copilot's
 * managed settings. Also where the user declaration lives: a folder of its own in the host store,
 * `<DSH home>/bridge/user`, whose `.dsh/declaration.json` every face and the DSH plugin read as
 * they read a workspace's.
 */
import * as path from 'node:path';
import { analyzeSource } from '../mcp/analyze';
import { emptyAnalysis, type Analysis } from '../mcp/analysis';
import type { AnalyzeOptions } from '../mcp/analyzeOptions';
import { mergeSources, type SourceRead } from '../mcp/mergeSources';
import { dotMcpDiscoveryOn, effectiveCollisionBehavior, effectiveMcpAccess, MCP_ACCESS_SETTING, MCP_COLLISION_SETTING, sourceDigest } from '../mcp/sources';
import { copilotGlobalPath, defaultUserDataDir, EDITORS, profileFolder, profileFolderOfGlobalStorage, userSourceSpecs, type UserDataContext } from '../mcp/userSources';
import { decodeText } from '../json/text';
import { applyEditorPolicy, readEditorPolicy } from '../policy/editorPolicy';
import { applyManagedPolicy } from '../policy/managedPolicy';
import { managedChannels, pinEnvFiles, policyView, readFailureProblem, readSource } from './folderSources';
import type { Ports } from './ports';

/** The user declaration's folder in the host store: its declaration is `<this>/.dsh/declaration.json`. */
export function userDeclarationFolder(dshHome: string): string {
  return path.join(path.resolve(dshHome), 'bridge', 'user');
}

/** Which user files to read, as a face knows them. */
export interface UserFilesChoice {
  /** The active profile's folder (the editor knows its own: `<user data>/User` or `<user data>/User/profiles/<id>`). */
  profileFolder?: string;
  /** The editor's user data folder (`--user-data-dir`); default: the first of {@link candidateUserDataDirs} that exists. */
  userDataDir?: string;
  /** A named profile's folder name under `User/profiles` (`--editor-profile`). */
  profileId?: string;
}

/** The user data folders a face looks for, in order (VS Code, Insiders, VSCodium, code-server). */
export function candidateUserDataDirs(ctx: UserDataContext): string[] {
  return EDITORS.map((editor) => defaultUserDataDir(editor, ctx));
}

/** The user's files: the profile's `mcp.json` and Copilot Global, or why the profile cannot be named. */
export function userFiles(choice: UserFilesChoice & { userDataDir: string }, ctx: UserDataContext): { profileFolder: string; copilotGlobal: string } | { error: string } {
  const folder = choice.profileFolder ?? profileFolder(choice.userDataDir, choice.profileId, ctx.platform);
  if (!folder) return { error: `"${choice.profileId}" is not a profile folder name (one name under User/profiles)` };
  return { profileFolder: folder, copilotGlobal: copilotGlobalPath(ctx) };
}

/**
 * The editor's own user files: its profile's folder from the extension's `globalStorageUri`
 * (`<profile folder>/globalStorage/<extension id>`), and Copilot Global. Undefined when the
 * storage path is not laid out so (a remote or web host).
 */
export function editorUserFiles(globalStoragePath: string, ctx: UserDataContext): { profileFolder: string; copilotGlobal: string } | undefined {
  const folder = profileFolderOfGlobalStorage(globalStoragePath, ctx.platform);
  return folder === undefined ? undefined : { profileFolder: folder, copilotGlobal: copilotGlobalPath(ctx) };
}

export interface UserAnalyzeOptions extends Omit<AnalyzeOptions, 'folder' | 'folderName' | 'codeWorkspaceFile'> {
  profileFolder: string;
  copilotGlobal: string;
}

/**
 * Reads and analyzes the user's files and merges them: the profile's `mcp.json` wins a name over
 * Copilot Global, as in VS Code. Their servers have no folder: a stdio server starts in the home
 * folder (VS Code's user-level file discoveries start theirs there), and `${workspaceFolder}`,
 * which VS Code resolves against each window's folder, stops the server's export. Copilot Global,
 * a discovery like `.mcp.json`, is read only when `chat.mcp.access` is `all`.
 */
export async function analyzeUserSources(ports: Pick<Ports, 'files'> & { policy?: Pick<Ports['policy'], 'readManagedSettings'> }, options: UserAnalyzeOptions): Promise<Analysis> {
  // GitHub Copilot's managed settings govern the user's servers too (a face without the port reads none).
  const managed = ports.policy ? managedChannels(ports.policy) : Promise.resolve([]);
  const home = path.resolve(options.userHome);
  const analyzeOptions: AnalyzeOptions = { ...options, folder: home, folderName: path.basename(home), noFolder: true };
  const mcpAccess = effectiveMcpAccess(options.resolveConfig?.(MCP_ACCESS_SETTING));
  const specs = userSourceSpecs(options.profileFolder, options.copilotGlobal).filter((s) => s.dialect !== 'dot-mcp' || dotMcpDiscoveryOn(mcpAccess));
  const reads: SourceRead[] = [];
  for (const spec of specs) {
    const read = await readSource(ports, home, spec.path);
    if (!read.ok) {
      if (read.failure.kind === 'missing') reads.push({ spec, missing: true });
      else reads.push({ spec, analysis: emptyAnalysis([readFailureProblem(read.failure, spec.path)], '', spec.path) });
      continue;
    }
    const analysis = { ...analyzeSource(read.bytes, analyzeOptions, spec), sourceSha256: sourceDigest(read.bytes, spec.dialect) };
    const decoded = decodeText(read.bytes);
    reads.push({ spec, analysis: decoded.ok ? await pinEnvFiles(ports, analysis, home, decoded.text, spec.dialect) : analysis });
  }
  const missing = readFailureProblem({ kind: 'missing' }, specs[0].path);
  const merged = mergeSources(reads, missing, { collisionBehavior: effectiveCollisionBehavior(options.resolveConfig?.(MCP_COLLISION_SETTING)) });
  const edited = applyEditorPolicy(mcpAccess === 'all' ? merged : { ...merged, mcpAccess }, readEditorPolicy(policyView(options)));
  const policed = applyManagedPolicy(edited, await managed);
  return options.vscodePolicyFile ? { ...policed, policyFile: options.vscodePolicyFile } : policed;
}
