// Workspaces, the host store, and process accounting for the DSH end-to-end tests.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { HERE, HOST_DIR, REPO } from './host.mjs';
export { memoryMapped } from '../fixtures/memoryMapped.mjs';

export const CLI = path.join(REPO, 'dist/cli.js');
export const SERVER_JS = path.join(HOST_DIR, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

export function tempRoot() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'dsh-bridge-e2e-'));
  const home = path.join(root, 'dsh-home');
  fs.mkdirSync(home, { mode: 0o700 });
  return { root, home, cleanup: () => fs.rmSync(root, { recursive: true, force: true }) };
}

/** Runs our CLI (dist/cli.js, built by `npm run build`) with DSH_HOME set. */
export function cli(home, args, input) {
  return execFileSync(process.execPath, [CLI, ...args], {
    env: { ...process.env, DSH_HOME: home },
    input,
    encoding: 'utf8',
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/**
 * `skills trust` as a user without a terminal does it: the first run prints the review and the
 * command with the pin it showed (and accepts nothing); the second run names that pin.
 */
export function trustSkillRoot(home, root, folder) {
  let review = '';
  try {
    cli(home, ['skills', 'trust', root, '--workspace', folder]);
    throw new Error('skills trust without --pin accepted at once');
  } catch (error) {
    const e = /** @type {{ stderr?: string, stdout?: string }} */ (error);
    review = `${e.stderr ?? ''}${e.stdout ?? ''}`;
  }
  const pin = /--pin (sha256:[0-9a-f]{64})/.exec(review)?.[1];
  if (!pin) throw new Error(`skills trust printed no pin:\n${review}`);
  return cli(home, ['skills', 'trust', root, '--workspace', folder, '--pin', pin]);
}

/**
 * A workspace whose .vscode/mcp.json runs @modelcontextprotocol/server-everything over stdio,
 * with a `${input:}` env value (kept host-side) and a `${env:}` one (from the DSH process).
 */
/**
 * @param {string} root
 * @param {string} name
 * @param {{ serverName?: string, exportIt?: boolean, home?: string, input?: any, mutate?: any }} [options]
 */
export function everythingWorkspace(root, name, { serverName = 'everything', exportIt = true, home, input, mutate } = {}) {
  const folder = path.join(root, name);
  fs.mkdirSync(path.join(folder, '.vscode'), { recursive: true });
  const mcp = {
    inputs: [{ id: 'everything-key', type: 'promptString', description: 'A key for the test server', password: true }],
    servers: {
      [serverName]: {
        type: 'stdio',
        command: process.execPath,
        args: [SERVER_JS, 'stdio'],
        env: {
          EVERYTHING_API_KEY: '${input:everything-key}',
          BRIDGE_FROM_ENV: '${env:BRIDGE_E2E_FROM_ENV}',
        },
      },
    },
  };
  mutate?.(mcp.servers[serverName], folder); // a variation of the entry (and files it needs) before the export
  fs.writeFileSync(path.join(folder, '.vscode/mcp.json'), `${JSON.stringify(mcp, null, 2)}\n`);
  if (exportIt) cli(home, ['export', '--workspace', folder]);
  if (input !== undefined) cli(home, ['inputs', 'set', 'everything-key', '--workspace', folder], input);
  return folder;
}

export function readDeclaration(folder) {
  return JSON.parse(fs.readFileSync(path.join(folder, '.dsh/declaration.json'), 'utf8'));
}

/** Host-store edits in the documented format (docs/declaration.md), as the extension writes them. */
export function setTrustMode(home, trustMode) {
  const dir = path.join(home, 'bridge');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(dir, 'settings.json'), `${JSON.stringify({ version: 1, trustMode }, null, 2)}\n`, { mode: 0o600 });
}

export function approvePin(home, folder, serverName, pin) {
  const abs = path.resolve(folder);
  const file = path.join(home, 'bridge', 'folders', `${createHash('sha256').update(abs).digest('hex')}.json`);
  const record = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : { version: 1, folder: abs, inputs: {}, approvals: [] };
  record.approvals = record.approvals.filter((a) => a.serverName !== serverName).concat([{ serverName, pin }]);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
}

/** Live (not zombie) child processes of this process, each with its argv (Linux /proc). */
export function liveChildren() {
  const out = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(ppid) !== process.pid || state === 'Z') continue;
      out.push({ pid: Number(entry), argv: fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0') });
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

/** Live child processes of this process running the test MCP server, with their cwd. */
export function serverProcesses() {
  return liveChildren().filter((p) => p.argv.includes(SERVER_JS)).flatMap(({ pid }) => {
    try {
      return [{ pid, cwd: fs.readlinkSync(`/proc/${pid}/cwd`) }];
    } catch {
      return []; // ended while we looked
    }
  });
}

export const countIn = (folder) => serverProcesses().filter((p) => p.cwd === folder).length;

/**
 * Polls `predicate` until it holds. `timeoutMs` is what the call site expects on a quiet machine;
 * the bound is at least WAIT_FLOOR_MS, since a loaded machine (2 cores, a CPU hog on each) takes
 * many times that to start a server or answer a step. A passing run never waits that long.
 */
export const WAIT_FLOOR_MS = 60000;
export async function waitFor(predicate, timeoutMs = 15000, what = 'condition') {
  const bound = Math.max(timeoutMs, WAIT_FLOOR_MS);
  const start = Date.now();
  for (;;) {
    if (await predicate()) return;
    if (Date.now() - start > bound) throw new Error(`timed out after ${bound} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}


/**
 * The MCP SDK fixture server (mcp-fixture-server.mjs) over Streamable HTTP on a free port, named
 * `name`, answering 401 without the header value `key`: the process, and its port once it listens.
 * @param {string} name
 * @param {string} key
 */
export function startHttpFixture(name, key) {
  const server = spawn(process.execPath, [path.join(HERE, 'mcp-fixture-server.mjs'), 'http'], { env: { ...process.env, FIXTURE_KEY: key, FIXTURE_NAME: name }, stdio: ['ignore', 'pipe', 'inherit'] });
  /** @type {Promise<number>} */
  const port = new Promise((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (d) => { out += d; const m = /listening (\d+)/.exec(out); if (m) resolve(Number(m[1])); });
    server.once('exit', (code) => reject(new Error(`the http fixture exited (${code})`)));
  });
  return { server, port };
}
