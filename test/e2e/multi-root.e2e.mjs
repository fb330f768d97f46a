// UI flow in a real VS Code workbench (code-server + Debian chromium via Playwright) on a
// MULTI-ROOT workspace: the ws-multi fixture's multi.code-workspace (folders alpha and beta, each
// with its own .vscode/mcp.json) opened with ?workspace=. Run "DSH: Export MCP Servers"
// from F1; the folder pick lists both folders; choose all; both declarations are written, each
// naming its own folder. A screenshot of the pick is kept. Then ws-multi-sources: folders whose
// servers come from .mcp.json, the dev container file or the workspace file alone are offered
// too, and the result names each folder: exported, nothing to export, or failed.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { suiteEditor } from './hooks.mjs';

const PICK_TITLE = 'Export MCP servers of which folders?';

describe('e2e: multi-root export with the folder pick (ws-multi)', function () {
  const editor = suiteEditor();

  it('F1 > "DSH: Export MCP Servers" shows the folder pick with both folders; choosing all writes both declarations', async function () {
    const ws = await editor.openWorkspace('ws-multi');
    const own = { alpha: path.join(ws, 'alpha'), beta: path.join(ws, 'beta') };
    for (const name of Object.keys(own)) assert.ok(!fs.existsSync(path.join(own[name], '.dsh')), `${name} has a .dsh folder before the export`);

    await editor.runCommand('DSH: Export MCP Servers');
    const rows = await editor.quickPickRows({ title: PICK_TITLE, atLeast: 2 });
    console.log(`      folder pick: ${JSON.stringify(rows)}`);
    assert.deepEqual(rows.map((r) => [r.label, r.description]), [['alpha', own.alpha], ['beta', own.beta]]);
    assert.deepEqual(rows.map((r) => r.checked), [true, true], 'both folders are preselected');

    // Choose all, as a user does: clear the selection, then "toggle all" checks every folder.
    await editor.quickPickToggleAll(false);
    assert.deepEqual((await editor.quickPickRows({ title: PICK_TITLE, atLeast: 2 })).map((r) => r.checked), [false, false]);
    await editor.quickPickToggleAll(true);
    assert.deepEqual((await editor.quickPickRows({ title: PICK_TITLE, atLeast: 2 })).map((r) => r.checked), [true, true]);
    const shot = await editor.screenshot('multi-root-folder-pick');
    assert.ok(fs.statSync(shot).size > 10000, 'screenshot is empty');
    console.log(`      screenshot: ${shot}`);
    await editor.acceptQuickInput();

    const expected = {
      alpha: { servers: ['alpha-files'], rejected: [{ name: 'alpha-legacy', codes: ['unsupported-transport'] }] },
      beta: { servers: ['beta-tool'], rejected: [{ name: 'beta-picker', codes: ['unsupported-variable'] }] },
    };
    for (const [name, other] of [['alpha', 'beta'], ['beta', 'alpha']]) {
      const file = await editor.waitForWorkspaceFile(`${name}/.dsh/declaration.json`);
      const text = fs.readFileSync(file, 'utf8');
      const decl = JSON.parse(text);
      assert.equal(decl.folder, own[name], `${name}'s declaration names ${decl.folder}`);
      assert.deepEqual(decl.servers.map((s) => s.name), expected[name].servers);
      assert.deepEqual(decl.rejected, expected[name].rejected);
      assert.ok(!text.includes(own[other]), `${name}'s declaration mentions ${own[other]}`);
    }
    const note = await editor.waitForNotification(/^Exported 2 MCP servers to DSH\. 2 servers were refused: see Problems\. Exported from alpha, beta\. alpha: Withheld from DSH sessions here: 1 server \(alpha-legacy\)\. beta: Withheld from DSH sessions here: 1 server \(beta-picker\)\.$/);
    console.log(`      notification: ${note}`);
    assert.deepEqual(editor.blockedOrigins.filter((o) => !/^https?:\/\/[^/]*(vscode-cdn|open-vsx|visualstudio|microsoft)/.test(o)), [],
      'the workbench tried to reach unexpected hosts');
  });

  it('offers every folder with servers from any source, and the result names each folder (ws-multi-sources)', async function () {
    const ws = await editor.openWorkspace('ws-multi-sources');
    const names = ['app', 'claude', 'container', 'broken', 'legacy', 'plain'];
    await editor.runCommand('DSH: Export MCP Servers');
    const rows = await editor.quickPickRows({ title: PICK_TITLE, atLeast: names.length });
    console.log(`      folder pick: ${JSON.stringify(rows.map((r) => r.label))}`);
    // plain has no file of its own (the workspace file's "shared"), claude only .mcp.json, container only its dev container.
    assert.deepEqual(rows.map((r) => [r.label, r.description, r.checked]), names.map((n) => [n, path.join(ws, n), true]));
    console.log(`      screenshot: ${await editor.screenshot('multi-root-sources-folder-pick')}`);
    await editor.acceptQuickInput();

    const note = await editor.waitForNotification(/^Exported 7 MCP servers to DSH\./, { timeout: 60000 });
    assert.equal(note, 'Exported 7 MCP servers to DSH. 3 servers were refused: see Problems. Exported from app, claude, container, plain. '
      + 'Nothing to export in legacy. Not exported: broken has errors (see Problems). '
      // legacy's own "shared" (SSE) is refused, and so is the workspace file's, which it shadows: one name a session goes without.
      + 'legacy: Withheld from DSH sessions here: 1 server (shared).');
    await editor.notifications({ keepOpen: true });
    console.log(`      screenshot: ${await editor.screenshot('multi-root-sources-result')}`);
    await editor.runCommand('Notifications: Hide Notifications');
    const servers = (name) => JSON.parse(fs.readFileSync(path.join(ws, name, '.dsh/declaration.json'), 'utf8')).servers.map((s) => s.name);
    assert.deepEqual(servers('app'), ['local', 'shared']);
    assert.deepEqual(servers('claude'), ['claude-tool', 'shared']);
    assert.deepEqual(servers('container'), ['shared', 'container-tool']);
    assert.deepEqual(servers('plain'), ['shared']);
    assert.deepEqual(servers('legacy'), []);
    assert.ok(!fs.existsSync(path.join(ws, 'broken', '.dsh', 'declaration.json')), 'a declaration was written from a file with syntax errors');
  });
});
