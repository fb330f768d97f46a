// UI flow in Simplified Chinese: code-server started with --locale zh-cn and a zh-cn language pack
// (test/harness/language-pack.mjs says what it carries and why the workbench's own words stay
// English). What DSH Bridge shows must read in Chinese: a diagnostic in the Problems panel, a
// command title in the palette, the export notification, the status bar item, the "MCP Servers
// for DSH" view (its name, count and states) and the trust-mode setting in the Settings editor;
// screenshots of each are kept.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO } from '../harness/lib.mjs';
import { UI_WAIT_MS } from '../harness/e2e-driver.mjs';
import { suiteEditor } from './hooks.mjs';

const bundle = JSON.parse(fs.readFileSync(path.join(REPO, 'l10n/bundle.l10n.zh-cn.json'), 'utf8'));
const nls = JSON.parse(fs.readFileSync(path.join(REPO, 'package.nls.zh-cn.json'), 'utf8'));
const CJK = /[\u4e00-\u9fff]/;
/** The Chinese text of an English message key, with its placeholders filled. */
const zh = (key, args = {}) => {
  assert.ok(key in bundle, `no translation of "${key}"`);
  return bundle[key].replace(/\{(\w+)\}/g, (_, k) => String(args[k]));
};

describe('e2e: the extension in Simplified Chinese (code-server --locale zh-cn, ws-basic)', function () {
  const editor = suiteEditor({ locale: 'zh-cn', settings: { 'files.autoSave': 'off' } });

  it('a diagnostic, a command title, the export notification and the status bar item read in Chinese', async function () {
    await editor.openWorkspace('ws-basic');
    const problems = await editor.readProblems({ timeout: 60000 });
    const row = problems.find((p) => p.code === 'unsupported-transport');
    assert.ok(row, `no unsupported-transport row: ${JSON.stringify(problems.map((p) => p.text))}`);
    const template = Object.keys(bundle).find((k) => k.startsWith('DSH supports stdio and Streamable HTTP only'));
    assert.equal(row.message, zh(template, { transport: 'sse' }));
    console.log(`      diagnostic: ${row.message}`);
    console.log(`      screenshot: ${await editor.screenshot('zh-cn-diagnostic')}`);

    // Its code links to the repository's Chinese page of the problem codes, at its heading (opened
    // in the browser, not here): that page explains the code in Chinese, with its fix.
    assert.equal(row.codeHref, 'https://github.com/dsh-bridge/dsh-bridge/blob/main/docs/problem-codes.zh-cn.md#unsupported-transport');
    const entry = fs.readFileSync(path.join(REPO, 'docs/problem-codes.zh-cn.md'), 'utf8').split('\n### `unsupported-transport`\n')[1]?.split('\n### ')[0] ?? '';
    assert.ok(entry.includes(zh(template, { transport: '*transport*' })), 'the page does not explain the code in Chinese');
    assert.match(entry, /快速修复/);

    const exportTitle = `DSH: ${nls['command.export']}`;
    const titles = await editor.paletteTitles('DSH', { waitFor: exportTitle, keepOpen: true });
    assert.ok(titles.includes(exportTitle), `"${exportTitle}" not in ${JSON.stringify(titles)}`);
    console.log(`      palette: ${JSON.stringify(titles)}`);
    console.log(`      screenshot: ${await editor.screenshot('zh-cn-command-titles')}`);
    await editor.page.keyboard.press('Escape');
    // Only the rows that fit are rendered: the verify title is looked up with its own filter.
    const verifyTitle = `DSH: ${nls['command.verifyDeclaration']}`;
    const verify = await editor.paletteTitles(verifyTitle, { waitFor: verifyTitle });
    assert.ok(verify.includes(verifyTitle), JSON.stringify(verify));

    await editor.runCommand(exportTitle);
    await editor.waitForWorkspaceFile('.dsh/declaration.json');
    // Chinese sentences run on: no space after the full stop (nor before a number).
    // Then what a session still goes without, in the words of the status and doctor.
    const withheld = zh('Withheld from DSH sessions here: {list}.', { list: zh('1 server ({names})', { names: 'legacy-events' }) });
    const expected = `${zh('Exported 1 MCP server to DSH.')}${zh('1 server was refused: see Problems.')}${withheld}`;
    assert.doesNotMatch(expected, /[\u3002\uff1a] | \d/);
    const note = await editor.waitForNotification(new RegExp(`^${expected.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
    assert.match(note, CJK);
    const bar = await editor.statusBarItem('dsh-bridge.status', { text: new RegExp(zh('DSH: 1 refused')) });
    console.log(`      notification: ${note}; status bar: ${bar.text}`);
    await editor.notifications({ keepOpen: true });
    console.log(`      screenshot: ${await editor.screenshot('zh-cn-export-notification')}`);
    await editor.runCommand('Notifications: Hide Notifications').catch(() => editor.page.keyboard.press('Escape'));
  });

  it('the MCP servers view reads in Chinese: its name, the count beside it, each server\'s state', async function () {
    const page = editor.page;
    const header = page.locator('.pane-header', { hasText: nls['view.mcpServers'] }).first();
    await header.waitFor({ state: 'visible', timeout: 60000 });
    if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
    const pane = page.locator('.pane', { has: header }).first();
    const expected = [['legacy-events', zh('refused: {0}', { 0: 'unsupported-transport' })], ['files', zh('exported')]];
    let rows = [];
    for (const until = Date.now() + UI_WAIT_MS; Date.now() < until; await new Promise((r) => setTimeout(r, 300))) {
      rows = [];
      const items = pane.locator('.pane-body .monaco-list-row');
      for (let i = 0; i < await items.count(); i++) {
        rows.push([(await items.nth(i).locator('.label-name').innerText()).trim(), (await items.nth(i).locator('.label-description').innerText().catch(() => '')).trim()]);
      }
      if (JSON.stringify(rows) === JSON.stringify(expected)) break;
    }
    assert.deepEqual(rows, expected);
    // The first count is the rows (2), the refused one among them.
    const count = `${zh('{0} servers', { 0: 2 })} \u00b7 ${zh('1 refused')}`;
    assert.equal((await header.locator('.description').innerText()).trim(), count);
    console.log(`      view: ${JSON.stringify(rows)}; ${count}`);
    console.log(`      screenshot: ${await editor.screenshot('zh-cn-servers-view')}`);
  });

  it('the trust-mode setting reads in Chinese in the Settings editor', async function () {
    const page = editor.page;
    await editor.page.keyboard.press('Control+,');
    const search = page.locator('.settings-editor .settings-header .suggest-input-container').first();
    await search.waitFor({ state: 'visible', timeout: UI_WAIT_MS });
    await search.click();
    await page.keyboard.type('dsh.trustMode');
    const description = nls['config.trustMode'].replace(/`/g, '').slice(0, 20);
    const item = page.locator('.settings-editor .setting-item-contents', { hasText: description }).first();
    await item.waitFor({ state: 'visible', timeout: UI_WAIT_MS });
    const text = (await item.innerText()).replace(/\s+/g, ' ');
    assert.match(text, CJK);
    assert.ok(text.includes(nls['config.trustMode'].replace(/`/g, '').slice(0, 40)), `the description is not the Chinese one: ${text}`);
    // It says what the mode means for the user, not where the bridge keeps it.
    assert.doesNotMatch(text, /dsh-bridge trust|主目录|host store/);
    // The settings' table of contents lists the category by its Chinese title.
    await page.locator('.settings-editor .settings-toc-container', { hasText: nls['config.category.trust'] }).first().waitFor({ timeout: UI_WAIT_MS });
    console.log(`      setting: ${text.slice(0, 200)}`);
    console.log(`      screenshot: ${await editor.screenshot('zh-cn-trust-mode-setting')}`);
  });
});
