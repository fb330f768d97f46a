// Reusable Playwright driver for UI flows in a real VS Code workbench (code-server), used by the
// e2e tier (test/e2e/*.e2e.mjs). One editor per test file:
//
//   const editor = await startEditor();                 // code-server + chromium, isolated run dir
//   const ws = await editor.openWorkspace('ws-basic');  // copy of test/fixtures/ws-basic, opened
//   await editor.runCommand('DSH: Export MCP Servers');
//   const rows = await editor.readProblems();           // [{ severity, message, source, code, codeHref, line, column, file }]
//   const picks = await editor.quickPickRows({ title }); // [{ label, description, checked }] of an open quick pick
//   await editor.quickPickToggleAll(); await editor.acceptQuickInput();   // multi-select: check all, OK
//   const titles = await editor.paletteTitles('DSH:');  // what F1 lists for ">DSH:"
//   console.log(await editor.screenshot('after-export'));
//   await editor.close();
//
// The extension under test is what users install: the repo packaged as a .vsix (as `npm run
// package` packs it, once per test process) and installed into the run's code-server. Only a flow that runs tests
// inside the extension host (hostTests) loads the repo's bundle as the extension under
// development, through the workbench `payload` (needs code-server's smoke-test-driver option);
// DSH_E2E_DEV=1 does so for every flow (quicker while writing one). startEditor({ vsix }) installs
// the given .vsix.
//
// Options of startEditor:
//   settings        user settings merged over the harness defaults (e.g. { 'dsh.trustMode': 'pinned' })
//   workspaceTrust  true: Workspace Trust on, folders open untrusted (Restricted Mode), no prompt
//   hostTests       a folder of *.test.js to run INSIDE the extension host as well: then
//                   openWorkspace(fixture, { hostTests: true }) starts them with the workspace and
//                   editor.hostTestsResult() gives { code, lines, logFile } once they finish; the
//                   workbench stays open for UI checks afterwards
//   env             extra environment of code-server (inherited by the extension host)
//   locale          'zh-cn': the workbench and the extension host in Simplified Chinese (a language
//                   pack built by language-pack.mjs is installed; code-server runs with --locale)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import util from 'node:util';
import {
  HarnessError, REPO, copyFixture, createRun, extensionDir, installVsix, launchBrowser, log, onInterrupt,
  recordConsole, requireBundle, sleep, startCodeServer, tools, workspaceTarget, writeUserSettings,
} from './lib.mjs';
import { installZhLanguagePack } from './language-pack.mjs';
import { packageVsix } from '../../scripts/package-vsix.mjs';

const QUICK_INPUT = '.quick-input-widget';
/**
 * The least time the driver (and the flows, through waitUntil) gives the workbench to reach a
 * state. Under load (2 cores, a CPU hog on each, other builds beside) a palette, a pick or a
 * notification can take many times its quiet time; a passing flow never waits this long.
 */
export const UI_WAIT_MS = 60000;

/**
 * Polls `probe` (sync or async) every `every` ms until it returns a truthy value, which it
 * returns; throws after `timeout` with `what` (a string, or a function read at that moment).
 */
export async function waitUntil(probe, what, { timeout = UI_WAIT_MS, every = 200 } = {}) {
  const until = Date.now() + timeout;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out after ${timeout} ms waiting for ${typeof what === 'function' ? await what() : what}`);
    await sleep(every);
  }
}
const DIALOG = '.monaco-dialog-box';
const HOST_RUNNER = path.join(REPO, 'test/integration/index.js');

let packaged;
/** Where the e2e tier's global setup (test/e2e/globalSetup.mjs) left the .vsix its parallel workers share. */
export const SHARED_VSIX_ENV = 'DSH_BRIDGE_E2E_VSIX';
/**
 * The repo packaged as users get it (`npm run package`'s packaging: the release bundles, the
 * shipped files made smaller, zopfli), made once per test run from the sources: by the e2e tier's
 * global setup for all its workers, else once per test process.
 */
export async function packagedVsix() {
  const shared = process.env[SHARED_VSIX_ENV];
  if (shared && fs.existsSync(shared)) return shared;
  if (packaged && fs.existsSync(packaged)) return packaged;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dshb-vsix-'));
  const out = path.join(dir, 'dsh-bridge.vsix');
  try {
    await packageVsix(out);
  } catch (error) {
    throw new HarnessError(`packaging failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  log(`packaged ${out}: ${fs.statSync(out).size} bytes`);
  packaged = out;
  return out;
}

export async function startEditor({
  vsix: given, tier = 'e2e', viewport = { width: 1400, height: 900 }, settings, workspaceTrust = false, hostTests, env = {}, locale,
} = {}) {
  const vsix = given ?? (hostTests || process.env.DSH_E2E_DEV === '1' ? undefined : await packagedVsix());
  const run = createRun(tier);
  log(`run dir ${run.dir}`);
  if (workspaceTrust) {
    writeUserSettings(run, { 'security.workspace.trust.enabled': true, 'security.workspace.trust.startupPrompt': 'never' });
  }
  if (settings) writeUserSettings(run, settings);
  if (hostTests && vsix) throw new HarnessError('hostTests needs the extension under development, not a vsix');
  let cs;
  let browserHandle;
  let unhook = () => {};
  const close = async () => {
    if (browserHandle) await browserHandle.close();
    browserHandle = undefined;
    if (cs) await cs.stop();
    cs = undefined;
    run.cleanup();
    unhook();
  };
  unhook = onInterrupt(close);
  try {
    if (vsix) {
      installVsix(run, vsix);
      log(`extension under test: ${vsix} (installed)`);
    }
    else log(`extension under test: ${requireBundle()}`);
    if (locale === 'zh-cn') installZhLanguagePack(run);
    else if (locale) throw new HarnessError(`no language pack for ${locale}`);
    const hostEnv = hostTests ? { DSH_BRIDGE_HOST_MOCHA: tools().hostMocha, DSH_BRIDGE_SUITE_DIR: path.resolve(REPO, hostTests) } : {};
    cs = await startCodeServer(run, { smokeTestDriver: !vsix, workspaceTrust, env: { ...hostEnv, ...env }, locale });
    log(`code-server pid ${cs.pid} on ${cs.url}${workspaceTrust ? ' (Workspace Trust on)' : ''}`);
    browserHandle = await launchBrowser(run, { viewport });
    const page = await browserHandle.context.newPage();
    recordConsole(page, run);
    const editor = new Editor({ run, cs, page, browserHandle, vsix, close, hostTests });
    if (hostTests) await editor._exposeHostHooks();
    return editor;
  } catch (e) {
    await close();
    throw e;
  }
}

class Editor {
  constructor({ run, cs, page, browserHandle, vsix, close, hostTests }) {
    this.run = run;
    this.cs = cs;
    this.page = page;
    this.browserHandle = browserHandle;
    this.vsix = vsix;
    this.hostTests = hostTests;
    this.workspace = undefined;
    this.close = close;
    this._host = undefined;
  }

  // The workbench reports the host test run through these two page functions (see
  // run-integration.mjs); they can be exposed once per page, before it loads. What the host
  // prints goes to <run>/host-log-<suite folder>.txt, as in the integration tier.
  get _hostLogFile() { return path.join(this.run.dir, `host-log-${path.basename(this.hostTests)}.txt`); }

  async _exposeHostHooks() {
    const logFile = this._hostLogFile;
    await this.page.exposeFunction('codeAutomationLog', (level, args) => {
      const line = util.format(...(Array.isArray(args) ? args : [args]));
      fs.appendFileSync(logFile, `[${level}] ${line}\n`);
      if (this._host) this._host.lines.push(line);
    });
    await this.page.exposeFunction('codeAutomationExit', (code) => {
      if (this._host) this._host.report(Number(code));
    });
  }

  /**
   * Result of the host tests started by openWorkspace(fixture, { hostTests: true }):
   * { code (0 = passed), lines (what the extension host printed), logFile (the same, on disk) }.
   */
  async hostTestsResult({ timeout = 900000 } = {}) {
    if (!this._host) throw new HarnessError('no host tests started: openWorkspace(fixture, { hostTests: true })');
    const code = await Promise.race([this._host.exit, sleep(timeout).then(() => 'timeout')]);
    if (code === 'timeout') throw new Error(`the host tests reported nothing within ${timeout} ms (log: ${this._hostLogFile})`);
    return { code, lines: this._host.lines, logFile: this._hostLogFile };
  }

  /** Artifacts folder of this run (screenshots etc.). */
  get artifacts() { return this.run.artifacts; }

  /** Origins the browser refused to contact (anything not loopback). */
  get blockedOrigins() { return [...this.browserHandle.blocked]; }

  /**
   * Opens a COPY of test/fixtures/<fixture> in the workbench and waits until the explorer lists
   * it. Returns the copy's path (assert on files there; the fixture itself is never touched).
   * A fixture with a `*.code-workspace` file at its top opens as that multi-root workspace.
   */
  async openWorkspace(fixture, { hostTests = false, prepare } = {}) {
    const folder = copyFixture(this.run, fixture);
    prepare?.(folder); // files a test needs in the copy before the editor opens it
    const payload = this.vsix ? [] : [['extensionDevelopmentPath', this.cs.remoteUri(extensionDir())]];
    if (hostTests) {
      if (!this.hostTests) throw new HarnessError('startEditor({ hostTests: <suite folder> }) first');
      let report;
      const exit = new Promise((r) => { report = r; });
      this._host = { lines: [], exit, report };
      payload.push(['extensionTestsPath', this.cs.remoteUri(HOST_RUNNER)]);
    }
    const t = performance.now();
    const target = workspaceTarget(folder);
    await this.page.goto(this.cs.workbenchUrl(target, payload));
    await this.page.locator('.monaco-workbench').waitFor({ timeout: 120000 });
    const listed = this.page.locator('.explorer-folders-view .monaco-list-row').first();
    // A multi-root workspace opened on a loaded machine can come up with none of its folders
    // ("You have not yet added a folder to the workspace.": the workbench's read of the
    // .code-workspace file lost a race, and it does not read it again): the page is loaded again,
    // at most twice. A folder never comes up empty this way; host tests would start again.
    const noFolder = this.page.locator('.explorer-viewlet', { hasText: 'You have not yet added a folder to the workspace.' });
    for (let reloads = 0; ; reloads++) {
      const shown = await waitUntil(async () => (await listed.isVisible().catch(() => false) ? 'listed'
        : await noFolder.isVisible().catch(() => false) ? 'empty' : undefined), `the explorer to list ${fixture}`, { timeout: 120000 });
      if (shown === 'listed') break;
      if (!target.endsWith('.code-workspace') || hostTests || reloads === 2) {
        await listed.waitFor({ timeout: 120000 });
        break;
      }
      log(`workspace ${fixture} came up without its folders: loading the page again`);
      await this.page.reload();
      await this.page.locator('.monaco-workbench').waitFor({ timeout: 120000 });
    }
    log(`workspace ${fixture} open after ${Math.round(performance.now() - t)} ms`);
    this.workspace = folder;
    return folder;
  }

  /**
   * Runs a command by its palette title ("Category: Title") through F1. Commands of remote
   * extensions register a few seconds after the workbench shows, and an open palette does not
   * refresh, so this retries until the row is there; it then clicks that row (an exact label
   * match), rather than pressing Enter on whatever is first.
   */
  async runCommand(title, { timeout = 2 * UI_WAIT_MS } = {}) {
    const page = this.page;
    const until = Date.now() + timeout;
    for (let attempt = 1; ; attempt++) {
      await this._openPalette(title);
      const row = page.locator(`${QUICK_INPUT} .monaco-list-row`)
        .filter({ has: page.locator('.label-name', { hasText: new RegExp(`^${escapeRegExp(title)}$`) }) }).first();
      try {
        // Each attempt waits longer for the row: a loaded workbench filters the list slowly, and
        // reopening the palette at a fixed short pace could then never see it.
        await row.waitFor({ state: 'visible', timeout: Math.min(2000 * attempt, 15000) });
        await row.click();
        await this._paletteGone();
        log(`ran command "${title}"`);
        return;
      } catch (e) {
        if (Date.now() > until) {
          const shot = await this.screenshot(`command-not-found-${slug(title)}`);
          throw new Error(`command "${title}" never showed up in the palette (screenshot ${shot})`);
        }
        await sleep(500);
      }
    }
  }

  /**
   * Titles the command palette (F1) lists for `filter`, e.g. to check which commands are offered
   * or hidden. Only the rows that fit on screen are rendered: filter narrowly.
   * Commands of remote extensions register late and an open palette does not refresh, so with
   * `waitFor` (a title) it reopens the palette until that title is listed or `timeout` passes,
   * then returns what is shown either way (assert on it). The palette is closed again unless
   * `keepOpen` (e.g. to have it in a screenshot).
   */
  async paletteTitles(filter, { waitFor, timeout = 2 * UI_WAIT_MS, keepOpen = false } = {}) {
    const until = Date.now() + timeout;
    let titles;
    for (;;) {
      await this._openPalette(filter);
      titles = await this._settledPaletteTitles();
      if (!waitFor || titles.includes(waitFor) || Date.now() > until) break;
      await sleep(500);
    }
    if (!keepOpen) await this.page.keyboard.press('Escape');
    return titles;
  }

  // The palette's titles once its list has filtered (it does so asynchronously, slower under
  // load): the quick input's progress bar is hidden and two reads 300 ms apart agree. Not a
  // fixed pause, which a loaded workbench outlasts.
  async _settledPaletteTitles() {
    const rows = this.page.locator(`${QUICK_INPUT} .monaco-list-row .label-name`);
    const busy = this.page.locator(`${QUICK_INPUT} .quick-input-progress.active .progress-bit`);
    let last;
    return waitUntil(async () => {
      const titles = await rows.allInnerTexts();
      const settled = !(await busy.isVisible().catch(() => false)) && last !== undefined && JSON.stringify(titles) === JSON.stringify(last);
      last = titles;
      return settled ? titles : undefined;
    }, () => `the palette's list to settle (last read ${JSON.stringify(last)})`, { every: 300 });
  }

  // The palette has given way: hidden, or showing what the command opened (its own pick or input
  // box, whose value does not start with ">"). Waiting for "hidden" alone waited out the whole
  // UI_WAIT_MS after every command that opens a pick (a minute each, three in the walkthrough).
  async _paletteGone() {
    const widget = this.page.locator(QUICK_INPUT);
    const input = this.page.locator(`${QUICK_INPUT} input`);
    await waitUntil(async () => {
      if (!(await widget.isVisible().catch(() => false))) return true;
      const value = await input.inputValue({ timeout: 1000 }).catch(() => undefined);
      return value !== undefined && !value.startsWith('>');
    }, 'the command palette to close', { every: 100 }).catch(() => {});
  }

  // Opens the command palette with `>text` typed in. A palette left open (by a previous attempt)
  // is closed first; a bare Escape would also hide toasts.
  // F1 pressed while the last palette is still closing (its input visible but inert) can leave no
  // palette open: the fill then finds none; press F1 again.
  async _openPalette(text) {
    const input = this.page.locator(`${QUICK_INPUT} input`);
    const until = Date.now() + UI_WAIT_MS;
    for (;;) {
      if (await input.isVisible().catch(() => false)) await this.page.keyboard.press('Escape');
      await this.page.keyboard.press('F1');
      try {
        await input.waitFor({ state: 'visible', timeout: 5000 });
        await input.fill(`>${text}`, { timeout: 5000 });
        return;
      } catch (e) {
        if (Date.now() > until) throw e;
      }
    }
  }

  /** Types into the open quick input (input box or quick pick) and confirms with Enter. */
  async answerQuickInput(text, { timeout = UI_WAIT_MS } = {}) {
    const input = this.page.locator(`${QUICK_INPUT} input`);
    await input.waitFor({ state: 'visible', timeout });
    await input.fill(text);
    await this.page.keyboard.press('Enter');
  }

  /**
   * Rows of the open quick pick: [{ label, description, checked }] (`checked` is null when the
   * pick has no checkboxes). Waits up to `timeout` until the quick input shows `title` (when
   * given; e.g. a pick a command opens after the palette closed) and lists at least `atLeast` rows.
   */
  async quickPickRows({ title, atLeast = 1, timeout = UI_WAIT_MS } = {}) {
    const widget = this.page.locator(QUICK_INPUT);
    const until = Date.now() + timeout;
    for (;;) {
      const shown = await widget.isVisible().catch(() => false);
      const shownTitle = shown ? (await widget.locator('.quick-input-title').innerText().catch(() => '')).trim() : '';
      if (shown && (title === undefined || shownTitle === title)) {
        const rows = await widget.locator('.monaco-list-row').evaluateAll((els) => els.map((el) => {
          const box = el.querySelector('[role="checkbox"]');
          return {
            label: ((el.querySelector('.label-name') || { innerText: '' }).innerText || '').trim(),
            description: ((el.querySelector('.label-description') || { innerText: '' }).innerText || '').trim(),
            checked: box ? box.getAttribute('aria-checked') === 'true' : null,
            text: (el.innerText || '').replace(/\s+/g, ' ').trim(),
          };
        }));
        if (rows.length >= atLeast) return rows;
      }
      if (Date.now() > until) {
        throw new Error(`no quick pick${title ? ` titled "${title}"` : ''} with ${atLeast} row(s) within ${timeout} ms (shown: ${shown}, title "${shownTitle}")`);
      }
      await sleep(200);
    }
  }

  /** The row of the open quick pick whose label contains `label`. */
  quickPickRow(label) {
    return this.page.locator(`${QUICK_INPUT} .monaco-list-row`).filter({ has: this.page.locator('.label-name', { hasText: label }) }).first();
  }

  /** Multi-select quick pick: clicks the checkbox of the row whose label contains `label`. */
  async quickPickToggleRow(label) {
    const box = this.quickPickRow(label).locator('[role="checkbox"], .quick-input-list-checkbox').first();
    const before = await box.getAttribute('aria-checked');
    await box.click();
    await waitUntil(async () => (await box.getAttribute('aria-checked')) !== before, `the checkbox of "${label}" to change from ${before}`, { every: 100 });
  }

  /** Clicks the item button (by its tooltip) of the quick pick row whose label contains `label`. */
  async quickPickRowButton(label, tooltip) {
    const row = this.quickPickRow(label);
    await row.hover();
    await row.locator(`.action-label[aria-label=${JSON.stringify(tooltip)}], .action-label[title=${JSON.stringify(tooltip)}]`).first().click();
  }

  /** Multi-select quick pick: checks (or, with false, unchecks) every row with its "toggle all" box. */
  async quickPickToggleAll(checked = true) {
    const box = this.page.locator(`${QUICK_INPUT} .quick-input-header > [role="checkbox"]`);
    await box.waitFor({ state: 'visible', timeout: UI_WAIT_MS });
    // From "mixed" one click may give the other state: click, wait for the box to change, again.
    for (let i = 0; i < 3 && (await box.getAttribute('aria-checked')) !== String(checked); i++) {
      const before = await box.getAttribute('aria-checked');
      await box.click();
      await waitUntil(async () => (await box.getAttribute('aria-checked')) !== before, `the "toggle all" box to change from ${before}`, { every: 100 });
    }
    if ((await box.getAttribute('aria-checked')) !== String(checked)) throw new Error(`the "toggle all" box did not become ${checked}`);
  }

  /** Confirms the open quick input: its OK button when shown (multi-select picks), else Enter. */
  async acceptQuickInput() {
    const ok = this.page.locator(`${QUICK_INPUT} .quick-input-action .monaco-button`).first();
    if (await ok.isVisible().catch(() => false)) await ok.click();
    else await this.page.keyboard.press('Enter');
    await this.page.locator(QUICK_INPUT).waitFor({ state: 'hidden', timeout: UI_WAIT_MS });
  }

  /**
   * Opens the Problems panel and returns its marker rows, parsed from the page:
   * { severity: 'error'|'warning'|'info', message, source, code, codeHref (the code's link), line, column, file, text }.
   * `line`/`column` are 1-based as displayed. Waits up to `timeout` for at least `atLeast` rows.
   */
  async readProblems({ atLeast = 1, timeout = UI_WAIT_MS } = {}) {
    const page = this.page;
    if (!(await page.locator('.markers-panel').isVisible().catch(() => false))) {
      await this.runCommand('Problems: Focus on Problems View'); // VS Code 1.139's title
      await page.locator('.markers-panel').waitFor({ state: 'visible', timeout: UI_WAIT_MS });
    }
    const until = Date.now() + timeout;
    let rows = [];
    for (;;) {
      rows = await page.locator('.markers-panel .monaco-list-row').evaluateAll((els) => els.map((el) => ({
        aria: el.getAttribute('aria-label') || '',
        text: (el.innerText || '').replace(/\s+/g, ' ').trim(),
        hasMarker: !!el.querySelector('.marker-message-details, .marker-icon'),
        severityClass: (el.querySelector('.marker-icon') || { className: '' }).className,
        message: (el.querySelector('.marker-message') || el.querySelector('.marker-message-line') || { innerText: '' }).innerText,
        source: (el.querySelector('.marker-source') || { innerText: '' }).innerText,
        code: (el.querySelector('.marker-code') || { innerText: '' }).innerText,
        codeHref: el.querySelector('.marker-code')?.closest('a.monaco-link')?.getAttribute('href') || '',
        position: (el.querySelector('.marker-line') || { innerText: '' }).innerText,
        file: (el.querySelector('.file-icon .label-name, .monaco-icon-label .label-name') || { innerText: '' }).innerText,
      })));
      const markers = parseProblemRows(rows);
      if (process.env.DSH_BRIDGE_DEBUG_PROBLEMS) console.log(JSON.stringify(rows, null, 1));
      if (markers.length >= atLeast || Date.now() > until) return markers;
      await sleep(250);
    }
  }

  /**
   * Clicks the Problems row whose text contains `text` (the panel must be open, see
   * readProblems) and waits for the editor to open there; returns what the status bar shows:
   * { line, column, selected } (VS Code selects the problem's range, the cursor at its end).
   */
  async openProblem(text, { timeout = UI_WAIT_MS } = {}) {
    const page = this.page;
    const row = page.locator('.markers-panel .monaco-list-row', { hasText: text }).first();
    await row.click();
    const selection = page.locator('#status\\.editor\\.selection');
    const until = Date.now() + timeout;
    for (;;) {
      const shown = await selection.innerText().catch(() => '');
      const m = /Ln (\d+), Col (\d+)/.exec(shown);
      if (m && await page.locator('.editor-group-container .monaco-editor').first().isVisible()) {
        const sel = /\((\d+) selected\)/.exec(shown);
        return { line: Number(m[1]), column: Number(m[2]), selected: sel ? Number(sel[1]) : 0 };
      }
      if (Date.now() > until) throw new Error(`no editor opened at the problem "${text}" (status bar: "${shown}")`);
      await sleep(200);
    }
  }

  /**
   * Opens the light bulb menu (Ctrl+.) at the cursor of the focused editor and returns its row
   * titled `title`, visible. A key press can land while the editor is still taking the focus or
   * VS Code is still asking the providers (the light bulb shows, the menu does not): then the
   * menu is closed and asked for again, until `timeout`. The row must appear; nothing is skipped.
   */
  async quickFixRow(title, { timeout = UI_WAIT_MS } = {}) {
    const page = this.page;
    const row = page.locator('.action-widget .monaco-list-row', { hasText: title }).first();
    const until = Date.now() + timeout;
    for (;;) {
      await page.keyboard.press('Control+.');
      const shown = await row.waitFor({ state: 'visible', timeout: 4000 }).then(() => true, () => false);
      if (shown) return row;
      if (Date.now() > until) throw new Error(`the light bulb menu offered no "${title}" within ${timeout} ms`);
      await page.keyboard.press('Escape');
      await sleep(300);
    }
  }

  /**
   * Texts of the notifications, read from the notification center (in this workbench the toasts
   * of a development host do not always show, the center always lists them). The center is
   * closed again unless `keepOpen` (e.g. to have it in a screenshot).
   */
  async notifications({ keepOpen = false } = {}) {
    const center = this.page.locator('.notifications-center');
    const wasOpen = await center.isVisible().catch(() => false);
    if (!wasOpen) {
      await this.runCommand('Notifications: Show Notifications');
      await center.waitFor({ state: 'visible', timeout: UI_WAIT_MS });
    }
    const texts = (await center.locator('.notification-list-item .notification-list-item-message').allInnerTexts())
      .map((s) => s.replace(/\s+/g, ' ').trim());
    if (!wasOpen && !keepOpen) await this.runCommand('Notifications: Hide Notifications');
    return texts;
  }

  /** Waits for a notification whose text matches `re`; returns its text. */
  async waitForNotification(re, { timeout = UI_WAIT_MS } = {}) {
    const until = Date.now() + timeout;
    for (;;) {
      const hit = (await this.notifications()).find((t) => re.test(t));
      if (hit) return hit;
      if (Date.now() > until) throw new Error(`no notification matching ${re} within ${timeout} ms; shown: ${JSON.stringify(await this.notifications())}`);
      await sleep(500);
    }
  }

  /**
   * Clicks the button `label` of the notification whose text matches `re` (waits for it), in the
   * notification center, which lists every notification; the center is closed again after.
   */
  async clickNotificationButton(re, label, { timeout = UI_WAIT_MS } = {}) {
    await this.waitForNotification(re, { timeout });
    const center = this.page.locator('.notifications-center');
    if (!(await center.isVisible().catch(() => false))) {
      await this.runCommand('Notifications: Show Notifications');
      await center.waitFor({ state: 'visible', timeout: UI_WAIT_MS });
    }
    const item = center.locator('.notification-list-item', { has: this.page.locator('.notification-list-item-message', { hasText: re }) }).first();
    await item.locator('.monaco-button', { hasText: new RegExp(`^${escapeRegExp(label)}$`) }).first().click();
    if (await center.isVisible().catch(() => false)) await this.runCommand('Notifications: Hide Notifications');
  }

  /** The open modal dialog: waits for it; returns its text. */
  async dialog({ timeout = UI_WAIT_MS } = {}) {
    const box = this.page.locator(DIALOG);
    await box.waitFor({ state: 'visible', timeout });
    return (await box.innerText()).replace(/\r/g, '');
  }

  /** Clicks a button of the open modal dialog; waits until that dialog is gone (hidden, or replaced by the next one). */
  async clickDialogButton(label, { timeout = UI_WAIT_MS } = {}) {
    const box = this.page.locator(DIALOG);
    const before = await box.innerText();
    await this.page.locator(`${DIALOG} .dialog-buttons .monaco-button`, { hasText: new RegExp(`^${escapeRegExp(label)}$`) }).click();
    for (const until = Date.now() + timeout; ;) {
      if (!(await box.isVisible().catch(() => false)) || (await box.innerText().catch(() => '')) !== before) return;
      if (Date.now() > until) throw new Error(`the dialog did not close after "${label}"`);
      await sleep(100);
    }
  }

  /**
   * The status bar item an extension created with `createStatusBarItem(id)` (its element id ends
   * with the id): waits until its text matches `text` (when given); returns { text, locator }.
   */
  async statusBarItem(id, { text, timeout = UI_WAIT_MS } = {}) {
    const item = this.page.locator(`.statusbar-item[id$=${JSON.stringify(`.${id}`)}]`).first();
    const until = Date.now() + timeout;
    for (;;) {
      const shown = (await item.innerText({ timeout: 1000 }).catch(() => '')).replace(/\s+/g, ' ').trim();
      if (shown && (!text || text.test(shown))) return { text: shown, locator: item };
      if (Date.now() > until) throw new Error(`status bar item ${id} did not show ${text ?? 'anything'} within ${timeout} ms (shows "${shown}")`);
      await sleep(250);
    }
  }

  /**
   * Hovers `target` until a hover holding `text` is visible, and returns that hover. One hover can
   * miss: an element re-rendered under a mouse that does not move gets no new mouseenter, and a
   * hover opened before the content changed keeps its old text. So the mouse leaves and comes back
   * until the hover shows (bounded by `timeout`).
   */
  async hoverFor(target, text, { timeout = UI_WAIT_MS } = {}) {
    const hover = this.page.locator('.monaco-hover, .workbench-hover', { hasText: text }).first();
    await waitUntil(async () => {
      if (await hover.isVisible().catch(() => false)) return true;
      await this.page.mouse.move(1, 1);
      await target.hover({ timeout: 5000 }).catch(() => {});
      return hover.waitFor({ state: 'visible', timeout: 3000 }).then(() => true, () => false);
    }, () => `a hover with ${JSON.stringify(String(text))}`, { timeout });
    return hover;
  }

  /**
   * Saves the active editor as a user does (Ctrl+S) and waits until its tab is clean and `file`
   * (when given) holds `expect` (a RegExp). Under load the workbench aborts the save participants
   * after 1750 ms ("Aborted onWillSaveTextDocument-event") and may cancel the save: while the tab
   * stays dirty, the key is pressed again (at most once per 5 s), until UI_WAIT_MS.
   */
  async saveActiveEditor({ file, expect } = {}) {
    const dirty = this.page.locator('.tab.active.dirty');
    let presses = 0;
    let pressedAt = 0;
    await waitUntil(async () => {
      const isDirty = await dirty.isVisible().catch(() => false);
      if (!isDirty && (!file || expect.test(fs.readFileSync(file, 'utf8')))) return true;
      if (isDirty && Date.now() - pressedAt > 5000) {
        presses++;
        pressedAt = Date.now();
        await this.page.keyboard.press('Control+s');
      }
      return false;
    }, () => `the active editor to be saved (${presses} Ctrl+S)`);
  }

  /** Saves a PNG (or a JPEG) of the whole page (or of `clip`: {x, y, width, height}) under the run's artifacts/; returns its path. */
  async screenshot(name, { clip, jpeg = false } = {}) {
    const file = path.join(this.run.artifacts, `${slug(name)}.${jpeg ? 'jpg' : 'png'}`);
    await this.page.screenshot({ path: file, clip, ...(jpeg ? { type: 'jpeg', quality: 80 } : {}) });
    log(`screenshot ${file}`);
    return file;
  }

  /** Waits until `relPath` exists in the open workspace copy; returns its absolute path. */
  async waitForWorkspaceFile(relPath, { timeout = UI_WAIT_MS } = {}) {
    if (!this.workspace) throw new HarnessError('no workspace open');
    const file = path.join(this.workspace, relPath);
    const until = Date.now() + timeout;
    while (!fs.existsSync(file)) {
      if (Date.now() > until) throw new Error(`${relPath} did not appear in the workspace within ${timeout} ms`);
      await sleep(100);
    }
    return file;
  }
}

// Problems rows: file rows (a resource with its count) and marker rows. A marker row's children
// carry the message, the source, the code and "[Ln L, Col C]".
function parseProblemRows(rows) {
  const out = [];
  let file = '';
  for (const r of rows) {
    const pos = /Ln (\d+), Col (\d+)/.exec(r.position || r.text);
    if (!r.hasMarker || !pos) {
      if (r.file) file = r.file;
      continue;
    }
    let severity = 'info';
    if (/codicon-error|\berror\b/i.test(r.severityClass) || /^Error/i.test(r.aria)) severity = 'error';
    else if (/warning/i.test(r.severityClass) || /^Warning/i.test(r.aria)) severity = 'warning';
    const code = (r.code || '').replace(/^\(|\)$/g, '').trim();
    out.push({
      severity,
      message: (r.message || '').trim(),
      source: (r.source || '').trim(),
      code,
      codeHref: r.codeHref || '',
      line: Number(pos[1]),
      column: Number(pos[2]),
      file,
      text: r.text,
    });
  }
  return out;
}

function escapeRegExp(s) { return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'); }
function slug(s) { return String(s).toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^-|-$/g, '').slice(0, 80); }
