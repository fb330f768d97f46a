// Session on test/fixtures/ws-problems: diagnostics (codes, exact ranges, links, related
// information) for closed and open files, and every quick fix applied in the real editor.
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const vscode = require('vscode');
const { codeLink, extension, liveText, replaceDocument, waitFor, workspaceFolder, valueRange, positionAt, TEST_TIMEOUT_MS } = require('../../helpers');

function mcpUri() {
  return vscode.Uri.joinPath(workspaceFolder().uri, '.vscode', 'mcp.json');
}
function ours(uri = mcpUri()) {
  return vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'dsh-bridge');
}
const codeOf = (d) => (d.code && typeof d.code === 'object' ? codeLink(d).value : d.code);
const codes = (uri) => ours(uri).map(codeOf).sort();
const plain = (r) => ({ start: { line: r.start.line, character: r.start.character }, end: { line: r.end.line, character: r.end.character } });

/** Range of a substring of the text (first occurrence after `after`). */
function substringRange(text, needle, after = '') {
  const offset = text.indexOf(needle, after ? text.indexOf(after) : 0);
  assert.ok(offset >= 0, `fixture changed: ${needle} not found`);
  return { start: positionAt(text, offset), end: positionAt(text, offset + needle.length) };
}

/** JSONC parsed with the repo's jsonc-parser (comments and trailing commas allowed). */
const parseJsonc = (text) => require(path.join(extension().extensionPath, 'node_modules', 'jsonc-parser')).parse(text);
/** The diagnostics as comparable data: code and range. */
const snapshot = (uri) => JSON.stringify(ours(uri).map((d) => [codeOf(d), plain(d.range)]).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))));

/** Replaces the text; resolves with the live document holding it (the one a test held may have been re-opened). */
async function replaceAll(doc, text) {
  const live = await replaceDocument(doc, text);
  assert.strictEqual(live.getText(), text);
  return live;
}

async function quickFixes(doc, code) {
  const d = ours(doc.uri).find((x) => codeOf(x) === code);
  assert.ok(d, `no ${code} diagnostic (now: ${codes(doc.uri)})`);
  const actions = await vscode.commands.executeCommand('vscode.executeCodeActionProvider', doc.uri, d.range, vscode.CodeActionKind.QuickFix.value);
  // The API command returns code actions without their diagnostics: with the quick-fix kind
  // filter and at this range, only DSH Bridge offers any here.
  return (actions || []).filter((a) => a.kind && a.kind.value === 'quickfix');
}

describe('ws-problems: diagnostics and quick fixes', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let original;
  let originalDiagnostics;

  before(async function () {
    await waitFor(() => extension().isActive, 30000, 'activation');
    original = fs.readFileSync(mcpUri().fsPath, 'utf8');
  });

  it('reports each problem of the closed file with its code, exact range, README link and severity', async function () {
    const uri = mcpUri();
    assert.ok(!vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri.toString()), 'mcp.json should not be open yet');
    const ext = extension();
    await waitFor(() => codes(uri).includes('secret-in-args'), 30000, `diagnostics (now ${codes(uri)})`);
    const text = original;
    originalDiagnostics = snapshot(uri);
    const expected = {
      'unsupported-transport': valueRange(ext, text, ['servers', 'events', 'type']),
      'unsupported-sandbox': valueRange(ext, text, ['servers', 'boxed', 'sandboxEnabled']),
      'unmasked-secret-input': valueRange(ext, text, ['inputs', 0, 'id']),
      'undefined-input': substringRange(text, '${input:gh-token}'),
      'secret-in-args': valueRange(ext, text, ['servers', 'argv', 'args', 2]),
    };
    for (const [code, range] of Object.entries(expected)) {
      const hits = ours(uri).filter((d) => codeOf(d) === code);
      assert.strictEqual(hits.length, 1, `expected one ${code}, got ${hits.length}: ${codes(uri)}`);
      const d = hits[0];
      assert.deepStrictEqual(plain(d.range), { start: range.start, end: range.end }, `range of ${code}`);
      assert.ok(codeLink(d).target instanceof vscode.Uri, `${code}: target is not a Uri`);
      // The repository's page (package.json's repository), in the display language (English here), at the code's heading.
      assert.strictEqual(codeLink(d).target.toString(true), `https://github.com/dsh-bridge/dsh-bridge/blob/main/docs/problem-codes.md#${code}`, `${code}: the link is not its entry`);
      assert.ok(d.message.length > 10 && !/\{[A-Za-z]+\}/.test(d.message), `${code}: message not filled: ${d.message}`);
    }
    const sev = (code) => ours(uri).find((d) => codeOf(d) === code).severity;
    assert.strictEqual(sev('unsupported-transport'), vscode.DiagnosticSeverity.Error);
    assert.strictEqual(sev('secret-in-args'), vscode.DiagnosticSeverity.Warning);
    // The undefined input points at where inputs are defined.
    const undef = ours(uri).find((d) => codeOf(d) === 'undefined-input');
    assert.strictEqual(undef.relatedInformation.length, 1);
    assert.strictEqual(undef.relatedInformation[0].location.uri.toString(), uri.toString());
    assert.deepStrictEqual(plain(undef.relatedInformation[0].location.range), plain(substringRange(text, '"inputs"')));
    assert.ok(undef.message.includes('gh-token'));
  });

  it('follows disk changes of the closed file through the file watcher (a syntax error, then the fix)', async function () {
    const uri = mcpUri();
    const open = () => vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri.toString());
    try {
      fs.writeFileSync(uri.fsPath, '{ "servers": { "a": { "command": "x" } ');
      // Closed: the syntax error is ours to report (nobody else does); open: VS Code reports it.
      const onlySyntax = () => codes(uri).length > 0 && codes(uri).every((c) => c === 'invalid-json');
      await waitFor(() => (open() ? codes(uri).length === 0 : onlySyntax()), 20000,
        `the broken file's diagnostics (now ${codes(uri)}; open as a document: ${open()})`);
    } finally {
      fs.writeFileSync(uri.fsPath, original);
    }
    await waitFor(() => codes(uri).includes('secret-in-args'), 20000, `the original diagnostics (now ${codes(uri)})`);
  });

  it('an open document is analysed as typed (debounced), without repeating the editor\'s own syntax errors', async function () {
    const doc = await vscode.workspace.openTextDocument(mcpUri());
    await vscode.window.showTextDocument(doc);
    // "http" removes the sse problem; the doubled comma is a syntax error the JSON language shows.
    const edited = await replaceAll(doc, original.replace('"type": "sse",', '"type": "http",,'));
    // The diagnostics of exactly this text: every problem of the original but the sse one
    // (a set no other text of this test has), and no invalid-json on top.
    const ofEditedText = JSON.stringify(['secret-in-args', 'undefined-input', 'unmasked-secret-input', 'unsupported-sandbox']);
    await waitFor(() => liveText(doc.uri) === edited.getText() && (JSON.stringify(codes(doc.uri)) === ofEditedText || codes(doc.uri).includes('invalid-json')), 10000,
      `the analysis of the edited text (now ${codes(doc.uri)})`);
    assert.ok(!codes(doc.uri).includes('invalid-json'), `invalid-json repeated on an open document: ${codes(doc.uri)}`);
    await replaceAll(edited, original);
    await waitFor(() => codes(doc.uri).includes('unsupported-transport') && codes(doc.uri).includes('secret-in-args'), 10000, 'diagnostics of the restored text');
  });

  describe('quick fixes (applied through the editor, checked on the resulting text)', function () {
    let doc;
    before(async function () {
      doc = await vscode.workspace.openTextDocument(mcpUri());
      await vscode.window.showTextDocument(doc);
    });
    beforeEach(async function () {
      // Each fix starts from the original file's diagnostics, not from what an earlier edit left
      // in flight (a CI run under load once found the set of the previous test's edited text here).
      await waitFor(() => liveText(doc.uri) === original && snapshot(doc.uri) === originalDiagnostics, 10000,
        `diagnostics of the original text before the fix (now ${snapshot(doc.uri)})`);
    });
    afterEach(async function () {
      doc = await replaceAll(doc, original);
      // The same diagnostics at the same ranges as for the original file (not a stale set).
      await waitFor(() => snapshot(doc.uri) === originalDiagnostics, 10000, `diagnostics of the restored text (now ${snapshot(doc.uri)})`);
    });

    async function applyOnly(code) {
      // The workbench matches its own copy of the markers, which reaches it a moment after the
      // extension host's collection changed: ask until it offers the fix (or time out).
      let fixes = [];
      await waitFor(async () => (fixes = await quickFixes(doc, code)).length > 0, 10000, `a quick fix for ${code}`).catch(() => {});
      assert.strictEqual(fixes.length, 1, `expected one quick fix for ${code}, got ${fixes.map((f) => f.title)}`);
      // The fix edits this one document only: the editor's refactoring auto-save (more than one
      // file) does not apply, so it is saved when the user saves (the e2e tier checks it on screen).
      assert.deepStrictEqual(fixes[0].edit.entries().map(([uri]) => uri.toString()), [doc.uri.toString()]);
      assert.ok(await vscode.workspace.applyEdit(fixes[0].edit));
      await waitFor(() => !codes(doc.uri).includes(code), 10000, `${code} to go away after the fix (now ${codes(doc.uri)})`);
      return fixes[0];
    }

    it('sse -> http changes exactly the type value', async function () {
      const fix = await applyOnly('unsupported-transport');
      assert.strictEqual(fix.title, 'Change "type" to "http" (Streamable HTTP)');
      assert.strictEqual(fix.isPreferred, true);
      assert.strictEqual(liveText(doc.uri), original.replace('"type": "sse"', '"type": "http"'));
    });

    it('removes the sandboxEnabled line and nothing else', async function () {
      await applyOnly('unsupported-sandbox');
      assert.strictEqual(liveText(doc.uri), original.replace('      "sandboxEnabled": true,\n', ''));
    });

    it('masks the credential input with "password": true, keeping the comment', async function () {
      await applyOnly('unmasked-secret-input');
      const after = liveText(doc.uri);
      assert.ok(after.includes('// Fixture: one problem of each kind'));
      const expected = parseJsonc(original);
      expected.inputs[0].password = true;
      assert.deepStrictEqual(parseJsonc(after), expected);
    });

    it('defines the missing input as a masked promptString', async function () {
      await applyOnly('undefined-input');
      const expected = parseJsonc(original);
      expected.inputs.push({ type: 'promptString', id: 'gh-token', description: 'Value of gh-token', password: true });
      assert.deepStrictEqual(parseJsonc(liveText(doc.uri)), expected);
      assert.ok(liveText(doc.uri).includes('// Fixture: one problem of each kind'));
    });

    it('renames mcpServers to servers', async function () {
      const claude = '{\n  // pasted from another client\n  "mcpServers": {\n    "a": { "command": "node", "args": ["a.js"] }\n  }\n}\n';
      doc = await replaceAll(doc, claude);
      await waitFor(() => codes(doc.uri).includes('wrong-root-key'), 10000, `wrong-root-key (now ${codes(doc.uri)})`);
      await applyOnly('wrong-root-key');
      assert.strictEqual(liveText(doc.uri), claude.replace('"mcpServers"', '"servers"'));
    });

    it('offers no automatic fix for secret-in-args', async function () {
      // Only once the workbench offers fixes for this text does an empty answer mean something.
      await waitFor(async () => (await quickFixes(doc, 'unsupported-sandbox')).length > 0, 10000, 'the workbench to offer fixes');
      assert.deepStrictEqual((await quickFixes(doc, 'secret-in-args')).map((f) => f.title), []);
    });
  });

  after(async function () {
    // Leave the copy as it was on disk (the document may be dirty).
    await vscode.commands.executeCommand('workbench.action.files.revert').then(undefined, () => undefined);
  });
});
