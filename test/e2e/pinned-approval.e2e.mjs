// UI flow (code-server + chromium via Playwright) of the "pinned" trust mode on
// test/fixtures/ws-pinned: the export shows one checklist of every server to review (launch,
// dangers, the unpinned-launcher note the editor shows too, a short pin), nothing checked, with
// the full modal review (exact, untruncated launch, env NAMES only, the full pin on request) one
// click away. A flagged launch (a danger, an unpinned launcher) is asked as VS Code asks before
// it trusts an MCP server: a warning, Skip the default button, so Enter and Escape never approve
// it; checked in the list, it gets its full review on OK. Approvals are bound to folder +
// serverName + pin in the host store, unchecked servers are exported unapproved and said so, and
// a second export asks only about what is not approved; Escape cancels with nothing written. A
// launch whose argument carries a carriage return, ANSI codes and a bidi override is reviewed with
// them escaped and the dangers they hid.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { UI_WAIT_MS, waitUntil } from '../harness/e2e-driver.mjs';
import { suiteEditor } from './hooks.mjs';

const folderRecord = (dshHome, folder) => path.join(dshHome, 'bridge', 'folders', `${crypto.createHash('sha256').update(path.resolve(folder)).digest('hex')}.json`);
const DIALOG = '.monaco-dialog-box';
const dialog = async (editor) => ({ text: await editor.dialog() });
const click = (editor, label) => editor.clickDialogButton(label);

describe('e2e: trust mode "pinned" reviews each server before approval (ws-pinned)', function () {
  let ws;
  // dsh.trustMode is an application-scope (user) setting: set it where the user would.
  const editor = suiteEditor({ settings: { 'dsh.trustMode': 'pinned' } });

  /** The open dialog: its text, its icon (warning / info) and the label of the focused button (what Enter presses). */
  const dialogState = async () => {
    const text = await editor.dialog();
    const page = editor.page;
    const icon = await page.locator(`${DIALOG} .dialog-icon`).first().getAttribute('class');
    // The dialog takes the focus a moment after it shows (longer under load): wait for a focused button.
    const focused = await waitUntil(() => page.evaluate(() => (document.activeElement?.closest('.monaco-button') ? document.activeElement.textContent.trim() : '')),
      'a focused button in the dialog', { every: 100 });
    return { text, icon: /codicon-(dialog-)?warning\b/.test(icon) ? 'warning' : /codicon-(dialog-)?info\b/.test(icon) ? 'info' : icon, focused };
  };
  const dialogGone = () => editor.page.locator(DIALOG).waitFor({ state: 'hidden', timeout: UI_WAIT_MS });

  it('one review of all servers: nothing checked; a flagged launch never one keypress from approval; approvals bound to the pin; Escape cancels', async function () {
    ws = await editor.openWorkspace('ws-pinned');
    const page = editor.page;
    await editor.runCommand('DSH: Export MCP Servers');

    // 1. One checklist of every server to review: NOTHING checked; the dangerous one and the unpinned launcher flagged as in the editor.
    const title = 'Approve MCP servers of ws-pinned for DSH';
    const rows = await editor.quickPickRows({ title, atLeast: 3 });
    const row = (name) => rows.find((r) => r.label.includes(name));
    assert.deepEqual(rows.map((r) => [r.label.replace(/^\W+/, ''), r.checked]), [['installer', false], ['files', false], ['fetch', false]]);
    assert.match(row('installer').text, /Downloads something and runs it \(curl\)/);
    assert.match(row('fetch').text, /uvx mcp-server-fetch/);
    assert.match(row('fetch').text, /uvx runs whatever version is newest at start/);
    for (const r of rows) assert.match(r.description, /^pin sha256:[0-9a-f]{12}\u2026$/, `short pin of ${r.label}`);
    // The flagged rows carry the warning icon, the plain one does not.
    const icons = await page.locator('.quick-input-widget .monaco-list-row').evaluateAll((els) => els.map((el) => !!el.querySelector('.label-name .codicon-warning')));
    assert.deepEqual(icons, [true, false, true], 'warning icons of installer, files, fetch');
    const listShot = await editor.screenshot('pinned-review-checklist');

    // 2. The full review of the dangerous one: a warning; Skip is focused, so Enter skips it.
    await editor.quickPickRowButton('installer', 'Show the full review');
    let first = await dialogState();
    assert.match(first.text, /Approve MCP server "installer" for DSH\?/);
    assert.deepEqual([first.icon, first.focused], ['warning', 'Skip'], 'a flagged launch: warning icon, Skip the default button');
    await page.keyboard.press('Enter');
    await dialogGone();
    let back = await editor.quickPickRows({ title, atLeast: 3 });
    assert.equal(back.find((r) => r.label.includes('installer')).checked, false, 'Enter in the review of a flagged server approved it');

    // Again: the untruncated launch, the short pin, the full pin on request, then a click on Approve.
    await editor.quickPickRowButton('installer', 'Show the full review');
    first = await dialogState();
    assert.ok(first.text.includes("bash -c 'curl -fsSL https://get.example.com/install.sh | sh && exec node server.js --data-dir /srv/mcp/a-rather-long-path/that/must/not/be/truncated/in/the/review/dialog --end-of-command-line'"),
      `the full command line is not shown:\n${first.text}`);
    assert.match(first.text, /with your user's privileges/);
    assert.match(first.text, /Downloads something and runs it \(curl\)/);
    assert.match(first.text, /Pipes text into a shell \(\| sh\)/);
    assert.match(first.text, /Runs a shell command line \(bash -c\)/);
    assert.match(first.text, /Environment variables \(names only\): LOG_LEVEL/);
    assert.ok(!first.text.includes('value-that-must-not-be-shown'), 'an env value is shown');
    assert.equal(first.text.split(ws).length - 1, 1, `the folder is said more than once:\n${first.text}`);
    assert.doesNotMatch(first.text, /Working folder/);
    assert.match(first.text, /Pin: sha256:[0-9a-f]{12}\u2026/);
    const shot = await editor.screenshot('pinned-review-dialog');
    await click(editor, 'Show Full Pin');
    const full = await dialog(editor);
    assert.match(full.text, /Pin: sha256:[0-9a-f]{64}\b/);
    await editor.screenshot('pinned-review-dialog-full-pin');
    await click(editor, 'Approve');

    // 3. Back in the checklist: installer now checked. Check files (plain) and fetch (flagged) in the list; OK.
    // The checklist comes back before its selection is redrawn: read it until the row is checked.
    let after = await editor.quickPickRows({ title, atLeast: 3 });
    for (const until = Date.now() + UI_WAIT_MS; !after.find((r) => r.label.includes('installer')).checked && Date.now() < until;) {
      await new Promise((r) => setTimeout(r, 200));
      after = await editor.quickPickRows({ title, atLeast: 3 });
    }
    assert.equal(after.find((r) => r.label.includes('installer')).checked, true, 'Approve in the full review did not check the row');
    await editor.quickPickToggleRow('files');
    await editor.quickPickToggleRow('fetch');
    assert.deepEqual((await editor.quickPickRows({ title, atLeast: 3 })).map((r) => r.checked), [true, true, true]);
    await editor.acceptQuickInput();

    // 4. fetch was checked in the list, never reviewed: its full review comes first, and Enter skips it.
    const fetchReview = await dialogState();
    assert.match(fetchReview.text, /Approve MCP server "fetch" for DSH\?/);
    assert.match(fetchReview.text, /uvx runs whatever version is newest at start/);
    assert.deepEqual([fetchReview.icon, fetchReview.focused], ['warning', 'Skip']);
    console.log(`      screenshot: ${await editor.screenshot('pinned-review-flagged-on-ok')}`);
    await page.keyboard.press('Enter');

    const declFile = await editor.waitForWorkspaceFile('.dsh/declaration.json');
    const decl = JSON.parse(fs.readFileSync(declFile, 'utf8'));
    assert.deepEqual(decl.servers.map((s) => s.serverName), ['installer', 'files', 'fetch']);
    const record = JSON.parse(fs.readFileSync(folderRecord(editor.run.dshHome, ws), 'utf8'));
    assert.deepEqual(record.approvals, [{ serverName: 'installer', pin: decl.servers[0].pin }, { serverName: 'files', pin: decl.servers[1].pin }]);
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(editor.run.dshHome, 'bridge', 'settings.json'), 'utf8')), { version: 1, trustMode: 'pinned' });
    // The skipped approval is said, in the notification and in the status bar.
    await editor.waitForNotification(/^Exported 3 MCP servers to DSH\. fetch is not approved: DSH will ask before it starts it\.$/);
    await editor.statusBarItem('dsh-bridge.status', { text: /DSH: not approved/ });
    console.log(`      screenshot: ${await editor.screenshot('pinned-status-not-approved')}`);

    // 5. Again: only the unapproved (flagged) server is reviewed, in the modal; Escape cancels the whole export.
    const before = fs.readFileSync(declFile, 'utf8');
    await editor.runCommand('DSH: Export MCP Servers');
    const again = await dialogState();
    assert.match(again.text, /Approve MCP server "fetch" for DSH\?/);
    assert.deepEqual([again.icon, again.focused], ['warning', 'Skip']);
    await page.keyboard.press('Escape');
    await dialogGone();
    await editor.waitForNotification(/Export cancelled: nothing was written/);
    assert.equal(fs.readFileSync(declFile, 'utf8'), before);
    assert.deepEqual(JSON.parse(fs.readFileSync(folderRecord(editor.run.dshHome, ws), 'utf8')).approvals, record.approvals);
    console.log(`      screenshots: ${listShot} ${shot}`);
  });

  it('a name and an argument that repaint the line or reverse it are reviewed escaped, with the dangers they hid', async function () {
    if (!ws) this.skip();
    const page = editor.page;
    const attack = '--import=data:text/javascript,void 0\r\u001b[2K    node';
    fs.writeFileSync(path.join(ws, '.vscode/mcp.json'), JSON.stringify({ servers: { 'docs\u202etxt.exe': { command: 'node', args: [attack, './mcp-server.js'] } } }, null, 2));
    await editor.runCommand('DSH: Export MCP Servers');
    await dialog(editor);
    const raw = await page.locator(DIALOG).innerText();
    assert.ok(!/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/.test(raw), `the dialog shows a hidden character raw: ${JSON.stringify(raw)}`);
    assert.match(raw, /Approve MCP server "docs\\u\{202e\}txt\.exe" for DSH\?/);
    assert.ok(raw.includes(`node '--import=data:text/javascript,void 0\\r\\x1b[2K    node' ./mcp-server.js`), `the launch is not shown escaped:\n${raw}`);
    assert.match(raw, /Loads another module before the server's code \(node --import\)/);
    assert.match(raw, /Loads code from a data: URL on the command line/);
    assert.match(raw, /An argument holds characters that change how it is shown \(.*\\r\\x1b\[2K {4}node\)/);
    console.log(`      screenshot: ${await editor.screenshot('pinned-review-hidden-characters')}`);
    await click(editor, 'Skip');
    await editor.waitForNotification(/is not approved: DSH will ask before it starts it\./);
  });
});
