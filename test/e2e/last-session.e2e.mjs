// UI flow in a real VS Code workbench (code-server + chromium via Playwright), on the installed
// .vsix: test/fixtures/ws-export is exported, then a DSH session in it is recorded in the host
// store (<DSH home>/bridge/sessions/, the file the DSH plugin writes, in its documented format:
// docs/declaration.md; no DSH runs in this tier). The status bar item then shows the folder's last
// session, what it had and what it went without, without a reload (the host-store watcher sees the
// record), with the stderr line it quotes escaped; the servers view shows the same line below the
// folder's servers.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { suiteEditor } from './hooks.mjs';
import { openView, viewRow } from './treeView.mjs';

const sessionsFile = (dshHome, folder) => path.join(dshHome, 'bridge', 'sessions', `${crypto.createHash('sha256').update(path.resolve(folder)).digest('hex')}.json`);

describe('e2e: the status bar item shows the folder\'s last DSH session (ws-export)', function () {
  const editor = suiteEditor();

  it('after an export, a recorded session is shown: its tools, the server that failed to start with its exit and stderr, and what it went without', async function () {
    const ws = await editor.openWorkspace('ws-export');
    await editor.runCommand('DSH: Export MCP Servers');
    await editor.statusBarItem('dsh-bridge.status', { text: /DSH: 1 refused/, timeout: 60000 });
    const now = new Date().toISOString();
    const file = sessionsFile(editor.run.dshHome, ws);
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(file, `${JSON.stringify({
      version: 1, folder: path.resolve(ws), sessions: [{
        id: 'agent-1', cwd: ws, startedAt: now, updatedAt: now, trustMode: 'ask', blocked: [],
        servers: [{ serverName: 'files', name: 'files', pin: 'sha256:0', planned: 'asks', state: 'failed', failure: { error: 'Connection closed', exit: 'exit code 3', stderr: ['boom\u202e'], failures: 1 } }],
        tools: { offered: ['mcp__other__a', 'mcp__other__b'], withheld: [{ name: 'mcp__other__c', why: 'left out by dsh.tools' }] },
        skills: { withheld: [{ name: 'deploy', root: path.join(ws, '.dsh/skills'), why: 'root' }] },
      }],
    }, null, 2)}\n`, { mode: 0o600 });

    const { locator } = await editor.statusBarItem('dsh-bridge.status', { text: /DSH: 1 refused/ });
    let label = '';
    for (const until = Date.now() + 30000; !/last DSH session/.test(label) && Date.now() < until; await new Promise((r) => setTimeout(r, 250))) {
      label = (await locator.getAttribute('aria-label')) ?? '';
    }
    assert.match(label, /last DSH session just now: 2 tools; files failed to start: exit code 3: boom\\u\{202e\}; not in it: 1 tool, 1 skill/);
    const hover = await editor.hoverFor(locator, 'last DSH session');
    // The Markdown tooltip writes its spaces as no-break spaces.
    assert.match((await hover.innerText()).replace(/\u00a0/g, ' '), /last DSH session just now: 2 tools; files failed to start: exit code 3: boom\\u\{202e\}/);
    console.log(`      screenshot: ${await editor.screenshot('status-last-session')}`);

    // The servers view shows the same line below the folder's servers (the hover closed first: it covers the view's header).
    await editor.page.keyboard.press('Escape');
    await editor.page.mouse.move(700, 300);
    await hover.waitFor({ state: 'hidden', timeout: 15000 });
    const { pane } = await openView(editor.page, 'MCP Servers for DSH');
    const row = viewRow(pane, 'last DSH session');
    await row.waitFor({ timeout: 30000 });
    assert.match((await row.innerText()).replace(/\u00a0/g, ' '), /last DSH session just now: 2 tools; files failed to start: exit code 3: boom\\u\{202e\}; not in it: 1 tool, 1 skill/);
    console.log(`      screenshot: ${await editor.screenshot('view-last-session')}`);
  });
});
