// What DSH will get, where the user reads it: in a real VS Code (code-server + chromium via
// Playwright), the installed extension on the ws-lsp-skills fixture (one MCP server, language
// server settings, an untrusted project skill root). "DSH: Verify Declaration" after an export
// says which MCP servers and language servers DSH sessions there get and which skills the DSH
// plugin withholds; trusting the root from "DSH: Review Skill Roots" empties the withheld list.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { suiteEditor } from './hooks.mjs';

describe('e2e: what DSH gets, in the Verify notification (ws-lsp-skills)', function () {
  const editor = suiteEditor();

  it('Verify names the MCP server and the withheld project skill; after trusting the root nothing is withheld', async function () {
    await editor.openWorkspace('ws-lsp-skills');
    await editor.runCommand('DSH: Export MCP Servers');
    await editor.waitForWorkspaceFile('.dsh/declaration.json');
    await editor.runCommand('DSH: Verify Declaration');
    const before = await editor.waitForNotification(/DSH sessions there start/);
    console.log(`      notification: ${before}`);
    // Trust mode "ask" (the default): DSH asks before it starts echo.
    assert.match(before, /signed by you and up to date\. DSH sessions there start MCP servers: none; after asking: echo; withheld: none; language servers: [^;]+; skills withheld: good\./);
    await editor.notifications({ keepOpen: true }); // in the screenshot
    const shot = await editor.screenshot('verify-dsh-outlook');
    assert.ok(fs.statSync(shot).size > 10000, 'screenshot is empty');
    await editor.runCommand('Notifications: Hide Notifications');

    // Review Skill Roots: pick the project root, then "Trust this root".
    await editor.runCommand('DSH: Review Skill Roots');
    const roots = await editor.quickPickRows({ title: 'DSH Skill Roots' });
    console.log(`      roots: ${JSON.stringify(roots.map((r) => r.label ?? r))}`);
    await editor.answerQuickInput('.dsh/skills');
    // The root's own pick opens next: wait for its trust action before answering it.
    const until = Date.now() + 30000;
    while (!(await editor.quickPickRows()).some((r) => /Trust this root/.test(r.label))) {
      if (Date.now() > until) throw new Error('the root review never offered "Trust this root"');
      await new Promise((r) => setTimeout(r, 200));
    }
    await editor.answerQuickInput('Trust this root');
    await editor.waitForNotification(/Trusted .*DSH sessions load its skills from their next step/);
    await editor.runCommand('DSH: Verify Declaration');
    const after = await editor.waitForNotification(/skills withheld: none\./);
    console.log(`      notification: ${after}`);
    await editor.notifications({ keepOpen: true });
    await editor.screenshot('verify-dsh-outlook-trusted');
  });
});
