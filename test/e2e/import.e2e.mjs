// UI flow in a real VS Code workbench (code-server + chromium via Playwright), on the extension
// under development (dist/): F1 > "DSH: Import MCP Servers..." on test/fixtures/ws-import. The user picks Cursor in
// the quick pick (its found file listed), sees .vscode/mcp.json as a diff before anything is
// written, confirms in the dialog, and reads the summary (real plural forms) as a notification.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO } from '../harness/lib.mjs';
import { suiteEditor } from './hooks.mjs';

const TOKEN = 'ghp_R8x2Kq9ZtW4mLp7VbN3cYd6Fh1Js5Ga0QeUo';
const bundle = JSON.parse(fs.readFileSync(path.join(REPO, 'l10n/bundle.l10n.zh-cn.json'), 'utf8'));
const nls = JSON.parse(fs.readFileSync(path.join(REPO, 'package.nls.zh-cn.json'), 'utf8'));
/** The Chinese text of an English message key, with its placeholders filled. */
const zh = (key, args = {}) => {
  assert.ok(key in bundle, `no translation of "${key}"`);
  return bundle[key].replace(/\{(\w+)\}/g, (_, k) => String(args[k]));
};
const literally = (text) => new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));

describe('e2e: importing Cursor\'s MCP servers with a preview (ws-import)', function () {
  const editor = suiteEditor();

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

    // "Show Report": a read-only document opens beside the preview with one line per note (what
    // was lost, what changed, where), whatever the log level; the same question comes back, still
    // before anything is written.
    await page.locator('.monaco-dialog-box .dialog-buttons .monaco-button', { hasText: /^Show Report$/ }).click();
    const output = page.locator('.part.editor .view-lines', { hasText: 'import: lost: ' }).first();
    let report = '';
    for (const until = Date.now() + 30000; ;) {
      // Wrapped lines are joined (a wrap keeps its space at the end of the first part).
      report = (await output.innerText({ timeout: 1000 }).catch(() => '')).replace(/\u00a0/g, ' ').replace(/\n/g, '');
      if (/import: lost: /.test(report)) break;
      if (Date.now() > until) throw new Error(`the report did not show in its document (shows "${report}")`);
      await new Promise((r) => setTimeout(r, 250));
    }
    assert.match(report, /import: lost: \.cursor\/mcp\.json: server "docs": auth: "auth" has no VS Code equivalent and is not carried\./);
    assert.match(report, /import: changed: \.cursor\/mcp\.json: server "events": url: Cursor connects to "url" over SSE/);
    assert.match(report, /import: secret: \.cursor\/mcp\.json: server "github": env\.GITHUB_PERSONAL_ACCESS_TOKEN: The literal credential was replaced by \$\{input:github-GITHUB_PERSONAL_ACCESS_TOKEN\}/);
    assert.ok(!report.includes(TOKEN), 'the report never holds the credential');
    assert.match(await editor.dialog(), /Add 3 MCP servers from Cursor to \.vscode\/mcp\.json, as the preview shows\?/);
    assert.equal(fs.readFileSync(mcp, 'utf8'), before, 'Show Report writes nothing');
    await editor.screenshot('import-show-report');

    await editor.clickDialogButton('Import');
    const note = await editor.waitForNotification(/Imported 3 MCP servers from Cursor into \.vscode\/mcp\.json\./);
    assert.match(note, /1 item could not be carried: Show Report lists it\. 1 credential was moved to secret storage\./);
    const written = fs.readFileSync(mcp, 'utf8');
    assert.match(written, /\/\/ Team servers: this comment stays/);
    assert.match(written, /"events": \{\s*"type": "sse"/);
    assert.ok(!written.includes(TOKEN));
    await editor.notifications({ keepOpen: true });
    await editor.screenshot('import-summary');
  });
});

describe('e2e: the import in Simplified Chinese (code-server --locale zh-cn, ws-import)', function () {
  const editor = suiteEditor({ locale: 'zh-cn' });

  it('the command title, the quick pick, the question and the summary read in Chinese, counts in their plural messages', async function () {
    await editor.openWorkspace('ws-import');
    await editor.runCommand(`DSH: ${nls['command.importMcpServers']}`);
    const rows = await editor.quickPickRows({ title: zh('Import MCP Servers') });
    assert.ok(rows.some((r) => r.label === 'Cursor'), JSON.stringify(rows));
    await editor.answerQuickInput('Cursor');
    const question = await editor.dialog();
    assert.match(question, literally(zh('Add {0} MCP servers from {1} to .vscode/mcp.json, as the preview shows?', { 0: 3, 1: 'Cursor' })));
    assert.match(question, literally(zh('1 credential goes to secret storage, not into the file.')));
    await editor.screenshot('import-preview-zh-cn');
    await editor.clickDialogButton(zh('Import'));
    const note = await editor.waitForNotification(literally(zh('Imported {0} MCP servers from {1} into .vscode/mcp.json.', { 0: 3, 1: 'Cursor' })));
    assert.match(note, literally(zh('1 item could not be carried: Show Report lists it.')));
    await editor.notifications({ keepOpen: true });
    await editor.screenshot('import-summary-zh-cn');
  });
});
