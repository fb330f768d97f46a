#!/usr/bin/env node
// Integration tier: runs the mocha suites of test/integration/suites/<fixture>/ INSIDE the
// Node extension host of a real VS Code (code-server), against the bundled extension
// (dist/extension.js, loaded from the repo as the extension under development).
//
// One editor session (a workbench page, with its own extension host) per suite folder, one
// after the other: the folder name is the fixture workspace (test/fixtures/<fixture>, copied into
// the run dir) that the session opens. One code-server serves them all: the pages then share its
// origin and the browser's cache of the workbench, and the server starts once (it started per
// suite before). The runner in the host finds its suite by the folder it opened. With
// --runner test-cli each suite gets its own code-server (its options are in the environment).
//
// How the tests get into the extension host: the web workbench accepts a `payload` query
// parameter with the desktop CLI's dev keys. extensionDevelopmentPath and extensionTestsPath
// given as vscode-remote:// URIs load the extension and test/integration/index.js in the
// server-side Node extension host; the workbench honours them only when code-server runs with
// `--vscode-option enable-smoke-test-driver`. The host require()s the runner and awaits its
// run(); the workbench then calls window.codeAutomationExit(code), and host console output
// arrives through window.codeAutomationLog(level, args). Both are provided with Playwright.
//
//   node test/harness/run-integration.mjs [--suite NAME]... [--timeout SEC] [--verbose] [--runner harness|test-cli]
// (DSH_BRIDGE_SUITES=a,b selects suites too, e.g. through `npm test`.) A folder without
// *.test.js is skipped with a note.
// Exit: 0 all sessions passed; 1 a test failed; 2 harness error; 124 timeout.
// Lines a test prints as `[metric] name=value` are repeated in the closing summary.
import fs from 'node:fs';
import path from 'node:path';
import util from 'node:util';
import {
  REPO, HarnessError, createRun, copyFixture, writeUserSettings, endProcessTree, extensionDir, launchBrowser, log, onInterrupt,
  processTree, recordConsole, requireBundle, startCodeServer, suiteHostEnv, tools, workspaceTarget,
} from './lib.mjs';

const args = process.argv.slice(2);
// --timeout bounds a whole session (a hang), not a test: generous, as a loaded machine needs.
const opt = { suites: [], timeout: 900, verbose: false, runner: 'harness' };
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--suite') opt.suites.push(args[++i]);
  else if (args[i] === '--runner') opt.runner = args[++i];
  else if (args[i] === '--timeout') opt.timeout = Number(args[++i]);
  else if (args[i] === '--verbose') opt.verbose = true;
  else { console.error(`unknown argument ${args[i]}`); process.exit(2); }
}

const SUITES_DIR = path.join(REPO, 'test/integration/suites');
// --runner test-cli: load the suites through @vscode/test-cli's own runner, the one
// `npm run test:electron` uses, to check on this machine that the suites work there too.
const TEST_CLI_RUNNER = path.join(REPO, 'node_modules/@vscode/test-cli/out/runner.cjs');
const RUNNER = opt.runner === 'test-cli' ? TEST_CLI_RUNNER : path.join(REPO, 'test/integration/index.js');
if (!['harness', 'test-cli'].includes(opt.runner)) { console.error(`unknown runner ${opt.runner}`); process.exit(2); }

function testCliOptions(suiteDir) {
  const files = fs.readdirSync(suiteDir).filter((f) => f.endsWith('.test.js')).sort().map((f) => path.join(suiteDir, f));
  return JSON.stringify({ mochaOpts: { ui: 'bdd', timeout: 300000, reporter: 'spec' }, colorDefault: false, preload: [], files });
}

// Workbench log chatter that reaches codeAutomationLog; kept in host-log.txt only.
const NOISE = [/^Ignoring fetching additional builtin extensions/, /^Creating a socket/, /^Resolv(ing|ed) connection token/,
  /^\[AccountPolicyGate\]/, /^\[reconnection-grace-time\]/, /^\[Service Worker\]/, /^\[AgentHost/,
  /^Updating additional builtin extensions cache/, /^No search provider registered/, /^Canceled: Canceled/,
  /^Started local extension host/, /^Extension host .* started/, /^Creation of workbench contribution/,
  /^Timed out waiting for authentication provider/, /^\[DefaultAccount\]/];

const metrics = [];

/**
 * The code-server of the sessions: one for all, or a fresh one for a suite that opens a
 * `.code-workspace` file (a multi-root workbench opened in the shared server after other
 * sessions came up with no folders in a fresh clone's run: "You have not yet added a folder"),
 * with --runner test-cli, or after the shared one died.
 */
async function serverFor(run, suite, ownServer, hostEnv = {}) {
  const testCli = opt.runner === 'test-cli';
  const perSuite = testCli || ownServer || Object.keys(hostEnv).length > 0;
  if (!perSuite && shared && !shared.exited()) return shared;
  const suiteDir = path.join(SUITES_DIR, suite);
  const cs = await startCodeServer(run, {
    smokeTestDriver: true,
    label: perSuite ? `code-server-${suite}` : 'code-server',
    env: {
      ...hostEnv,
      DSH_BRIDGE_HOST_MOCHA: tools().hostMocha,
      ...(testCli ? { DSH_BRIDGE_SUITE_DIR: suiteDir, VSCODE_TEST_OPTIONS: testCliOptions(suiteDir) } : { DSH_BRIDGE_SUITES_DIR: SUITES_DIR }),
    },
  });
  log(`[${perSuite ? suite : 'all suites'}] code-server pid ${cs.pid} on ${cs.url} (healthy after ${Math.round(performance.now() - cs.startedAt)} ms)`);
  if (!perSuite) shared = cs;
  return cs;
}

async function runSession(run, suite, browserHandle) {
  const suiteDir = path.join(SUITES_DIR, suite);
  const workspace = copyFixture(run, suite);
  // A suite's own user settings (<suite>/user-settings.json): merged into the run's for this
  // session only, e.g. application-scoped settings, which only the user settings can hold.
  const restoreSettings = suiteUserSettings(run, suiteDir);
  const hostLog = path.join(run.dir, `host-log-${suite}.txt`);
  let finished = false;
  const printHost = (level, hostArgs) => {
    const line = util.format(...(Array.isArray(hostArgs) ? hostArgs : [hostArgs]));
    fs.appendFileSync(hostLog, `[${level}] ${line}\n`);
    const m = /^\[metric\] (.*)$/m.exec(line);
    if (m) metrics.push(`${suite}: ${m[1]}`);
    if (finished || (!opt.verbose && NOISE.some((re) => re.test(line)))) return;
    (level === 'error' ? process.stderr : process.stdout).write(`${line}\n`);
  };

  const cs = current = await serverFor(run, suite, workspaceTarget(workspace).endsWith('.code-workspace'), suiteHostEnv(suiteDir, workspace));
  const page = await browserHandle.context.newPage();
  recordConsole(page, run, `browser-console-${suite}.log`);
  try {
    let report;
    const reported = new Promise((r) => { report = r; });
    await page.exposeFunction('codeAutomationLog', (level, hostArgs) => printHost(level, hostArgs));
    await page.exposeFunction('codeAutomationExit', (code) => { finished = true; report(Number(code)); });
    const url = cs.workbenchUrl(workspaceTarget(workspace), [
      ['extensionDevelopmentPath', cs.remoteUri(extensionDir())],
      ['extensionTestsPath', cs.remoteUri(RUNNER)],
    ]);
    const t = performance.now();
    await page.goto(url);
    let timer;
    let watch;
    const outcome = await Promise.race([
      reported,
      new Promise((r) => { timer = setTimeout(() => r('timeout'), opt.timeout * 1000); }),
      new Promise((r) => page.on('crash', () => r('crash'))),
      new Promise((r) => { watch = setInterval(() => { if (cs.exited()) r('server-exit'); }, 500); }),
    ]);
    clearTimeout(timer);
    clearInterval(watch);
    if (outcome === 'timeout') {
      const shot = path.join(run.artifacts, `timeout-${suite}.png`);
      await page.screenshot({ path: shot }).catch(() => {});
      console.error(`[${suite}] TIMEOUT: the extension host reported nothing within ${opt.timeout}s (screenshot ${shot})`);
      return 124;
    }
    if (outcome === 'crash' || outcome === 'server-exit') {
      console.error(`[${suite}] ${outcome === 'crash' ? 'the workbench page crashed' : 'code-server exited'} before the tests finished`);
      return 2;
    }
    log(`[${suite}] extension host exit code ${outcome} after ${Math.round(performance.now() - t)} ms (page load + tests)`);
    return outcome;
  } finally {
    finished = true;
    await page.close().catch(() => {});
    if (cs !== shared) await cs.stop();
    else await endExtensionHosts(cs);
    current = undefined;
    restoreSettings();
  }
}

/**
 * Ends the extension hosts of the shared code-server (and what they started: language servers,
 * MCP servers), by pid, once a session's page is closed: the server would keep a closed
 * window's host for its reconnection grace time, beside the next suite's.
 */
async function endExtensionHosts(cs) {
  const hosts = processTree(cs.pid).filter((pid) => {
    try { return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('--type=extensionHost'); } catch { return false; }
  });
  for (const pid of hosts) await endProcessTree(pid, { graceMs: 3000 });
}

/** Merges `<suite>/user-settings.json` into the run's user settings; returns what restores them. */
function suiteUserSettings(run, suiteDir) {
  const own = path.join(suiteDir, 'user-settings.json');
  if (!fs.existsSync(own)) return () => {};
  const file = path.join(run.userData, 'User/settings.json');
  const before = fs.readFileSync(file, 'utf8');
  writeUserSettings(run, JSON.parse(fs.readFileSync(own, 'utf8')));
  return () => fs.writeFileSync(file, before);
}

let run;
let browserHandle;
let current; // the code-server of the session in progress
let shared; // the code-server every session uses (not with --runner test-cli)
async function cleanup() {
  if (current) await current.stop();
  current = undefined;
  if (shared) await shared.stop();
  shared = undefined;
  if (browserHandle) await browserHandle.close();
  browserHandle = undefined;
  if (run) run.cleanup();
}
onInterrupt(cleanup);

let exitCode = 0;
try {
  log(`extension under test: ${requireBundle()}`);
  if (!fs.existsSync(SUITES_DIR)) throw new HarnessError(`no ${SUITES_DIR}`);
  const all = fs.readdirSync(SUITES_DIR).filter((d) => fs.statSync(path.join(SUITES_DIR, d)).isDirectory()).sort();
  const wanted = opt.suites.length ? opt.suites
    : process.env.DSH_BRIDGE_SUITES ? process.env.DSH_BRIDGE_SUITES.split(',').map((x) => x.trim()).filter(Boolean) : all;
  for (const s of wanted) if (!all.includes(s)) throw new HarnessError(`no suite folder ${path.join(SUITES_DIR, s)}`);
  const suites = wanted.filter((s) => {
    const hasTests = fs.readdirSync(path.join(SUITES_DIR, s)).some((f) => f.endsWith('.test.js'));
    if (!hasTests) log(`[${s}] skipped: no *.test.js in ${path.join(SUITES_DIR, s)}`);
    return hasTests;
  });
  if (suites.length === 0) throw new HarnessError('no suite with tests to run');
  run = createRun('integration');
  log(`run dir ${run.dir}`);
  browserHandle = await launchBrowser(run, { viewport: { width: 1280, height: 800 } });
  for (const suite of suites) {
    const code = await runSession(run, suite, browserHandle);
    if (code !== 0 && exitCode === 0) exitCode = code;
  }
  if (browserHandle.blocked.size) log(`refused non-loopback requests: ${[...browserHandle.blocked].join(' ')}`);
} catch (e) {
  console.error(e instanceof HarnessError ? `HARNESS ERROR: ${e.message}` : e);
  exitCode = 2;
} finally {
  await cleanup();
}
for (const m of metrics) log(`metric ${m}`);
log(`integration: ${exitCode === 0 ? 'PASSED' : `FAILED (exit ${exitCode})`}; logs in ${run ? run.dir : '(no run dir)'}`);
process.exit(exitCode);
