// UI flow with the packaged extension: a `dsh.tools` value of a wrong shape in the folder's
// .vscode/settings.json shows in the Problems panel where the user wrote it (message, code,
// source, line and column), and its quick fix is offered in the editor. A bad shape allows no
// tool of its server: without this the user would see nothing but missing tools in DSH.
// Then a tool left out after the export (what the servers view's checkbox writes): the stale
// declaration shows on the "dsh.tools" key, and its quick fix exports, which clears it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { UI_WAIT_MS } from '../harness/e2e-driver.mjs';
import { suiteEditor } from './hooks.mjs';

const SETTINGS = `{
  // Which tools of each MCP server DSH may offer
  "dsh.tools": {
    "files": { "exclude": "delete_file", "onyl": ["read_file"] }
  }
}
`;

describe('e2e: dsh.tools problems in Problems (ws-basic, packaged .vsix)', function () {
  const editor = suiteEditor();

  it('shows each bad shape of dsh.tools on its line of settings.json with its message and code, and offers the fix there', async function () {
    await editor.openWorkspace('ws-basic', {
      prepare: (folder) => fs.writeFileSync(path.join(folder, '.vscode', 'settings.json'), SETTINGS),
    });
    let problems = [];
    for (const until = Date.now() + 60000; Date.now() < until;) {
      problems = await editor.readProblems({ timeout: 5000 });
      if (problems.some((p) => p.code === 'tools-invalid-list') && problems.some((p) => p.code === 'tools-unknown-key')) break;
    }
    const list = problems.find((p) => p.code === 'tools-invalid-list');
    assert.ok(list, `no tools-invalid-list row: ${JSON.stringify(problems.map((p) => p.text))}`);
    assert.equal(list.message, '"exclude" of server "files" must be a list of tool names; as written it allows no tool of this server.');
    assert.equal(list.severity, 'error');
    assert.equal(list.source, 'dsh-bridge');
    assert.equal(list.file, 'settings.json');
    assert.deepEqual([list.line, list.column], [4, 27], 'on the value "delete_file"');
    const key = problems.find((p) => p.code === 'tools-unknown-key');
    assert.ok(key, 'no tools-unknown-key row');
    assert.equal(key.message, '"onyl" is not a tool-choice option and is ignored (use "exclude" or "only").');
    assert.equal(key.severity, 'warning');
    assert.deepEqual([key.line, key.column], [4, 42]);
    console.log(`      screenshot: ${await editor.screenshot('tool-choice-problems')}`);

    // A click opens settings.json at the value; the light bulb menu there offers the fix by its title.
    const at = await editor.openProblem('must be a list of tool names');
    assert.equal(at.line, 4);
    const page = editor.page;
    await page.locator('.editor-group-container .view-line span', { hasText: '"delete_file"' }).last().click();
    const fix = await editor.quickFixRow('Make "exclude" a list: ["delete_file"]');
    console.log(`      screenshot: ${await editor.screenshot('tool-choice-quick-fix')}`);
    await fix.click();
    await page.locator('.editor-group-container .view-line', { hasText: '"exclude": ["delete_file"]' }).first().waitFor({ state: 'visible', timeout: UI_WAIT_MS });
  });

  it('a tool left out after the export: a warning on the "dsh.tools" key says the declaration is stale; its quick fix exports and it is gone', async function () {
    const ws = await editor.openWorkspace('ws-basic');
    await editor.runCommand('DSH: Export MCP Servers');
    const declarationFile = path.join(ws, '.dsh/declaration.json');
    await editor.waitForWorkspaceFile('.dsh/declaration.json');
    const firstExport = JSON.parse(fs.readFileSync(declarationFile, 'utf8')).exportSeq;
    // What unchecking "delete_file" of "files" in the servers view writes.
    fs.writeFileSync(path.join(ws, '.vscode', 'settings.json'), `{
  // Tools left out of DSH sessions
  "dsh.tools": { "files": { "exclude": ["delete_file"] } }
}
`);
    const staleRows = async (timeout) => {
      let rows = [];
      for (const until = Date.now() + timeout; Date.now() < until;) {
        rows = (await editor.readProblems({ timeout: 5000 })).filter((p) => p.code === 'declaration-stale-setting');
        if (rows.length) break;
      }
      return rows;
    };
    const [stale, ...more] = await staleRows(60000);
    assert.ok(stale, 'no declaration-stale-setting row');
    assert.equal(more.length, 0, JSON.stringify(more));
    assert.equal(stale.message, 'dsh.tools changed in this file since the export, so the declaration is stale: DSH sessions get nothing from it until you export again.');
    assert.equal(stale.severity, 'warning');
    assert.equal(stale.source, 'dsh-bridge');
    assert.equal(stale.file, 'settings.json');
    assert.deepEqual([stale.line, stale.column], [3, 3], 'on the key "dsh.tools"');
    console.log(`      screenshot: ${await editor.screenshot('tool-choice-stale-setting')}`);

    const at = await editor.openProblem('changed in this file since the export');
    assert.equal(at.line, 3);
    await editor.page.locator('.editor-group-container .view-line span', { hasText: '"dsh.tools"' }).last().click();
    const fix = await editor.quickFixRow('Export MCP Servers to DSH');
    console.log(`      screenshot: ${await editor.screenshot('tool-choice-stale-setting-fix')}`);
    await fix.click();
    for (const until = Date.now() + UI_WAIT_MS; JSON.parse(fs.readFileSync(declarationFile, 'utf8')).exportSeq === firstExport && Date.now() < until;) await new Promise((r) => setTimeout(r, 200));
    assert.equal(JSON.parse(fs.readFileSync(declarationFile, 'utf8')).exportSeq, firstExport + 1, 'the quick fix exported');
    let left = [];
    for (const until = Date.now() + UI_WAIT_MS; Date.now() < until;) {
      left = (await editor.readProblems({ timeout: 5000 })).filter((p) => p.code === 'declaration-stale-setting');
      if (left.length === 0) break;
    }
    assert.deepEqual(left, [], 'the warning is gone once the declaration is fresh');
    console.log(`      screenshot: ${await editor.screenshot('tool-choice-stale-setting-fixed')}`);
  });
});
