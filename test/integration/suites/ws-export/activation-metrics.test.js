// Session on test/fixtures/ws-export: what activation costs. activate() only registers the
// commands; the features start right after it (features.ts, lazily evaluated). Both times are
// measured by the extension itself and printed as metrics.
'use strict';
const assert = require('assert');
const vscode = require('vscode');
const { extension, waitFor, workspaceFolder, TEST_TIMEOUT_MS } = require('../../helpers');

describe('ws-export: activation and startup times', function () {
  this.timeout(TEST_TIMEOUT_MS);

  it('activate() returns quickly; the features start right after it; the diagnostics follow', async function () {
    const ext = extension();
    await waitFor(() => ext.isActive, 30000, 'activation');
    const api = ext.exports;
    assert.strictEqual(typeof api.activationMs, 'number');
    const startup = await waitFor(() => api.startupMs(), 10000, 'the features to start');
    console.log(`[metric] activate-body-ms=${api.activationMs.toFixed(1)} features-startup-ms=${startup.toFixed(1)} (measured in the extension, ${vscode.env.appName} ${vscode.version})`);
    assert.ok(api.activationMs < 50, `activate() took ${api.activationMs} ms`);
    const uri = vscode.Uri.joinPath(workspaceFolder().uri, '.vscode', 'mcp.json');
    await waitFor(() => vscode.languages.getDiagnostics(uri).some((d) => d.source === 'dsh-bridge'), 30000, 'the first diagnostics');
    // Nothing secret or internal in the API: numbers, two status snapshots and the servers view's items.
    assert.deepStrictEqual(Object.keys(api).sort(), ['activationMs', 'diagnosticsUpdateMs', 'serversView', 'skillsStatus', 'startupMs', 'status']);
  });
});
