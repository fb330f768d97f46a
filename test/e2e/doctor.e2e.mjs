// UI flow in a real VS Code workbench (code-server + chromium via Playwright), on the installed
// .vsix: F1 > "DSH: Diagnose Setup (Doctor)" on test/fixtures/ws-export, on a machine
// without DSH (the run's fresh DSH home). The user sees the report in an editor, each finding
// with the command that fixes it, and the would-mount summary as a notification.
import assert from 'node:assert/strict';
import { startEditor } from '../harness/e2e-driver.mjs';
import { screenshotFailuresAndClose } from './hooks.mjs';

describe('e2e: the doctor command shows what stands between the folder and DSH (ws-export)', function () {
  let editor;

  before(async function () {
    editor = await startEditor();
  });

  screenshotFailuresAndClose(() => editor);

  it('report document with fixes, and the summary notification', async function () {
    await editor.openWorkspace('ws-export');
    const page = editor.page;
    await editor.runCommand('DSH: Diagnose Setup (Doctor)');
    const lines = page.locator('.editor-instance .view-lines');
    // The editor renders spaces as no-break spaces.
    const report = (t) => t.replace(/\u00a0/g, ' ').includes('No DSH found');
    await page.waitForFunction(() => [...document.querySelectorAll('.editor-instance .view-lines')].some((e) => e.innerText.replace(/\u00a0/g, ' ').includes('No DSH found')), null, { timeout: 30000 });
    const text = (await lines.allInnerTexts()).find(report).replace(/\u00a0/g, ' ');
    assert.match(await page.locator('.tab.active').innerText(), /DSH Bridge doctor: ws-export/);
    // Only once the report is open: the driver types into the palette, and focus moves to the report when it opens.
    const note = await editor.waitForNotification(/Would mount: none; would not: /);
    assert.match(note, /fix: dsh-bridge export --workspace/);
    assert.match(text, /No DSH found: none installed by dsh-bridge, and no dsh on PATH\./);
    assert.match(text, /fix: dsh-bridge dsh install/);
    assert.match(text, /No declaration \(\.dsh\/declaration\.json\) in .*: nothing from DSH Bridge is mounted\./);
    await editor.screenshot('doctor-report');
  });
});
