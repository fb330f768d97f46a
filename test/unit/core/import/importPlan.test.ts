import { strict as assert } from 'node:assert';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { parseJsonc } from '../../../../src/core/json/jsonTree';
import { importPreviewId, planImport } from '../../../../src/core/import/importPlan';
import { IMPORT_NOTES, type ImportClient } from '../../../../src/core/import/importNotes';
import { analyzeSource } from '../../../../src/core/mcp/analyze';
import { DEFAULT_LIMITS } from '../../../../src/core/mcp/analyzeOptions';
import { toMcpClientConfig } from '../../../../src/core/mcp/dshRow';
import { MAX_SOURCE_BYTES } from '../../../../src/core/node/reader';
import { options, timedWithin } from '../../helpers';

import { codexServers, CREDENTIALS, CREDENTIALS_FILE, fixture, importFixture, keepsEveryLine, notesOf, parseJsoncValue, SECRETS, servers, SOURCES } from './import.fixture';

describe('import: other clients\' MCP files into .vscode/mcp.json (core)', () => {
  it('Cursor: ${env:} kept, literal token to a password input, SSE noted, auth dropped, Windows paths as written', () => {
    const plan = importFixture('cursor');
    assert.ok(plan.ok && plan.changed);
    const s = servers(plan);
    assert.deepEqual(Object.keys(s), ['github', 'userjot', 'win-tools', 'linear']);
    assert.deepEqual(s.github.env, { GITHUB_PERSONAL_ACCESS_TOKEN: '${input:github-GITHUB_PERSONAL_ACCESS_TOKEN}' });
    assert.deepEqual(s.userjot, { type: 'http', url: 'https://api.userjot.com/v1/mcp', headers: { Authorization: 'Bearer ${env:USERJOT_API_TOKEN}' } });
    assert.equal(s['win-tools'].command, 'C:\\Program Files\\nodejs\\node.exe');
    assert.equal(s['win-tools'].envFile, '${workspaceFolder}/.env');
    assert.deepEqual(s.linear, { type: 'sse', url: 'https://mcp.linear.app/sse' });
    assert.deepEqual(notesOf(plan), ['github env.GITHUB_PERSONAL_ACCESS_TOKEN secret-to-input', 'linear url sse-transport', 'linear auth field-dropped']);
    assert.deepEqual(plan.inputs, [{ type: 'promptString', id: 'github-GITHUB_PERSONAL_ACCESS_TOKEN', description: 'env.GITHUB_PERSONAL_ACCESS_TOKEN of github (imported from Cursor)', password: true }]);
    assert.deepEqual(plan.secrets.map((x) => [x.inputId, x.value]), [['github-GITHUB_PERSONAL_ACCESS_TOKEN', SECRETS[0]]]);
  });

  it('Claude Code: ${VAR} and ${VAR:-default} to ${env:VAR} (the default reported lost), ws refused, headersHelper dropped', () => {
    const plan = importFixture('claude');
    const s = servers(plan);
    assert.deepEqual(Object.keys(s), ['sentry', 'db', 'events', 'win']);
    assert.equal((s.sentry.headers as Record<string, string>).Authorization, 'Bearer ${env:SENTRY_TOKEN}');
    assert.deepEqual(s.db.args, ['-y', '@bytebase/dbhub@0.11.4', '--dsn', '${env:DATABASE_URL}']);
    assert.deepEqual(s.db.env, { LOG_LEVEL: 'info', API_KEY: '${input:db-API_KEY}' });
    assert.deepEqual(notesOf(plan), [
      'sentry headers.Authorization env-reference', 'db args[3] env-reference', 'db args[3] env-default-dropped', 'db env.API_KEY secret-to-input',
      'events url sse-transport', 'events headers.X-API-Key env-reference', 'events headersHelper field-dropped', 'socket type unsupported-transport',
    ]);
    // The workspace's own .mcp.json: VS Code may run it too, so the copy is said.
    const dotMcp = planImport({ client: 'claude', sources: [{ file: '.mcp.json', text: fixture(SOURCES.claude), scope: 'project' }], folder: '/w', target: undefined });
    assert.deepEqual(dotMcp.notes.filter((n) => n.code === 'also-in-dot-mcp').map((n) => n.server), ['sentry', 'db', 'events', 'win']);
    // The default value is not quoted (it may hold a credential): only the variable's name.
    assert.ok(!plan.notes.some((n) => n.message.includes('postgres://')));
  });

  it('Gemini CLI: $VAR and ${VAR}, httpUrl vs url (SSE), typed url, tool filters, trust, timeout, mcp.excluded', () => {
    const plan = importFixture('gemini');
    const s = servers(plan);
    assert.deepEqual(Object.keys(s), ['pythonTools', 'httpServerWithAuth', 'discoveredServer', 'typedHttp']);
    assert.deepEqual(s.pythonTools.env, { DATABASE_URL: '${env:DB_CONNECTION_STRING}', API_KEY: '${env:EXTERNAL_API_KEY}' });
    assert.equal(s.pythonTools.cwd, './mcp-servers/python');
    assert.deepEqual(s.httpServerWithAuth, { type: 'http', url: 'http://localhost:3000/mcp', headers: { Authorization: 'Bearer ${input:httpServerWithAuth-Authorization}', 'X-Custom-Header': 'custom-value' } });
    assert.deepEqual(s.discoveredServer, { type: 'sse', url: 'https://api.example.com/sse' });
    assert.deepEqual(s.typedHttp, { type: 'http', url: 'https://mcp.example.com/mcp' });
    assert.deepEqual(notesOf(plan), [
      'experimental mcp.excluded server-disabled',
      'pythonTools env.DATABASE_URL env-reference', 'pythonTools env.API_KEY env-reference', 'pythonTools timeout timeout-dropped', 'pythonTools trust trust-dropped', 'pythonTools includeTools tool-filter-dropped',
      'httpServerWithAuth httpUrl http-url', 'httpServerWithAuth headers.Authorization placeholder-to-input', 'httpServerWithAuth timeout timeout-dropped',
      'discoveredServer url sse-transport', 'typedHttp excludeTools tool-filter-dropped',
    ]);
    // "Bearer your-api-token" is a placeholder: an input to fill, no value stored.
    assert.deepEqual(plan.secrets, []);
    assert.equal(plan.inputs.length, 1);
  });

  it('Codex: env_vars, bearer_token_env_var, env_http_headers, http_headers, inline bearer_token, timeouts, tool lists, enabled = false, TOML literal strings', () => {
    const plan = importFixture('codex');
    const s = servers(plan);
    assert.deepEqual(Object.keys(s), ['context7', 'figma', 'legacy', 'winfs']);
    assert.deepEqual(s.context7.env, { LOG_LEVEL: 'debug', HTTP_PROXY: '${env:HTTP_PROXY}', HTTPS_PROXY: '${env:HTTPS_PROXY}' });
    assert.deepEqual(s.figma.headers, { 'X-Figma-Region': 'us-east-1', 'X-Org-Id': '${env:FIGMA_ORG_ID}', Authorization: 'Bearer ${env:FIGMA_OAUTH_TOKEN}' });
    assert.deepEqual(s.legacy.headers, { Authorization: 'Bearer ${input:legacy-Authorization}' });
    assert.deepEqual(s.winfs, { type: 'stdio', command: 'C:\\tools\\mcp-fs.exe', args: ['--root', 'D:\\work'], cwd: 'C:\\tools' });
    assert.deepEqual(notesOf(plan), [
      'context7 env_vars field-converted', 'context7 startup_timeout_sec timeout-dropped', 'context7 tool_timeout_sec timeout-dropped', 'context7 enabled_tools tool-filter-dropped',
      'figma env_http_headers.X-Org-Id field-converted', 'figma bearer_token_env_var field-converted', 'figma disabled_tools tool-filter-dropped',
      'legacy bearer_token secret-to-input', 'off enabled server-disabled',
    ]);
    assert.deepEqual(plan.secrets.map((x) => x.value), [SECRETS[2]]);
  });

  it('edits the existing file with jsonc-parser: comments, trailing commas and every line kept; a taken name is renamed, an identical one skipped', () => {
    const target = fixture('target/mcp.json');
    const plan = importFixture('cursor', target);
    assert.ok(plan.ok);
    assert.ok(keepsEveryLine(target, plan.after), plan.after);
    assert.match(plan.after, /\/\/ Team servers: keep this comment/);
    assert.match(plan.after, /\/\* local tools \*\//);
    const s = servers(plan);
    assert.deepEqual(Object.keys(s), ['github', 'memory', 'github-cursor', 'userjot', 'win-tools', 'linear']);
    assert.equal(s.github.url, 'https://api.githubcopilot.com/mcp/');
    assert.ok(notesOf(plan).includes('github renamed'));
    const inputs = (parseJsoncValue(plan.after) as { inputs: Array<{ id: string }> }).inputs.map((i) => i.id);
    assert.deepEqual(inputs, ['unused', 'github-GITHUB_PERSONAL_ACCESS_TOKEN']);
    // Importing again changes nothing: each server is already there, its input slot reused.
    const again = importFixture('cursor', plan.after);
    assert.equal(again.changed, false);
    assert.deepEqual(again.notes.filter((n) => n.code === 'already-present').map((n) => n.server), ['github', 'userjot', 'win-tools', 'linear']);
  });

  it('keeps CRLF and the file\'s indentation', () => {
    const target = '{\r\n    "servers": {\r\n        "a": { "command": "x" }\r\n    }\r\n}\r\n';
    const plan = importFixture('codex', target);
    assert.ok(!/[^\r]\n/.test(plan.after), 'a bare LF was written into a CRLF file');
    assert.match(plan.after, /\r\n {8}"context7": \{\r\n {12}"type": "stdio"/);
  });

  it('a credential whose input id is already the user\'s (in the file or stored) gets a new id, never the user\'s', () => {
    const ID = 'github-GITHUB_PERSONAL_ACCESS_TOKEN';
    const own = `{\n  "servers": {\n    "mine": { "command": "x", "env": { "T": "\${input:${ID}}" } }\n  },\n  "inputs": [\n    { "type": "promptString", "id": "${ID}", "password": true }\n  ]\n}\n`;
    for (const [target, stored] of [[own, []], [undefined, [ID]], [own, [`${ID}-2`]]] as Array<[string | undefined, string[]]>) {
      const plan = planImport({ client: 'cursor', sources: [{ file: SOURCES.cursor, text: fixture(SOURCES.cursor), scope: 'project' }], folder: '/w', target, storedInputIds: stored });
      const expected = stored.includes(`${ID}-2`) ? `${ID}-3` : `${ID}-2`;
      assert.deepEqual(plan.secrets.map((x) => x.inputId), [expected]);
      assert.ok(!plan.secrets.some((x) => x.inputId === ID), 'the user\'s stored value would be overwritten');
      assert.equal(servers(plan).github.env && (servers(plan).github.env as Record<string, string>).GITHUB_PERSONAL_ACCESS_TOKEN, `\${input:${expected}}`);
      assert.deepEqual(plan.inputs.map((i) => i.id), [expected]);
      const renamed = plan.notes.find((n) => n.code === 'input-renamed');
      assert.ok(renamed && renamed.message.includes(`"${expected}"`) && renamed.server === 'github', JSON.stringify(plan.notes));
      // Importing again adds nothing and stores nothing: the earlier import is recognised.
      const again = planImport({ client: 'cursor', sources: [{ file: SOURCES.cursor, text: fixture(SOURCES.cursor), scope: 'project' }], folder: '/w', target: plan.after, storedInputIds: [...stored, expected] });
      assert.equal(again.changed, false);
      assert.deepEqual(again.secrets, []);
    }
  });

  it('never writes a literal credential into the file or a note', () => {
    for (const client of Object.keys(SOURCES) as ImportClient[]) {
      const plan = importFixture(client, fixture('target/mcp.json'));
      const shown = plan.after + JSON.stringify(plan.notes) + JSON.stringify(plan.inputs);
      for (const secret of SECRETS) assert.ok(!shown.includes(secret), `${client}: ${secret} leaked`);
    }
  });

  it('the wrong dialect in the wrong file imports nothing and says which format it is', () => {
    const wrong = (client: ImportClient, text: string) => planImport({ client, sources: [{ file: 'f', text, scope: 'project' }], folder: '/w', target: undefined });
    const vscode = wrong('cursor', fixture('wrong/vscode-format.json'));
    assert.equal(vscode.changed, false);
    assert.deepEqual(vscode.notes.map((n) => [n.code, n.args.actual]), [['wrong-dialect', 'VS Code\'s format ("servers")']]);
    assert.equal(wrong('gemini', fixture('wrong/config.toml')).notes[0].code, 'wrong-dialect');
    assert.equal(wrong('codex', fixture(SOURCES.cursor)).notes[0].code, 'wrong-dialect');
    assert.equal(wrong('claude', fixture(SOURCES.codex)).notes[0].args.actual, 'a TOML file (Codex\'s config.toml format)');
    const broken = wrong('claude', '{\n  "mcpServers": {\n    "a": {"command": "x",,}\n');
    assert.deepEqual([broken.notes[0].code, broken.notes[0].args.line], ['parse-error', 3]);
    const badToml = wrong('codex', '[mcp_servers.a]\ncommand = \n');
    assert.deepEqual([badToml.notes[0].code, badToml.notes[0].args.line], ['parse-error', 2]);
  });

  it('Claude Code user config: local scope (this project) over .mcp.json over user scope; other projects ignored', () => {
    const folder = '/home/dev/projects/app';
    const user = JSON.stringify({
      numStartups: 12,
      mcpServers: { shared: { command: 'user-shared' }, onlyUser: { command: 'u' } },
      projects: { [folder]: { mcpServers: { shared: { command: 'local-shared' } } }, '/other': { mcpServers: { other: { command: 'o' } } } },
    });
    const plan = planImport({
      client: 'claude', folder, target: undefined,
      sources: [{ file: '.mcp.json', text: '{"mcpServers": {"shared": {"command": "project-shared"}, "proj": {"command": "p"}}}', scope: 'project' }, { file: '~/.claude.json', text: user, scope: 'user' }],
    });
    const s = servers(plan);
    assert.deepEqual(Object.fromEntries(Object.entries(s).map(([k, v]) => [k, v.command])), { proj: 'p', shared: 'local-shared', onlyUser: 'u' });
    assert.deepEqual(plan.notes.filter((n) => n.code !== 'also-in-dot-mcp').map((n) => [n.code, n.file, n.server]), [['shadowed', '.mcp.json', 'shared'], ['shadowed', '~/.claude.json', 'shared']]);
  });

  it('a legacy "mcpServers" map beside "servers" in .vscode/mcp.json takes names too', () => {
    const plan = importFixture('codex', '{\n  "servers": {},\n  "mcpServers": {"context7": {"command": "other"}}\n}\n');
    assert.deepEqual(Object.keys(servers(plan)), ['context7-codex', 'figma', 'legacy', 'winfs']);
  });

  it('refuses a target it cannot edit safely and changes nothing', () => {
    for (const target of ['{"servers": {', '[1]', '{"servers": []}', '{"inputs": {}}']) {
      const plan = importFixture('codex', target);
      assert.equal(plan.ok, false, target);
      assert.equal(plan.after, target);
      assert.equal(plan.notes.at(-1)!.code, 'target-invalid');
    }
  });

  it('every note has a template, a kind and an English message without a leftover placeholder', () => {
    for (const client of Object.keys(SOURCES) as ImportClient[]) {
      for (const n of importFixture(client, fixture('target/mcp.json')).notes) {
        const [kind, template] = IMPORT_NOTES[n.code];
        assert.equal(n.kind, kind);
        for (const [, name] of template.matchAll(/\{(\w+)\}/g)) assert.ok(Object.hasOwn(n.args, name), `${n.code}: no {${name}}`);
      }
    }
  });

  it('takes linear time: all edits against one parse of the target (time per server at 2,000 at most 3x that at 250)', function () {
    this.timeout(0);
    const target = fixture('target/mcp.json');
    const unbounded = { maxServers: Number.MAX_SAFE_INTEGER, maxBytes: Number.MAX_SAFE_INTEGER };
    const perServer = (count: number, runs: number) => {
      const text = codexServers(count);
      let best = Infinity;
      for (let r = 0; r < runs; r++) {
        const t0 = process.hrtime.bigint();
        const plan = planImport({ client: 'codex', sources: [{ file: 'c', text, scope: 'project' }], folder: '/w', target, limits: unbounded });
        best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e6);
        assert.equal(plan.servers.length, count);
      }
      return best / count;
    };
    perServer(250, 2); // warm up
    // Re-parsing the target per server made this ratio ~11 at 2,000 (and ~49 at 5,000).
    const { ok, result: [small, large] } = timedWithin(() => [perServer(250, 5), perServer(2000, 2)], ([s, l]) => l <= 3 * s);
    assert.ok(ok, `per server: ${small.toFixed(3)} ms at 250, ${large.toFixed(3)} ms at 2,000`);
  });

  it('refuses to go past the export\'s server limit (512), naming the first server past it; nothing changes', () => {
    assert.equal(DEFAULT_LIMITS.maxServers, 512);
    const existing = '{\n  "servers": {\n    "mine-0": { "command": "a" },\n    "mine-1": { "command": "b" }\n  }\n}\n';
    const plan = (count: number) => planImport({ client: 'codex', sources: [{ file: '.codex/config.toml', text: codexServers(count), scope: 'project' }], folder: '/w', target: existing });
    const fits = plan(510);
    assert.ok(fits.ok && fits.changed);
    assert.equal(Object.keys(servers(fits)).length, 512);
    const over = plan(511);
    assert.equal(over.ok, false);
    assert.equal(over.changed, false);
    assert.equal(over.after, existing);
    assert.deepEqual([over.servers, over.inputs, over.secrets], [[], [], []]);
    const note = over.notes.at(-1)!;
    assert.deepEqual([note.code, note.kind, note.file, note.server, note.args.count, note.args.limit], ['too-many-servers', 'error', '.codex/config.toml', 'tool-510', 513, 512]);
  });

  it('refuses a result larger than the reader reads (1 MiB), naming the size; nothing changes', () => {
    const big = 'x'.repeat(2 * 1024 * 1024);
    const plan = planImport({ client: 'claude', sources: [{ file: '.mcp.json', text: JSON.stringify({ mcpServers: { big: { command: 'node', args: [big] } } }), scope: 'project' }], folder: '/w', target: undefined });
    assert.equal(plan.ok, false);
    assert.equal(plan.after, '');
    const note = plan.notes.at(-1)!;
    assert.equal(note.code, 'target-too-large');
    assert.equal(note.args.limit, MAX_SOURCE_BYTES);
    assert.ok(Number(note.args.size) > 2 * 1024 * 1024, note.message);
    assert.match(note.message, new RegExp(`would be ${note.args.size} bytes`));
  });

  it('credentials in args and env (headers, credential flags, connection strings) become password inputs, only their secret part replaced', () => {
    const plan = planImport({ client: 'claude', sources: [{ file: '.mcp.json', text: fixture(CREDENTIALS_FILE), scope: 'project' }], folder: '/w', target: undefined });
    assert.ok(plan.ok && plan.changed);
    const s = servers(plan);
    assert.deepEqual(s.linear.args, ['-y', 'mcp-remote@0.1.29', 'https://mcp.linear.app/mcp', '--header', 'Authorization: Bearer ${input:linear-Authorization}']);
    assert.deepEqual(s.postgres.args, ['-y', '@modelcontextprotocol/server-postgres@0.6.2', 'postgresql://app:${input:postgres-postgresql-password}@db.internal:5432/app']);
    assert.deepEqual(s.headers.args, ['-H', 'X-Api-Key: ${input:headers-X-Api-Key}', '--header=Cookie: ${input:headers-Cookie}', '--header', 'Accept: application/json', '--upstream', 'https://api.example.com/mcp']);
    assert.deepEqual(s.flags.args, ['--token', '${input:flags-token}', '--api-key=${input:flags-api-key}', '--password', '${input:flags-password}', '--verbose']);
    assert.deepEqual(s.stores.args, ['--mongo', 'mongodb+srv://svc:${input:stores-mongodb-srv-password}@cluster0.example.net/db?retryWrites=true']);
    assert.deepEqual(s.stores.env, {
      MYSQL_URL: 'mysql://root:${input:stores-MYSQL_URL}@127.0.0.1:3306/shop', CACHE_URL: 'rediss://:${input:stores-CACHE_URL}@cache.example.com:6380/0',
      QUEUE_URL: 'amqps://mq:${input:stores-QUEUE_URL}@mq.example.com/vhost', PLAIN_URL: 'postgresql://localhost/app', FROM_ENV: 'postgresql://app:${env:DB_PASSWORD}@db/app',
    });
    assert.deepEqual(Object.fromEntries(plan.secrets.map((x) => [x.inputId, x.value])), {
      'linear-Authorization': CREDENTIALS.linear, 'postgres-postgresql-password': CREDENTIALS.postgres, 'headers-X-Api-Key': CREDENTIALS.apiKeyHeader,
      'headers-Cookie': CREDENTIALS.cookie, 'flags-token': CREDENTIALS.token, 'flags-api-key': CREDENTIALS.apiKey, 'flags-password': CREDENTIALS.password,
      'stores-mongodb-srv-password': CREDENTIALS.mongo, 'stores-MYSQL_URL': CREDENTIALS.mysql, 'stores-CACHE_URL': CREDENTIALS.redis, 'stores-QUEUE_URL': CREDENTIALS.amqp,
      'remote-Authorization': Buffer.from(`deploy:${CREDENTIALS.url}@x`).toString('base64'),
    });
    assert.ok(plan.inputs.every((i) => i.password === true) && plan.inputs.length === plan.secrets.length);
    const shown = plan.after + JSON.stringify(plan.notes) + JSON.stringify(plan.inputs);
    for (const secret of Object.values(CREDENTIALS)) assert.ok(!shown.includes(secret), `${secret} leaked`);
  });

  it('a password in an HTTP URL becomes a Basic Authorization header (base64 of user:password stored), which the export takes', () => {
    const folder = '/home/dev/projects/app';
    const plan = planImport({ client: 'claude', sources: [{ file: '.mcp.json', text: fixture(CREDENTIALS_FILE), scope: 'project' }], folder, target: undefined });
    assert.deepEqual(servers(plan).remote, { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Basic ${input:remote-Authorization}' } });
    assert.deepEqual(plan.notes.filter((n) => n.server === 'remote').map((n) => [n.code, n.field]), [['url-credentials-to-header', 'url'], ['also-in-dot-mcp', undefined]]);
    const analysis = analyzeSource(Buffer.from(plan.after, 'utf8'), options({ folder }));
    assert.deepEqual(analysis.rejected.filter((r) => r.name === 'remote'), [], JSON.stringify(analysis.problems.filter((p) => p.server === 'remote')));
    assert.ok(!analysis.problems.some((p) => p.code === 'url-credentials' || p.code === 'literal-secret'), JSON.stringify(analysis.problems));
    const stored = new Map(plan.secrets.map((x) => [x.inputId, x.value]));
    const row = toMcpClientConfig(analysis.servers.find((x) => x.name === 'remote')!, { input: (id) => stored.get(id) ?? '', env: () => '' });
    assert.ok('config' in row && row.config.transport === 'streamable-http');
    assert.deepEqual(row.config.headers, { Authorization: `Basic ${Buffer.from('deploy:hp-PASS-b7@x').toString('base64')}` });
    // An entry with its own Authorization keeps it; a placeholder password is not made into a value.
    const other = planImport({ client: 'cursor', folder: '/w', target: undefined, sources: [{ file: 'c', scope: 'project', text: JSON.stringify({ mcpServers: {
      own: { url: 'https://u:p4ss@h.example/mcp', headers: { Authorization: 'Bearer ${env:T}' } }, ph: { url: 'https://u:<password>@h.example/mcp' },
    } }) }] });
    assert.deepEqual(servers(other).own, { type: 'http', url: 'https://h.example/mcp', headers: { Authorization: 'Bearer ${env:T}' } });
    assert.deepEqual(servers(other).ph, { type: 'http', url: 'https://h.example/mcp' });
    assert.deepEqual(other.notes.map((n) => [n.server, n.code]), [['own', 'url-credentials-dropped'], ['ph', 'url-credentials-placeholder']]);
    assert.deepEqual(other.secrets, []);
  });

  it('the preview id is keyed and covers the credential values: a changed credential or another key gives another id', () => {
    const plan = (text: string) => planImport({ client: 'claude', sources: [{ file: '.mcp.json', text, scope: 'project' }], folder: '/w', target: undefined });
    const text = fixture(CREDENTIALS_FILE);
    const key = Buffer.alloc(32, 1);
    const id = importPreviewId(plan(text), key);
    assert.match(id, /^[0-9a-f]{16}$/);
    assert.equal(importPreviewId(plan(text), key), id);
    const changed = plan(text.replace(CREDENTIALS.postgres, 'Pg-PASSWORD-7d1f'));
    assert.equal(changed.after, plan(text).after, 'the file text is the same');
    assert.notEqual(importPreviewId(changed, key), id);
    assert.notEqual(importPreviewId(plan(text), Buffer.alloc(32, 2)), id);
  });

  it('an entry with a lone surrogate (which RFC 8785 cannot write) is imported, and found again by a second import', () => {
    // Found by the property below: the entry comparison used canonical JSON and threw.
    const text = '{"mcpServers": {"github": {"command": "docker", "args": ["run", "\uD800github/github-mcp-server:v0.9.0"]}}}';
    const target = fixture('target/mcp.json');
    const first = planImport({ client: 'cursor', sources: [{ file: 'f', text, scope: 'project' }], folder: '/w', target });
    assert.deepEqual(first.notes.filter((n) => n.kind === 'error'), []);
    assert.ok(first.changed);
    assert.deepEqual(parseJsonc(first.after).errors, []);
    const again = planImport({ client: 'cursor', sources: [{ file: 'f', text, scope: 'project' }], folder: '/w', target: first.after });
    assert.deepEqual(again.notes.filter((n) => n.kind === 'error'), []);
    assert.equal(again.changed, false, 'the same entry is already there');
  });

  it('fast-check: the importer never throws, and what it writes always parses with every old line kept', function () {
    this.timeout(0);
    const texts = [...Object.values(SOURCES), CREDENTIALS_FILE].map(fixture);
    const mutate = fc.tuple(fc.constantFrom(...texts), fc.nat(), fc.nat(), fc.oneof(fc.string(), fc.constantFrom('{', '}', '[', ']', '"', ',', '\\', '${', '$X', '\u0000', '\uD800', '=', '\n', '[mcp_servers.x]\n', '"__proto__"')))
      .map(([text, a, b, insert]) => {
        const i = a % (text.length + 1);
        const j = Math.min(text.length, i + (b % 12));
        return text.slice(0, i) + insert + text.slice(j);
      });
    const target = fixture('target/mcp.json');
    fc.assert(fc.property(fc.constantFrom(...(Object.keys(SOURCES) as ImportClient[])), fc.oneof(mutate, fc.json(), fc.string()), fc.boolean(), (client, text, withTarget) => {
      const plan = planImport({ client, sources: [{ file: 'f', text, scope: 'project' }], folder: '/w', target: withTarget ? target : undefined });
      if (plan.changed) {
        assert.deepEqual(parseJsonc(plan.after).errors, []);
        if (withTarget) assert.ok(keepsEveryLine(target, plan.after));
      }
      for (const n of plan.notes) assert.equal(typeof n.message, 'string');
      assert.ok(!plan.notes.some((n) => String(n.args.reason ?? '').startsWith('internal error')), JSON.stringify(plan.notes.at(-1)));
    }), { numRuns: Number(process.env.DSH_FUZZ_RUNS) || 400, endOnFailure: true });
  });
});

// DSH's own dsh-mcp-client@0.1.0-rc.8, installed test-only by scripts/setup-oracles.sh.
const ORACLE = path.resolve(__dirname, '../../../oracle/mcp/node_modules/@deepseek-ai/dsh-mcp-client/lib/index.js');

describe('import round trip: import, then export, gives the DSH rows the source means (real dsh-mcp-client Config())', () => {
  let Config: (value: unknown) => Record<string, unknown>;
  before(async function () {
    if (!existsSync(ORACLE)) {
      console.log('      (skipped: oracle not installed; run scripts/setup-oracles.sh)');
      this.skip();
    }
    Config = (await import(pathToFileURL(ORACLE).href)).Config;
  });

  /** The process environment the source's client would see, and what each row must then be. */
  const ENV: Record<string, string> = {
    SENTRY_TOKEN: 'sntrys_x', DATABASE_URL: 'postgres://db/prod', API_KEY: 'k-1', DB_CONNECTION_STRING: 'sqlite:///x.db', EXTERNAL_API_KEY: 'ext-1',
    HTTP_PROXY: 'http://proxy:3128', HTTPS_PROXY: 'http://proxy:3129', FIGMA_OAUTH_TOKEN: 'figd_1', FIGMA_ORG_ID: 'org-9', USERJOT_API_TOKEN: 'uj-1',
  };
  const FOLDER = '/home/dev/projects/app';
  const EXPECTED: Record<ImportClient, Record<string, Record<string, unknown>>> = {
    cursor: {
      github: { transport: 'stdio', command: 'docker', args: ['run', '-i', '--rm', '-e', 'GITHUB_PERSONAL_ACCESS_TOKEN', 'ghcr.io/github/github-mcp-server:v0.9.0'], env: { GITHUB_PERSONAL_ACCESS_TOKEN: SECRETS[0] } },
      userjot: { transport: 'streamable-http', url: 'https://api.userjot.com/v1/mcp', headers: { Authorization: 'Bearer uj-1' } },
      'win-tools': { transport: 'stdio', command: 'C:\\Program Files\\nodejs\\node.exe', args: ['C:\\tools\\mcp\\server.js', '--root', FOLDER] },
    },
    claude: {
      sentry: { transport: 'streamable-http', url: 'https://mcp.sentry.dev/mcp', headers: { Authorization: 'Bearer sntrys_x' } },
      db: { transport: 'stdio', command: 'npx', args: ['-y', '@bytebase/dbhub@0.11.4', '--dsn', 'postgres://db/prod'], env: { LOG_LEVEL: 'info', API_KEY: SECRETS[1] } },
      win: { transport: 'stdio', command: 'cmd', args: ['/c', 'npx', '-y', '@modelcontextprotocol/server-filesystem@2025.8.21', 'C:\\Users\\dev\\projects'], env: {} },
    },
    gemini: {
      pythonTools: { transport: 'stdio', command: 'python', args: ['-m', 'my_mcp_server', '--port', '8080'], env: { DATABASE_URL: 'sqlite:///x.db', API_KEY: 'ext-1' }, cwd: `${FOLDER}/mcp-servers/python` },
      typedHttp: { transport: 'streamable-http', url: 'https://mcp.example.com/mcp', headers: {} },
      httpServerWithAuth: { transport: 'streamable-http', url: 'http://localhost:3000/mcp', headers: { Authorization: 'Bearer entered-by-user', 'X-Custom-Header': 'custom-value' } },
    },
    codex: {
      context7: { transport: 'stdio', command: 'npx', args: ['-y', '@upstash/context7-mcp@1.0.14'], env: { LOG_LEVEL: 'debug', HTTP_PROXY: 'http://proxy:3128', HTTPS_PROXY: 'http://proxy:3129' } },
      figma: { transport: 'streamable-http', url: 'https://mcp.figma.com/mcp', headers: { 'X-Figma-Region': 'us-east-1', 'X-Org-Id': 'org-9', Authorization: 'Bearer figd_1' } },
      legacy: { transport: 'streamable-http', url: 'https://legacy.example.com/mcp', headers: { Authorization: `Bearer ${SECRETS[2]}` } },
      // A drive path is absolute on Windows only: the export resolves cwd as the host it runs on does.
      winfs: { transport: 'stdio', command: 'C:\\tools\\mcp-fs.exe', args: ['--root', 'D:\\work'], env: {}, cwd: process.platform === 'win32' ? 'C:\\tools' : `${FOLDER}/C:\\tools` },
    },
  };

  for (const client of Object.keys(EXPECTED) as ImportClient[]) {
    it(`${client}: every exportable server's row`, () => {
      const plan = importFixture(client, undefined, FOLDER);
      const stored = new Map(plan.secrets.map((s) => [s.inputId, s.value]));
      const analysis = analyzeSource(Buffer.from(plan.after, 'utf8'), options({ folder: FOLDER }));
      const lookup = { input: (id: string) => stored.get(id) ?? 'entered-by-user', env: (name: string) => ENV[name] ?? '' };
      const rows: Record<string, Record<string, unknown>> = {};
      for (const server of analysis.servers) {
        const r = toMcpClientConfig(server, lookup);
        assert.ok('config' in r, `${server.name}: ${JSON.stringify(r)}`);
        const normalized = Config(r.config);
        assert.deepEqual(normalized, r.config, `${server.name}: DSH's Config() changed the row`);
        rows[server.name] = normalized;
      }
      assert.deepEqual(Object.keys(rows).sort(), Object.keys(EXPECTED[client]).sort(), 'exported servers');
      for (const [name, expected] of Object.entries(EXPECTED[client])) {
        const row = rows[name];
        const picked = Object.fromEntries(Object.keys(expected).map((k) => [k, row[k]]));
        if (!('cwd' in expected) && row.transport === 'stdio') assert.equal(row.cwd, FOLDER, `${name}: cwd`);
        assert.deepEqual(picked, expected, name);
      }
      // What DSH cannot run is refused by the export, not silently dropped: SSE.
      for (const rejected of analysis.rejected) assert.deepEqual(rejected.codes, ['unsupported-transport'], rejected.name);
    });
  }
});
