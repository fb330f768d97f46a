// UI flow with the PACKAGED extension on test/fixtures/ws-tools (issue 35, consent defaults): no
// dialog that lets a flagged launch or a withheld tool through answers yes to Enter. A server
// whose launch is flagged (NODE_OPTIONS in its env) and whose tool hides instructions in Unicode
// tag characters: the probe's consent is a warning with Do Not Start focused, so Enter starts
// nothing (no probe record in the host store); the dialog that accepts the withheld tool has Keep
// Withheld focused, so Enter (and Escape) records nothing (no accepted.json); a click on the answer does what it says.
// The flagged approval of the pinned trust mode (Skip focused) is pinned-approval.e2e's. Screenshots kept.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { REPO, sleep } from '../harness/lib.mjs';
import { suiteEditor } from './hooks.mjs';
import { openView, rowDescription, viewRow } from './treeView.mjs';

const VIEW = 'MCP Servers for DSH';
const FIXTURE = path.join(REPO, 'test/fixtures/mcp-servers/tool-fixture.mjs');
const DIALOG = '.monaco-dialog-box';

describe('e2e: consent defaults: Enter never lets a flagged launch or a withheld tool through (installed .vsix, ws-tools)', function () {
  const editor = suiteEditor();

  /** The open dialog: its text, its icon and the label of the focused button (what Enter presses), once a button has the focus. */
  const dialogState = async () => {
    const text = await editor.dialog();
    const page = editor.page;
    const icon = await page.locator(`${DIALOG} .dialog-icon`).first().getAttribute('class');
    let focused = '';
    for (const until = Date.now() + 15000; !focused && Date.now() < until;) {
      focused = await page.evaluate(() => (document.activeElement?.closest('.monaco-button') ? document.activeElement.textContent.trim() : ''));
      if (!focused) await sleep(100);
    }
    return { text, warning: /codicon-(dialog-)?warning\b/.test(icon ?? ''), focused };
  };
  const dialogGone = () => editor.page.locator(DIALOG).waitFor({ state: 'hidden', timeout: 15000 });

  it('probe of a flagged launch: Do Not Start focused, Enter starts nothing; accepting a withheld tool: Keep Withheld focused, Enter records nothing', async function () {
    const servers = { notes: { command: process.execPath, args: [FIXTURE, '--poison', 'tag-smuggling'], env: { NODE_OPTIONS: '--no-warnings' } } };
    const ws = await editor.openWorkspace('ws-tools', {
      prepare: (folder) => fs.writeFileSync(path.join(folder, '.vscode/mcp.json'), `${JSON.stringify({ servers }, null, 2)}\n`),
    });
    const page = editor.page;
    const probeRecord = path.join(editor.run.dshHome, 'bridge/probes', `${crypto.createHash('sha256').update(path.resolve(ws)).digest('hex')}.json`);
    const acceptedFile = path.join(editor.run.dshHome, 'bridge/accepted.json');
    const { header, pane } = await openView(page, VIEW);
    const notes = viewRow(pane, /^notes/);
    await rowDescription(notes, /^not exported$/, 'before the probe', 60000);

    // 1. The probe's consent: a warning naming the danger, Do Not Start the default; Enter starts nothing.
    await header.hover();
    await header.locator('.action-label[aria-label="Probe MCP Servers"]').click();
    let state = await dialogState();
    assert.match(state.text, /Start MCP server "notes" to list its tools\?/);
    assert.match(state.text, /Sets NODE_OPTIONS, which changes which code the process loads or runs\./);
    assert.deepEqual([state.warning, state.focused], [true, 'Do Not Start'], 'a flagged launch: a warning, Do Not Start the default button');
    console.log(`      screenshot: ${await editor.screenshot('consent-probe-flagged-do-not-start-focused')}`);
    await page.keyboard.press('Enter');
    await dialogGone();
    // The probe runs in the extension host once consented: its cancellation leaves no record, and the row says so.
    await rowDescription(notes, /^not exported$/, 'after Enter on the probe consent');
    assert.ok(!fs.existsSync(probeRecord), 'Enter on the probe\'s consent started the flagged server');

    // The answer itself, clicked: the probe runs.
    await header.hover();
    await header.locator('.action-label[aria-label="Probe MCP Servers"]').click();
    await dialogState();
    await editor.clickDialogButton('Probe');
    await editor.waitForNotification(/^Probed 1 MCP server of ws-tools: 4 tools\./, { timeout: 90000 });
    await rowDescription(notes, /4 tools/, 'after the probe');
    assert.ok(fs.existsSync(probeRecord));
    await notes.locator('.monaco-tl-twistie').click();

    // 2. Accepting the withheld tool: Keep Withheld the default; Enter keeps it withheld.
    const poisoned = viewRow(pane, 'mcp__notes__list_notes');
    await poisoned.waitFor({ state: 'visible', timeout: 30000 });
    await rowDescription(poisoned, /^withheld: 2 findings/, 'the poisoned tool');
    const acceptFromRow = async () => {
      await page.mouse.move(0, 0);
      await poisoned.hover();
      await poisoned.locator('.action-label[aria-label="Accept This Tool Definition"]').click();
      return dialogState();
    };
    state = await acceptFromRow();
    assert.match(state.text, /Offer tool "list_notes" of "notes" to DSH sessions despite what its definition says\?/);
    assert.deepEqual([state.warning, state.focused], [true, 'Keep Withheld'], 'accepting a withheld tool: Keep Withheld the default button');
    console.log(`      screenshot: ${await editor.screenshot('consent-accept-tool-keep-withheld-focused')}`);
    await page.keyboard.press('Enter');
    await dialogGone();
    await rowDescription(poisoned, /^withheld: 2 findings/, 'after Enter on the accept dialog');
    assert.ok(!fs.existsSync(acceptedFile), 'Enter on the accept dialog accepted the tool');

    // Escape too.
    await acceptFromRow();
    await page.keyboard.press('Escape');
    await dialogGone();
    assert.ok(!fs.existsSync(acceptedFile), 'Escape on the accept dialog accepted the tool');

    // The answer itself, clicked: accepted.
    await acceptFromRow();
    await editor.clickDialogButton('Accept This Definition');
    await rowDescription(poisoned, /^accepted \(2 findings\)/, 'after the click on Accept');
    const accepted = JSON.parse(fs.readFileSync(acceptedFile, 'utf8'));
    assert.deepEqual(accepted.tools.map((t) => [t.serverName, t.tool]), [['notes', 'list_notes']]);
    console.log(`      screenshot: ${await editor.screenshot('consent-accept-tool-accepted')}`);
  });
});
