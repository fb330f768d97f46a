// UI flow in a real VS Code workbench (code-server + Debian chromium via Playwright) on the
// installed .vsix, on the ws-devcontainer fixture: the folder's servers are only in
// `.devcontainer.json` and `.devcontainer/python/devcontainer.json` (no .vscode/mcp.json, no
// .mcp.json). The extension activates from them alone and the Problems panel lists each file's
// problems under that file, with the message a user reads. A screenshot is kept.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { suiteEditor } from './hooks.mjs';

describe('e2e: a workspace whose servers are only in dev container configurations (ws-devcontainer)', function () {
  const editor = suiteEditor();

  it('activates without a command and shows the Problems of both configurations', async function () {
    await editor.openWorkspace('ws-devcontainer');
    // Nothing is run: the Problems come from the activation by the dev container files.
    const problems = (await editor.readProblems({ atLeast: 2 })).filter((p) => p.source === 'dsh-bridge');
    console.log(`      Problems panel: ${JSON.stringify(problems.map((p) => [p.file, p.text]))}`);
    const sse = problems.find((p) => p.file === '.devcontainer.json' && p.code === 'unsupported-transport');
    assert.ok(sse, `no unsupported-transport row under .devcontainer.json: ${JSON.stringify(problems)}`);
    assert.equal(sse.severity, 'error');
    const shadowed = problems.find((p) => p.file === 'devcontainer.json' && p.code === 'shadowed-server');
    assert.ok(shadowed, `no shadowed-server row under .devcontainer/python/devcontainer.json: ${JSON.stringify(problems)}`);
    assert.equal(shadowed.message, 'Server "files" is also defined in .devcontainer.json, and that definition takes precedence, as in VS Code; DSH runs one server per name, so this one is not exported.');
    const shot = await editor.screenshot('devcontainer-problems');
    assert.ok(fs.statSync(shot).size > 10000, 'screenshot is empty');
    console.log(`      screenshot: ${shot}`);
  });
});
