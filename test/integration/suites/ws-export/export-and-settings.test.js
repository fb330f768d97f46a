// Session on test/fixtures/ws-export: the export command in the real editor, the host-side store
// (DSH_HOME = the run's dsh-home, set by the harness), settings taking effect, a cancelled
// prompt writing nothing, export on save, forget, verify, and the status item.
'use strict';
const assert = require('assert');
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');
const vscode = require('vscode');
const { extension, replaceDocument, saveDocument, waitFor, workspaceFolder, TEST_TIMEOUT_MS } = require('../../helpers');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const folderPath = () => workspaceFolder().uri.fsPath;
const mcpPath = () => path.join(folderPath(), '.vscode', 'mcp.json');
const declPath = () => path.join(folderPath(), '.dsh', 'declaration.json');
const readDecl = () => JSON.parse(fs.readFileSync(declPath(), 'utf8'));
const sha256 = (x) => crypto.createHash('sha256').update(x).digest('hex');
/** The host store's file of a folder, as docs/declaration.md specifies it. */
const folderRecord = (home, folder = folderPath()) => path.join(home, 'bridge', 'folders', `${sha256(path.resolve(folder))}.json`);
const readJson = (f) => JSON.parse(fs.readFileSync(f, 'utf8'));
/** Saves a document (until it is clean: see saveDocument) and checks the file holds its text. */
async function saved(doc) {
  const live = await saveDocument(doc);
  assert.ok(!live.isDirty, 'the document is still dirty after save');
  assert.strictEqual(fs.readFileSync(doc.uri.fsPath, 'utf8'), live.getText(), 'the file does not hold the saved text');
}
/** Verify's verdict without the outlook of what DSH gets (checked where that is the point). */
const okAndReasons = ({ ok, reasons }) => ({ ok, reasons });

function exportNow(arg = workspaceFolder().uri) {
  return vscode.commands.executeCommand('dsh.exportMcpServers', arg);
}

async function setting(section, key, value, target) {
  await vscode.workspace.getConfiguration(section).update(key, value, target);
}

describe('ws-export: the export command, the host store and settings', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let original;
  let envHome;

  before(async function () {
    await waitFor(() => extension().isActive, 30000, 'activation');
    original = fs.readFileSync(mcpPath(), 'utf8');
    envHome = process.env.DSH_HOME;
    assert.ok(envHome && fs.existsSync(envHome), 'the harness sets DSH_HOME to a folder of the run');
  });

  afterEach(async function () {
    await setting('dsh', 'trustMode', undefined, vscode.ConfigurationTarget.Global);
    await setting('dsh', 'home', undefined, vscode.ConfigurationTarget.Global);
    await setting('dsh.export', 'toolCallTimeoutMs', undefined, vscode.ConfigurationTarget.Workspace);
    await setting('dsh.export', 'reconnect', undefined, vscode.ConfigurationTarget.Workspace);
    await setting('dsh.export', 'auto', undefined, vscode.ConfigurationTarget.Workspace);
  });

  it('writes a signed declaration into the folder and the trust mode and key into the DSH home', async function () {
    assert.ok(!fs.existsSync(declPath()));
    // Before the export: said once, with what to do (not "not exported - not exported yet").
    await waitFor(() => extension().exports.status().text === 'DSH: not exported', 10000, `the status before the export (now ${JSON.stringify(extension().exports.status())})`);
    // The counts are the servers view's rows (2 servers, 1 of them refused), then what to do.
    assert.strictEqual(extension().exports.status().detail, '2 servers \u00b7 1 refused \u2014 Export writes .dsh/declaration.json for DSH.');
    assert.strictEqual(extension().exports.status().bar, '$(warning) DSH: not exported');
    const summary = await exportNow();
    assert.strictEqual(summary.outcome, 'exported', JSON.stringify(summary));
    assert.strictEqual(summary.exported, 1);
    assert.strictEqual(summary.refused, 1);
    const decl = readDecl();
    assert.deepStrictEqual(decl.servers.map((s) => [s.name, s.transport, s.command, s.args]),
      [['files', 'stdio', 'node', [path.join(folderPath(), 'server.js')]]]);
    assert.deepStrictEqual(decl.rejected, [{ name: 'legacy', codes: ['unsupported-transport'] }]);
    assert.strictEqual(decl.source.sha256, sha256(fs.readFileSync(mcpPath())));
    assert.match(decl.signature, /^hmac-sha256:[0-9a-f]{64}$/);
    assert.ok(fs.readFileSync(path.join(folderPath(), '.dsh', '.gitignore'), 'utf8').split(/\r?\n/).includes('declaration.json'));
    // Host side, never in the workspace.
    assert.deepStrictEqual(readJson(path.join(envHome, 'bridge', 'settings.json')), { version: 1, trustMode: 'ask' });
    const key = path.join(envHome, 'bridge', 'signing.key');
    assert.match(fs.readFileSync(key, 'utf8').trim(), /^[0-9a-f]{64}$/);
    if (process.platform !== 'win32') assert.strictEqual(fs.statSync(key).mode & 0o777, 0o600);
    assert.ok(!fs.existsSync(path.join(folderPath(), 'bridge')));
    // The core's verify agrees, through the command.
    const verify = await vscode.commands.executeCommand('dsh.verifyDeclaration', workspaceFolder().uri);
    assert.deepStrictEqual(okAndReasons(verify), { ok: true, reasons: [] });
    // The status counts the view's rows (the exported server and the refused one), and never says "up to date" alone while one is refused.
    await waitFor(() => extension().exports.status().text === 'DSH: 1 refused' && /^2 servers \u00b7 1 refused \u2014 the declaration is up to date, but 1 server was refused: see Problems \u2014 Withheld from DSH sessions here: 1 server \(legacy\)\.$/.test(extension().exports.status().detail), 10000,
      `the status item to show the counts (now ${JSON.stringify(extension().exports.status())})`);
    assert.strictEqual(extension().exports.status().bar, '$(warning) DSH: 1 refused');
    assert.deepStrictEqual(extension().exports.status().state.counts, { servers: 2, refused: 1, shadowed: 0 });
    // The tooltip says what a click does as a link that does it; the screen reader gets a label of its own.
    assert.doesNotMatch(extension().exports.status().tooltip, /Click:/);
    assert.match(extension().exports.status().tooltip, /\[Show Problems\]\(command:workbench\.actions\.view\.problems\)/);
    assert.doesNotMatch(extension().exports.status().accessibilityLabel, /&nbsp;/);
    assert.match(extension().exports.status().accessibilityLabel, /: DSH: 1 refused\. 2 servers \u00b7 1 refused\. the declaration is up to date, but 1 server was refused/);
  });

  it('"Open Declaration" opens the folder\'s declaration in an editor', async function () {
    assert.strictEqual(await vscode.commands.executeCommand('dsh.openDeclaration', workspaceFolder().uri), true);
    await waitFor(() => vscode.window.activeTextEditor && vscode.window.activeTextEditor.document.uri.fsPath === declPath(), 10000, 'the declaration editor');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('uses changed export settings in the next export (folder-scoped settings)', async function () {
    await setting('dsh.export', 'toolCallTimeoutMs', 12345, vscode.ConfigurationTarget.Workspace);
    await setting('dsh.export', 'reconnect', { maxAttempts: 3 }, vscode.ConfigurationTarget.Workspace);
    const summary = await exportNow();
    assert.strictEqual(summary.outcome, 'exported');
    const [server] = readDecl().servers;
    assert.strictEqual(server.toolCallTimeoutMs, 12345);
    assert.deepStrictEqual(server.reconnect, { enabled: true, initialDelayMs: 500, maxDelayMs: 30000, maxAttempts: 3 });
  });

  it('an invalid setting value falls back to the DSH default instead of reaching the declaration', async function () {
    await setting('dsh.export', 'toolCallTimeoutMs', -5, vscode.ConfigurationTarget.Workspace);
    await exportNow();
    assert.strictEqual(readDecl().servers[0].toolCallTimeoutMs, 60000);
  });

  it('trust mode "deny": written to the host store when the setting changes; export writes nothing', async function () {
    await exportNow();
    const before = fs.readFileSync(declPath(), 'utf8');
    const mtime = fs.statSync(declPath()).mtimeMs;
    await setting('dsh', 'trustMode', 'deny', vscode.ConfigurationTarget.Global);
    await waitFor(() => readJson(path.join(envHome, 'bridge', 'settings.json')).trustMode === 'deny', 10000, 'trustMode deny in the host store');
    fs.writeFileSync(mcpPath(), original.replace('"files"', '"files2"'));
    try {
      const summary = await exportNow();
      assert.strictEqual(summary.outcome, 'denied');
      assert.strictEqual(fs.readFileSync(declPath(), 'utf8'), before);
      assert.strictEqual(fs.statSync(declPath()).mtimeMs, mtime);
    } finally {
      fs.writeFileSync(mcpPath(), original);
    }
    await setting('dsh', 'trustMode', undefined, vscode.ConfigurationTarget.Global);
    await waitFor(() => readJson(path.join(envHome, 'bridge', 'settings.json')).trustMode === 'ask', 10000, 'trustMode ask again');
  });

  it('one trust mode per machine: a mode set outside the editor (dsh-bridge trust) is kept by export, and the setting follows it', async function () {
    const settingsFile = path.join(envHome, 'bridge', 'settings.json');
    await setting('dsh', 'trustMode', 'pinned', vscode.ConfigurationTarget.Global);
    await waitFor(() => readJson(settingsFile).trustMode === 'pinned', 10000, 'pinned in the host store');
    const before = fs.readFileSync(declPath(), 'utf8');
    // The CLI's `dsh-bridge trust deny` writes this file; the editor sees the change.
    fs.writeFileSync(settingsFile, JSON.stringify({ version: 1, trustMode: 'deny' }));
    await waitFor(() => vscode.workspace.getConfiguration('dsh').get('trustMode') === 'deny', 15000, 'dsh.trustMode follows the host store');
    fs.writeFileSync(mcpPath(), original.replace('"files"', '"files2"'));
    try {
      const summary = await exportNow();
      assert.strictEqual(summary.outcome, 'denied', 'the export follows the machine\'s mode');
      assert.strictEqual(readJson(settingsFile).trustMode, 'deny', 'the export did not widen the mode back');
      assert.strictEqual(fs.readFileSync(declPath(), 'utf8'), before);
    } finally {
      fs.writeFileSync(mcpPath(), original);
    }
    // Back to "ask" outside the editor: the setting is left unset (its default) rather than written.
    fs.writeFileSync(settingsFile, JSON.stringify({ version: 1, trustMode: 'ask' }));
    await waitFor(() => vscode.workspace.getConfiguration('dsh').inspect('trustMode').globalValue === undefined, 15000, 'dsh.trustMode unset again');
    assert.strictEqual((await exportNow()).outcome, 'exported');
    assert.strictEqual(readJson(settingsFile).trustMode, 'ask');
  });

  it('dsh.home moves the host store (a new key signs; the old home is untouched)', async function () {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'dshb-home-'));
    try {
      const oldKey = fs.readFileSync(path.join(envHome, 'bridge', 'signing.key'), 'utf8');
      await setting('dsh', 'home', home, vscode.ConfigurationTarget.Global);
      await waitFor(() => fs.existsSync(path.join(home, 'bridge', 'settings.json')), 10000, 'the trust mode written to the new home');
      const summary = await exportNow();
      assert.strictEqual(summary.outcome, 'exported');
      assert.ok(fs.existsSync(path.join(home, 'bridge', 'signing.key')));
      assert.deepStrictEqual(okAndReasons(await vscode.commands.executeCommand('dsh.verifyDeclaration', workspaceFolder().uri)), { ok: true, reasons: [] });
      assert.strictEqual(fs.readFileSync(path.join(envHome, 'bridge', 'signing.key'), 'utf8'), oldKey);
      await setting('dsh', 'home', undefined, vscode.ConfigurationTarget.Global);
      // Back with the old key, the declaration signed with the new one does not verify (and the old
      // home's export counter is ahead of it); the status says what it is: another key.
      const verify = await vscode.commands.executeCommand('dsh.verifyDeclaration', workspaceFolder().uri);
      assert.ok(verify.reasons.some((r) => r.code === 'bad-signature'), JSON.stringify(verify.reasons));
      await waitFor(() => extension().exports.status().state && extension().exports.status().state.state === 'other-key', 10000,
        `the status to say another key (now ${JSON.stringify(extension().exports.status())})`);
      await exportNow();
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  it('cancelling the input prompt aborts the whole export: no declaration change, nothing in the host store', async function () {
    await exportNow();
    const before = fs.readFileSync(declPath(), 'utf8');
    const recordBefore = fs.existsSync(folderRecord(envHome)) ? fs.readFileSync(folderRecord(envHome), 'utf8') : undefined;
    const withInput = original.replace('"servers": {', `"inputs": [ { "type": "promptString", "id": "api-token", "description": "API token", "password": true } ],
  "servers": {
    "remote": { "type": "http", "url": "https://mcp.example.com/mcp", "headers": { "Authorization": "Bearer \${input:api-token}" } },`);
    fs.writeFileSync(mcpPath(), withInput);
    try {
      let settled = false;
      const running = exportNow().then((s) => { settled = true; return s; });
      // The masked input box is open now or soon: close it the way Escape does.
      while (!settled) {
        await sleep(500);
        await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      }
      const summary = await running;
      assert.strictEqual(summary.outcome, 'cancelled');
      assert.strictEqual(fs.readFileSync(declPath(), 'utf8'), before, 'the declaration changed');
      // The folder's record (the export counter of the first export) is as it was: no input value in it.
      const recordAfter = fs.existsSync(folderRecord(envHome)) ? fs.readFileSync(folderRecord(envHome), 'utf8') : undefined;
      assert.strictEqual(recordAfter, recordBefore, 'the host store record changed');
      assert.ok(recordAfter === undefined || Object.keys(JSON.parse(recordAfter).inputs).length === 0, 'an input value was stored');
    } finally {
      fs.writeFileSync(mcpPath(), original);
    }
  });

  it('"Forget Stored MCP Input Values" removes the folder\'s values from the host store', async function () {
    const record = folderRecord(envHome);
    fs.mkdirSync(path.dirname(record), { recursive: true });
    fs.writeFileSync(record, JSON.stringify({ version: 1, folder: path.resolve(folderPath()), inputs: { 'api-token': 'not-a-real-value' }, approvals: [] }), { mode: 0o600 });
    const forgotten = await vscode.commands.executeCommand('dsh.forgetInputValues', workspaceFolder().uri);
    assert.deepStrictEqual(forgotten, ['api-token']);
    assert.ok(!fs.existsSync(record), 'the record is still there');
  });

  it('export on save re-exports a saved mcp.json; when an input value is missing it only says so', async function () {
    await setting('dsh.export', 'auto', 'onSave', vscode.ConfigurationTarget.Workspace);
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(mcpPath()));
    await vscode.window.showTextDocument(doc);
    const edit = new vscode.WorkspaceEdit();
    edit.insert(doc.uri, new vscode.Position(0, 0), '// saved by the test\n');
    await vscode.workspace.applyEdit(edit);
    await saved(doc);
    await waitFor(() => readDecl().source.sha256 === sha256(fs.readFileSync(mcpPath())), 15000, 'the declaration of the saved file');

    // A server that needs an input value nobody entered: no prompt on save, the status item says it.
    const withInput = doc.getText().replace('"servers": {', `"inputs": [ { "type": "promptString", "id": "api-token", "description": "API token", "password": true } ],
  "servers": {
    "remote": { "type": "http", "url": "https://mcp.example.com/mcp", "headers": { "Authorization": "Bearer \${input:api-token}" } },`);
    await replaceDocument(doc, withInput);
    const declBefore = fs.readFileSync(declPath(), 'utf8');
    await saved(doc);
    await waitFor(() => /api-token/.test(extension().exports.status().detail || ''), 15000,
      `the status item to name the missing input (now ${JSON.stringify(extension().exports.status())})`);
    assert.strictEqual(fs.readFileSync(declPath(), 'utf8'), declBefore, 'export on save wrote although an input was missing');
    assert.match(extension().exports.status().detail, /stale|api-token/);
    // Restore.
    await replaceDocument(doc, original);
    await saveDocument(doc);
    await waitFor(() => readDecl().source.sha256 === sha256(fs.readFileSync(mcpPath())), 15000, 'the declaration of the restored file');
  });

  it('pickString (quick pick, default preselected) and command inputs: values reach the host store, not the declaration', async function () {
    const CMD = 'dshBridgeTest.inputValue';
    let calls = 0;
    const reg = vscode.commands.registerCommand(CMD, (args) => { calls++; return `from-command-${args && args.suffix}`; });
    const withInputs = original.replace('"servers": {', `"inputs": [
    { "type": "pickString", "id": "region", "description": "Region", "options": ["us", { "label": "Europe", "value": "eu" }, "ap"], "default": "eu" },
    { "type": "command", "id": "cmd-token", "command": "${CMD}", "args": { "suffix": "x1" } }
  ],
  "servers": {
    "regional": { "command": "node", "args": ["r.js", "--region", "\${input:region}"], "env": { "TOKEN_FROM_CMD": "\${input:cmd-token}" } },`);
    fs.writeFileSync(mcpPath(), withInputs);
    try {
      let settled = false;
      const running = exportNow().then((s) => { settled = true; return s; });
      // The quick pick opens with the default ("eu") active: accepting it takes the default.
      while (!settled) {
        await sleep(500);
        await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      }
      const summary = await running;
      assert.strictEqual(summary.outcome, 'exported', JSON.stringify(summary));
      assert.strictEqual(calls, 1, 'the input command ran once');
      const regional = readDecl().servers.find((s) => s.name === 'regional');
      assert.deepStrictEqual(regional.args, ['r.js', '--region', [{ input: 'region' }]]);
      assert.deepStrictEqual(regional.env, { TOKEN_FROM_CMD: [{ input: 'cmd-token' }] });
      assert.ok(!fs.readFileSync(declPath(), 'utf8').includes('from-command-x1'));
      assert.deepStrictEqual(readJson(folderRecord(envHome)).inputs, { region: 'eu', 'cmd-token': 'from-command-x1' });
    } finally {
      reg.dispose();
      fs.writeFileSync(mcpPath(), original);
      await vscode.commands.executeCommand('dsh.forgetInputValues', workspaceFolder().uri);
    }
  });

  it('input ids "__proto__" and "constructor": their values reach the host store as their own keys, the status misses none, Forget lists and removes both', async function () {
    const CMD = 'dshBridgeTest.protoValue';
    const reg = vscode.commands.registerCommand(CMD, (args) => `value-of-${args && args.which}`);
    const withInputs = original.replace('"servers": {', `"inputs": [
    { "type": "command", "id": "__proto__", "command": "${CMD}", "args": { "which": "proto" } },
    { "type": "command", "id": "constructor", "command": "${CMD}", "args": { "which": "ctor" } }
  ],
  "servers": {
    "proto": { "command": "node", "args": ["p.js"], "env": { "A": "\${input:__proto__}", "B": "\${input:constructor}" } },`);
    fs.writeFileSync(mcpPath(), withInputs);
    try {
      const summary = await exportNow();
      assert.strictEqual(summary.outcome, 'exported', JSON.stringify(summary));
      const record = fs.readFileSync(folderRecord(envHome), 'utf8');
      assert.deepStrictEqual(Object.entries(JSON.parse(record).inputs), [['__proto__', 'value-of-proto'], ['constructor', 'value-of-ctor']]);
      await waitFor(() => extension().exports.status().state && extension().exports.status().state.state === 'up-to-date', 15000,
        `the status to say up to date, no input missing (now ${JSON.stringify(extension().exports.status())})`);
      const forgotten = await vscode.commands.executeCommand('dsh.forgetInputValues', workspaceFolder().uri);
      assert.deepStrictEqual(forgotten, ['__proto__', 'constructor']);
      assert.ok(!fs.existsSync(folderRecord(envHome)), 'the record is still there');
    } finally {
      reg.dispose();
      fs.writeFileSync(mcpPath(), original);
    }
  });

  it('a .dsh/.gitignore that does not ignore the declaration: declaration-committable on it, whose quick fix adds the rule', async function () {
    await exportNow();
    const ignoreFile = path.join(folderPath(), '.dsh', '.gitignore');
    const before = fs.readFileSync(ignoreFile, 'utf8');
    const uri = vscode.Uri.file(ignoreFile);
    const ours = () => vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'dsh-bridge');
    fs.writeFileSync(ignoreFile, '# the repository\'s own\n*\n!declaration.json\n');
    try {
      await waitFor(() => ours().length === 1, 15000, `declaration-committable on .dsh/.gitignore (now ${JSON.stringify(ours().map((d) => d.code))})`);
      const [d] = ours();
      assert.strictEqual(typeof d.code === 'object' ? d.code.value : d.code, 'declaration-committable');
      assert.strictEqual(d.severity, vscode.DiagnosticSeverity.Warning);
      assert.deepStrictEqual([d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character], [2, 0, 2, 17]);
      const doc = await vscode.workspace.openTextDocument(uri);
      const actions = await waitFor(async () => {
        const a = (await vscode.commands.executeCommand('vscode.executeCodeActionProvider', uri, d.range, vscode.CodeActionKind.QuickFix.value) || []).filter((x) => x.kind && x.kind.value === 'quickfix');
        return a.length ? a : undefined;
      }, 10000, 'the quick fix');
      assert.deepStrictEqual(actions.map((a) => a.title), ['Ignore declaration.json in .dsh/.gitignore']);
      assert.ok(await vscode.workspace.applyEdit(actions[0].edit));
      assert.strictEqual(doc.getText(), '# the repository\'s own\n*\n!declaration.json\ndeclaration.json\n');
      // Gone from the unsaved text already, and after the save.
      await waitFor(() => ours().length === 0, 15000, 'the warning to go');
      await saved(doc);
      const summary = await exportNow();
      assert.strictEqual(summary.outcome, 'exported');
      assert.strictEqual(ours().length, 0);
    } finally {
      fs.writeFileSync(ignoreFile, before);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });

  it('trust mode "pinned" with export on save: an unapproved server is not exported on save; the status item says so', async function () {
    await exportNow();
    await setting('dsh', 'trustMode', 'pinned', vscode.ConfigurationTarget.Global);
    await setting('dsh.export', 'auto', 'onSave', vscode.ConfigurationTarget.Workspace);
    const before = fs.readFileSync(declPath(), 'utf8');
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(mcpPath()));
    const edit = new vscode.WorkspaceEdit();
    edit.insert(doc.uri, new vscode.Position(0, 0), '// pinned\n');
    await vscode.workspace.applyEdit(edit);
    await saved(doc);
    await waitFor(() => /approval of files/.test(extension().exports.status().detail || ''), 15000,
      `the status item to ask for the approval (now ${JSON.stringify(extension().exports.status())})`);
    assert.strictEqual(fs.readFileSync(declPath(), 'utf8'), before);
    await setting('dsh.export', 'auto', undefined, vscode.ConfigurationTarget.Workspace);
    await replaceDocument(doc, original);
    await saveDocument(doc);
  });

  it('the status names what the declaration is (changed, another key, another folder), live from disk, without running Verify', async function () {
    await exportNow();
    const exported = fs.readFileSync(declPath(), 'utf8');
    const status = () => extension().exports.status();
    const waitState = (state, words) => waitFor(() => status().state && status().state.state === state && words.test(status().detail || ''), 10000,
      `the status to say ${state} (now ${JSON.stringify(status())})`);
    await waitState('up-to-date', /up to date/);
    try {
      // Changed after the export: an edited entry.
      const changed = readDecl();
      changed.servers[0].command = 'sh';
      fs.writeFileSync(declPath(), `${JSON.stringify(changed, null, 2)}\n`);
      await waitState('changed', /changed after the export/);
      assert.match(status().bar, /DSH: refused by DSH/);
      // Signed with another key: intact, but the signature is another user's.
      const otherKey = readDecl();
      const original = JSON.parse(exported);
      otherKey.servers = original.servers;
      otherKey.signature = `hmac-sha256:${crypto.createHmac('sha256', crypto.randomBytes(32)).update(original.digest, 'utf8').digest('hex')}`;
      fs.writeFileSync(declPath(), `${JSON.stringify(otherKey, null, 2)}\n`);
      await waitState('other-key', /signed with another key/);
      // Made for another folder: intact and signed with this user's key, for another path.
      const canonicalize = require(path.join(extension().extensionPath, 'node_modules', 'canonicalize')).default;
      const { digest, signature, ...body } = original;
      body.folder = path.join(path.dirname(body.folder), 'another-folder');
      const otherDigest = `sha256:${sha256(canonicalize(body))}`;
      const key = Buffer.from(fs.readFileSync(path.join(envHome, 'bridge', 'signing.key'), 'utf8').trim(), 'hex');
      const moved = { ...body, digest: otherDigest, signature: `hmac-sha256:${crypto.createHmac('sha256', key).update(otherDigest, 'utf8').digest('hex')}` };
      fs.writeFileSync(declPath(), `${JSON.stringify(moved, null, 2)}\n`);
      await waitState('other-folder', /made for another folder/);
      const verify = await vscode.commands.executeCommand('dsh.verifyDeclaration', workspaceFolder().uri);
      assert.deepStrictEqual(verify.reasons.map((r) => r.code), ['wrong-folder'], `${JSON.stringify(verify)} (digest ${digest}, signature ${signature})`);
    } finally {
      // Restored on disk: the status is back without a Verify.
      fs.writeFileSync(declPath(), exported);
    }
    await waitState('up-to-date', /up to date/);
    assert.deepStrictEqual(okAndReasons(await vscode.commands.executeCommand('dsh.verifyDeclaration', workspaceFolder().uri)), { ok: true, reasons: [] });
    // An older export restored over a newer one is named as such.
    fs.writeFileSync(mcpPath(), `// a newer export\n${original}`);
    try {
      await exportNow();
      fs.writeFileSync(declPath(), exported);
      await waitState('older', /an older export restored over a newer one/);
    } finally {
      fs.writeFileSync(mcpPath(), original);
      await exportNow();
    }
  });
});
