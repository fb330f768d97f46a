// UI flow in a real VS Code workbench (code-server + Debian chromium via Playwright) on the
// ws-sources fixture, opened through its workspace file: the folder's servers also come from
// .mcp.json, the dev container file and the workspace file (docs/sources.md). The Problems panel
// lists each file's problems under that file, with the message a user reads; clicking the
// shadowed "github" of .mcp.json opens .mcp.json at that name. A screenshot is kept.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { FIXTURES_DIR } from '../harness/lib.mjs';
import { suiteEditor } from './hooks.mjs';

/** 1-based line/column, as the Problems panel shows them, of the first `needle` in a fixture file. */
function displayedPosition(rel, needle) {
  const text = fs.readFileSync(path.join(FIXTURES_DIR, 'ws-sources', rel), 'utf8');
  const offset = text.indexOf(needle);
  const before = text.slice(0, offset);
  return { line: before.split('\n').length, column: offset - before.lastIndexOf('\n') };
}

describe('e2e: problems of every source file in the Problems panel (ws-sources)', function () {
  const editor = suiteEditor();

  it('each file\'s problems are listed under it; the shadowed server opens where it is written', async function () {
    await editor.openWorkspace('ws-sources');
    const problems = (await editor.readProblems({ atLeast: 4 })).filter((p) => p.source === 'dsh-bridge');
    console.log(`      Problems panel: ${JSON.stringify(problems.map((p) => [p.file, p.text]))}`);
    const row = (file, code) => problems.find((p) => p.file === file && p.code === code);

    const github = row('.mcp.json', 'shadowed-server');
    assert.ok(github, `no shadowed-server row under .mcp.json: ${JSON.stringify(problems)}`);
    assert.equal(github.severity, 'warning');
    assert.equal(github.message, 'Server "github" is also defined in .vscode/mcp.json, and that definition takes precedence, as in VS Code; DSH runs one server per name, so this one is not exported.');
    assert.deepEqual({ line: github.line, column: github.column }, displayedPosition('app/.mcp.json', '"github"'));
    const variable = row('.mcp.json', 'not-resolved-here');
    assert.ok(variable && variable.severity === 'warning', `no not-resolved-here warning under .mcp.json: ${JSON.stringify(problems)}`);
    assert.equal(variable.message, 'VS Code resolves no variable in .mcp.json: the server receives ${HOME} as written, and so does DSH. To use an input or a variable, define the server in .vscode/mcp.json.');
    assert.deepEqual({ line: variable.line, column: variable.column }, displayedPosition('app/.mcp.json', '${HOME}'));

    const docs = row('sources.code-workspace', 'shadowed-server');
    assert.ok(docs, `no shadowed-server row under the workspace file: ${JSON.stringify(problems)}`);
    assert.match(docs.message, /^Server "docs" is also defined in \.mcp\.json/);
    assert.deepEqual({ line: docs.line, column: docs.column }, displayedPosition('sources.code-workspace', '"docs"'));
    const sse = row('devcontainer.json', 'unsupported-transport');
    assert.ok(sse, `no unsupported-transport row under devcontainer.json: ${JSON.stringify(problems)}`);
    assert.deepEqual({ line: sse.line, column: sse.column }, displayedPosition('app/.devcontainer/devcontainer.json', '"sse"'));
    assert.ok(!problems.some((p) => p.file === 'mcp.json'), 'nothing of the other files is listed under .vscode/mcp.json');

    // The problem opens .mcp.json with the name selected ("github", 8 characters with its quotes).
    assert.deepEqual(await editor.openProblem('is also defined in .vscode/mcp.json'),
      { line: github.line, column: github.column + '"github"'.length, selected: '"github"'.length });
    const shot = await editor.screenshot('sources-problems');
    assert.ok(fs.statSync(shot).size > 10000, 'screenshot is empty');
    console.log(`      screenshot: ${shot}`);
  });
});
