// UI flow with the PACKAGED extension on test/fixtures/ws-tools: the "MCP Servers for DSH" view
// in the Explorer, read from the screen as a user sees it: its count beside the title, each
// server's state beside its name, the export button of the view's title bar, the inline "Open
// Entry in mcp.json" action. Screenshots of the view before and after the export are kept.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startEditor } from '../harness/e2e-driver.mjs';
import { REPO, createRun, log, sleep } from '../harness/lib.mjs';
import { screenshotFailuresAndClose } from './hooks.mjs';

const VIEW = 'MCP Servers for DSH';

/** The view's pane, expanded. */
async function openView(page) {
  const header = page.locator('.pane-header', { hasText: VIEW }).first();
  await header.waitFor({ state: 'visible', timeout: 60000 });
  if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
  return { header, pane: page.locator('.pane', { has: header }).first() };
}

/** [label, description] of every row the view shows now. */
async function viewRows(pane) {
  const rows = pane.locator('.pane-body .monaco-list-row');
  const out = [];
  for (let i = 0; i < await rows.count(); i++) {
    const row = rows.nth(i);
    out.push([
      (await row.locator('.label-name').first().innerText().catch(() => '')).trim(),
      (await row.locator('.label-description').first().innerText().catch(() => '')).trim(),
    ]);
  }
  return out;
}

async function waitForRows(pane, expected, what, timeout = 60000) {
  let last;
  for (const until = Date.now() + timeout; ;) {
    last = await viewRows(pane);
    if (JSON.stringify(last) === JSON.stringify(expected)) return last;
    if (Date.now() > until) throw new Error(`${what}: the view shows ${JSON.stringify(last)}, expected ${JSON.stringify(expected)}`);
    await sleep(300);
  }
}

describe('e2e: the "MCP Servers for DSH" view of the installed .vsix (ws-tools)', function () {
  let editor;

  before(async function () {
    const run = createRun('vsix');
    const vsix = path.join(run.dir, 'dsh-bridge.vsix');
    const r = spawnSync('npx', ['vsce', 'package', '--no-dependencies', '--no-rewrite-relative-links', '--readme-path', 'README.marketplace.md', '--out', vsix],
      { cwd: REPO, encoding: 'utf8', timeout: 120000 });
    assert.equal(r.status, 0, `vsce package failed:\n${r.stdout}\n${r.stderr}`);
    log(`vsix ${vsix}: ${fs.statSync(vsix).size} bytes`);
    editor = await startEditor({ vsix });
  });

  screenshotFailuresAndClose(() => editor);

  it('lists the servers with their states and counts; the title bar export turns them exported; the inline action opens the entry', async function () {
    const ws = await editor.openWorkspace('ws-tools');
    const page = editor.page;
    const { header, pane } = await openView(page);
    await waitForRows(pane, [['everything', 'not exported'], ['legacy-events', 'refused: unsupported-transport'], ['notes', 'not exported']], 'before the export');
    const description = async () => (await header.locator('.description').innerText().catch(() => '')).trim();
    for (const until = Date.now() + 10000; (await description()) !== '2 servers \u00b7 1 refused' && Date.now() < until;) await sleep(200);
    assert.equal(await description(), '2 servers \u00b7 1 refused');
    console.log(`      screenshot: ${await editor.screenshot('servers-view-before-export')}`);

    // The title bar's export button (shown on hover, as in every view).
    await header.hover();
    await header.locator('.action-label[aria-label="Export to DSH"]').click();
    await waitForRows(pane, [['everything', 'exported'], ['legacy-events', 'refused: unsupported-transport'], ['notes', 'exported']], 'after the export');
    const decl = JSON.parse(fs.readFileSync(path.join(ws, '.dsh/declaration.json'), 'utf8'));
    assert.deepEqual(decl.servers.map((s) => s.name), ['everything', 'notes']);
    const note = await editor.waitForNotification(/^Exported 2 MCP servers to DSH\. 1 server was refused: see Problems\.$/);
    console.log(`      notification: ${note}`);
    console.log(`      screenshot: ${await editor.screenshot('servers-view-after-export')}`);

    // The inline action of a row: mcp.json opens at that entry.
    const notes = pane.locator('.pane-body .monaco-list-row', { hasText: 'notes' }).first();
    await notes.hover();
    await notes.locator('.action-label[aria-label="Open Entry in mcp.json"]').click();
    await page.locator('.tab.active', { hasText: 'mcp.json' }).waitFor({ timeout: 30000 });
    const line = await page.locator('.statusbar-item', { hasText: /Ln \d+, Col \d+/ }).first().innerText();
    assert.match(line, /Ln 6, Col/, 'the cursor is not on the entry of "notes"');
    console.log(`      screenshot: ${await editor.screenshot('servers-view-open-entry')}`);
  });
});
