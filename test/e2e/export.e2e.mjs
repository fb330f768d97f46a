// UI flow in a real VS Code workbench (code-server + Debian chromium via Playwright):
// open the ws-basic fixture, run "DSH: Export MCP Servers to DSH" from the command palette (F1),
// check what the export wrote, read the Problems panel from the page, keep a screenshot.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { startEditor } from '../harness/e2e-driver.mjs';
import { FIXTURES_DIR } from '../harness/lib.mjs';
import { screenshotFailuresAndClose } from './hooks.mjs';

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
  let editor;

  before(async function () {
    editor = await startEditor();
  });

  screenshotFailuresAndClose(() => editor);

  it('F1 > "DSH: Export MCP Servers to DSH" writes the declaration; Problems lists the refused sse server', async function () {
    const ws = await editor.openWorkspace('ws-basic');
    await editor.runCommand('DSH: Export MCP Servers to DSH');

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

  it('deliberate failure, only with DSH_BRIDGE_FAIL_DEMO=1|e2e (proves a red e2e test turns the run red)', function () {
    if (!failDemo()) this.skip();
    assert.fail('deliberate failure requested through DSH_BRIDGE_FAIL_DEMO');
  });
});
