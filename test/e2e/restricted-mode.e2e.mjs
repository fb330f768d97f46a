// Restricted Mode, in a real VS Code (code-server + chromium via Playwright).
//
// The editor runs with Workspace Trust on (startEditor({ workspaceTrust: true }); the harness
// default is off, every folder trusted) and opens a copy of test/fixtures/ws-problems without
// trusting it (startupPrompt "never": Restricted Mode). Then:
//  1. the extension-host suite test/integration/restricted/ runs in that window (hostTests):
//     diagnostics work, commands invoked programmatically refuse to export or prompt, export on
//     save stays off, nothing is written, skill files are not read;
//  2. the command palette: the export and input commands are hidden, verify and logs offered.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { suiteEditor } from './hooks.mjs';

describe('e2e: Restricted Mode (Workspace Trust on, folder not trusted)', function () {
  let ws;
  const editor = suiteEditor({
    workspaceTrust: true,
    settings: { 'security.workspace.trust.banner': 'always' }, // the Restricted Mode banner, in the screenshot
    hostTests: 'test/integration/restricted',
  });

  before(async function () {
    ws = await editor.openWorkspace('ws-problems', {
      hostTests: true,
      // Skill files a repository could ship: discovery must not read them in Restricted Mode.
      prepare: (folder) => {
        fs.mkdirSync(path.join(folder, '.git')); // its own project root, not the repository holding the run folder
        for (const [dir, text] of [['good', '---\nname: good\ndescription: A skill.\n---\n'], ['bad', 'no front matter\n']]) {
          fs.mkdirSync(path.join(folder, '.agents', 'skills', dir), { recursive: true });
          fs.writeFileSync(path.join(folder, '.agents', 'skills', dir, 'SKILL.md'), text);
        }
      },
    });
  });

  it('in the extension host: diagnostics work; export, prompting and export on save are refused in code', async function () {
    const { code, lines, logFile } = await editor.hostTestsResult();
    const summary = lines.filter((l) => /✔|passing|failing|pending|^\s+\d+\) |Error|dsh\.export\.auto/.test(l));
    console.log(summary.map((l) => `      | ${l}`).join('\n'));
    assert.equal(code, 0, `the Restricted Mode suite failed (exit ${code}); host log: ${logFile}`);
    assert.ok(lines.some((l) => /mocha \(restricted\): [1-9]\d* passed, 0 failed/.test(l)), 'no passing test reported');
  });

  it('in the workbench: the palette hides the export and input commands, offers verify', async function () {
    const shown = await editor.paletteTitles('DSH:', { waitFor: 'DSH: Verify Declaration', keepOpen: true });
    console.log(`      palette "DSH:" in Restricted Mode: ${JSON.stringify(shown)}`);
    assert.ok(shown.includes('DSH: Verify Declaration'), 'the extension\'s commands never showed up');
    assert.ok(shown.includes('DSH: Show Logs'));
    assert.ok(!shown.includes('DSH: Export MCP Servers'), 'export is offered in Restricted Mode');
    assert.ok(!shown.includes('DSH: Enter MCP Input Values...'), 'prompting for inputs is offered in Restricted Mode');
    await editor.screenshot('restricted-palette');
    await editor.page.keyboard.press('Escape');
    assert.ok(!fs.existsSync(path.join(ws, '.dsh')));
  });
});
