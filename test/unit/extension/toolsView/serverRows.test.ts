import { strict as assert } from 'node:assert';
import { folderCounts, folderRows, serverEntries, type RowFacts } from '../../../../src/extension/toolsView/serverRows';
import { analyzeSource } from '../../../../src/core/mcp/analyze';

const PIN_A = `sha256:${'a'.repeat(64)}`;
const PIN_B = `sha256:${'b'.repeat(64)}`;

/** Facts of a folder with servers `files` (stdio) and `web` (http), and `old` refused. */
function facts(over: Partial<RowFacts> = {}): RowFacts {
  return {
    analysis: {
      usable: true,
      servers: [
        { name: 'files', serverName: 'files', pin: PIN_A, transport: 'stdio' },
        { name: 'web api', serverName: 'web_api', pin: PIN_B, transport: 'streamable-http' },
      ],
      rejected: [{ name: 'old', codes: ['unsupported-transport'] }],
    },
    verify: { ok: true, reasons: [], declaration: { servers: [{ serverName: 'files', pin: PIN_A }, { serverName: 'web_api', pin: PIN_B }] } },
    trustMode: 'ask',
    approvals: [],
    ...over,
  };
}

const states = (f: RowFacts) => folderRows(f).servers.map((s) => [s.name, s.state, ...s.codes]);

describe('the MCP servers view: each server\'s state', () => {
  it('exported as it is; a refused entry carries its codes', () => {
    assert.deepEqual(states(facts()), [['files', 'exported'], ['web api', 'exported'], ['old', 'refused', 'unsupported-transport']]);
  });

  it('no declaration yet: every server DSH could get is not exported', () => {
    const f = facts({ verify: { ok: false, reasons: [{ code: 'missing', message: 'no declaration: export first' }] } });
    assert.deepEqual(states(f), [['files', 'not-exported'], ['web api', 'not-exported'], ['old', 'refused', 'unsupported-transport']]);
  });

  it('stale per server: only the entry whose pin changed, and a server added since is not exported', () => {
    const f = facts({ verify: { ok: false, reasons: [{ code: 'stale', message: 'the source .vscode/mcp.json changed since the export' }], declaration: { servers: [{ serverName: 'files', pin: PIN_B }] } } });
    assert.deepEqual(states(f).slice(0, 2), [['files', 'stale'], ['web api', 'not-exported']]);
  });

  it('an envFile that changed makes its server stale though its pin did not', () => {
    const f = facts({ verify: { ok: false, reasons: [{ code: 'stale', message: 'the envFile of server "files" changed since the export' }], declaration: facts().verify.declaration } });
    assert.deepEqual(states(f).slice(0, 2), [['files', 'stale'], ['web api', 'exported']]);
  });

  it('a declaration DSH refuses as a whole marks every server with its state', () => {
    const f = facts({ verify: { ok: false, reasons: [{ code: 'tampered', message: 'x' }], declaration: facts().verify.declaration } });
    assert.deepEqual(states(f).slice(0, 2), [['files', 'declaration-refused', 'changed'], ['web api', 'declaration-refused', 'changed']]);
  });

  it('trust mode pinned: a server approved for another pin is not approved', () => {
    const f = facts({ trustMode: 'pinned', approvals: [{ serverName: 'files', pin: PIN_A }, { serverName: 'web_api', pin: PIN_A }] });
    assert.deepEqual(states(f).slice(0, 2), [['files', 'exported'], ['web api', 'not-approved']]);
    assert.deepEqual(states({ ...f, trustMode: 'ask' }).slice(0, 2), [['files', 'exported'], ['web api', 'exported']]);
  });

  it('rows follow the source order, refused entries among the others', () => {
    assert.deepEqual(states(facts({ order: ['old', 'web api', 'files'] })).map((r) => r[0]), ['old', 'web api', 'files']);
    assert.deepEqual(folderCounts(folderRows(facts())), { servers: 2, refused: 1 });
  });

  it('from a real analysis: names with spaces and comments, CRLF, key ranges for "open entry"', () => {
    const text = '{\r\n  // two servers\r\n  "servers": {\r\n    "my files": { "command": "node", "args": ["s.js"] },\r\n    "events": { "type": "sse", "url": "https://example.com/sse" },\r\n  }\r\n}\r\n';
    const analysis = analyzeSource(Buffer.from(text), { folder: '/w', folderName: 'w', userHome: '/h' });
    const entries = serverEntries(text);
    assert.deepEqual(entries.map((e) => [e.name, e.range.start.line, e.range.start.character, e.range.end.character]), [['my files', 3, 4, 14], ['events', 4, 4, 12]]);
    const rows = folderRows({ analysis, verify: { ok: false, reasons: [{ code: 'missing', message: '' }] }, trustMode: 'ask', approvals: [], order: entries.map((e) => e.name) });
    assert.deepEqual(rows.servers.map((s) => [s.name, s.serverName, s.state, s.codes.join()]), [['my files', 'my_files', 'not-exported', ''], ['events', undefined, 'refused', 'unsupported-transport']]);
    assert.deepEqual(serverEntries('{ "servers": '), []);
  });
});
