// The editor's view model of the session plan (vscode-free), over real plans of real folders.
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { mkdirSync } from 'node:fs';
import { planSession } from '../../../src/core/app/plan';
import { planViewModel, rowsWith } from '../../../src/extension/planView';
import { exportFolder, folderIdentityOf, testPorts, tempDir, workspace } from '../helpers';

const NODE = process.execPath;

describe('editor: the view model of the session plan', function () {
  this.timeout(30000);

  it('one row per server keyed by its source file and name, the language servers as one row, counts equal to the rows', async () => {
    const folder = workspace(JSON.stringify({ servers: { a: { command: NODE }, old: { type: 'sse', url: 'https://x.dev/sse' } } }), {
      '.git/HEAD': '',
      '.mcp.json': JSON.stringify({ mcpServers: { b: { command: NODE } } }),
    });
    const home = tempDir('view-home-');
    const ports = testPorts(home, { resolveCommand: (c) => c });
    await exportFolder(ports, folderIdentityOf(folder, { 'dsh.lsp.servers': { ts: { command: NODE, extensions: { '.ts': 'typescript' } } } }));
    const model = planViewModel((await planSession(ports, { cwd: folder })).plan);
    assert.deepEqual(model.rows.map((r) => [r.key, r.label, r.outcome, r.code]), [
      ['.vscode/mcp.json#a', 'a', 'asks', 'ask-mode'],
      ['.mcp.json#b', 'b', 'asks', 'ask-mode'],
      ['.vscode/mcp.json#old', 'old', 'withheld', 'refused-at-export'],
      ['lsp', 'ts', 'asks', 'ask-mode'],
    ]);
    assert.deepEqual(model.counts, { starts: 0, asks: 3, withheld: 1 });
    assert.deepEqual(rowsWith(model, 'asks'), ['a', 'b']);
    assert.deepEqual(rowsWith(model, 'asks', 'language-servers'), ['ts']);
    assert.equal(model.declaration, 'verified');
    assert.equal(model.declarationFolder, folder);
    assert.equal(model.rows[0].fix?.command, `dsh-bridge trust pinned && dsh-bridge approve a --workspace ${folder}`);
  });

  it('a declaration-wide reason is the folder\'s and every row\'s; a subfolder names the folder whose declaration applies', async () => {
    const folder = workspace(JSON.stringify({ servers: { a: { command: NODE } } }), { '.git/HEAD': '' });
    const home = tempDir('view-home-');
    const ports = testPorts(home);
    await exportFolder(ports, folder);
    await ports.store.setTrustMode('deny');
    const sub = path.join(folder, 'sub');
    mkdirSync(sub);
    const model = planViewModel((await planSession(ports, { cwd: sub })).plan);
    assert.equal(model.folder, sub);
    assert.equal(model.declarationFolder, folder);
    assert.deepEqual(model.blocked.map((r) => r.code), ['trust-deny']);
    assert.deepEqual(model.rows.map((r) => [r.label, r.outcome, r.code]), [['a', 'withheld', 'trust-deny']]);
    assert.deepEqual(model.counts, { starts: 0, asks: 0, withheld: 1 });
  });
});
