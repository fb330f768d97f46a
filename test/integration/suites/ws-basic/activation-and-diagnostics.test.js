// Session on test/fixtures/ws-basic: a workspace whose .vscode/mcp.json has an `sse` server.
'use strict';
const assert = require('assert');
const path = require('path');
const vscode = require('vscode');
const { codeLink, extension, bundlePath, waitFor, workspaceFolder, valueRange, selfReportedTimings, failDemoRequested, TEST_TIMEOUT_MS } = require('../../helpers');

describe('ws-basic: a workspace containing .vscode/mcp.json', function () {
  this.timeout(TEST_TIMEOUT_MS);

  it('loads DSH Bridge from its bundle, dist/extension.js', function () {
    const ext = extension();
    assert.strictEqual(path.relative(ext.extensionPath, bundlePath(ext)), path.join('dist', 'extension.js'));
    assert.ok(ext.packageJSON.activationEvents.includes('workspaceContains:.vscode/mcp.json'));
  });

  it('activates by itself (workspaceContains:.vscode/mcp.json), without being asked', async function () {
    const ext = extension();
    const t = Date.now();
    await waitFor(() => ext.isActive, 30000, 'the extension to activate');
    // Activation loaded the bundle itself, not some other build output.
    assert.ok(require.cache[bundlePath(ext)], `${bundlePath(ext)} is not among the loaded modules`);
    const self = await selfReportedTimings(ext);
    console.log(`[metric] startup activation by workspaceContains: activate() ${self.activate}, features started in ${self.startup} ` +
      `(as reported by the extension; active ${Date.now() - t} ms after the suite started)`);
  });

  it('reports the sse server as unsupported-transport on the "sse" value, quotes included', async function () {
    const ext = extension();
    const uri = vscode.Uri.joinPath(workspaceFolder().uri, '.vscode', 'mcp.json');
    const text = Buffer.from(await vscode.workspace.fs.readFile(uri)).toString('utf8');
    const expected = valueRange(ext, text, ['servers', 'legacy-events', 'type']);
    assert.strictEqual(expected.text, '"sse"', 'fixture changed: the sse value is not where the test expects it');

    const ours = () => vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'dsh-bridge');
    const isTransport = (d) => d.code && typeof d.code === 'object' && codeLink(d).value === 'unsupported-transport';
    await waitFor(() => ours().some(isTransport), 30000,
      `an unsupported-transport diagnostic on ${uri.fsPath} (dsh-bridge diagnostics now: ${JSON.stringify(ours().map((d) => d.code))})`);

    const hits = ours().filter(isTransport);
    assert.strictEqual(hits.length, 1, `expected one unsupported-transport diagnostic (the stdio server is supported), got ${hits.length}`);
    const d = hits[0];
    assert.deepStrictEqual(
      { start: { line: d.range.start.line, character: d.range.start.character }, end: { line: d.range.end.line, character: d.range.end.character } },
      { start: expected.start, end: expected.end },
      'the diagnostic must cover exactly the "sse" string node, quotes included');
    assert.strictEqual(d.severity, vscode.DiagnosticSeverity.Error);
    assert.ok(codeLink(d).target instanceof vscode.Uri, 'code.target must be a Uri (link to the documentation)');
    assert.ok(typeof d.message === 'string' && d.message.length > 0, 'empty message');
  });

  it('deliberate failure, only with DSH_BRIDGE_FAIL_DEMO=1|integration (proves a red test turns the run red)', function () {
    if (!failDemoRequested()) this.skip();
    assert.fail('deliberate failure requested through DSH_BRIDGE_FAIL_DEMO');
  });
});
