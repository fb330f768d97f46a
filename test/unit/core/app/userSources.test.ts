import { strict as assert } from 'node:assert';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { analyzeUserSources, candidateUserDataDirs, userDeclarationFolder, userFiles } from '../../../../src/core/app/userSources';
import {
  copilotGlobalPath, defaultUserDataDir, profileFolder, profileFolderOfGlobalStorage, userSourceSpecs,
} from '../../../../src/core/mcp/userSources';
import { FILE_PORTS, folderIdentityOf, tempDir, testPorts, userSettings } from '../../helpers';
import { commitExport } from '../../../../src/core/app/export';
import { reviewUserExport } from '../../../../src/core/app/userExport';
import { verifyFolder } from '../../../../src/core/app/verify';

/**
 * The user's own MCP files (issue 34): where each editor keeps them, and VS Code's order between
 * them and against the workspace. Each path cites the VS Code (or code-server) source it follows.
 */
describe('user sources: where the user\'s own servers are', () => {
  // microsoft/vscode src/vs/platform/environment/node/userDataPath.ts, doGetUserDataPath:
  // portable, VSCODE_APPDATA, then per platform APPDATA / ~/Library/Application Support / XDG_CONFIG_HOME, then productName.
  it('finds each desktop build\'s user data folder on Linux, macOS and Windows, as VS Code\'s userDataPath.ts does', () => {
    const linux = { platform: 'linux' as const, home: '/home/ann', env: {} };
    assert.equal(defaultUserDataDir('code', linux), '/home/ann/.config/Code');
    assert.equal(defaultUserDataDir('insiders', linux), '/home/ann/.config/Code - Insiders');
    assert.equal(defaultUserDataDir('vscodium', linux), '/home/ann/.config/VSCodium');
    assert.equal(defaultUserDataDir('code', { ...linux, env: { XDG_CONFIG_HOME: '/cfg' } }), '/cfg/Code');
    assert.equal(defaultUserDataDir('code', { ...linux, env: { XDG_CONFIG_HOME: '  ' } }), '/home/ann/.config/Code', 'a blank variable is unset');
    const mac = { platform: 'darwin' as const, home: '/Users/ann', env: {} };
    assert.equal(defaultUserDataDir('code', mac), '/Users/ann/Library/Application Support/Code');
    assert.equal(defaultUserDataDir('insiders', mac), '/Users/ann/Library/Application Support/Code - Insiders');
    const win = { platform: 'win32' as const, home: 'C:\\Users\\ann', env: { APPDATA: 'C:\\Users\\ann\\AppData\\Roaming' } };
    assert.equal(defaultUserDataDir('code', win), 'C:\\Users\\ann\\AppData\\Roaming\\Code');
    assert.equal(defaultUserDataDir('vscodium', win), 'C:\\Users\\ann\\AppData\\Roaming\\VSCodium');
    assert.equal(defaultUserDataDir('code', { ...win, env: { USERPROFILE: 'D:\\ann' } }), 'D:\\ann\\AppData\\Roaming\\Code', 'no APPDATA: USERPROFILE\\AppData\\Roaming');
    // 1. VSCODE_PORTABLE, 2. VSCODE_APPDATA come first on every platform.
    assert.equal(defaultUserDataDir('code', { ...linux, env: { VSCODE_PORTABLE: '/opt/vscode/data', VSCODE_APPDATA: '/x' } }), '/opt/vscode/data/user-data');
    assert.equal(defaultUserDataDir('code', { ...mac, env: { VSCODE_APPDATA: '/appdata' } }), '/appdata/Code');
  });

  // coder/code-server src/node/util.ts, getEnvPaths: paths.data, XDG on Linux and macOS, env-paths on Windows.
  it('finds code-server\'s (--user-data-dir default ~/.local/share/code-server)', () => {
    assert.equal(defaultUserDataDir('code-server', { platform: 'linux', home: '/home/ann', env: {} }), '/home/ann/.local/share/code-server');
    assert.equal(defaultUserDataDir('code-server', { platform: 'darwin', home: '/Users/ann', env: {} }), '/Users/ann/.local/share/code-server');
    assert.equal(defaultUserDataDir('code-server', { platform: 'linux', home: '/home/ann', env: { XDG_DATA_HOME: '/data' } }), '/data/code-server');
    assert.equal(defaultUserDataDir('code-server', { platform: 'win32', home: 'C:\\Users\\ann', env: { LOCALAPPDATA: 'C:\\L' } }), 'C:\\L\\code-server\\Data');
    assert.deepEqual(candidateUserDataDirs({ platform: 'linux', home: '/h', env: {} }), ['/h/.config/Code', '/h/.config/Code - Insiders', '/h/.config/VSCodium', '/h/.local/share/code-server']);
  });

  // userDataProfile.ts: the default profile's location is userRoamingDataHome (<user data>/User, environmentService.ts),
  // a named one's is joinPath(profilesHome = userRoamingDataHome/profiles, <id>); mcpResource = joinPath(location, 'mcp.json').
  it('reads the default profile\'s mcp.json in User/ and a named one\'s in User/profiles/<id>/', () => {
    assert.equal(profileFolder('/home/ann/.config/Code', undefined, 'linux'), '/home/ann/.config/Code/User');
    assert.equal(profileFolder('/home/ann/.config/Code', '-6f2b1c', 'linux'), '/home/ann/.config/Code/User/profiles/-6f2b1c');
    assert.equal(profileFolder('C:\\A\\Code', '5a', 'win32'), 'C:\\A\\Code\\User\\profiles\\5a');
    for (const bad of ['..', '.', 'a/b', 'a\\b']) assert.equal(profileFolder('/u', bad, 'linux'), undefined, bad);
    assert.deepEqual(userSourceSpecs('/u/User/profiles/5a', '/h/.copilot/mcp-config.json', 'linux'), [
      { path: '/u/User/profiles/5a/mcp.json', dialect: 'vscode', order: 200 },
      { path: '/h/.copilot/mcp-config.json', dialect: 'dot-mcp', order: 400 },
    ]);
    // The extension's globalStorageUri is <profile location>/globalStorage/<extension id> (globalStorageHome).
    assert.equal(profileFolderOfGlobalStorage('/u/User/profiles/5a/globalStorage/dsh.dsh-bridge', 'linux'), '/u/User/profiles/5a');
    assert.equal(profileFolderOfGlobalStorage('/u/User/globalStorage/dsh.dsh-bridge', 'linux'), '/u/User');
    assert.equal(profileFolderOfGlobalStorage('/elsewhere/dsh.dsh-bridge', 'linux'), undefined);
    assert.deepEqual(userFiles({ userDataDir: '/u', profileId: '..' }, { platform: 'linux', home: '/h', env: {} }), { error: '".." is not a profile folder name (one name under User/profiles)' });
  });

  it('reads Copilot Global from $COPILOT_HOME, else ~/.copilot', () => {
    assert.equal(copilotGlobalPath({ platform: 'linux', home: '/home/ann', env: {} }), '/home/ann/.copilot/mcp-config.json');
    assert.equal(copilotGlobalPath({ platform: 'linux', home: '/home/ann', env: { COPILOT_HOME: '/ch' } }), '/ch/mcp-config.json');
    assert.equal(copilotGlobalPath({ platform: 'win32', home: 'C:\\Users\\ann', env: {} }), 'C:\\Users\\ann\\.copilot\\mcp-config.json');
  });

  it('keeps the user declaration in the host store, apart from any folder', () => {
    assert.equal(userDeclarationFolder('/home/ann/.dsh'), '/home/ann/.dsh/bridge/user');
  });
});

describe('user sources: read, merged in VS Code\'s order', () => {
  function userHome(files: { profile?: string; copilot?: string }) {
    const home = tempDir('dsh-bridge-home-');
    const profile = path.join(home, '.config', 'Code', 'User');
    const copilotHome = path.join(home, '.copilot');
    if (files.profile !== undefined) {
      mkdirSync(profile, { recursive: true });
      writeFileSync(path.join(profile, 'mcp.json'), files.profile);
    }
    if (files.copilot !== undefined) {
      mkdirSync(copilotHome, { recursive: true });
      writeFileSync(path.join(copilotHome, 'mcp-config.json'), files.copilot);
    }
    return { home, profileFolder: profile, copilotGlobal: path.join(copilotHome, 'mcp-config.json') };
  }

  it('exports both files\' servers; the profile\'s mcp.json wins a name (case-insensitive) over Copilot Global', async () => {
    const u = userHome({
      profile: '{ // the gallery installs here\n "servers": { "Memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"] } } }',
      copilot: '{ "mcpServers": { "memory": { "command": "other" }, "fetch": { "command": "uvx", "args": ["mcp-server-fetch"] } } }',
    });
    const analysis = await analyzeUserSources(FILE_PORTS, { userHome: u.home, profileFolder: u.profileFolder, copilotGlobal: u.copilotGlobal });
    assert.equal(analysis.usable, true);
    assert.equal(analysis.sourcePath, path.join(u.profileFolder, 'mcp.json'));
    assert.deepEqual(analysis.servers.map((s) => [s.name, s.source ?? null]), [['Memory', null], ['fetch', u.copilotGlobal]]);
    assert.deepEqual(analysis.rejected, [{ name: 'memory', codes: ['shadowed-server'] }]);
    const shadowed = analysis.problems.find((p) => p.code === 'shadowed-server')!;
    assert.equal(shadowed.file, u.copilotGlobal);
    // A stdio server of a user file starts in the home folder.
    assert.equal(analysis.servers[0].transport === 'stdio' && analysis.servers[0].cwd, u.home);
    assert.deepEqual(analysis.sources, [{ path: u.copilotGlobal, sha256: analysis.sources![0].sha256 }]);
  });

  it('treats Copilot Global as the portable format (no variable resolved) and ${workspaceFolder} in the profile as unsupported', async () => {
    const u = userHome({
      profile: '{ "servers": { "here": { "command": "node", "args": ["${workspaceFolder}/x.js"] }, "home": { "command": "node", "args": ["${userHome}/y.js"] } } }',
      copilot: '{ "mcpServers": { "lit": { "command": "node", "args": ["${HOME}/z.js"] } } }',
    });
    const analysis = await analyzeUserSources(FILE_PORTS, { userHome: u.home, profileFolder: u.profileFolder, copilotGlobal: u.copilotGlobal });
    assert.deepEqual(analysis.servers.map((s) => s.name), ['home', 'lit']);
    assert.deepEqual(analysis.rejected.map((r) => [r.name, r.codes]), [['here', ['unsupported-variable']]]);
    const home = analysis.servers[0];
    assert.deepEqual(home.transport === 'stdio' && home.args, [`${u.home}/y.js`]);
    const lit = analysis.servers[1];
    assert.deepEqual(lit.transport === 'stdio' && lit.args, ['${HOME}/z.js']);
    assert.ok(analysis.problems.some((p) => p.code === 'not-resolved-here' && p.file === u.copilotGlobal));
  });

  it('reads only the profile\'s file when chat.mcp.access is not "all", and pins an absent file', async () => {
    const u = userHome({ copilot: '{ "mcpServers": { "fetch": { "command": "uvx" } } }' });
    const off = await analyzeUserSources(FILE_PORTS, { userHome: u.home, profileFolder: u.profileFolder, copilotGlobal: u.copilotGlobal, resolveConfig: userSettings({ 'chat.mcp.access': 'registry' }) });
    assert.equal(off.usable, false);
    assert.deepEqual(off.problems.map((p) => p.code), ['missing-source']);
    const on = await analyzeUserSources(FILE_PORTS, { userHome: u.home, profileFolder: u.profileFolder, copilotGlobal: u.copilotGlobal });
    assert.equal(on.sourcePath, u.copilotGlobal);
    assert.deepEqual(on.sources, [{ path: path.join(u.profileFolder, 'mcp.json'), sha256: null }]);
  });

  it('applies the editor\'s policy: a denied user server is not exported', async () => {
    const u = userHome({ profile: '{ "servers": { "memory": { "command": "npx" }, "ok": { "command": "node" } } }' });
    const analysis = await analyzeUserSources(FILE_PORTS, {
      userHome: u.home, profileFolder: u.profileFolder, copilotGlobal: u.copilotGlobal,
      resolveConfig: userSettings({ 'chat.mcp.deniedServers': [{ serverName: 'memory' }] }),
    });
    assert.deepEqual(analysis.servers.map((s) => s.name), ['ok']);
    assert.ok(analysis.rejected.some((r) => r.name === 'memory'));
  });

  it('applies GitHub Copilot\'s managed settings: a denied user server is not exported, the user declaration records their digest and is fresh under them', async () => {
    const u = userHome({ profile: '{ "servers": { "memory": { "command": "npx" }, "ok": { "command": "node" } } }' });
    const managed = path.join(tempDir('managed-'), 'managed-settings.json');
    writeFileSync(managed, JSON.stringify({ deniedMcpServers: [{ serverName: 'memory' }] }));
    const ports = testPorts(tempDir('dsh-home-'), { home: u.home, env: { DSH_BRIDGE_MANAGED_SETTINGS: managed } });
    const reviewed = await reviewUserExport(ports, folderIdentityOf(u.home), { profileFolder: u.profileFolder, copilotGlobal: u.copilotGlobal });
    assert.deepEqual(reviewed.analysis.servers.map((s) => s.name), ['ok']);
    assert.deepEqual(reviewed.analysis.rejected, [{ name: 'memory', codes: ['policy-denied'] }]);
    assert.match(reviewed.analysis.managedDigest ?? '', /^sha256:/);
    await commitExport(ports, reviewed);
    assert.deepEqual((await verifyFolder(ports, reviewed.folder)).reasons, []);
    writeFileSync(managed, JSON.stringify({ deniedMcpServers: [{ serverName: 'ok' }] }));
    assert.deepEqual((await verifyFolder(ports, reviewed.folder)).reasons.map((r) => [r.code, r.enforcedAtMount]), [['stale', true]]);
  });
});
