// UI flow with the PACKAGED extension on test/fixtures/ws-tools: the "MCP Servers for DSH" view
// in the Explorer, read from the screen as a user sees it: its count beside the title, each
// server's state beside its name, the export button of the view's title bar, the inline "Open
// Entry in mcp.json" action; then "Probe MCP Servers" from the view's title bar on real servers
// (@modelcontextprotocol/server-everything from npm and the repository's MCP SDK fixture): the
// consent dialog of trust mode "ask", the tools under each server, a tool's checkbox writing the
// folder's dsh.tools, and the Problems row of a server that does not start. Screenshots are kept.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { REPO, sleep } from '../harness/lib.mjs';
import { UI_WAIT_MS } from '../harness/e2e-driver.mjs';
import { suiteEditor } from './hooks.mjs';
import { openView, viewRow, viewRows } from './treeView.mjs';

const VIEW = 'MCP Servers for DSH';


/** Waits until the view shows exactly these rows ([label, description], a description may be a RegExp). */
async function waitForRows(pane, expected, what, timeout = UI_WAIT_MS) {
  let last;
  const matches = (rows) => rows.length === expected.length && rows.every(([l, d], i) => l === expected[i][0] && (expected[i][1] instanceof RegExp ? expected[i][1].test(d) : d === expected[i][1]));
  for (const until = Date.now() + timeout; ;) {
    last = await viewRows(pane);
    if (matches(last)) return last;
    if (Date.now() > until) throw new Error(`${what}: the view shows ${JSON.stringify(last)}, expected ${expected.map(([l, d]) => `[${l}, ${d}]`).join(', ')}`);
    await sleep(300);
  }
}

describe('e2e: the "MCP Servers for DSH" view of the installed .vsix (ws-tools)', function () {
  const editor = suiteEditor(); // the packaged .vsix, installed

  it('lists the servers with their states and counts; the title bar export turns them exported; the inline action opens the entry', async function () {
    const ws = await editor.openWorkspace('ws-tools');
    const page = editor.page;
    const { header, pane } = await openView(page, VIEW);
    await waitForRows(pane, [['everything', 'not exported'], ['legacy-events', 'refused: unsupported-transport'], ['notes', 'not exported']], 'before the export');
    const description = async () => (await header.locator('.description').innerText().catch(() => '')).trim();
    for (const until = Date.now() + UI_WAIT_MS; (await description()) !== '3 servers \u00b7 1 refused' && Date.now() < until;) await sleep(200);
    assert.equal(await description(), '3 servers \u00b7 1 refused');
    console.log(`      screenshot: ${await editor.screenshot('servers-view-before-export')}`);

    // The title bar's export button (shown on hover, as in every view).
    await header.hover();
    await header.locator('.action-label[aria-label="Export to DSH"]').click();
    await waitForRows(pane, [['everything', 'exported'], ['legacy-events', 'refused: unsupported-transport'], ['notes', 'exported']], 'after the export');
    const decl = JSON.parse(fs.readFileSync(path.join(ws, '.dsh/declaration.json'), 'utf8'));
    assert.deepEqual(decl.servers.map((s) => s.name), ['everything', 'notes']);
    const note = await editor.waitForNotification(/^Exported 2 MCP servers to DSH\. 1 server was refused: see Problems\. Withheld from DSH sessions here: 1 server \(legacy-events\)\.$/);
    console.log(`      notification: ${note}`);
    console.log(`      screenshot: ${await editor.screenshot('servers-view-after-export')}`);

    // The inline action of a row: mcp.json opens at that entry.
    const notes = viewRow(pane, 'notes');
    await notes.hover();
    await notes.locator('.action-label[aria-label="Open Entry in mcp.json"]').click();
    await page.locator('.tab.active', { hasText: 'mcp.json' }).waitFor({ timeout: UI_WAIT_MS });
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
    const { header, pane } = await openView(page, VIEW);
    // The declaration is stale: DSH mounts none of them, so every row says so (the new one too), and so does the count (4 rows).
    await waitForRows(pane, [['everything', 'stale'], ['legacy-events', 'refused: unsupported-transport \u00b7 stale'], ['notes', 'stale'], ['broken', 'stale']], 'after the edit');
    assert.equal((await header.locator('.description').innerText()).trim(), '4 servers \u00b7 1 refused \u00b7 stale');
    console.log(`      screenshot: ${await editor.screenshot('servers-view-stale-every-row')}`);

    await header.hover();
    await header.locator('.action-label[aria-label="Probe MCP Servers"]').click();
    const dialog = await editor.dialog();
    assert.match(dialog, /Probe these MCP servers of ws-tools to list their tools\?/);
    // Worded per transport: these three run here (stdio); none is only contacted at a URL.
    assert.match(dialog, /Local \(stdio\) servers run on this computer with your user's privileges, as DSH would start them/);
    assert.doesNotMatch(dialog, /contacted at their URLs/);
    for (const name of ['everything', 'notes', 'broken']) assert.match(dialog, new RegExp(`^${name}: `, 'm'), `the dialog does not show the launch of ${name}`);
    console.log(`      screenshot: ${await editor.screenshot('servers-view-probe-consent')}`);
    await editor.clickDialogButton('Probe');

    const note = await editor.waitForNotification(/^Probed 2 MCP servers of ws-tools: \d+ tools\. 1 server could not be probed: see Problems\.$/, { timeout: 90000 });
    console.log(`      notification: ${note}`);
    const rows = async () => viewRows(pane);
    for (const until = Date.now() + UI_WAIT_MS; !(await rows()).some(([l, d]) => l === 'notes' && /3 tools/.test(d)) && Date.now() < until;) await sleep(300);
    const notesRow = (await rows()).find(([l]) => l === 'notes');
    assert.match(notesRow[1], /^stale · 3 tools · ~\d+ tokens$/);
    assert.match((await rows()).find(([l]) => l === 'everything')[1], /^stale · \d+ tools · ~[\d,]+ tokens$/);

    // The server that exited: the failure on its row, as a warning.
    assert.equal((await rows()).find(([l]) => l === 'broken')[1], 'stale \u00b7 probe failed');
    const brokenRow = viewRow(pane, /^broken/);
    assert.equal(await brokenRow.locator('.codicon-warning').count(), 1, 'the failed probe\'s row has no warning icon');

    // Expand "notes": its tools, each with the token estimate first (the sidebar cuts the end), then DSH's public name, and a checked box.
    await viewRow(pane, /^notes/).locator('.monaco-tl-twistie').click();
    const danger = viewRow(pane, 'mcp__notes__danger');
    await danger.waitFor({ state: 'visible', timeout: UI_WAIT_MS });
    assert.match((await danger.locator('.label-description').first().innerText()).trim(), /^~\d+ tokens \u00b7 mcp__notes__danger$/);
    const box = danger.locator('.custom-view-tree-node-item-checkbox');
    assert.equal(await box.getAttribute('aria-checked'), 'true');
    console.log(`      screenshot: ${await editor.screenshot('servers-view-tools')}`);

    await box.click();
    const settingsFile = path.join(ws, '.vscode/settings.json');
    for (const until = Date.now() + UI_WAIT_MS; !(fs.existsSync(settingsFile) && /danger/.test(fs.readFileSync(settingsFile, 'utf8'))) && Date.now() < until;) await sleep(200);
    assert.deepEqual(JSON.parse(fs.readFileSync(settingsFile, 'utf8'))['dsh.tools'], { notes: { exclude: ['danger'] } });
    for (const until = Date.now() + UI_WAIT_MS; !/2 of 3 tools/.test((await rows()).find(([l]) => l === 'notes')[1]) && Date.now() < until;) await sleep(200);
    assert.match((await rows()).find(([l]) => l === 'notes')[1], /^stale · 2 of 3 tools · ~\d+ tokens$/);
    assert.equal(await box.getAttribute('aria-checked'), 'false');
    console.log(`      screenshot: ${await editor.screenshot('servers-view-tool-unchecked')}`);

    const problems = await editor.readProblems({ timeout: UI_WAIT_MS });
    const broken = problems.find((p) => p.code === 'probe-did-not-start');
    assert.ok(broken, `no probe-did-not-start row: ${JSON.stringify(problems.map((p) => p.message))}`);
    // A probe failure is a warning, not an error of the user's mcp.json.
    assert.equal(broken.severity, 'warning', JSON.stringify(broken));
    assert.match(broken.message, /MCP server "broken" did not start when probed: /);
    // The stderr lines follow on lines of their own, shown under the row.
    const panel = await page.locator('.markers-panel').innerText();
    assert.match(panel, /First lines of its stderr \(secrets masked\):\s+fixture: port 7 is taken\s+fixture: cannot start: missing configuration/);
    console.log(`      screenshot: ${await editor.screenshot('servers-view-probe-problem')}`);
  });

  it('the status bar item: a tooltip that says what a click does, a screen-reader label; trust mode deny on every row; an empty file is no warning', async function () {
    const page = editor.page;
    const ws = editor.workspace;
    const { header, pane } = await openView(page, VIEW);
    const description = async () => (await header.locator('.description').innerText().catch(() => '')).trim();
    // "notes" was expanded by the previous test: collapsed, the view shows its 4 server rows.
    const notes = viewRow(pane, /^notes/);
    if ((await notes.getAttribute('aria-expanded')) === 'true') await notes.locator('.monaco-tl-twistie').click();
    // Exported: 4 rows, "4 servers · 1 refused"; the failed probe still on its row.
    await header.hover();
    await header.locator('.action-label[aria-label="Export to DSH"]').click();
    await waitForRows(pane, [['everything', /^exported · \d+ tools/], ['legacy-events', 'refused: unsupported-transport'], ['notes', /^exported · 2 of 3 tools/], ['broken', 'exported · probe failed']], 'after the export');
    // The count beside exactly these 4 rows.
    assert.equal(await description(), '4 servers \u00b7 1 refused');

    // The status bar item: its screen-reader label is words (no &nbsp;), its tooltip ends with the action as a link.
    const bar = await editor.statusBarItem('dsh-bridge.status', { text: /DSH: 1 refused/ });
    const label = await bar.locator.locator('[aria-label]').first().getAttribute('aria-label') ?? await bar.locator.getAttribute('aria-label');
    console.log(`      status bar label: ${label}`);
    assert.doesNotMatch(label, /&nbsp;|Click:/);
    assert.match(label, /^ws-tools: DSH: 1 refused\. 4 servers · 1 refused\. the declaration is up to date, but 1 server was refused: see Problems/);
    const hover = await editor.hoverFor(bar.locator, 'Show Problems');
    const hoverText = await hover.innerText();
    assert.doesNotMatch(hoverText, /Click:/);
    assert.equal(await hover.locator('a', { hasText: 'Show Problems' }).count(), 1, 'the action is not a link');
    console.log(`      screenshot: ${await editor.screenshot('status-bar-tooltip')}`);
    await page.mouse.move(700, 450);

    // Trust mode deny, set where a user sets it outside the editor (the CLI): every row and the count say so.
    const cli = (...args) => {
      const r = spawnSync(process.execPath, [path.join(REPO, 'dist/cli.js'), ...args], { env: { ...process.env, DSH_HOME: editor.run.dshHome }, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
    };
    cli('trust', 'deny');
    await waitForRows(pane, [['everything', /^trust mode deny/], ['legacy-events', 'refused: unsupported-transport \u00b7 trust mode deny'], ['notes', /^trust mode deny/], ['broken', 'trust mode deny \u00b7 probe failed']], 'in trust mode deny');
    assert.equal(await description(), '4 servers \u00b7 1 refused \u00b7 trust mode deny');
    await editor.statusBarItem('dsh-bridge.status', { text: /DSH: trust mode deny/ });
    console.log(`      screenshot: ${await editor.screenshot('servers-view-deny')}`);
    cli('trust', 'ask');
    await waitForRows(pane, [['everything', /^exported/], ['legacy-events', 'refused: unsupported-transport'], ['notes', /^exported/], ['broken', 'exported \u00b7 probe failed']], 'back in trust mode ask');

    // An empty {"servers":{}} and no declaration: a state, not a warning.
    fs.rmSync(path.join(ws, '.dsh/declaration.json'));
    fs.writeFileSync(path.join(ws, '.vscode/mcp.json'), '{"servers":{}}\n');
    // (The view shows its welcome content then; the integration suite reads its empty tree.)
    const empty = await editor.statusBarItem('dsh-bridge.status', { text: /DSH: no servers/ });
    assert.equal(await empty.locator.locator('.codicon-warning').count(), 0, 'a warning icon on an empty mcp.json');
    assert.equal(await empty.locator.locator('.codicon-info').count(), 1);
    console.log(`      screenshot: ${await editor.screenshot('status-bar-no-servers')}`);
  });
});
