// UI flow (code-server + chromium via Playwright) of the "pinned" trust mode for language servers
// (test/fixtures/ws-pinned-lsp): the export shows one modal review of the folder's language
// servers (exact command line, extensions, env NAMES only); Approve records the lsp section's pin
// in the host store (what the DSH plugin checks before starting them without asking), and the
// next export does not ask again.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { UI_WAIT_MS } from '../harness/e2e-driver.mjs';
import { suiteEditor } from './hooks.mjs';

const folderRecord = (dshHome, folder) => path.join(dshHome, 'bridge', 'folders', `${crypto.createHash('sha256').update(path.resolve(folder)).digest('hex')}.json`);
const DIALOG = '.monaco-dialog-box';

describe('e2e: trust mode "pinned" reviews the language servers (ws-pinned-lsp)', function () {
  const editor = suiteEditor({ settings: { 'dsh.trustMode': 'pinned' } });

  it('one review for the lsp section; Approve records its pin; the next export asks nothing', async function () {
    const ws = await editor.openWorkspace('ws-pinned-lsp');
    const page = editor.page;
    await editor.runCommand('DSH: Export MCP Servers');
    const box = page.locator(DIALOG);
    await box.waitFor({ state: 'visible', timeout: UI_WAIT_MS });
    const text = (await box.innerText()).replace(/\r/g, '');
    assert.match(text, /Approve the language servers of ws-pinned-lsp for DSH\?/);
    assert.ok(text.includes("/bin/sh 'lsp server.sh' --stdio"), `the exact command line is not shown:\n${text}`);
    assert.match(text, /"ts" for \.ts, \.tsx:/);
    assert.match(text, /Environment variables \(names only\): TSS_LOG, API_TOKEN/);
    assert.ok(!text.includes('value-that-must-not-be-shown') && !text.includes('-level terse'), 'an env value is shown');
    await editor.screenshot('pinned-lsp-review-dialog');
    await page.locator(`${DIALOG} .dialog-buttons .monaco-button`, { hasText: /^Approve$/ }).click();
    await box.waitFor({ state: 'hidden', timeout: UI_WAIT_MS });

    const declFile = await editor.waitForWorkspaceFile('.dsh/declaration.json');
    const decl = JSON.parse(fs.readFileSync(declFile, 'utf8'));
    assert.equal(decl.lsp.registersAll, true);
    const record = JSON.parse(fs.readFileSync(folderRecord(editor.run.dshHome, ws), 'utf8'));
    assert.deepEqual(record.approvals, [{ serverName: '$lsp', pin: decl.lsp.pin }]);
    // API_TOKEN's value stays out of the declaration (a secret name) and is not set where this DSH
    // would run, so the approved language servers are still withheld, and the summary says so.
    await editor.waitForNotification(/^No MCP server was exported to DSH\. Withheld from DSH sessions here: the language servers \(ts\)\.$/);

    // Again: the approved pin is not reviewed a second time.
    await editor.runCommand('DSH: Export MCP Servers');
    await new Promise((r) => setTimeout(r, 3000));
    assert.equal(await box.isVisible().catch(() => false), false, 'asked again for an approved pin');
  });
});
