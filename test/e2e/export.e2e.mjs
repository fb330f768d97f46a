// UI flow in a real VS Code workbench (code-server + Debian chromium via Playwright):
// open the ws-basic fixture, run "DSH: Export MCP Servers" from the command palette (F1),
// check what the export wrote, read the Problems panel from the page, keep a screenshot.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { FIXTURES_DIR } from '../harness/lib.mjs';
import { UI_WAIT_MS } from '../harness/e2e-driver.mjs';
import { suiteEditor } from './hooks.mjs';

const require = createRequire(import.meta.url);

/** 1-based line/column, as the Problems panel shows them, of a JSON value in a fixture file. */
function displayedPosition(file, jsonPath) {
  const jsonc = require('jsonc-parser');
  const text = fs.readFileSync(file, 'utf8');
  const node = jsonc.findNodeAtLocation(jsonc.parseTree(text), jsonPath);
  const before = text.slice(0, node.offset);
  return { line: before.split('\n').length, column: node.offset - before.lastIndexOf('\n') };
}

const failDemo = () => ['1', 'all', 'e2e'].includes(process.env.DSH_BRIDGE_FAIL_DEMO || '');

describe('e2e: export from the command palette (ws-basic)', function () {
  // The desktop default: the browser build of VS Code saves every edit after a second by
  // default (files.autoSave afterDelay), which would hide whether the quick fix itself saves.
  const editor = suiteEditor({ settings: { 'files.autoSave': 'off' } });

  it('F1 > "DSH: Export MCP Servers" writes the declaration; Problems lists the refused sse server', async function () {
    const ws = await editor.openWorkspace('ws-basic');
    await editor.runCommand('DSH: Export MCP Servers');

    const declFile = await editor.waitForWorkspaceFile('.dsh/declaration.json');
    const decl = JSON.parse(fs.readFileSync(declFile, 'utf8'));
    assert.deepEqual(decl.servers.map((s) => s.name), ['files'], 'only the stdio server is exported');
    const refused = decl.rejected.find((r) => r.name === 'legacy-events');
    assert.ok(refused && refused.codes.includes('unsupported-transport'), `legacy-events not refused: ${JSON.stringify(decl.rejected)}`);
    console.log(`      notifications: ${JSON.stringify(await editor.notifications())}`);

    const expected = displayedPosition(path.join(FIXTURES_DIR, 'ws-basic/.vscode/mcp.json'), ['servers', 'legacy-events', 'type']);
    const problems = await editor.readProblems();
    console.log(`      Problems panel: ${JSON.stringify(problems.map((p) => p.text))}`);
    const row = problems.find((p) => p.code === 'unsupported-transport');
    assert.ok(row, `no unsupported-transport row in the Problems panel: ${JSON.stringify(problems)}`);
    assert.equal(row.source, 'dsh-bridge');
    assert.equal(row.severity, 'error');
    assert.deepEqual({ line: row.line, column: row.column }, expected);

    // Clicking the row opens mcp.json with the "sse" value (5 characters with its quotes) selected.
    assert.deepEqual(await editor.openProblem('unsupported-transport'),
      { line: expected.line, column: expected.column + '"sse"'.length, selected: '"sse"'.length });

    const shot = await editor.screenshot('export-problems');
    assert.ok(fs.statSync(shot).size > 10000, 'screenshot is empty');
    console.log(`      screenshot: ${shot}`);
    assert.deepEqual(editor.blockedOrigins.filter((o) => !/^https?:\/\/[^/]*(vscode-cdn|open-vsx|visualstudio|microsoft)/.test(o)), [],
      'the workbench tried to reach unexpected hosts');
    assert.ok(fs.existsSync(path.join(ws, '.vscode/mcp.json')));
  });

  it('a quick fix edits without saving; the status bar item follows mcp.json and the declaration on disk, and its click opens the declaration read-only', async function () {
    const page = editor.page;
    const mcp = path.join(editor.workspace, '.vscode/mcp.json');
    const declFile = path.join(editor.workspace, '.dsh/declaration.json');
    const bar = (text) => editor.statusBarItem('dsh-bridge.status', { text });
    await bar(/DSH: 1 refused/);

    // mcp.json is open at the "sse" value (previous test): apply the quick fix from the light bulb menu.
    const onDisk = fs.readFileSync(mcp, 'utf8');
    await page.locator('.editor-group-container .view-line', { hasText: '"type": "sse"' }).first().click();
    const fix = await editor.quickFixRow('Change "type" to "http"');
    await fix.click();
    await page.locator('.tab.active.dirty').waitFor({ state: 'visible', timeout: UI_WAIT_MS });
    await new Promise((r) => setTimeout(r, 1500)); // time for a save that must not happen
    assert.equal(fs.readFileSync(mcp, 'utf8'), onDisk, 'the quick fix saved mcp.json');
    console.log(`      screenshot: ${await editor.screenshot('quick-fix-unsaved')}`);

    // Saved by the user: the declaration is stale; exported again: all well.
    await editor.saveActiveEditor({ file: mcp, expect: /"type": "http"/ });
    assert.match(fs.readFileSync(mcp, 'utf8'), /"type": "http"/);
    await bar(/DSH: stale/);
    await editor.runCommand('DSH: Export MCP Servers');
    await bar(/DSH: exported/);

    // Live: an edit of the declaration on disk shows at once, and so does its restoration.
    const exported = fs.readFileSync(declFile, 'utf8');
    fs.writeFileSync(declFile, exported.replace('"server.js"', '"evil.js"'));
    await bar(/DSH: refused by DSH/);
    console.log(`      screenshot: ${await editor.screenshot('status-bar-declaration-changed')}`);
    fs.writeFileSync(declFile, exported);
    const fine = await bar(/DSH: exported/);

    // Its click opens the declaration, read-only: typing changes nothing.
    await fine.locator.click();
    await page.locator('.tab.active', { hasText: 'declaration.json' }).waitFor({ timeout: UI_WAIT_MS });
    await page.locator('.editor-group-container .monaco-editor .view-lines').first().click();
    await page.keyboard.type('x');
    await page.locator('.monaco-editor-overlaymessage', { hasText: /read-only/i }).first().waitFor({ timeout: UI_WAIT_MS });
    assert.equal(await page.locator('.tab.active.dirty').count(), 0, 'the declaration became dirty');
    assert.equal(fs.readFileSync(declFile, 'utf8'), exported);
    console.log(`      screenshot: ${await editor.screenshot('declaration-read-only')}`);
  });

  it('deliberate failure, only with DSH_BRIDGE_FAIL_DEMO=1|e2e (proves a red e2e test turns the run red)', function () {
    if (!failDemo()) this.skip();
    assert.fail('deliberate failure requested through DSH_BRIDGE_FAIL_DEMO');
  });
});
