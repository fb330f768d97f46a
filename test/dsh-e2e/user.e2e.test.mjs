// The user's own servers in the real rc.8 host (issue 34): `dsh-bridge export --user` (a
// temporary HOME with the default profile's mcp.json and a COPILOT_HOME) writes the user
// declaration into the host store; a DSH session in a folder with no declaration of its own gets
// its servers; in a folder whose declaration defines a server of the same name, the workspace's
// is the one started (the spawn log names which), the user's other server still is.
// Run: DSH_E2E_SUITE=user npm run test:dsh
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { HERE } from './host.mjs';
import { approvePin, CLI, cli, readDeclaration, setTrustMode } from './fixtures.mjs';
import { session, withSmallest } from './smallest.mjs';

const SKIP = process.env.DSH_E2E_HOST === 'base' ? 'smallest host only' : false;
const FIXTURE = path.join(HERE, 'mcp-fixture-server.mjs');

const fixture = (name, spawnLog) => ({ type: 'stdio', command: process.execPath, args: [FIXTURE, 'stdio'], env: { FIXTURE_NAME: name, FIXTURE_SPAWN_LOG: spawnLog } });

test('DSH rc.8: a user server (profile mcp.json, Copilot Global) is mounted in a session of a folder with no declaration; a workspace server of the same name wins', { timeout: 300000, skip: SKIP }, () => withSmallest(async ({ h, tmp, turn }) => {
  const userHome = path.join(tmp.root, 'user-home');
  const spawnLog = path.join(tmp.root, 'spawned.log');
  const profile = path.join(userHome, '.config', 'Code', 'User');
  fs.mkdirSync(profile, { recursive: true });
  fs.writeFileSync(path.join(profile, 'mcp.json'), JSON.stringify({ servers: { alpha: fixture('user-alpha', spawnLog) } }));
  const copilotHome = path.join(userHome, 'copilot');
  fs.mkdirSync(copilotHome, { recursive: true });
  fs.writeFileSync(path.join(copilotHome, 'mcp-config.json'), JSON.stringify({ mcpServers: { solo: fixture('user-solo', spawnLog) } }));
  const exported = JSON.parse(execFileSync(process.execPath, [CLI, 'export', '--user', '--json'], {
    env: { ...process.env, DSH_HOME: tmp.home, HOME: userHome, XDG_CONFIG_HOME: path.join(userHome, '.config'), COPILOT_HOME: copilotHome }, encoding: 'utf8',
  }));
  assert.equal(exported.declaration, path.join(tmp.home, 'bridge', 'user', '.dsh', 'declaration.json'));
  // Pinned, each user pin approved under the user declaration's folder: they start without asking.
  setTrustMode(tmp.home, 'pinned');
  const userFolder = path.join(tmp.home, 'bridge', 'user');
  for (const s of exported.servers) approvePin(tmp.home, userFolder, s.serverName, s.pin);

  // A folder with no declaration of its own (its own project root).
  const bare = path.join(tmp.root, 'bare');
  fs.mkdirSync(path.join(bare, '.git'), { recursive: true });
  const s1 = await session(h, 'user-bare', bare, 'm-user-bare');
  await turn(s1);
  const [first] = h.llm.requests.get('m-user-bare');
  assert.deepEqual(first.tools.map((x) => x.name).filter((n) => n.startsWith('mcp__')).sort(), ['mcp__alpha__ping', 'mcp__solo__ping']);
  await s1.dispose();

  // A folder whose declaration defines "Alpha" (another case): the workspace's runs, the user's solo too.
  const ws = path.join(tmp.root, 'ws');
  fs.mkdirSync(path.join(ws, '.git'), { recursive: true });
  fs.mkdirSync(path.join(ws, '.vscode'));
  fs.writeFileSync(path.join(ws, '.vscode/mcp.json'), JSON.stringify({ servers: { Alpha: fixture('workspace-alpha', spawnLog) } }));
  cli(tmp.home, ['export', '--workspace', ws]);
  for (const s of readDeclaration(ws).servers) approvePin(tmp.home, ws, s.serverName, s.pin);
  fs.writeFileSync(spawnLog, '');
  const s2 = await session(h, 'user-ws', ws, 'm-user-ws');
  await turn(s2);
  const [second] = h.llm.requests.get('m-user-ws');
  assert.deepEqual(second.tools.map((x) => x.name).filter((n) => n.startsWith('mcp__')).sort(), ['mcp__Alpha__ping', 'mcp__solo__ping']);
  const spawned = fs.readFileSync(spawnLog, 'utf8').trim().split('\n').map((l) => l.split(' ')[1]).sort();
  assert.deepEqual(spawned, ['user-solo', 'workspace-alpha']);
  await s2.dispose();
}));
