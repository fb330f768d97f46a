/**
 * The user's own MCP files, as VS Code finds them (docs/sources.md, "The user's own servers"):
 * the active profile's `mcp.json` in the editor's user data folder, and Copilot Global. Pure:
 * platform, home and environment in, paths and source specs out.
 */
import * as path from 'node:path';
import { COPILOT_GLOBAL_FILE, type SourceSpec } from './sources';

/** The editors whose user data folder the bridge knows, in the order the CLI looks for one. */
export const EDITORS = ['code', 'insiders', 'vscodium', 'code-server'] as const;
export type Editor = (typeof EDITORS)[number];

/**
 * VS Code's `productName` of each desktop build (its `product.json`), the folder name under the
 * platform's application data folder.
 */
const PRODUCT_NAMES: Record<Exclude<Editor, 'code-server'>, string> = { code: 'Code', insiders: 'Code - Insiders', vscodium: 'VSCodium' };

export interface UserDataContext {
  platform: NodeJS.Platform;
  home: string;
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * An editor's user data folder when no `--user-data-dir` is given. The desktop builds follow
 * microsoft/vscode `src/vs/platform/environment/node/userDataPath.ts` (`doGetUserDataPath`):
 * `$VSCODE_PORTABLE/user-data`, else `$VSCODE_APPDATA/<productName>`, else per platform
 * `%APPDATA%` (or `%USERPROFILE%\AppData\Roaming`) on Windows, `~/Library/Application Support` on
 * macOS, `$XDG_CONFIG_HOME` (or `~/.config`) on Linux, then `<productName>`. code-server's
 * `--user-data-dir` defaults to `paths.data` (coder/code-server `src/node/util.ts`,
 * `getEnvPaths`): `$XDG_DATA_HOME/code-server` (default `~/.local/share/code-server`) on Linux
 * and macOS, env-paths' `%LOCALAPPDATA%\code-server\Data` on Windows. Blank variables count as unset.
 */
export function defaultUserDataDir(editor: Editor, ctx: UserDataContext): string {
  const join = ctx.platform === 'win32' ? path.win32.join : path.posix.join;
  const env = (name: string) => (ctx.env[name]?.trim() ? ctx.env[name] : undefined);
  if (editor === 'code-server') {
    if (ctx.platform === 'win32') return join(env('LOCALAPPDATA') ?? join(ctx.home, 'AppData', 'Local'), 'code-server', 'Data');
    return join(env('XDG_DATA_HOME') ?? join(ctx.home, '.local', 'share'), 'code-server');
  }
  const product = PRODUCT_NAMES[editor];
  const portable = env('VSCODE_PORTABLE');
  if (portable) return join(portable, 'user-data');
  const appData = env('VSCODE_APPDATA');
  if (appData) return join(appData, product);
  switch (ctx.platform) {
    case 'win32': return join(env('APPDATA') ?? join(env('USERPROFILE') ?? ctx.home, 'AppData', 'Roaming'), product);
    case 'darwin': return join(ctx.home, 'Library', 'Application Support', product);
    default: return join(env('XDG_CONFIG_HOME') ?? join(ctx.home, '.config'), product);
  }
}

/**
 * The profile folder whose `mcp.json` VS Code reads: `<user data>/User` for the default profile
 * (`userRoamingDataHome`, `environmentService.ts`: `appSettingsHome` = `<userDataPath>/User`),
 * `<user data>/User/profiles/<id>` for a named one (`userDataProfile.ts`: `profilesHome` =
 * `joinPath(userRoamingDataHome, 'profiles')`, a profile's `location` under it, and
 * `mcpResource: joinPath(location, 'mcp.json')`). `id` is the folder name (a hash VS Code made of
 * the profile's name); one that is not a plain folder name is refused (undefined).
 */
export function profileFolder(userDataDir: string, profileId?: string, platform: NodeJS.Platform = process.platform): string | undefined {
  const join = platform === 'win32' ? path.win32.join : path.posix.join;
  const user = join(userDataDir, 'User');
  if (profileId === undefined || profileId === '') return user;
  if (/[/\\]/.test(profileId) || profileId === '.' || profileId === '..') return undefined;
  return join(user, 'profiles', profileId);
}

/**
 * Copilot Global: `$COPILOT_HOME/mcp-config.json`, default `~/.copilot/mcp-config.json` (VS Code
 * 1.140's *MCP: Add Server* user destination; the MCP configuration reference of its docs).
 */
export function copilotGlobalPath(ctx: UserDataContext): string {
  const join = ctx.platform === 'win32' ? path.win32.join : path.posix.join;
  const copilotHome = ctx.env.COPILOT_HOME?.trim() ? ctx.env.COPILOT_HOME : join(ctx.home, '.copilot');
  return join(copilotHome, COPILOT_GLOBAL_FILE);
}

/**
 * VS Code's collection orders of the user's files (`mcpTypes.ts`, `McpCollectionSortOrder`): the
 * profile `mcp.json` is `User` (200, `mcpConfigPathsService.ts`, the `usrlocal` path), after every
 * workspace file (0 to 150), so a workspace server of the same name wins. Copilot Global is read
 * as VS Code reads a user-level file of another format (`nativeMcpDiscoveryAdapters.ts`:
 * `McpCollectionSortOrder.Filesystem`, 400), so the profile's `mcp.json` wins a name over it.
 */
export const USER_PROFILE_ORDER = 200;
export const COPILOT_GLOBAL_ORDER = 400;

/** The user's files as sources: the profile's `mcp.json` (VS Code's format) and Copilot Global (the portable one). */
export function userSourceSpecs(profileMcpFolder: string, copilotGlobal: string, platform: NodeJS.Platform = process.platform): SourceSpec[] {
  const join = platform === 'win32' ? path.win32.join : path.posix.join;
  return [
    { path: join(profileMcpFolder, 'mcp.json'), dialect: 'vscode', order: USER_PROFILE_ORDER },
    { path: copilotGlobal, dialect: 'dot-mcp', order: COPILOT_GLOBAL_ORDER },
  ];
}

/**
 * The profile folder from an extension's `globalStorageUri` path: VS Code keeps it at
 * `<profile folder>/globalStorage/<extension id>` (`userDataProfile.ts`: `globalStorageHome` =
 * `joinPath(location, 'globalStorage')`). Undefined when the path is not laid out so.
 */
export function profileFolderOfGlobalStorage(globalStoragePath: string, platform: NodeJS.Platform = process.platform): string | undefined {
  const p = platform === 'win32' ? path.win32 : path.posix;
  const storage = p.dirname(globalStoragePath);
  return p.basename(storage) === 'globalStorage' ? p.dirname(storage) : undefined;
}
