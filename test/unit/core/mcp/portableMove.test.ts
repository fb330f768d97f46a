import { strict as assert } from 'node:assert';
import { readFileSync, existsSync } from 'node:fs';
import * as path from 'node:path';
import { parse } from 'jsonc-parser';
import { planPortableMove, portableHold } from '../../../../src/core/mcp/portableMove';
import { applyPortableMove, reviewPortableMove } from '../../../../src/core/app/portableMove';
import { portableFiles } from '../../../../src/core/node/portableFiles';
import { exportFolder, tempDir, testPorts, workspace } from '../../helpers';

const PORTS = { portable: portableFiles };

/** The servers of `.mcp.json` as VS Code reads them (wrapped or flat). */
function dotMcpServers(text: string | undefined): Record<string, unknown> {
  const value = parse(text ?? '{}', [], { allowTrailingComma: true }) as Record<string, unknown>;
  return (value.mcpServers ?? value) as Record<string, unknown>;
}

const SOURCE = [
  '{',
  '  // The project\'s servers',
  '  "inputs": [',
  '    { "type": "promptString", "id": "token", "description": "GitHub token", "password": true }',
  '  ],',
  '  "servers": {',
  '    // Notes between sessions',
  '    "memory": {',
  '      "command": "npx", // pinned: what was reviewed',
  '      "args": ["-y", "@modelcontextprotocol/server-memory@2025.8.4"]',
  '    },',
  '    "github": {',
  '      "type": "http",',
  '      "url": "https://api.githubcopilot.com/mcp/",',
  '      "headers": { "Authorization": "Bearer ${input:token}" }',
  '    },',
  '    /* public docs */',
  '    "docs": { "type": "http", "url": "https://example.com/mcp" } // no auth',
  '  }',
  '}',
  '',
].join('\n');

describe('portableMove: .vscode/mcp.json into .mcp.json', () => {
  describe('portableHold: what VS Code writes to .mcp.json (getWorkspaceRootMcpConfigurationError)', () => {
    const local = { type: 'stdio', command: 'node' };
    const remote = { type: 'http', url: 'https://example.com/mcp' };
    it('accepts the portable stdio and HTTP entries, values as written', () => {
      for (const entry of [
        { command: 'node', args: ['server.js'], env: { TOKEN: 'literal', PORT: 3000 } },
        { ...local, args: [] },
        { url: 'https://example.com/mcp', headers: { Authorization: 'literal' }, transport: 'http' },
        remote,
      ]) assert.equal(portableHold(entry), undefined, JSON.stringify(entry));
    });
    // The rejected configurations of VS Code's own test (mcpWorkspaceConfiguration.test.ts).
    const rejected: Array<[unknown, string, string]> = [
      [null, 'value-not-portable', 'the entry'],
      [[], 'value-not-portable', 'the entry'],
      [{ ...local, gallery: false }, 'field-not-portable', 'gallery'],
      [{ ...local, version: '1' }, 'field-not-portable', 'version'],
      [{ ...local, dev: {} }, 'field-not-portable', 'dev'],
      [{ ...local, cwd: './server' }, 'field-not-portable', 'cwd'],
      [{ ...local, envFile: '.env' }, 'field-not-portable', 'envFile'],
      [{ ...local, sandboxEnabled: false }, 'field-not-portable', 'sandboxEnabled'],
      [{ ...local, custom: 'value' }, 'field-not-portable', 'custom'],
      [{ ...remote, oauth: { clientId: 'client' } }, 'field-not-portable', 'oauth'],
      [{ ...remote, transport: 'sse' }, 'value-not-portable', 'transport'],
      [{ ...remote, type: 'sse' }, 'type-not-portable', ''],
      [{ ...remote, type: 'ws' }, 'type-not-portable', ''],
      [{ ...local, args: ['valid', 1] }, 'value-not-portable', 'args'],
      [{ ...local, env: [] }, 'value-not-portable', 'env'],
      [{ ...local, env: { DROP: null } }, 'value-not-portable', 'env.DROP'],
      [{ ...local, env: { FLAG: false } }, 'value-not-portable', 'env.FLAG'],
      [{ ...local, env: { PORT: Infinity } }, 'value-not-portable', 'env.PORT'],
      [{ ...remote, headers: { Authorization: 1 } }, 'value-not-portable', 'headers.Authorization'],
      [{ ...local, command: '' }, 'value-not-portable', 'command'],
      [{ type: 'http' }, 'value-not-portable', 'url'],
      [{ ...local, command: '${env:COMMAND}' }, 'variable-not-portable', 'command'],
      [{ ...local, args: ['${workspaceFolder}/server.js'] }, 'variable-not-portable', 'args[0]'],
      [{ ...local, env: { TOKEN: '${input:token}' } }, 'variable-not-portable', 'env.TOKEN'],
      [{ ...local, env: { TOKEN: '${TOKEN}' } }, 'variable-not-portable', 'env.TOKEN'],
      [{ ...remote, url: '${env:URL}' }, 'variable-not-portable', 'url'],
      [{ ...remote, headers: { Authorization: '${command:token}' } }, 'variable-not-portable', 'headers.Authorization'],
    ];
    for (const [entry, code, field] of rejected) {
      it(`holds ${JSON.stringify(entry)}: ${code}`, () => {
        const hold = portableHold(entry);
        assert.equal(hold?.code, code);
        if (field) assert.equal(hold?.args.field, field);
      });
    }
  });

  it('moves what .mcp.json can hold with the comments above and beside it, and says why the rest stays', () => {
    const plan = planPortableMove(SOURCE, undefined);
    assert.equal(plan.ok, true);
    assert.deepEqual(plan.moved, ['memory', 'docs']);
    assert.deepEqual(plan.held, [{ name: 'github', code: 'variable-not-portable', args: { field: 'headers.Authorization', variable: '${input:token}' } }]);
    assert.equal(plan.dotMcpAfter, [
      '{',
      '  "mcpServers": {',
      '    // Notes between sessions',
      '    "memory": {',
      '      "command": "npx", // pinned: what was reviewed',
      '      "args": ["-y", "@modelcontextprotocol/server-memory@2025.8.4"]',
      '    },',
      '    /* public docs */',
      '    "docs": { "type": "http", "url": "https://example.com/mcp" } // no auth',
      '  }',
      '}',
      '',
    ].join('\n'));
    assert.equal(plan.vscodeAfter, [
      '{',
      '  // The project\'s servers',
      '  "inputs": [',
      '    { "type": "promptString", "id": "token", "description": "GitHub token", "password": true }',
      '  ],',
      '  "servers": {',
      '    "github": {',
      '      "type": "http",',
      '      "url": "https://api.githubcopilot.com/mcp/",',
      '      "headers": { "Authorization": "Bearer ${input:token}" }',
      '    }',
      '  }',
      '}',
      '',
    ].join('\n'));
  });

  it('adds to an existing .mcp.json in its shape (wrapped, flat, empty) and its trailing commas, and keeps its comments', () => {
    const source = '{\n  "servers": {\n    "a": { "command": "node", "args": ["a.js"] }, // first\n    "b": { "url": "https://b.example/mcp" }\n  }\n}\n';
    const wrapped = '{\n  // ours\n  "mcpServers": {\n    "x": { "command": "x" } // x\n  }\n}\n';
    const flat = '{\n  "x": { "command": "x" },\n}\n';
    for (const [target, expected] of [
      [wrapped, '{\n  // ours\n  "mcpServers": {\n    "x": { "command": "x" }, // x\n    "a": { "command": "node", "args": ["a.js"] }, // first\n    "b": { "url": "https://b.example/mcp" }\n  }\n}\n'],
      [flat, '{\n  "x": { "command": "x" },\n  "a": { "command": "node", "args": ["a.js"] }, // first\n  "b": { "url": "https://b.example/mcp" },\n}\n'],
      ['{ "mcpServers": {} }\n', '{ "mcpServers": {\n  "a": { "command": "node", "args": ["a.js"] }, // first\n  "b": { "url": "https://b.example/mcp" }\n} }\n'],
    ]) {
      const plan = planPortableMove(source, target);
      assert.equal(plan.ok, true, JSON.stringify(plan.blocked));
      assert.equal(plan.dotMcpAfter, expected);
      assert.deepEqual(Object.keys(dotMcpServers(plan.dotMcpAfter)), [...Object.keys(dotMcpServers(target)), 'a', 'b']);
      assert.equal(plan.vscodeAfter, undefined, 'nothing is left in .vscode/mcp.json: it goes');
    }
  });

  it('keeps CRLF line endings and tab indentation, and the file when a comment is left in it', () => {
    const source = '{\r\n\t// keep me\r\n\t"servers": {\r\n\t\t"a": {\r\n\t\t\t"command": "node"\r\n\t\t},\r\n\t\t"b": { "type": "sse", "url": "https://x.example" }\r\n\t}\r\n}\r\n';
    const plan = planPortableMove(source, undefined);
    assert.equal(plan.dotMcpAfter, '{\r\n\t"mcpServers": {\r\n\t\t"a": {\r\n\t\t\t"command": "node"\r\n\t\t}\r\n\t}\r\n}\r\n');
    assert.equal(plan.vscodeAfter, '{\r\n\t// keep me\r\n\t"servers": {\r\n\t\t"b": { "type": "sse", "url": "https://x.example" }\r\n\t}\r\n}\r\n');
    assert.deepEqual(plan.held.map((h) => [h.name, h.code]), [['b', 'type-not-portable']]);
    const all = planPortableMove('{\n  // keep me\n  "servers": { "a": { "command": "node" } }\n}\n', undefined);
    assert.equal(all.vscodeAfter, '{\n  // keep me\n  "servers": {}\n}\n', 'a comment not above or beside a server keeps the file');
  });

  it('holds a name .mcp.json already has (compared as VS Code compares names) and a name defined twice', () => {
    const plan = planPortableMove('{"servers": {"Memory": {"command": "a"}, "twice": {"command": "b"}, "twice": {"command": "c"}, "ok": {"command": "d"}}}', '{"mcpServers": {"memory": {"command": "a"}}}');
    assert.deepEqual(plan.moved, ['ok']);
    assert.deepEqual(plan.held.map((h) => [h.name, h.code, h.args.other]), [['Memory', 'name-in-dot-mcp', 'memory'], ['twice', 'duplicate-name', undefined]]);
  });

  it('changes nothing when a file cannot be edited safely', () => {
    const cases: Array<[string | undefined, string | undefined, string]> = [
      [undefined, undefined, 'no-vscode-file'],
      ['{"servers": {', undefined, 'vscode-unparsable'],
      ['{"mcpServers": {"a": {"command": "a"}}}', undefined, 'vscode-legacy-map'],
      ['{"servers": {"a": {"command": "a"}}}', '{"mcpServers": ', 'dot-mcp-unparsable'],
      ['{"servers": {"a": {"command": "a"}}}', '{"servers": {}}', 'dot-mcp-not-portable'],
    ];
    for (const [vscode, dotMcp, code] of cases) {
      const plan = planPortableMove(vscode, dotMcp);
      assert.equal(plan.ok, false);
      assert.equal(plan.blocked?.code, code);
      assert.equal(plan.changed, false);
      assert.equal(plan.vscodeAfter, vscode);
      assert.equal(plan.dotMcpAfter, dotMcp);
    }
    assert.equal(planPortableMove('{"servers": {"a": {"command": "${env:X}"}}}', undefined).changed, false, 'nothing portable: nothing to write');
  });

  it('the move changes where the servers live, not what the export gives DSH', async () => {
    const folder = workspace(SOURCE);
    const ports = testPorts(tempDir('portable-home-'));
    const before = await exportFolder(ports, folder, { dryRun: true });
    const review = await reviewPortableMove(PORTS, folder);
    assert.equal(review.outcome, 'planned');
    if (review.outcome !== 'planned') return;
    assert.deepEqual(await applyPortableMove(PORTS, folder, review.plan), { written: true });
    assert.equal(readFileSync(path.join(folder, '.mcp.json'), 'utf8'), review.plan.dotMcpAfter);
    const after = await exportFolder(ports, folder, { dryRun: true });
    // Everything DSH starts a server with; the pin covers the source file too, so it differs.
    const launch = (r: typeof before) => r.analysis.servers.map((s) => JSON.parse(JSON.stringify({ ...s, source: undefined, pin: undefined })) as object)
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    assert.deepEqual(launch(after), launch(before));
    assert.equal(after.analysis.sourcePath, '.vscode/mcp.json');
    assert.deepEqual(after.analysis.servers.map((s) => [s.name, s.source ?? after.analysis.sourcePath]).sort(), [['docs', '.mcp.json'], ['github', '.vscode/mcp.json'], ['memory', '.mcp.json']]);
  });

  it('writes only what was reviewed: a file changed after the review is left alone', async () => {
    const folder = workspace('{"servers": {"a": {"command": "node"}}}');
    const review = await reviewPortableMove(PORTS, folder);
    assert.equal(review.outcome, 'planned');
    if (review.outcome !== 'planned') return;
    const { writeFileSync } = await import('node:fs');
    writeFileSync(path.join(folder, '.mcp.json'), '{"mcpServers": {"a": {"command": "other"}}}');
    const applied = await applyPortableMove(PORTS, folder, review.plan);
    assert.equal(applied.written, false);
    assert.equal(applied.written === false && applied.reason, 'changed');
    assert.ok(existsSync(path.join(folder, '.vscode/mcp.json')));
    assert.equal(readFileSync(path.join(folder, '.mcp.json'), 'utf8'), '{"mcpServers": {"a": {"command": "other"}}}');
  });
});
