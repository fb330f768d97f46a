// Restricted Mode, in a real VS Code (code-server + chromium via Playwright).
//
// The editor runs with Workspace Trust on (startEditor({ workspaceTrust: true }); the harness
// default is off, every folder trusted) and opens a copy of test/fixtures/ws-problems without
// trusting it (startupPrompt "never": Restricted Mode). Then:
//  1. the extension-host suite test/integration/restricted/ runs in that window (hostTests):
//     diagnostics work, commands invoked programmatically refuse to export or prompt, export on
//     save stays off, nothing is written, skill files are not read;
//  2. the command palette: the export and input commands are hidden, verify and logs offered;
//  3. (another editor, the installed .vsix) Review Skill Roots on a folder with a skill root says
//     discovery waits for Workspace Trust; once trusted, it lists the root.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { UI_WAIT_MS } from '../harness/e2e-driver.mjs';
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

describe('e2e: Review Skill Roots in Restricted Mode says discovery waits for Workspace Trust', function () {
  const editor = suiteEditor({ workspaceTrust: true });

  it('a folder with a skill root, not trusted: the review names the wait for trust, not "no root exists"; trusting it lists the root', async function () {
    await editor.openWorkspace('ws-problems', {
      prepare: (folder) => {
        fs.mkdirSync(path.join(folder, '.git'));
        fs.mkdirSync(path.join(folder, '.dsh', 'skills', 'helper'), { recursive: true });
        fs.writeFileSync(path.join(folder, '.dsh', 'skills', 'helper', 'SKILL.md'), '---\nname: helper\ndescription: A skill.\n---\nBody.\n');
      },
    });
    await editor.runCommand('DSH: Review Skill Roots');
    const note = await editor.waitForNotification(/Skill roots are discovered once you trust this workspace/);
    assert.match(note, /Restricted Mode DSH Bridge does not read its files, SKILL\.md included/);
    assert.doesNotMatch(note, /none of \.dsh\/skills/);
    await editor.notifications({ keepOpen: true });
    console.log(`      screenshot: ${await editor.screenshot('restricted-review-skill-roots')}`);
    await editor.runCommand('Notifications: Hide Notifications');

    // Trusted, the same command lists the root.
    await editor.runCommand('Workspaces: Manage Workspace Trust');
    const trust = editor.page.locator('.workspace-trust-editor .monaco-button', { hasText: /^Trust$/ }).first();
    await trust.waitFor({ state: 'visible', timeout: UI_WAIT_MS });
    await trust.click();
    const rows = await (async () => {
      for (const until = Date.now() + 60000; ;) {
        await editor.runCommand('DSH: Review Skill Roots');
        const listed = await editor.quickPickRows({ title: 'DSH Skill Roots', timeout: 5000 }).catch(() => undefined);
        if (listed) return listed;
        if (Date.now() > until) throw new Error('the trusted workspace\'s skill root was never listed');
      }
    })();
    assert.ok(rows.some((r) => /\.dsh\/skills/.test(r.label) && /helper/.test(r.text)), JSON.stringify(rows));
    console.log(`      screenshot: ${await editor.screenshot('trusted-review-skill-roots')}`);
    await editor.page.keyboard.press('Escape');
  });
});
