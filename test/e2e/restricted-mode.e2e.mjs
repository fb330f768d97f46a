// Restricted Mode, in a real VS Code (code-server + chromium via Playwright).
//
// The shared harness starts code-server with --disable-workspace-trust, so every workspace is
// trusted there. This flow starts its own code-server WITH Workspace Trust (same isolation:
// run dir, private HOME/XDG/TMPDIR/DSH_HOME, loopback only, no gallery), opens a copy of
// test/fixtures/ws-problems without trusting it (startupPrompt "never": Restricted Mode), and:
//  1. runs the extension-host suite test/integration/restricted/ (extensionTestsPath payload, as
//     test/harness/run-integration.mjs does): diagnostics work, commands invoked
//     programmatically refuse to export or prompt, export on save stays off, nothing is written;
//  2. checks the command palette: the export and input commands are hidden, verify is offered.
// TODO(harness): a `workspaceTrust` option of startCodeServer/startEditor would replace the
// copy of the spawn code below.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import util from 'node:util';
import {
  REPO, copyFixture, createRun, endProcessTree, extensionDir, freePort, launchBrowser, log, recordConsole, requireBundle, sleep, tools,
} from '../harness/lib.mjs';

const SUITE_DIR = path.join(REPO, 'test/integration/restricted');
const RUNNER = path.join(REPO, 'test/integration/index.js');

async function startTrustingCodeServer(run, env) {
  const t = tools();
  const port = await freePort();
  const logFile = path.join(run.dir, 'code-server.log');
  const out = fs.openSync(logFile, 'a');
  const base = { ...process.env };
  for (const k of Object.keys(base)) if (/^(NODE_OPTIONS|npm_|VSCODE_)/i.test(k)) delete base[k];
  const child = spawn(t.node, [t.codeServer, '--config', run.config, '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none',
    '--user-data-dir', run.userData, '--extensions-dir', run.extensionsDir, '--disable-telemetry', '--disable-update-check',
    '--disable-getting-started-override', '--ignore-last-opened', '--vscode-option', 'enable-smoke-test-driver'], {
    detached: true,
    stdio: ['ignore', out, out],
    env: {
      ...base, PATH: `${path.dirname(t.node)}:${process.env.PATH}`, HOME: run.home, TMPDIR: run.tmp, ...run.xdg, DSH_HOME: run.dshHome,
      EXTENSIONS_GALLERY: '{}', NODE_DISABLE_COMPILE_CACHE: '1', DSH_BRIDGE_REPO: REPO, DSH_BRIDGE_RUN_DIR: run.dir, ...env,
    },
  });
  fs.closeSync(out);
  let exit = null;
  child.on('exit', (code, signal) => { exit = { code, signal }; });
  const url = `http://127.0.0.1:${port}`;
  for (const until = Date.now() + 90000; ;) {
    if (exit) throw new Error(`code-server exited at start (${JSON.stringify(exit)}); log: ${logFile}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch { /* not yet */ }
    if (Date.now() > until) throw new Error(`code-server did not answer within 90 s; log: ${logFile}`);
    await sleep(100);
  }
  return { pid: child.pid, url, remoteUri: (p) => `vscode-remote://127.0.0.1:${port}${path.resolve(p)}`, stop: () => endProcessTree(child.pid) };
}

describe('e2e: Restricted Mode (Workspace Trust on, folder not trusted)', function () {
  let run;
  let cs;
  let browser;
  let page;
  let hostExit;
  const hostLines = [];

  before(async function () {
    log(`extension under test: ${requireBundle()}`);
    run = createRun('e2e');
    log(`run dir ${run.dir}`);
    const settingsFile = path.join(run.userData, 'User', 'settings.json');
    const settings = JSON.parse(fs.readFileSync(settingsFile, 'utf8'));
    fs.writeFileSync(settingsFile, JSON.stringify({
      ...settings,
      'security.workspace.trust.enabled': true,
      'security.workspace.trust.startupPrompt': 'never',
      'security.workspace.trust.banner': 'always',
    }, null, 2));
    const workspace = copyFixture(run, 'ws-problems');
    cs = await startTrustingCodeServer(run, { DSH_BRIDGE_HOST_MOCHA: tools().hostMocha, DSH_BRIDGE_SUITE_DIR: SUITE_DIR });
    log(`code-server pid ${cs.pid} on ${cs.url} (Workspace Trust enabled)`);
    browser = await launchBrowser(run);
    page = await browser.context.newPage();
    recordConsole(page, run);
    let report;
    hostExit = new Promise((r) => { report = r; });
    await page.exposeFunction('codeAutomationLog', (level, args) => {
      const line = util.format(...(Array.isArray(args) ? args : [args]));
      hostLines.push(line);
      fs.appendFileSync(path.join(run.dir, 'host-log-restricted.txt'), `[${level}] ${line}\n`);
    });
    await page.exposeFunction('codeAutomationExit', (code) => report(Number(code)));
    const payload = [['extensionDevelopmentPath', cs.remoteUri(extensionDir())], ['extensionTestsPath', cs.remoteUri(RUNNER)]];
    await page.goto(`${cs.url}/?folder=${encodeURIComponent(workspace).replaceAll('%2F', '/')}&payload=${encodeURIComponent(JSON.stringify(payload))}`);
  });

  afterEach(async function () {
    if (page && this.currentTest.state === 'failed') await page.screenshot({ path: path.join(run.artifacts, 'restricted-failed.png') }).catch(() => {});
  });

  after(async function () {
    if (browser) await browser.close();
    if (cs) await cs.stop();
    if (run) run.cleanup();
  });

  it('in the extension host: diagnostics work; export, prompting and export on save are refused in code', async function () {
    const code = await Promise.race([hostExit, sleep(180000).then(() => 'timeout')]);
    const summary = hostLines.filter((l) => /✔|passing|failing|pending|^\s+\d+\) |Error|dsh\.export\.auto/.test(l));
    console.log(summary.map((l) => `      | ${l}`).join('\n'));
    assert.equal(code, 0, `the Restricted Mode suite failed (exit ${code}); host log: ${path.join(run.dir, 'host-log-restricted.txt')}`);
    assert.ok(hostLines.some((l) => /mocha \(restricted\): [1-9]\d* passed, 0 failed/.test(l)), 'no passing test reported');
  });

  it('in the workbench: the palette hides the export and input commands, offers verify', async function () {
    const QUICK = '.quick-input-widget';
    const titles = async (filter) => {
      await page.keyboard.press('Escape');
      await page.keyboard.press('F1');
      await page.locator(`${QUICK} input`).waitFor({ state: 'visible', timeout: 30000 });
      await page.locator(`${QUICK} input`).fill(`>${filter}`);
      await sleep(800);
      return page.locator(`${QUICK} .monaco-list-row .label-name`).allInnerTexts();
    };
    let shown = [];
    for (let i = 0; i < 40 && !shown.includes('DSH: Verify DSH Declaration'); i++) {
      shown = await titles('DSH:');
      await sleep(500);
    }
    console.log(`      palette "DSH:" in Restricted Mode: ${JSON.stringify(shown)}`);
    assert.ok(shown.includes('DSH: Verify DSH Declaration'), 'the extension\'s commands never showed up');
    assert.ok(shown.includes('DSH: Show Logs'));
    assert.ok(!shown.includes('DSH: Export MCP Servers to DSH'), 'export is offered in Restricted Mode');
    assert.ok(!shown.includes('DSH: Enter MCP Input Values...'), 'prompting for inputs is offered in Restricted Mode');
    const shot = path.join(run.artifacts, 'restricted-palette.png');
    await page.screenshot({ path: shot });
    await page.keyboard.press('Escape');
    log(`screenshot ${shot}`);
    assert.ok(!fs.existsSync(path.join(run.workspaces, 'ws-problems', '.dsh')));
  });
});
