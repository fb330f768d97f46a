// UI flow with the PACKAGED extension on test/fixtures/ws-tools: the "MCP Servers for DSH" view
// in the Explorer, read from the screen as a user sees it: its count beside the title, each
// server's state beside its name, the export button of the view's title bar, the inline "Open
// Entry in mcp.json" action; then "Probe MCP Servers" from the view's title bar on real servers
// (@modelcontextprotocol/server-everything from npm and the repository's MCP SDK fixture): the
// consent dialog of trust mode "ask", the tools under each server, a tool's checkbox writing the
// folder's dsh.tools, and the Problems row of a server that does not start. Screenshots are kept.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO, log, sleep } from '../harness/lib.mjs';
import { suiteEditor } from './hooks.mjs';

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
  const editor = suiteEditor(); // the packaged .vsix, installed

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

  it('probes real servers after the consent dialog: tools with DSH names and tokens; a checkbox writes dsh.tools; a server that exits is in Problems', async function () {
    const page = editor.page;
    const ws = editor.workspace;
    const everything = path.join(REPO, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
    const fixture = path.join(REPO, 'test/fixtures/mcp-servers/tool-fixture.mjs');
    assert.ok(fs.existsSync(everything), `${everything} is not installed (npm ci)`);
    const servers = {
      everything: { command: process.execPath, args: [everything, 'stdio'] },
      'legacy-events': { type: 'sse', url: 'https://mcp.example.com/sse' },
      notes: { command: process.execPath, args: [fixture] },
      broken: { command: process.execPath, args: [fixture, '--stderr', 'fixture: port 7 is taken', '--exit-early'] },
    };
    fs.writeFileSync(path.join(ws, '.vscode/mcp.json'), `${JSON.stringify({ servers }, null, 2)}\n`);
    const { header, pane } = await openView(page);
    await waitForRows(pane, [['everything', 'stale'], ['legacy-events', 'refused: unsupported-transport'], ['notes', 'stale'], ['broken', 'not exported']], 'after the edit');

    await header.hover();
    await header.locator('.action-label[aria-label="Probe MCP Servers"]').click();
    const dialog = await editor.dialog();
    assert.match(dialog, /Start these MCP servers of ws-tools to list their tools\?/);
    assert.match(dialog, /as DSH would start it/);
    for (const name of ['everything', 'notes', 'broken']) assert.match(dialog, new RegExp(`^${name}: `, 'm'), `the dialog does not show the launch of ${name}`);
    console.log(`      screenshot: ${await editor.screenshot('servers-view-probe-consent')}`);
    await editor.clickDialogButton('Probe');

    const note = await editor.waitForNotification(/^Probed 2 MCP servers of ws-tools: \d+ tools\. 1 server could not be probed: see Problems\.$/, { timeout: 90000 });
    console.log(`      notification: ${note}`);
    const rows = async () => viewRows(pane);
    for (const until = Date.now() + 30000; !(await rows()).some(([l, d]) => l === 'notes' && /3 tools/.test(d)) && Date.now() < until;) await sleep(300);
    const notesRow = (await rows()).find(([l]) => l === 'notes');
    assert.match(notesRow[1], /^stale · 3 tools · ~\d+ tokens$/);
    assert.match((await rows()).find(([l]) => l === 'everything')[1], /^stale · \d+ tools · ~[\d,]+ tokens$/);

    // Expand "notes": its tools, each with DSH's public name and a checked box.
    await pane.locator('.pane-body .monaco-list-row', { hasText: /^notes/ }).first().locator('.monaco-tl-twistie').click();
    const danger = pane.locator('.pane-body .monaco-list-row', { hasText: 'mcp__notes__danger' }).first();
    await danger.waitFor({ state: 'visible', timeout: 30000 });
    const box = danger.locator('.custom-view-tree-node-item-checkbox');
    assert.equal(await box.getAttribute('aria-checked'), 'true');
    console.log(`      screenshot: ${await editor.screenshot('servers-view-tools')}`);

    await box.click();
    const settingsFile = path.join(ws, '.vscode/settings.json');
    for (const until = Date.now() + 20000; !(fs.existsSync(settingsFile) && /danger/.test(fs.readFileSync(settingsFile, 'utf8'))) && Date.now() < until;) await sleep(200);
    assert.deepEqual(JSON.parse(fs.readFileSync(settingsFile, 'utf8'))['dsh.tools'], { notes: { exclude: ['danger'] } });
    for (const until = Date.now() + 20000; !/2 of 3 tools/.test((await rows()).find(([l]) => l === 'notes')[1]) && Date.now() < until;) await sleep(200);
    assert.match((await rows()).find(([l]) => l === 'notes')[1], /^stale · 2 of 3 tools · ~\d+ tokens$/);
    assert.equal(await box.getAttribute('aria-checked'), 'false');
    console.log(`      screenshot: ${await editor.screenshot('servers-view-tool-unchecked')}`);

    const problems = await editor.readProblems({ timeout: 30000 });
    const broken = problems.find((p) => p.code === 'probe-did-not-start');
    assert.ok(broken, `no probe-did-not-start row: ${JSON.stringify(problems.map((p) => p.message))}`);
    assert.match(broken.message, /MCP server "broken" did not start when probed: /);
    // The stderr lines follow on lines of their own, shown under the row.
    const panel = await page.locator('.markers-panel').innerText();
    assert.match(panel, /First lines of its stderr \(secrets masked\):\s+fixture: port 7 is taken\s+fixture: cannot start: missing configuration/);
    console.log(`      screenshot: ${await editor.screenshot('servers-view-probe-problem')}`);
  });
});
