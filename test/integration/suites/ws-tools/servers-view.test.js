// Session on test/fixtures/ws-tools: the "MCP Servers for DSH" view in the real editor. Its
// items are read as the view renders them (label, description, tooltip) through the extension's
// API, after each step a user takes: nothing exported, export, an edited entry, trust mode
// pinned, a declaration changed by hand, an mcp.json with no server (welcome view).
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const vscode = require('vscode');
const { extension, waitFor, workspaceFolder, TEST_TIMEOUT_MS } = require('../../helpers');

const folderPath = () => workspaceFolder().uri.fsPath;
const mcpPath = () => path.join(folderPath(), '.vscode', 'mcp.json');
const declPath = () => path.join(folderPath(), '.dsh', 'declaration.json');

async function view() {
  return extension().exports.serversView();
}
/** [label, description] of each top item. */
const rows = (snapshot) => snapshot.items.map((i) => [i.label, i.description]);

/** Waits until the view shows `expected` rows; the failure says what it showed. */
async function viewShows(expected, what) {
  /** @type {any} */
  let last;
  try {
    await waitFor(async () => {
      last = await view();
      return JSON.stringify(rows(last)) === JSON.stringify(expected);
    }, 20000, `${what}: the view to show ${JSON.stringify(expected)}`);
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : error} (it shows ${JSON.stringify(last && rows(last))})`);
  }
  return last;
}

async function setting(section, key, value) {
  await vscode.workspace.getConfiguration(section).update(key, value, vscode.ConfigurationTarget.Global);
}

describe('ws-tools: the "MCP Servers for DSH" view', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let original;

  before(async function () {
    await waitFor(() => extension().isActive, 30000, 'activation');
    original = fs.readFileSync(mcpPath(), 'utf8');
  });

  after(async function () {
    await setting('dsh', 'trustMode', undefined);
    fs.writeFileSync(mcpPath(), original);
  });

  it('is contributed to the Explorer with an icon, a welcome view, and shown where the bridge runs', async function () {
    const pkg = extension().packageJSON;
    const ours = pkg.contributes.views.explorer.find((v) => v.id === 'dsh.mcpServers');
    assert.ok(ours, 'no dsh.mcpServers view in the Explorer');
    assert.strictEqual(ours.icon, '$(server)');
    assert.strictEqual(ours.name, 'MCP Servers for DSH');
    assert.ok(pkg.contributes.viewsWelcome.some((w) => w.view === 'dsh.mcpServers' && /command:workbench\.mcp\.addConfiguration/.test(w.contents)));
    // Opening the view works through VS Code's own focus command of the contributed view.
    await vscode.commands.executeCommand('dsh.mcpServers.focus');
  });

  it('before any export: the servers in source order, two not exported, the SSE one refused with its code; the counts', async function () {
    const v = await viewShows([['everything', 'not exported'], ['legacy-events', 'refused: unsupported-transport'], ['notes', 'not exported']], 'before the export');
    // The count is the rows (the refused one among them), as beside the rows in the view.
    assert.strictEqual(v.description, '3 servers \u00b7 1 refused');
    const refused = v.items[1];
    assert.match(refused.tooltip, /The export refuses this entry \(unsupported-transport\): DSH does not get it\. Problems says why\./);
    assert.strictEqual(refused.contextValue, 'dsh.server refused', 'a refused entry offers no export');
    assert.strictEqual(v.items[0].contextValue, 'dsh.server exportable probeable');
  });

  it('the inline export (dsh.exportFromView) exports the folder: the servers read exported', async function () {
    const summary = await vscode.commands.executeCommand('dsh.exportFromView', workspaceFolder().uri);
    assert.strictEqual(summary.outcome, 'exported');
    assert.ok(fs.existsSync(declPath()));
    const v = await viewShows([['everything', 'exported'], ['legacy-events', 'refused: unsupported-transport'], ['notes', 'exported']], 'after the export');
    assert.match(v.items[0].tooltip, /Exported as it is: DSH sessions of this folder get it\./);
  });

  it('trust mode pinned: exported servers without an approval read not approved', async function () {
    await setting('dsh', 'trustMode', 'pinned');
    const v = await viewShows([['everything', 'not approved'], ['legacy-events', 'refused: unsupported-transport'], ['notes', 'not approved']], 'in trust mode pinned');
    assert.match(v.items[0].tooltip, /not approved for its current pin/);
    await setting('dsh', 'trustMode', undefined);
    await viewShows([['everything', 'exported'], ['legacy-events', 'refused: unsupported-transport'], ['notes', 'exported']], 'back in trust mode ask');
  });

  it('an entry edited after the export makes the declaration stale: every row says so (DSH mounts none of them), the count too', async function () {
    fs.writeFileSync(mcpPath(), original.replace('"notes.js"', '"notes.js", "--verbose"'));
    const v = await viewShows([['everything', 'stale'], ['legacy-events', 'refused: unsupported-transport \u00b7 stale'], ['notes', 'stale']], 'after editing notes');
    assert.strictEqual(v.description, '3 servers \u00b7 1 refused \u00b7 stale');
    assert.match(v.items[0].tooltip, /The declaration is stale/);
  });

  it('a declaration changed by hand: every server reads refused by DSH', async function () {
    const text = fs.readFileSync(declPath(), 'utf8');
    fs.writeFileSync(declPath(), text.replace('"toolCallTimeoutMs": 60000', '"toolCallTimeoutMs": 60001'));
    assert.notStrictEqual(fs.readFileSync(declPath(), 'utf8'), text, 'fixture changed: nothing to tamper with');
    await viewShows([['everything', 'refused by DSH'], ['legacy-events', 'refused: unsupported-transport \u00b7 refused by DSH'], ['notes', 'refused by DSH']], 'after tampering');
    fs.writeFileSync(declPath(), text);
    await viewShows([['everything', 'stale'], ['legacy-events', 'refused: unsupported-transport \u00b7 stale'], ['notes', 'stale']], 'after restoring the declaration');
  });

  it('"Open Entry in mcp.json" opens the file with the server\'s key selected', async function () {
    await vscode.commands.executeCommand('dsh.openServerEntry', workspaceFolder().uri, 'notes');
    const editor = await waitFor(() => {
      const e = vscode.window.activeTextEditor;
      return e && e.document.uri.fsPath === mcpPath() ? e : undefined;
    }, 10000, 'mcp.json in the active editor');
    assert.strictEqual(editor.document.getText(editor.selection), '"notes"');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('an mcp.json that cannot be used shows one row pointing at Problems; one with no server leaves the view empty (welcome view)', async function () {
    fs.writeFileSync(mcpPath(), '{ "servers": { "x": ');
    await viewShows([['.vscode/mcp.json cannot be used: see Problems', undefined]], 'an unusable mcp.json');
    fs.writeFileSync(mcpPath(), '{\n  "servers": {}\n}\n');
    const v = await viewShows([], 'an mcp.json without servers');
    assert.strictEqual(v.description, undefined, 'no count beside the title when there is no server');
  });
});
