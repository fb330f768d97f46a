import { strict as assert } from 'node:assert';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { main } from '../../../src/cli/main';
import { tempDir, workspace } from '../helpers';

/** Runs the CLI in-process. */
async function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const SOURCE = `{
  "inputs": [{ "type": "promptString", "id": "key", "description": "API key", "password": true }],
  "servers": {
    // Notes between sessions
    "memory": { "command": "node", "args": ["memory.js"] },
    "search": { "command": "node", "args": ["search.js"], "env": { "API_KEY": "\${input:key}" } }
  }
}
`;

describe('migrate: dsh-bridge migrate (CLI)', () => {
  let home: string;
  beforeEach(() => {
    home = tempDir('migrate-home-');
  });

  it('--dry-run shows both diffs, what stays and why, and the preview; writes nothing', async () => {
    const folder = workspace(SOURCE);
    const r = await cli(['migrate', '--workspace', folder, '--dsh-home', home, '--dry-run']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^--- \/dev\/null\n\+\+\+ b\/\.mcp\.json\n/m);
    assert.match(r.out, /^\+    \/\/ Notes between sessions$/m);
    assert.match(r.out, /^--- a\/\.vscode\/mcp\.json\n\+\+\+ b\/\.vscode\/mcp\.json$/m);
    assert.match(r.out, /^1 server stays in \.vscode\/mcp\.json:\n {2}"search": env\.API_KEY uses \$\{input:key\}: VS Code resolves no variable in \.mcp\.json and the file has no inputs$/m);
    assert.match(r.out, /^1 server to move to \.mcp\.json \(preview [0-9a-f]{16}\)\.$/m);
    assert.ok(!existsSync(path.join(folder, '.mcp.json')));
    assert.equal(readFileSync(path.join(folder, '.vscode/mcp.json'), 'utf8'), SOURCE);
  });

  it('without a terminal it writes only with --yes PREVIEW; then the export reads the servers from both files', async () => {
    const folder = workspace(SOURCE);
    const refused = await cli(['migrate', '--workspace', folder, '--dsh-home', home, '--json']);
    assert.equal(refused.code, 1);
    const preview = JSON.parse(refused.out).preview as string;
    assert.match(preview, /^[0-9a-f]{16}$/);
    const stale = await cli(['migrate', '--workspace', folder, '--dsh-home', home, '--yes', '0123456789abcdef']);
    assert.equal(stale.code, 1);
    assert.match(stale.err, /does not match this preview/);
    const r = await cli(['migrate', '--workspace', folder, '--dsh-home', home, '--yes', preview, '--json']);
    assert.equal(r.code, 0, r.err);
    const out = JSON.parse(r.out);
    assert.deepEqual([out.written, out.moved, out.held.map((h: { name: string; code: string }) => [h.name, h.code])], [true, ['memory'], [['search', 'variable-not-portable']]]);
    assert.equal(readFileSync(path.join(folder, '.mcp.json'), 'utf8'), '{\n  "mcpServers": {\n    // Notes between sessions\n    "memory": { "command": "node", "args": ["memory.js"] }\n  }\n}\n');
    assert.doesNotMatch(readFileSync(path.join(folder, '.vscode/mcp.json'), 'utf8'), /memory/);
    assert.deepEqual(readdirSync(folder).sort(), ['.mcp.json', '.vscode'], 'no temporary file left');
    const exported = await cli(['export', '--workspace', folder, '--dsh-home', home, '--dry-run', '--json']);
    const servers = JSON.parse(exported.out).servers as Array<{ name: string; source?: string }>;
    assert.deepEqual(servers.map((s) => [s.name, s.source ?? '.vscode/mcp.json']).sort(), [['memory', '.mcp.json'], ['search', '.vscode/mcp.json']]);
  });

  it('removes .vscode/mcp.json when every server moved, and says so', async () => {
    const folder = workspace('{\n  "servers": {\n    "a": { "command": "node", "args": ["a.js"] }\n  }\n}\n');
    const dry = await cli(['migrate', '--workspace', folder, '--dsh-home', home, '--dry-run', '--json']);
    const { preview, removesVscodeFile } = JSON.parse(dry.out);
    assert.equal(removesVscodeFile, true);
    const r = await cli(['migrate', '--workspace', folder, '--dsh-home', home, '--yes', preview]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /Moved 1 server to \.mcp\.json and removed \.vscode\/mcp\.json\./);
    assert.ok(!existsSync(path.join(folder, '.vscode/mcp.json')));
    assert.deepEqual(readdirSync(path.join(folder, '.vscode')), [], 'no temporary file left');
    const again = await cli(['migrate', '--workspace', folder, '--dsh-home', home]);
    assert.equal(again.code, 1);
    assert.match(again.err, /There is no \.vscode\/mcp\.json to move\./);
  });

  it('refuses, changing nothing, when .mcp.json is not in the portable format', async () => {
    const folder = workspace(SOURCE, { '.mcp.json': '{ "servers": {} }' });
    const r = await cli(['migrate', '--workspace', folder, '--dsh-home', home, '--dry-run']);
    assert.equal(r.code, 1);
    assert.match(r.err, /\.mcp\.json is not in the portable format \(VS Code's "servers" format\): fix it first\./);
    assert.equal(readFileSync(path.join(folder, '.mcp.json'), 'utf8'), '{ "servers": {} }');
  });

  it('help names both files', async () => {
    const r = await cli(['migrate', '--help']);
    assert.match(r.out, /move the servers of \.vscode\/mcp\.json into the portable \.mcp\.json/);
    assert.match(r.out, /--yes PREVIEW {10}apply the previewed move without a terminal/);
  });
});
