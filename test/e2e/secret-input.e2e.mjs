// UI flow in a real VS Code workbench (code-server + chromium via Playwright), like a user:
// F1 > "DSH: Export MCP Servers" on test/fixtures/ws-secret, type a canary secret into
// the MASKED input box, then check where the canary went: into the host-side store under the
// DSH home (and VS Code's secret storage), and nowhere else: not into any workspace file, any
// log (extension log, extension host, server, browser console), any diagnostic or notification.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { UI_WAIT_MS, waitUntil } from '../harness/e2e-driver.mjs';
import { suiteEditor } from './hooks.mjs';

const CANARY = `canary-${crypto.randomBytes(9).toString('hex')}`;

/** Every regular file below `dir` whose bytes contain `needle`. */
function filesContaining(dir, needle) {
  const hits = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && fs.readFileSync(p).includes(needle)) hits.push(p);
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return hits;
}

/** sha256 of the folder path: the host store's file name for the folder (docs/declaration.md). */
const folderRecord = (dshHome, folder) => path.join(dshHome, 'bridge', 'folders', `${crypto.createHash('sha256').update(path.resolve(folder)).digest('hex')}.json`);

describe('e2e: a secret input typed into the masked prompt goes to the host store only (ws-secret)', function () {
  const editor = suiteEditor();

  it('export with a typed secret: declaration references the input, host store holds it, nothing else does', async function () {
    const ws = await editor.openWorkspace('ws-secret');
    const page = editor.page;
    await editor.runCommand('DSH: Export MCP Servers');

    // The prompt is the masked input box with the input's description.
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: UI_WAIT_MS });
    assert.equal(await input.getAttribute('type'), 'password', 'the input box for a password input must be masked');
    const prompt = await page.locator('.quick-input-widget').innerText();
    assert.match(prompt, /API token of the canary server/);
    await input.fill(CANARY);
    await editor.screenshot('masked-prompt-typed');
    await page.keyboard.press('Enter');

    // The declaration: written, references the input, never contains the value.
    const declFile = await editor.waitForWorkspaceFile('.dsh/declaration.json');
    const decl = JSON.parse(fs.readFileSync(declFile, 'utf8'));
    const canary = decl.servers.find((s) => s.name === 'canary');
    assert.ok(canary, `canary server not exported: ${JSON.stringify(decl.servers.map((s) => s.name))}`);
    assert.deepEqual(canary.env, { API_TOKEN: [{ input: 'api-token' }] });
    assert.deepEqual(canary.inputRefs, ['api-token']);
    assert.deepEqual(decl.inputs, [{ id: 'api-token', type: 'promptString', description: 'API token of the canary server', password: true }]);
    assert.ok(decl.rejected.some((r) => r.name === 'legacy-events'));

    // The host store holds the canary (mode 0600), under the run's DSH home.
    const record = folderRecord(editor.run.dshHome, ws);
    await waitUntil(() => fs.existsSync(record), `the host store record ${record}`);
    const stored = JSON.parse(fs.readFileSync(record, 'utf8'));
    assert.equal(stored.inputs['api-token'], CANARY);
    assert.equal(fs.statSync(record).mode & 0o777, 0o600);

    // The summary notification, with its two actions.
    const note = await editor.waitForNotification(/^Exported 1 MCP server to DSH\. 1 server was refused: see Problems\. Withheld from DSH sessions here: 1 server \(legacy-events\)\.$/);
    assert.ok(!note.includes(CANARY));

    // Problems lists the refused server; no problem text carries the canary.
    const problems = await editor.readProblems();
    const refused = problems.find((p) => p.code === 'unsupported-transport');
    assert.ok(refused, `no unsupported-transport row: ${JSON.stringify(problems.map((p) => p.text))}`);
    assert.equal(refused.source, 'dsh-bridge');
    for (const p of problems) assert.ok(!p.text.includes(CANARY), `a problem shows the canary: ${p.text}`);
    const shot = await editor.screenshot('secret-export-problems');
    assert.ok(fs.statSync(shot).size > 10000);

    // Open the extension's log so that everything it wrote is flushed and visible, then search.
    await editor.runCommand('DSH: Show Logs');
    await page.waitForTimeout(1500);
    assert.ok(!(await page.locator('.monaco-workbench').innerText()).includes(CANARY), 'the canary is visible in the workbench');

    assert.deepEqual(filesContaining(ws, CANARY), [], 'a workspace file contains the canary');
    const logs = [
      ...filesContaining(path.join(editor.run.userData, 'logs'), CANARY),
      ...fs.readdirSync(editor.run.dir).filter((f) => /\.(log|txt)$/.test(f)).map((f) => path.join(editor.run.dir, f))
        .filter((f) => fs.readFileSync(f).includes(CANARY)),
    ];
    assert.deepEqual(logs, [], 'a log contains the canary');
    // Where the canary may be: the host store record, and VS Code's own (secret) storage.
    const everywhere = filesContaining(editor.run.dir, CANARY).map((f) => path.relative(editor.run.dir, f));
    console.log(`      files holding the canary: ${JSON.stringify(everywhere)}`);
    assert.ok(everywhere.includes(path.relative(editor.run.dir, record)));
    for (const f of everywhere) {
      assert.ok(f === path.relative(editor.run.dir, record) || /^(home|user-data)\//.test(f), `unexpected file holds the canary: ${f}`);
      assert.ok(!/\blogs?\b/.test(f), `a log holds the canary: ${f}`);
    }
    console.log(`      screenshot: ${shot}`);
  });

  it('a second export takes the value from VS Code\'s secret storage (no prompt); after "Forget" it asks again', async function () {
    const page = editor.page;
    const record = folderRecord(editor.run.dshHome, editor.workspace);
    fs.rmSync(record); // the host store copy is gone: only the secret storage still has the value
    await editor.runCommand('DSH: Export MCP Servers');
    await waitUntil(() => fs.existsSync(record), `the export to mirror the value into ${record}`);
    assert.equal(JSON.parse(fs.readFileSync(record, 'utf8')).inputs['api-token'], CANARY, 'the export did not mirror the stored secret');
    assert.equal(await page.locator('.quick-input-widget input[type=password]').isVisible(), false, 'the export prompted although a value was stored');

    // Forget asks first; afterwards the status bar says DSH now misses the value.
    await editor.statusBarItem('dsh-bridge.status', { text: /DSH: 1 refused/ });
    await editor.runCommand('DSH: Forget Stored MCP Input Values');
    const confirm = await editor.dialog();
    assert.match(confirm, /Forget the stored value of api-token in ws-secret\?/);
    assert.match(confirm, /will miss the value until you enter it again/);
    await editor.screenshot('forget-confirmation');
    await editor.clickDialogButton('Forget');
    // The record may stay (it keeps the folder's export counter), without the value.
    const storedInputs = () => (fs.existsSync(record) ? Object.keys(JSON.parse(fs.readFileSync(record, 'utf8')).inputs) : []);
    await waitUntil(() => storedInputs().length === 0, () => `forget to empty the host store (holds ${JSON.stringify(storedInputs())})`).catch(() => {});
    assert.deepEqual(storedInputs(), [], 'forget left the value in the host store');
    await editor.waitForNotification(/^Forgot the stored value of api-token in ws-secret, in VS Code and in the DSH host store\.$/);
    const bar = await editor.statusBarItem('dsh-bridge.status', { text: /DSH: needs inputs/ });
    await editor.hoverFor(bar.locator, 'DSH has no value for input api-token');
    console.log(`      screenshot: ${await editor.screenshot('status-bar-needs-inputs')}`);

    await editor.runCommand('DSH: Export MCP Servers');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: UI_WAIT_MS });
    assert.equal(await input.getAttribute('type'), 'password');
    await page.keyboard.press('Escape');
    await editor.waitForNotification(/Export cancelled: nothing was written/);
    assert.deepEqual(storedInputs(), []);
  });
});
