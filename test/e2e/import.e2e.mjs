// UI flow in a real VS Code workbench (code-server + chromium via Playwright), on the extension
// under development (dist/): F1 > "DSH: Import MCP Servers..." on test/fixtures/ws-import. The user picks Cursor in
// the quick pick (its found file listed), sees .vscode/mcp.json as a diff before anything is
// written, confirms in the dialog, and reads the summary (real plural forms) as a notification.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startEditor } from '../harness/e2e-driver.mjs';
import { screenshotFailuresAndClose } from './hooks.mjs';

const TOKEN = 'ghp_R8x2Kq9ZtW4mLp7VbN3cYd6Fh1Js5Ga0QeUo';

describe('e2e: importing Cursor\'s MCP servers with a preview (ws-import)', function () {
  let editor;

  before(async function () {
    editor = await startEditor();
  });

  screenshotFailuresAndClose(() => editor);

  it('quick pick, diff preview, confirmation, summary; the file keeps its comment and holds no credential', async function () {
    const folder = await editor.openWorkspace('ws-import');
    const mcp = path.join(folder, '.vscode', 'mcp.json');
    const before = fs.readFileSync(mcp, 'utf8');
    const page = editor.page;
    await editor.runCommand('DSH: Import MCP Servers...');
    const rows = await editor.quickPickRows({ title: 'Import MCP Servers' });
    const cursor = rows.find((r) => r.label === 'Cursor');
    assert.ok(cursor, JSON.stringify(rows));
    assert.equal(cursor.description, '.cursor/mcp.json');
    await editor.answerQuickInput('Cursor');

    // The preview: a diff editor of .vscode/mcp.json, and the question, before anything is written.
    const question = await editor.dialog();
    assert.match(question, /Add 3 MCP servers from Cursor to \.vscode\/mcp\.json, as the preview shows\?/);
    assert.match(question, /1 item could not be carried: Show Report lists it\. 1 credential goes to secret storage, not into the file\./);
    await page.locator('.monaco-diff-editor').first().waitFor({ timeout: 30000 });
    assert.match(await page.locator('.tab.active').innerText(), /mcp\.json/);
    const added = (await page.locator('.monaco-diff-editor .editor.modified .view-lines').first().innerText()).replace(/\u00a0/g, ' ');
    assert.match(added, /"github": \{/);
    assert.match(added, /\$\{input:github-GITHUB_PERSONAL_ACCESS_TOKEN\}/);
    assert.equal(fs.readFileSync(mcp, 'utf8'), before, 'written before the confirmation');
    await editor.screenshot('import-preview');

    await editor.clickDialogButton('Import');
    const note = await editor.waitForNotification(/Imported 3 MCP servers from Cursor into \.vscode\/mcp\.json\./);
    assert.match(note, /1 item could not be carried: the log lists it\. 1 credential was moved to secret storage\./);
    const written = fs.readFileSync(mcp, 'utf8');
    assert.match(written, /\/\/ Team servers: this comment stays/);
    assert.match(written, /"events": \{\s*"type": "sse"/);
    assert.ok(!written.includes(TOKEN));
    await editor.notifications({ keepOpen: true });
    await editor.screenshot('import-summary');
  });
});
