// The servers view and the status items over the session plan (vscode-free): real folders, real
// exports and host stores, the plan of each, and the folder's MCP files as the editor reads them.
import { strict as assert } from 'node:assert';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { planSession } from '../../../src/core/app/plan';
import { reviewExport } from '../../../src/core/app/export';
import type { NodePorts } from '../../../src/core/node/ports';
import { folderHeadline, folderViewModel, type FolderViewModel } from '../../../src/extension/planView';
import { exportFolder, folderIdentityOf, testPorts, tempDir, workspace } from '../helpers';

const NODE = process.execPath;

/** The folder's view now: its plan over its MCP files as an export would read them. */
async function viewOf(ports: NodePorts, folder: string, options: Parameters<typeof folderViewModel>[2] = {}): Promise<FolderViewModel> {
  const { plan } = await planSession(ports, { cwd: folder, skills: false });
  const { analysis } = await reviewExport(ports, folderIdentityOf(folder));
  return folderViewModel(plan, analysis, options);
}

const rowsOf = (view: FolderViewModel) => view.rows.map((r) => [r.key, r.state, ...(r.shadowedBy ? [r.shadowedBy] : [])]);

describe('editor: the servers view and the status items over the session plan', function () {
  this.timeout(30000);

  it('after an import (the same servers in .mcp.json and .vscode/mcp.json): the exported copies exported, the originals shadowed under their file, counts equal to the rows', async () => {
    const servers = { alpha: { command: NODE, args: ['a.js'] }, beta: { command: NODE, args: ['b.js'] }, gamma: { command: NODE, args: ['c.js'] } };
    const folder = workspace(JSON.stringify({ servers }), { '.git/HEAD': '', '.mcp.json': JSON.stringify({ mcpServers: servers }) });
    const ports = testPorts(tempDir('view-home-'), { resolveCommand: (c) => c });
    await exportFolder(ports, folder);
    const view = await viewOf(ports, folder);
    assert.deepEqual(rowsOf(view), [
      ['.vscode/mcp.json#alpha', 'exported'], ['.vscode/mcp.json#beta', 'exported'], ['.vscode/mcp.json#gamma', 'exported'],
      ['.mcp.json#alpha', 'shadowed', '.vscode/mcp.json'], ['.mcp.json#beta', 'shadowed', '.vscode/mcp.json'], ['.mcp.json#gamma', 'shadowed', '.vscode/mcp.json'],
    ]);
    assert.equal(new Set(view.rows.map((r) => r.key)).size, view.rows.length, 'every row has its own key');
    assert.deepEqual(view.counts, { servers: 6, refused: 0, shadowed: 3 });
    assert.deepEqual(folderHeadline(view), { headline: 'exported', action: 'open-declaration' });
  });

  it('the first count is the rows: a shadowed entry (another file), a duplicate name (one file, other case) and a refused one', async () => {
    const folder = workspace(JSON.stringify({ servers: { a: { command: NODE }, b: { command: NODE }, B: { command: NODE, args: ['x'] }, old: { type: 'sse', url: 'https://x.dev/sse' } } }), {
      '.git/HEAD': '', '.mcp.json': JSON.stringify({ mcpServers: { a: { command: NODE, args: ['y'] }, d: { command: NODE } } }),
    });
    const ports = testPorts(tempDir('view-home-'), { resolveCommand: (c) => c });
    await exportFolder(ports, folder);
    const view = await viewOf(ports, folder);
    assert.deepEqual(rowsOf(view).map(([key, state]) => [key, state]).sort(), [
      ['.mcp.json#a', 'shadowed'], ['.mcp.json#d', 'exported'], ['.vscode/mcp.json#B', 'shadowed'], ['.vscode/mcp.json#a', 'exported'], ['.vscode/mcp.json#b', 'exported'], ['.vscode/mcp.json#old', 'refused'],
    ]);
    assert.deepEqual(view.counts, { servers: view.rows.length, refused: 1, shadowed: 2 });
    assert.equal(view.counts.servers, 6);
  });

  it('"4 servers · 1 refused" beside exactly 4 rows; the refused one is the only refusal', async () => {
    const folder = workspace(JSON.stringify({ servers: { a: { command: NODE }, b: { command: NODE }, c: { command: NODE }, old: { type: 'sse', url: 'https://x.dev/sse' } } }), { '.git/HEAD': '' });
    const ports = testPorts(tempDir('view-home-'), { resolveCommand: (c) => c });
    await exportFolder(ports, folder);
    const view = await viewOf(ports, folder, { order: ['old', 'a', 'b', 'c'] });
    assert.deepEqual(rowsOf(view), [['.vscode/mcp.json#old', 'refused'], ['.vscode/mcp.json#a', 'exported'], ['.vscode/mcp.json#b', 'exported'], ['.vscode/mcp.json#c', 'exported']]);
    assert.deepEqual(view.counts, { servers: 4, refused: 1, shadowed: 0 });
    assert.deepEqual(folderHeadline(view), { headline: 'refused', action: 'show-problems' });
  });

  it('a stale declaration: every row says stale (none exported), the refused one carries it too', async () => {
    const folder = workspace(JSON.stringify({ servers: { a: { command: NODE }, b: { command: NODE }, old: { type: 'sse', url: 'https://x.dev/sse' } } }), { '.git/HEAD': '' });
    const ports = testPorts(tempDir('view-home-'), { resolveCommand: (c) => c });
    await exportFolder(ports, folder);
    writeFileSync(path.join(folder, '.vscode/mcp.json'), JSON.stringify({ servers: { a: { command: NODE, args: ['--verbose'] }, b: { command: NODE }, old: { type: 'sse', url: 'https://x.dev/sse' } } }));
    const view = await viewOf(ports, folder);
    assert.deepEqual(rowsOf(view), [['.vscode/mcp.json#a', 'stale'], ['.vscode/mcp.json#b', 'stale'], ['.vscode/mcp.json#old', 'refused']]);
    assert.equal(view.rows[2].blocked?.code, 'declaration-stale');
    assert.deepEqual(view.blocked.map((r) => r.code), ['declaration-stale']);
    assert.deepEqual(folderHeadline(view), { headline: 'stale', action: 'export' });
  });

  it('trust mode deny: every row says deny, the status says deny and offers the trust mode', async () => {
    const folder = workspace(JSON.stringify({ servers: { a: { command: NODE }, b: { command: NODE } } }), { '.git/HEAD': '' });
    const ports = testPorts(tempDir('view-home-'), { resolveCommand: (c) => c });
    await exportFolder(ports, folder);
    await ports.store.setTrustMode('deny');
    const view = await viewOf(ports, folder);
    assert.deepEqual(rowsOf(view), [['.vscode/mcp.json#a', 'deny'], ['.vscode/mcp.json#b', 'deny']]);
    assert.deepEqual(folderHeadline(view), { headline: 'deny', action: 'trust' });
  });

  it('pinned without approvals: not approved; a missing input: withheld, the status asks for the input', async () => {
    const folder = workspace(JSON.stringify({
      inputs: [{ type: 'promptString', id: 'token', description: 'Token', password: true }],
      servers: { a: { command: NODE }, b: { command: NODE, env: { TOKEN: '${input:token}' } } },
    }), { '.git/HEAD': '' });
    const ports = testPorts(tempDir('view-home-'), { resolveCommand: (c) => c });
    await exportFolder(ports, folder);
    await ports.store.setTrustMode('pinned');
    const view = await viewOf(ports, folder);
    assert.deepEqual(view.rows.map((r) => [r.name, r.state, r.codes.join()]), [['a', 'not-approved', 'pin-not-approved'], ['b', 'withheld', 'input-missing']]);
    assert.equal(view.rows[1].reason?.args.id, 'token');
    assert.deepEqual(folderHeadline(view), { headline: 'needs-inputs', action: 'enter-inputs' });
  });

  it('no declaration: every server not exported; an empty {"servers":{}} is a state of its own (no servers), not a warning', async () => {
    const ports = testPorts(tempDir('view-home-'));
    const folder = workspace(JSON.stringify({ servers: { a: { command: NODE } } }), { '.git/HEAD': '' });
    const view = await viewOf(ports, folder);
    assert.deepEqual(rowsOf(view), [['.vscode/mcp.json#a', 'not-exported']]);
    assert.deepEqual(folderHeadline(view), { headline: 'not-exported', action: 'export' });
    const empty = workspace('{"servers":{}}', { '.git/HEAD': '' });
    const none = await viewOf(ports, empty);
    assert.deepEqual(none.rows, []);
    assert.deepEqual(folderHeadline(none), { headline: 'no-servers', action: 'export' });
  });

  it('a server whose probe just failed carries the failure on its row; a shadowed copy does not', async () => {
    const servers = { alpha: { command: NODE } };
    const folder = workspace(JSON.stringify({ servers }), { '.git/HEAD': '', '.mcp.json': JSON.stringify({ mcpServers: servers }) });
    const ports = testPorts(tempDir('view-home-'), { resolveCommand: (c) => c });
    await exportFolder(ports, folder);
    const view = await viewOf(ports, folder, { probeFailures: new Map([['alpha', 'did not start: exit code 1']]) });
    assert.deepEqual(view.rows.map((r) => [r.key, r.state, r.probeFailed]), [
      ['.vscode/mcp.json#alpha', 'exported', 'did not start: exit code 1'],
      ['.mcp.json#alpha', 'shadowed', undefined],
    ]);
  });
});
