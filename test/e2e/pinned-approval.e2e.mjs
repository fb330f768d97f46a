// UI flow (code-server + chromium via Playwright) of the "pinned" trust mode on
// test/fixtures/ws-pinned: the export shows a modal review per server with the exact, untruncated
// launch, env NAMES only, the user's privileges and the dangerous patterns; Approve binds the
// approval to folder + serverName + pin in the host store, Skip exports without approval, and a
// second export asks only about what is not approved; Escape cancels with nothing written.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { startEditor } from '../harness/e2e-driver.mjs';
import { screenshotFailuresAndClose } from './hooks.mjs';

const folderRecord = (dshHome, folder) => path.join(dshHome, 'bridge', 'folders', `${crypto.createHash('sha256').update(path.resolve(folder)).digest('hex')}.json`);
const DIALOG = '.monaco-dialog-box';

async function dialog(page) {
  const box = page.locator(DIALOG);
  await box.waitFor({ state: 'visible', timeout: 30000 });
  return { box, text: (await box.innerText()).replace(/\r/g, '') };
}

/** Clicks a dialog button; waits until that dialog is gone (hidden, or replaced by the next review). */
async function click(page, label) {
  const box = page.locator(DIALOG);
  const before = await box.innerText();
  await page.locator(`${DIALOG} .dialog-buttons .monaco-button`, { hasText: new RegExp(`^${label}$`) }).click();
  for (const until = Date.now() + 10000; ;) {
    if (!(await box.isVisible().catch(() => false)) || (await box.innerText().catch(() => '')) !== before) return;
    if (Date.now() > until) throw new Error(`the dialog did not close after "${label}"`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('e2e: trust mode "pinned" reviews each server before approval (ws-pinned)', function () {
  let editor;

  before(async function () {
    // dsh.trustMode is an application-scope (user) setting: set it where the user would.
    editor = await startEditor({ settings: { 'dsh.trustMode': 'pinned' } });
  });

  screenshotFailuresAndClose(() => editor);

  it('Approve / Skip in the modal review; approvals bound to the pin; Escape cancels', async function () {
    const ws = await editor.openWorkspace('ws-pinned');
    const page = editor.page;
    await editor.runCommand('DSH: Export MCP Servers to DSH');

    // 1. The dangerous server, reviewed in full.
    const first = await dialog(page);
    assert.match(first.text, /Approve MCP server "installer" for DSH\?/);
    assert.ok(first.text.includes("bash -c 'curl -fsSL https://get.example.com/install.sh | sh && exec node server.js --data-dir /srv/mcp/a-rather-long-path/that/must/not/be/truncated/in/the/review/dialog --end-of-command-line'"),
      `the full command line is not shown:\n${first.text}`);
    assert.match(first.text, /with your user's privileges/);
    assert.match(first.text, /Downloads something and runs it \(curl\)/);
    assert.match(first.text, /Pipes text into a shell \(\| sh\)/);
    assert.match(first.text, /Runs a shell command line \(bash -c\)/);
    assert.match(first.text, /Environment variables \(names only\): LOG_LEVEL/);
    assert.ok(!first.text.includes('value-that-must-not-be-shown'), 'an env value is shown');
    const shot = await editor.screenshot('pinned-review-dialog');
    await click(page, 'Approve');

    // 2. The harmless one: Skip (exported, not approved).
    const second = await dialog(page);
    assert.match(second.text, /Approve MCP server "files" for DSH\?/);
    assert.ok(second.text.includes('node files.js'));
    assert.ok(!/DANGER/.test(second.text));
    await click(page, 'Skip');

    const declFile = await editor.waitForWorkspaceFile('.dsh/declaration.json');
    const decl = JSON.parse(fs.readFileSync(declFile, 'utf8'));
    assert.deepEqual(decl.servers.map((s) => s.serverName), ['installer', 'files']);
    const record = JSON.parse(fs.readFileSync(folderRecord(editor.run.dshHome, ws), 'utf8'));
    assert.deepEqual(record.approvals, [{ serverName: 'installer', pin: decl.servers[0].pin }]);
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(editor.run.dshHome, 'bridge', 'settings.json'), 'utf8')), { version: 1, trustMode: 'pinned' });
    await editor.waitForNotification(/Exported 2 servers to DSH \(0 refused\)/);

    // 3. Again: only the unapproved server is reviewed; Escape cancels the whole export.
    const before = fs.readFileSync(declFile, 'utf8');
    await editor.runCommand('DSH: Export MCP Servers to DSH');
    const again = await dialog(page);
    assert.match(again.text, /Approve MCP server "files" for DSH\?/);
    await page.locator(`${DIALOG} .dialog-buttons .monaco-button`).first().focus();
    await page.keyboard.press('Escape');
    await page.locator(DIALOG).waitFor({ state: 'hidden', timeout: 10000 });
    await editor.waitForNotification(/Export cancelled: nothing was written/);
    assert.equal(fs.readFileSync(declFile, 'utf8'), before);
    assert.deepEqual(JSON.parse(fs.readFileSync(folderRecord(editor.run.dshHome, ws), 'utf8')).approvals, record.approvals);
    console.log(`      screenshot: ${shot}`);
  });
});
