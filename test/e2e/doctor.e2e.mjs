// UI flow in a real VS Code workbench (code-server + chromium via Playwright), on the installed
// .vsix: F1 > "DSH: Diagnose Setup (Doctor)" on test/fixtures/ws-export, on a machine
// without DSH (the run's fresh DSH home). The user sees the report in a read-only view (a
// webview: closing it asks nothing), which profile it diagnosed and why, each fix listed once in
// the editor's words with a button that runs the editor's own command (a command line only for
// installing the DSH side, which the .vsix cannot do), and the would-mount summary as a
// notification without the fixes repeated.
import assert from 'node:assert/strict';
import { UI_WAIT_MS, waitUntil } from '../harness/e2e-driver.mjs';
import { suiteEditor } from './hooks.mjs';

describe('e2e: the doctor command shows what stands between the folder and DSH (ws-export)', function () {
  const editor = suiteEditor();

  it('read-only report: the profile and why, each fix once with the editor\'s button (the CLI only to install DSH); the summary notification; closing asks nothing', async function () {
    await editor.openWorkspace('ws-export');
    const page = editor.page;
    await editor.runCommand('DSH: Diagnose Setup (Doctor)');
    // The command returns before the report's tab is the active one.
    const title = /DSH Bridge doctor: ws-export/;
    let active = '';
    await waitUntil(async () => title.test(active = await page.locator('.tab.active').innerText().catch(() => '')), () => `the report's tab (active: "${active}")`);
    assert.match(active, title);
    // The webview's content is in nested frames: the report's own frame has the title.
    let frame;
    for (const until = Date.now() + UI_WAIT_MS; !frame; await new Promise((r) => setTimeout(r, 250))) {
      for (const f of page.frames()) if ((await f.locator('h2').innerText({ timeout: 200 }).catch(() => '')).includes('DSH Bridge doctor')) frame = f;
      if (!frame && Date.now() > until) throw new Error('the doctor report did not render');
    }
    const text = (await frame.locator('body').innerText()).replace(/\u00a0/g, ' ');
    assert.match(text, /No DSH found: none installed by dsh-bridge, and no dsh on PATH\./);
    assert.match(text, /No declaration \(\.dsh\/declaration\.json\) in /);
    // An interactive user is not told about headless runs.
    assert.doesNotMatch(text, /headless run has no one to answer/);
    // No profile loads the bridge on this machine: the report says which one it diagnosed, without asking.
    assert.match(text, /No DSH profile in .+ loads the bridge yet: this is profile "headless", the one Install the DSH Side sets up\./);
    // Each fix once, in the list of fixes; the report's lines hold none.
    const items = (await frame.locator('li').allInnerTexts()).map((t) => t.replace(/\u00a0/g, ' '));
    assert.equal(new Set(items).size, items.length, `a fix repeated: ${JSON.stringify(items)}`);
    assert.ok(items.some((f) => /^Install DSH and the DSH Bridge plugin in profile "headless"/.test(f)), JSON.stringify(items));
    assert.ok(items.some((f) => f.startsWith('Export the MCP servers of ws-export.')), JSON.stringify(items));
    // A command line only where only the CLI does it (installing the DSH side, which the .vsix cannot).
    const commandLines = await frame.locator('li code').allInnerTexts();
    assert.deepEqual(commandLines.filter((c) => c.startsWith('dsh-bridge') && !c.startsWith('dsh-bridge dsh install')), [], JSON.stringify(commandLines));
    assert.ok(commandLines.some((c) => c.startsWith('dsh-bridge dsh install')), JSON.stringify(commandLines));
    assert.doesNotMatch(await frame.locator('pre').innerText(), /fix: /);
    const note = await editor.waitForNotification(/Would mount: none; would not: /);
    assert.doesNotMatch(note, /fix: /);
    await editor.screenshot('doctor-report');

    // The export fix's button runs DSH: Export MCP Servers for this folder (its result is a notification).
    const exportItem = frame.locator('li', { hasText: 'Export the MCP servers of ws-export.' }).first();
    await exportItem.locator('a', { hasText: 'Export MCP Servers to DSH' }).click();
    await editor.waitForNotification(/Exported|exported/, { timeout: 60000 });

    // Closing the report asks nothing (it is not an unsaved document).
    await page.locator('.tab', { hasText: 'DSH Bridge doctor' }).first().click();
    await editor.runCommand('View: Close Editor');
    // Closed, or held by a question: whichever comes first (a question keeps the tab open).
    await waitUntil(async () => (await page.locator('.tab', { hasText: 'DSH Bridge doctor' }).count()) === 0
      || (await page.locator('.monaco-dialog-box').count()) > 0, 'the report to close or a question to show');
    assert.equal(await page.locator('.monaco-dialog-box').count(), 0, 'closing the report asked something');
    assert.equal(await page.locator('.tab', { hasText: 'DSH Bridge doctor' }).count(), 0);
  });
});
