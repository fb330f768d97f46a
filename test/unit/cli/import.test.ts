import { strict as assert } from 'node:assert';
import { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import type { ImportClient } from '../../../src/core/import/importNotes';
import { DEFAULT_LIMITS } from '../../../src/core/mcp/analyzeOptions';
import { askYesNo } from '../../../src/cli/import';
import { main } from '../../../src/cli/main';
import { HostStore } from '../../../src/core/node/hostStore';
import { rawHidden, tempDir, workspace } from '../helpers';

import { codexServers, CREDENTIALS, CREDENTIALS_FILE, fixture, SECRETS, SOURCES } from '../core/import/import.fixture';

/** Runs the CLI in-process; a fake terminal answers when `answer` is given. */
async function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('import: dsh-bridge import (CLI)', () => {
  let home: string;
  beforeEach(() => {
    home = tempDir('import-home-');
  });

  it('--to .mcp.json: what .mcp.json can hold goes there (its format and indentation), a server whose credential became an input goes to .vscode/mcp.json, each named', async () => {
    const folder = workspace(undefined, {
      '.cursor/mcp.json': '{"mcpServers": {"memory": {"command": "npx", "args": ["-y", "m@1"]}, "github": {"command": "npx", "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_abcdefghijklmnopqrstuvwxyz0123456789"}}}}',
      '.mcp.json': '{\n  "mcpServers": {\n    "existing": { "command": "node", "args": ["e.js"] }\n  }\n}\n',
    });
    const dry = await cli(['import', '--from', 'cursor', '--to', '.mcp.json', '--workspace', folder, '--dsh-home', home, '--dry-run']);
    assert.equal(dry.code, 0, dry.err);
    assert.match(dry.out, /^--- a\/\.mcp\.json$/m);
    assert.match(dry.out, /^--- \/dev\/null\n\+\+\+ b\/\.vscode\/mcp\.json$/m);
    assert.match(dry.out, /^1 server goes to \.vscode\/mcp\.json, not \.mcp\.json:\n {2}"github": env\.GITHUB_PERSONAL_ACCESS_TOKEN uses \$\{input:github-GITHUB_PERSONAL_ACCESS_TOKEN\}/m);
    assert.match(dry.out, /^2 servers from Cursor to add to \.mcp\.json and \.vscode\/mcp\.json, with 1 password input \(preview ([0-9a-f]{16})\)\.$/m);
    const preview = /\(preview ([0-9a-f]{16})\)/.exec(dry.out)![1];
    const r = await cli(['import', '--from', 'cursor', '--to', '.mcp.json', '--workspace', folder, '--dsh-home', home, '--yes', preview, '--json']);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(JSON.parse(r.out).servers.map((s: { name: string; target: string }) => [s.name, s.target]), [['memory', '.mcp.json'], ['github', '.vscode/mcp.json']]);
    assert.equal(readFileSync(path.join(folder, '.mcp.json'), 'utf8'), '{\n  "mcpServers": {\n    "existing": { "command": "node", "args": ["e.js"] },\n    "memory": {\n      "type": "stdio",\n      "command": "npx",\n      "args": [\n        "-y",\n        "m@1"\n      ]\n    }\n  }\n}\n');
    assert.match(readFileSync(path.join(folder, '.vscode/mcp.json'), 'utf8'), /"GITHUB_PERSONAL_ACCESS_TOKEN": "\$\{input:github-GITHUB_PERSONAL_ACCESS_TOKEN\}"/);
    assert.doesNotMatch(readFileSync(path.join(folder, '.mcp.json'), 'utf8') + readFileSync(path.join(folder, '.vscode/mcp.json'), 'utf8'), /ghp_/);
    const bad = await cli(['import', '--from', 'cursor', '--to', 'mcp.json', '--workspace', folder, '--dsh-home', home]);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /"import --to" takes auto, \.mcp\.json or \.vscode\/mcp\.json/);
  });

  it('--to auto (the default) writes where MCP: Add Server would: .mcp.json in a bare folder, .vscode/mcp.json where the folder has one; --to chooses either way', async () => {
    const CODEX = '[mcp_servers.tools]\ncommand = "node"\nargs = ["tools.js"]\n';
    const MINE = '{\n\t"servers": {\n\t\t"mine": { "command": "node", "args": ["mine.js"] }\n\t}\n}\n';
    const run = async (folder: string, to: string[]) => {
      const dry = await cli(['import', '--from', 'codex', ...to, '--workspace', folder, '--dsh-home', home, '--dry-run', '--json']);
      assert.equal(dry.code, 0, dry.err);
      const { preview, to: target, writes } = JSON.parse(dry.out) as { preview: string; to: string; writes: string[] };
      const r = await cli(['import', '--from', 'codex', ...to, '--workspace', folder, '--dsh-home', home, '--yes', preview]);
      assert.equal(r.code, 0, r.err);
      return { target, writes, out: r.out, dotMcp: existsSync(path.join(folder, '.mcp.json')) ? readFileSync(path.join(folder, '.mcp.json'), 'utf8') : undefined, vscode: existsSync(path.join(folder, '.vscode/mcp.json')) ? readFileSync(path.join(folder, '.vscode/mcp.json'), 'utf8') : undefined };
    };
    for (const to of [[], ['--to', 'auto']]) {
      const bare = await run(workspace(undefined, { '.codex/config.toml': CODEX }), to);
      assert.deepEqual([bare.target, bare.writes], ['.mcp.json', ['.mcp.json']], to.join(' '));
      assert.match(bare.out, /^Wrote \.mcp\.json: 1 server imported from Codex\.$/m);
      assert.deepEqual(JSON.parse(bare.dotMcp!).mcpServers, { tools: { type: 'stdio', command: 'node', args: ['tools.js'] } });
      assert.equal(bare.vscode, undefined, 'no .vscode/mcp.json created');
      const kept = await run(workspace(MINE, { '.codex/config.toml': CODEX }), to);
      assert.deepEqual([kept.target, kept.writes], ['.vscode/mcp.json', ['.vscode/mcp.json']]);
      assert.match(kept.out, /^Wrote \.vscode\/mcp\.json: 1 server imported from Codex\.$/m);
      assert.deepEqual(Object.keys(JSON.parse(kept.vscode!).servers), ['mine', 'tools']);
      assert.equal(kept.dotMcp, undefined, 'no .mcp.json created');
    }
    const toVscode = await run(workspace(undefined, { '.codex/config.toml': CODEX }), ['--to', '.vscode/mcp.json']);
    assert.deepEqual([toVscode.target, toVscode.dotMcp], ['.vscode/mcp.json', undefined]);
    assert.deepEqual(Object.keys(JSON.parse(toVscode.vscode!).servers), ['tools']);
    const toDotMcp = await run(workspace(MINE, { '.codex/config.toml': CODEX }), ['--to', '.mcp.json']);
    assert.deepEqual([toDotMcp.target, toDotMcp.writes, toDotMcp.vscode], ['.mcp.json', ['.mcp.json'], MINE]);
    assert.deepEqual(Object.keys(JSON.parse(toDotMcp.dotMcp!).mcpServers), ['tools']);
    // Claude Code's own .mcp.json is the portable file already: auto converts it into .vscode/mcp.json.
    const dry = await cli(['import', '--from', 'claude', '--workspace', workspace(undefined, { '.mcp.json': '{"mcpServers": {"c": {"command": "node", "args": ["c.js"]}}}' }), '--dsh-home', home, '--dry-run', '--json']);
    assert.deepEqual(JSON.parse(dry.out).writes, ['.vscode/mcp.json']);
  });

  it('names the warnings the imported servers will raise (a credential passed in args: secret-in-args) and never calls the import clean beside them', async () => {
    const folder = workspace(undefined, { '.cursor/mcp.json': JSON.stringify({ mcpServers: { gh: { command: 'npx', args: ['-y', 'gh-mcp', '--token', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789'] } } }) });
    const dry = await cli(['import', '--from', 'cursor', '--to', '.vscode/mcp.json', '--workspace', folder, '--dsh-home', home, '--dry-run']);
    assert.equal(dry.code, 0, dry.err);
    assert.match(dry.out, /^1 warning on the servers to add \(Problems and the export show it too\):\n {2}"gh": secret-in-args: Secret input "gh-[^"]+" is passed as a command-line argument/m);
    assert.match(dry.out, /^1 server from Cursor to add to \.vscode\/mcp\.json, with 1 password input; 1 warning above \(preview [0-9a-f]{16}\)\.$/m);
    const json = await cli(['import', '--from', 'cursor', '--to', '.vscode/mcp.json', '--workspace', folder, '--dsh-home', home, '--dry-run', '--json']);
    assert.deepEqual((JSON.parse(json.out) as { warnings: Array<{ server: string; code: string }> }).warnings.map((w) => [w.server, w.code]), [['gh', 'secret-in-args']]);
    assert.ok(!(dry.out + json.out).includes('ghp_'));
  });

  function folderWith(client: ImportClient, target?: string): string {
    const files: Record<string, string> = { [SOURCES[client].split('/').slice(1).join('/')]: fixture(SOURCES[client]) };
    return workspace(target, files);
  }

  it('--dry-run prints the unified diff and the per-field report and writes nothing', async () => {
    const folder = folderWith('gemini', fixture('target/mcp.json'));
    const r = await cli(['import', '--from', 'gemini', '--workspace', folder, '--dsh-home', home, '--dry-run']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^--- a\/\.vscode\/mcp\.json\n\+\+\+ b\/\.vscode\/mcp\.json\n@@ /m);
    assert.match(r.out, /^\+\t\t"pythonTools": \{$/m);
    assert.match(r.out, /lost\s+\.gemini\/settings\.json: server "pythonTools": includeTools: "includeTools" \(safe_tool, file_reader\) is not carried/);
    assert.match(r.out, /^4 servers from Gemini CLI to add to \.vscode\/mcp\.json \(the export refuses 1 of them: "discoveredServer"\), with 1 password input \(preview [0-9a-f]{16}\)\.$/m);
    assert.equal(readFileSync(path.join(folder, '.vscode/mcp.json'), 'utf8'), fixture('target/mcp.json'));
  });

  it('without a terminal it refuses unless --yes names the preview; then it writes atomically and stores the credentials outside the workspace', async () => {
    const folder = folderWith('cursor');
    const refused = await cli(['import', '--from', 'cursor', '--workspace', folder, '--dsh-home', home]);
    assert.equal(refused.code, 1);
    const preview = /pass --yes ([0-9a-f]{16})/.exec(refused.err)![1];
    assert.ok(!existsSync(path.join(folder, '.vscode/mcp.json')));
    const stale = await cli(['import', '--from', 'cursor', '--workspace', folder, '--dsh-home', home, '--yes', '0123456789abcdef']);
    assert.equal(stale.code, 1);
    assert.match(stale.err, /does not match this preview/);
    const r = await cli(['import', '--from', 'cursor', '--workspace', folder, '--dsh-home', home, '--yes', preview, '--json']);
    assert.equal(r.code, 0, r.err);
    const out = JSON.parse(r.out);
    assert.equal(out.written, true);
    assert.deepEqual(out.secretsStored, ['github-GITHUB_PERSONAL_ACCESS_TOKEN']);
    const written = readFileSync(path.join(folder, '.vscode/mcp.json'), 'utf8');
    assert.match(written, /\$\{input:github-GITHUB_PERSONAL_ACCESS_TOKEN\}/);
    assert.deepEqual(readdirSync(path.join(folder, '.vscode')), ['mcp.json'], 'no temporary file left');
    const record = await new HostStore(home).readFolder(folder);
    assert.equal(record.inputs.get('github-GITHUB_PERSONAL_ACCESS_TOKEN'), SECRETS[0]);
    for (const text of [written, r.out, r.err, refused.out, refused.err]) assert.ok(!text.includes(SECRETS[0]), 'the credential leaked');
    // The workspace holds no copy anywhere but the source file it came from.
    for (const f of readdirSync(folder, { recursive: true, encoding: 'utf8' })) {
      const p = path.join(folder, f);
      if (f.startsWith('.cursor') || !statSync(p).isFile()) continue;
      assert.ok(!readFileSync(p, 'utf8').includes(SECRETS[0]), f);
    }
  });

  it('--yes never overwrites a value the user stored under the same input id (real host store)', async () => {
    const ID = 'github-GITHUB_PERSONAL_ACCESS_TOKEN';
    const target = `{\n  "servers": {},\n  "inputs": [{ "type": "promptString", "id": "${ID}", "password": true }]\n}\n`;
    const folder = folderWith('cursor', target);
    await new HostStore(home).setInput(folder, ID, 'users-own-value');
    const dry = await cli(['import', '--from', 'cursor', '--workspace', folder, '--dsh-home', home, '--dry-run']);
    assert.equal(dry.code, 0, dry.err);
    assert.match(dry.out, new RegExp(`input-renamed|got the id "${ID}-2"`));
    const preview = /--yes ([0-9a-f]{16})/.exec(dry.out)![1];
    const r = await cli(['import', '--from', 'cursor', '--workspace', folder, '--dsh-home', home, '--yes', preview, '--json']);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(JSON.parse(r.out).secretsStored, [`${ID}-2`]);
    const record = await new HostStore(home).readFolder(folder);
    assert.equal(record.inputs.get(ID), 'users-own-value');
    assert.equal(record.inputs.get(`${ID}-2`), SECRETS[0]);
    assert.match(readFileSync(path.join(folder, '.vscode/mcp.json'), 'utf8'), new RegExp(`\\$\\{input:${ID}-2\\}`));
  });

  it('the issue\'s credentials in args, env and a URL: never in the diff, the report or the file; stored on the host; the export takes every server', async () => {
    const folder = workspace(undefined, { '.mcp.json': fixture(CREDENTIALS_FILE) });
    const secrets = [...Object.values(CREDENTIALS), Buffer.from(`deploy:${CREDENTIALS.url}@x`).toString('base64')];
    const dry = await cli(['import', '--from', 'claude', '--workspace', folder, '--dsh-home', home, '--dry-run']);
    assert.equal(dry.code, 0, dry.err);
    assert.match(dry.out, /^\+\t+"Authorization: Bearer \$\{input:linear-Authorization\}"$/m);
    assert.match(dry.out, /^\+\t+"postgresql:\/\/app:\$\{input:postgres-postgresql-password\}@db\.internal:5432\/app"$/m);
    assert.match(dry.out, /^\+\t+"Authorization": "Basic \$\{input:remote-Authorization\}"$/m);
    assert.match(dry.out, /secret\s+\.mcp\.json: server "remote": url: The user name and password in the URL were moved into the header/);
    for (const secret of secrets) assert.ok(!(dry.out + dry.err).includes(secret), `${secret} shown`);
    const preview = /--yes ([0-9a-f]{16})/.exec(dry.out)![1];
    const r = await cli(['import', '--from', 'claude', '--workspace', folder, '--dsh-home', home, '--yes', preview]);
    assert.equal(r.code, 0, r.err);
    const written = readFileSync(path.join(folder, '.vscode/mcp.json'), 'utf8');
    for (const secret of secrets) assert.ok(!(written + r.out + r.err).includes(secret), `${secret} written or shown`);
    const record = await new HostStore(home).readFolder(folder);
    assert.equal(record.inputs.get('linear-Authorization'), CREDENTIALS.linear);
    assert.equal(record.inputs.get('postgres-postgresql-password'), CREDENTIALS.postgres);
    assert.equal(record.inputs.get('stores-CACHE_URL'), CREDENTIALS.redis);
    assert.equal(Buffer.from(record.inputs.get('remote-Authorization') ?? '', 'base64').toString(), `deploy:${CREDENTIALS.url}@x`);
    // The export takes every imported server (the source file removed: only the imported entries are read).
    rmSync(path.join(folder, '.mcp.json'));
    const exported = await cli(['export', '--workspace', folder, '--dsh-home', home, '--json']);
    assert.equal(exported.code, 0, exported.err);
    const out = JSON.parse(exported.out) as { servers: Array<{ name: string }>; rejected: Array<{ name: string; codes: string[] }>; problems: Array<{ code: string; file: string }> };
    assert.deepEqual(out.servers.map((x) => x.name).sort(), ['flags', 'headers', 'linear', 'postgres', 'remote', 'stores']);
    assert.deepEqual(out.rejected, []);
    // Only the warning that a secret input is passed on the command line, as the source did.
    assert.deepEqual([...new Set(out.problems.map((p) => p.code))], ['secret-in-args']);
    const declaration = readFileSync(path.join(folder, '.dsh/declaration.json'), 'utf8');
    for (const secret of secrets) assert.ok(!declaration.includes(secret), `${secret} in the declaration`);
  });

  it('names each carried server the export will refuse, with its code and fix, in the summary, --json and the result; the export then refuses exactly those', async () => {
    // Claude Code's own file: "events" is an sse server (carried as "type": "sse"; DSH has no SSE).
    const one = folderWith('claude');
    const dry = await cli(['import', '--from', 'claude', '--workspace', one, '--dsh-home', home, '--dry-run']);
    assert.equal(dry.code, 0, dry.err);
    assert.match(dry.out, /^1 server to add will be refused by the export \(DSH would not start it\):\n {2}"events": unsupported-transport: DSH supports stdio and Streamable HTTP only; sse is not supported\. Use "type": "http" if the server speaks Streamable HTTP\.\n {4}fix: `sse` -> `http` when the server also speaks Streamable HTTP/m);
    assert.match(dry.out, /^4 servers from Claude Code to add to \.vscode\/mcp\.json \(the export refuses 1 of them: "events"\), with 1 password input \(preview [0-9a-f]{16}\)\.$/m);

    // Two refused, one taken: plural forms; --json carries the same decision.
    const two = workspace(undefined, { '.mcp.json': JSON.stringify({ mcpServers: {
      feed: { type: 'sse', url: 'https://feed.example.com/sse' },
      local: { command: 'node', args: ['server.js'] },
      files: { type: 'http', url: 'ftp://files.example.com/mcp' },
    } }) });
    const json = await cli(['import', '--from', 'claude', '--workspace', two, '--dsh-home', home, '--dry-run', '--json']);
    assert.equal(json.code, 0, json.err);
    const refused = (JSON.parse(json.out) as { refusedByExport: Array<{ server: string; reasons: Array<{ code: string; message: string; fix?: string }> }> }).refusedByExport;
    assert.deepEqual(refused.map((r) => [r.server, r.reasons.map((x) => x.code)]), [['feed', ['unsupported-transport']], ['files', ['invalid-url']]]);
    assert.match(refused[0].reasons[0].fix ?? '', /^`sse` -> `http`/);
    // A code the problem-code page gives no fix for: its message says what is wrong, no fix line.
    assert.equal(refused[1].reasons[0].message, 'The URL is not valid for DSH: the scheme must be http or https.');
    assert.equal(refused[1].reasons[0].fix, undefined);
    const human = await cli(['import', '--from', 'claude', '--workspace', two, '--dsh-home', home, '--dry-run']);
    assert.match(human.out, /^2 servers to add will be refused by the export \(DSH would not start them\):\n {2}"feed": unsupported-transport: .*\n {4}fix: .*\n {2}"files": invalid-url: The URL is not valid for DSH: the scheme must be http or https\.\n\n/m);
    assert.match(human.out, /^3 servers from Claude Code to add to \.vscode\/mcp\.json \(the export refuses 2 of them: "feed", "files"\) \(preview [0-9a-f]{16}\)\.$/m);

    const preview = JSON.parse(json.out).preview as string;
    const wrote = await cli(['import', '--from', 'claude', '--workspace', two, '--dsh-home', home, '--yes', preview]);
    assert.equal(wrote.code, 0, wrote.err);
    assert.match(wrote.out, /^Wrote \.vscode\/mcp\.json: 3 servers imported from Claude Code \(the export refuses 2 of them: "feed", "files"\)\.$/m);
    // The export refuses exactly the servers the import named.
    rmSync(path.join(two, '.mcp.json'));
    const exported = await cli(['export', '--workspace', two, '--dsh-home', home, '--json']);
    assert.deepEqual((JSON.parse(exported.out) as { rejected: Array<{ name: string; codes: string[] }> }).rejected.map((r) => [r.name, r.codes]), refused.map((r) => [r.server, r.reasons.map((x) => x.code)]));

    // Nothing refused: no such line, and --json says so with an empty list.
    const none = workspace(undefined, { '.codex/config.toml': '[mcp_servers.tools]\ncommand = "node"\nargs = ["tools.js"]\n' });
    const clean = await cli(['import', '--from', 'codex', '--workspace', none, '--dsh-home', home, '--dry-run', '--json']);
    assert.deepEqual(JSON.parse(clean.out).refusedByExport, []);
    const cleanHuman = await cli(['import', '--from', 'codex', '--workspace', none, '--dsh-home', home, '--dry-run']);
    assert.match(cleanHuman.out, /^1 server from Codex to add to \.mcp\.json \(preview [0-9a-f]{16}\)\.$/m);
    assert.doesNotMatch(cleanHuman.out, /refuse/);
  });

  it('--yes refuses a preview id whose credential values changed since (same diff), and the id depends on this machine\'s key', async () => {
    const folder = workspace(undefined, { '.mcp.json': fixture(CREDENTIALS_FILE) });
    const previewOf = async (dshHome: string) => {
      const dry = await cli(['import', '--from', 'claude', '--workspace', folder, '--dsh-home', dshHome, '--dry-run', '--json']);
      assert.equal(dry.code, 0, dry.err);
      const out = JSON.parse(dry.out) as { preview: string; diff: string };
      return out;
    };
    const reviewed = await previewOf(home);
    assert.notEqual((await previewOf(tempDir('import-other-home-'))).preview, reviewed.preview, 'another key, another id');
    writeFileSync(path.join(folder, '.mcp.json'), fixture(CREDENTIALS_FILE).replace(CREDENTIALS.postgres, 'Pg-PASSWORD-CHANGED'));
    const now = await previewOf(home);
    assert.equal(now.diff, reviewed.diff, 'the diff cannot show the change');
    assert.notEqual(now.preview, reviewed.preview);
    const r = await cli(['import', '--from', 'claude', '--workspace', folder, '--dsh-home', home, '--yes', reviewed.preview]);
    assert.equal(r.code, 1);
    assert.match(r.err, /does not match this preview/);
    assert.ok(!existsSync(path.join(folder, '.vscode/mcp.json')));
    assert.deepEqual((await new HostStore(home).readFolder(folder)).inputs, new Map(), 'nothing stored');
    const applied = await cli(['import', '--from', 'claude', '--workspace', folder, '--dsh-home', home, '--yes', now.preview]);
    assert.equal(applied.code, 0, applied.err);
    assert.equal((await new HostStore(home).readFolder(folder)).inputs.get('postgres-postgresql-password'), 'Pg-PASSWORD-CHANGED');
  });

  it('refuses more servers than the export takes, and a result over 1 MiB: exit 1, located, nothing written', async () => {
    const many = workspace(undefined, { '.codex/config.toml': codexServers(DEFAULT_LIMITS.maxServers + 1) });
    for (const extra of [['--dry-run'], ['--yes', '0123456789abcdef']]) {
      const r = await cli(['import', '--from', 'codex', '--workspace', many, '--dsh-home', home, ...extra]);
      assert.equal(r.code, 1, r.out);
      assert.match(r.out, /^ {2}error\s+\.codex\/config\.toml: server "tool-512": Importing would give \.vscode\/mcp\.json 513 servers; the limit is 512/m);
      assert.match(r.out, /Nothing was written to \.vscode\/mcp\.json/);
      assert.ok(!/Wrote/.test(r.out));
      assert.ok(!existsSync(path.join(many, '.vscode')));
    }
    const big = workspace('{\n  "servers": {}\n}\n', { '.mcp.json': JSON.stringify({ mcpServers: { big: { command: 'node', args: ['x'.repeat(2_000_000)] } } }) });
    const r = await cli(['import', '--from', 'claude', '--workspace', big, '--dsh-home', home, '--json']);
    assert.equal(r.code, 1);
    const out = JSON.parse(r.out) as { written: boolean; notes: Array<{ code: string; message: string }> };
    assert.equal(out.written, false);
    assert.match(out.notes.at(-1)!.message, /^\.vscode\/mcp\.json would be 2\d{6} bytes after the import; the bridge reads at most 1048576 bytes/);
    assert.equal(readFileSync(path.join(big, '.vscode/mcp.json'), 'utf8'), '{\n  "servers": {}\n}\n');
  });

  it('asks y/N on a terminal', async () => {
    const input = Object.assign(new PassThrough(), { isTTY: true }) as unknown as NodeJS.ReadStream;
    const output = Object.assign(new PassThrough(), { isTTY: true, columns: 80 }) as unknown as NodeJS.WriteStream;
    const asked = askYesNo('Write? [y/N] ', input, output);
    (input as unknown as PassThrough).write('y\n');
    assert.equal(await asked, true);
    const input2 = Object.assign(new PassThrough(), { isTTY: true }) as unknown as NodeJS.ReadStream;
    const declined = askYesNo('Write? [y/N] ', input2, output);
    (input2 as unknown as PassThrough).write('\n');
    assert.equal(await declined, false);
    assert.equal(await askYesNo('x', Object.assign(new PassThrough(), { isTTY: false }) as unknown as NodeJS.ReadStream, output), undefined);
  });

  it('reads the client\'s usual locations: the workspace\'s and the home folder\'s (CODEX_HOME for Codex)', async () => {
    const folder = workspace(undefined, { '.codex/config.toml': '[mcp_servers.proj]\ncommand = "p"\n\n[mcp_servers.both]\ncommand = "project"\n' });
    const codexHome = tempDir('codex-home-');
    writeFileSync(path.join(codexHome, 'config.toml'), '[mcp_servers.both]\ncommand = "user"\n\n[mcp_servers.mine]\ncommand = "m"\n');
    const saved = process.env.CODEX_HOME;
    process.env.CODEX_HOME = codexHome;
    try {
      const r = await cli(['import', '--from', 'codex', '--workspace', folder, '--dsh-home', home, '--dry-run', '--json']);
      assert.equal(r.code, 0, r.err);
      const out = JSON.parse(r.out);
      assert.deepEqual(out.servers.map((s: { name: string }) => s.name), ['proj', 'both', 'mine']);
      assert.deepEqual(out.notes.map((n: { code: string; server: string }) => [n.code, n.server]), [['shadowed', 'both']]);
      assert.match(out.diff, /"command": "project"/);
    } finally {
      if (saved === undefined) delete process.env.CODEX_HOME;
      else process.env.CODEX_HOME = saved;
    }
  });

  it('usage and unreadable input: exit 2 without --from, 1 for a missing FILE or a broken target', async () => {
    const folder = folderWith('cursor', '{"servers": ');
    assert.equal((await cli(['import', '--workspace', folder])).code, 2);
    assert.equal((await cli(['import', '--from', 'vscode', '--workspace', folder])).code, 2);
    const missing = await cli(['import', '--from', 'claude', 'nope.json', '--workspace', folder, '--dry-run']);
    assert.equal(missing.code, 1);
    assert.match(missing.out, /nope\.json: The file cannot be read \(it does not exist\)/);
    const broken = await cli(['import', '--from', 'cursor', '--workspace', folder, '--dsh-home', home, '--dry-run']);
    assert.equal(broken.code, 1);
    assert.match(broken.out, /cannot be edited safely \(line 1, column 13/);
  });

  it('imports a file given on the command line, wrong dialect included, without touching anything', async () => {
    const folder = workspace(undefined, { 'cfg/settings.json': fixture('wrong/vscode-format.json') });
    const r = await cli(['import', '--from', 'gemini', path.join(folder, 'cfg/settings.json'), '--workspace', folder, '--dry-run']);
    assert.equal(r.code, 1);
    assert.match(r.out, /error\s+cfg\/settings\.json: This file is VS Code's format \("servers"\), not Gemini CLI's format \("mcpServers"\): nothing was imported from it\./);
    assert.ok(!existsSync(path.join(folder, '.vscode')));
  });

  it('shows the diff and the report of a server name with a bidi override escaped; --json keeps it as a JSON escape', async () => {
    const folder = workspace(undefined, { '.cursor/mcp.json': JSON.stringify({ mcpServers: { 'docs\u202etxt.exe': { command: 'node', args: ['s.js'], env: { API_TOKEN: 'sk-abcdefabcdefabcdef1234' } } } }) });
    const r = await cli(['import', '--from', 'cursor', '--workspace', folder, '--dsh-home', home, '--dry-run']);
    assert.equal(r.code, 0, r.err);
    assert.equal(rawHidden(r.out + r.err), undefined, 'nothing reaches the terminal raw');
    assert.match(r.out, /^\+\t\t"docs\\u\{202e\}txt\.exe": \{$/m);
    assert.match(r.out, /^ {2}secret {2}\.cursor\/mcp\.json: server "docs\\u\{202e\}txt\.exe": env\.API_TOKEN: The literal credential/m);
    const json = await cli(['import', '--from', 'cursor', '--workspace', folder, '--dsh-home', home, '--dry-run', '--json']);
    assert.equal(rawHidden(json.out), undefined);
    assert.deepEqual(JSON.parse(json.out).servers.map((s: { name: string }) => s.name), ['docs\u202etxt.exe']);
  });
});

// DSH's own dsh-mcp-client@0.1.0-rc.8, installed test-only by scripts/setup-oracles.sh.
