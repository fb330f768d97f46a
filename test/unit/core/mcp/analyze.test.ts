import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { parse, parseTree, type ParseError } from 'jsonc-parser';
import type { StdioDeclaredServer, HttpDeclaredServer } from '../../../../src/core/declaration/declarationModel';
import { analyzeSource } from '../../../../src/core/mcp/analyze';
import { canonicalJson } from '../../../../src/core/json/canonicalJson';
import { decodeText, LineIndex, type Position } from '../../../../src/core/json/text';
import { serializeDeclaration } from '../../../../src/core/declaration/declaration';
import { buildDeclarationBody } from '../../../../src/core/app/export';
import { analyze, codes, covered, FOLDER, options } from '../../helpers';
import { fixtureFiles } from '../../fuzz.mutate';

const stdio = (a: ReturnType<typeof analyze>, i = 0) => a.servers[i] as StdioDeclaredServer;
const http = (a: ReturnType<typeof analyze>, i = 0) => a.servers[i] as HttpDeclaredServer;

describe('analyze: files shaped like real ones', () => {
  it('reads comments, trailing commas, CRLF and a BOM, with exact ranges', () => {
    const text = '\uFEFF// servers\r\n{\r\n  "servers": {\r\n    /* old */ "events": { "type": "sse", "url": "http://localhost:1/sse", },\r\n  },\r\n}\r\n';
    const a = analyze(text.replace(/^\uFEFF/, ''));
    const withBom = analyze(text);
    assert.deepEqual(withBom.problems.map((p) => p.range), a.problems.map((p) => p.range));
    const p = a.problems.find((x) => x.code === 'unsupported-transport')!;
    assert.deepEqual(p.range, { start: { line: 3, character: 34 }, end: { line: 3, character: 39 } });
    assert.equal(covered(text.replace(/^\uFEFF/, ''), p.range), '"sse"');
    assert.deepEqual(a.rejected, [{ name: 'events', codes: ['unsupported-transport'] }]);
    assert.equal(a.usable, true);
  });

  it('decodes UTF-16 with a BOM (LE and BE) and refuses invalid UTF-8', () => {
    const text = '{"servers": {"a": {"command": "node", "args": ["s.js"]}}}';
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const be = Buffer.from(le);
    for (let i = 2; i < be.length; i += 2) [be[i], be[i + 1]] = [be[i + 1], be[i]];
    be[0] = 0xfe; be[1] = 0xff;
    const { analyzeSource } = require('../../../../src/core/mcp/analyze');
    for (const bytes of [le, be]) {
      const a = analyzeSource(bytes, { folder: FOLDER, folderName: 'app', userHome: '/h' });
      assert.equal(a.servers.length, 1);
      assert.equal(a.servers[0].command, 'node');
    }
    const bad = analyzeSource(Buffer.from([0x7b, 0xff, 0x7d]), { folder: FOLDER, folderName: 'app', userHome: '/h' });
    assert.equal(bad.usable, false);
    assert.deepEqual(bad.problems.map((p: { code: string }) => p.code), ['invalid-json']);
  });

  it('normalizes stdio: default cwd is the folder, relative cwd/envFile resolve against it, env numbers become strings', () => {
    const a = analyze(`{
      "servers": {
        "fs": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem@2025.1.1", "\${workspaceFolder}"], "env": { "PORT": 8080, "LOG": "debug" } },
        "py": { "type": "stdio", "command": "uv", "args": ["run", "server.py"], "cwd": "tools/py", "envFile": "\${workspaceFolder}/.env" }
      }
    }`);
    assert.deepEqual(codes(a), []);
    assert.equal(stdio(a).cwd, FOLDER);
    assert.deepEqual(stdio(a).args, ['-y', '@modelcontextprotocol/server-filesystem@2025.1.1', FOLDER]);
    assert.deepEqual(stdio(a).env, { PORT: '8080', LOG: 'debug' });
    assert.equal(stdio(a, 1).cwd, `${FOLDER}/tools/py`);
    assert.equal(stdio(a, 1).envFile, `${FOLDER}/.env`);
    assert.equal(stdio(a).transport, 'stdio');
    assert.equal(stdio(a).toolCallTimeoutMs, 60000);
    assert.deepEqual(stdio(a).reconnect, { enabled: true, initialDelayMs: 500, maxDelayMs: 30000, maxAttempts: 10 });
  });

  it('maps http and an untyped url to streamable-http', () => {
    const a = analyze('{"servers": {"a": {"type": "http", "url": "https://example.com/mcp"}, "b": {"url": "https://example.com/b", "headers": {"X-Trace": "1"}}}}');
    assert.deepEqual(a.servers.map((s) => s.transport), ['streamable-http', 'streamable-http']);
    assert.deepEqual(http(a, 1).headers, { 'X-Trace': '1' });
  });

  it('keeps ${input:} and ${env:} as references and resolves the rest in one pass', () => {
    const a = analyze(`{
      "inputs": [{ "type": "promptString", "id": "tok", "description": "Token", "password": true }],
      "servers": { "a": { "command": "node", "args": ["\${userHome}\${/}x", "\${workspaceFolderBasename}", "\${workspaceFolder:app}", "\${config:my.setting}"],
        "env": { "API_TOKEN": "\${input:tok}", "HOME_DIR": "\${env:HOME}/x", "LITERAL": "\${pathSeparator}" } } }
    }`, { resolveConfig: (k) => (k === 'my.setting' ? '${input:tok}' : undefined) });
    assert.deepEqual(codes(a), []);
    const s = stdio(a);
    // A resolved value containing "${" stays a literal string: it is never resolved again.
    assert.deepEqual(s.args, ['/home/dev/x', 'app', FOLDER, '${input:tok}']);
    assert.deepEqual(s.env, { API_TOKEN: [{ input: 'tok' }], HOME_DIR: [{ env: 'HOME' }, '/x'], LITERAL: '/' });
    assert.deepEqual(s.inputRefs, ['tok']);
    assert.deepEqual(s.envRefs, ['HOME']);
    assert.deepEqual(a.inputs, [{ id: 'tok', type: 'promptString', description: 'Token', password: true }]);
  });

  it('exports a name VS Code does not know as written, as VS Code runs it, with a located warning', () => {
    const text = '{"servers": {"a": {"command": "node", "args": ["${HOME}/srv.js"]}}}';
    const a = analyze(text);
    assert.deepEqual(codes(a), ['literal-variable']);
    assert.equal(a.problems[0].severity, 'warning');
    assert.equal(a.problems[0].message, '${HOME} is not a VS Code variable: VS Code passes it to the server as written, and so does DSH. For an environment variable, write ${env:NAME}.');
    assert.equal(covered(text, a.problems[0].range), '${HOME}');
    assert.deepEqual(stdio(a).args, ['${HOME}/srv.js']);
  });

  it('rejects variables only the editor resolves, with the variable\'s own range', () => {
    const vars = ['${command:pick}', '${cwd}', '${execPath}', '${file}', '${selectedText}', '${workspaceFolder:Other}', '${config:missing}'];
    for (const v of vars) {
      const text = `{"servers": {"a": {"command": "node", "args": ["x${v}y"]}}}`;
      const a = analyze(text, { resolveConfig: () => undefined });
      assert.deepEqual(codes(a), ['unsupported-variable'], v);
      assert.equal(covered(text, a.problems[0].range), v);
      assert.deepEqual(a.rejected, [{ name: 'a', codes: ['unsupported-variable'] }]);
    }
  });

  it('rejects an undefined input with related information to "inputs"', () => {
    const text = '{"inputs": [], "servers": {"a": {"url": "https://x.dev/mcp", "headers": {"Authorization": "Bearer ${input:nope}"}}}}';
    const a = analyze(text);
    const p = a.problems.find((x) => x.code === 'undefined-input')!;
    assert.equal(covered(text, p.range), '${input:nope}');
    assert.equal(covered(text, p.related![0].range), '"inputs"');
    assert.deepEqual(a.rejected, [{ name: 'a', codes: ['undefined-input'] }]);
  });

  it('refuses what DSH cannot do: sse, ws, unix://, pipe://, oauth, sandboxEnabled', () => {
    const cases: Array<[string, string]> = [
      ['{"type": "sse", "url": "https://x.dev/sse"}', 'unsupported-transport'],
      ['{"type": "ws", "url": "wss://x.dev/ws"}', 'unsupported-transport'],
      ['{"type": "http", "url": "unix:///tmp/s.sock#/mcp"}', 'unsupported-transport'],
      ['{"url": "pipe:///mcp"}', 'unsupported-transport'],
      ['{"type": "http", "url": "https://x.dev/mcp", "oauth": {"clientId": "abc"}}', 'unsupported-auth'],
      ['{"command": "node", "sandboxEnabled": true}', 'unsupported-sandbox'],
    ];
    for (const [entry, code] of cases) {
      const a = analyze(`{"servers": {"s": ${entry}}}`);
      assert.deepEqual(a.rejected, [{ name: 's', codes: [code] }], entry);
      assert.equal(a.servers.length, 0);
    }
    assert.deepEqual(analyze('{"servers": {"s": {"command": "node", "sandboxEnabled": false}}}').rejected, []);
  });

  it('drops dev (info) and env null (warning) but still exports', () => {
    const a = analyze('{"servers": {"s": {"command": "node", "dev": {"watch": "src/**"}, "env": {"A": null, "B": "1"}}}}');
    assert.deepEqual(codes(a).sort(), ['dev-ignored', 'env-null-dropped']);
    assert.deepEqual(stdio(a).env, { B: '1' });
    assert.equal(a.problems.find((p) => p.code === 'dev-ignored')!.severity, 'info');
    assert.equal(a.problems.find((p) => p.code === 'env-null-dropped')!.severity, 'warning');
  });

  it('reports invalid entries at the offending node', () => {
    const cases: Array<[string, string]> = [
      ['{"args": ["x"]}', 'invalid-server'],
      ['{"command": 5}', 'invalid-server'],
      ['{"command": "node", "args": "not-an-array"}', 'invalid-server'],
      ['{"command": "node", "args": [1]}', 'invalid-server'],
      ['{"command": "node", "env": {"A": true}}', 'invalid-server'],
      ['{"type": "carrier-pigeon", "command": "x"}', 'invalid-server'],
      ['"just a string"', 'invalid-server'],
      ['{"command": "node", "args": ["\\ud800"]}', 'invalid-server'],
      ['{"command": "   "}', 'invalid-server'],
      ['{"url": "not a url"}', 'invalid-url'],
      ['{"url": "ftp://x.dev/"}', 'invalid-url'],
    ];
    for (const [entry, code] of cases) {
      const text = `{"servers": {"s": ${entry}}}`;
      const a = analyze(text);
      assert.deepEqual(a.rejected, [{ name: 's', codes: [code] }], entry);
      assert.ok(!a.problems.some((p) => p.range.start.line === 0 && p.range.start.character === 0 && p.range.end.character === text.length), 'never the whole file');
    }
    const t = '{"servers": {"s": {"command": "node", "args": ["a", 7]}}}';
    assert.equal(covered(t, analyze(t).problems[0].range), '7');
  });

  it('warns about unknown fields with the key\'s range, and about mcpServers at the root', () => {
    const text = '{"mcpServers": {}, "extra": 1, "servers": {"s": {"command": "node", "headers": {}, "timeout": 5}}}';
    const a = analyze(text);
    const unknown = a.problems.filter((p) => p.code === 'unknown-field').map((p) => covered(text, p.range));
    assert.deepEqual(unknown, ['"extra"', '"headers"', '"timeout"']);
    assert.equal(covered(text, a.problems.find((p) => p.code === 'wrong-root-key')!.range), '"mcpServers"');
    assert.equal(a.servers.length, 1, 'unknown fields only warn');
  });

  it('rejects duplicated server names and duplicated fields, pointing at the first', () => {
    const text = '{"servers": {"a": {"command": "x"}, "b": {"command": "y", "command": "rm"}, "a": {"command": "z"}, "c": {"command": "ok"}}}';
    const a = analyze(text);
    const dups = a.problems.filter((p) => p.code === 'duplicate-key');
    assert.equal(dups.length, 2);
    assert.equal(covered(text, dups[0].range), '"command"');
    assert.equal(dups[0].range.start.character, text.indexOf('"command": "rm"'));
    assert.equal(dups[0].related![0].range.start.character, text.indexOf('"command": "y"'));
    assert.equal(dups[1].range.start.character, text.lastIndexOf('"a"'));
    assert.deepEqual(a.rejected.map((r) => [r.name, r.codes]), [['a', ['duplicate-key']], ['b', ['duplicate-key']]]);
    assert.deepEqual(a.servers.map((s) => s.name), ['c']);
  });

  it('exports nothing when the file has syntax errors, yet reports what it recovers', () => {
    const text = '{"servers": {"a": {"command": "node"}, "b": {"type": "sse", "url": "https://x.dev"} "c": {"command": "x"';
    const a = analyze(text);
    assert.equal(a.usable, false);
    assert.equal(a.servers.length, 0);
    assert.ok(codes(a).includes('invalid-json'));
    assert.ok(codes(a).includes('unsupported-transport'), 'recovered entries still get diagnostics');
    assert.deepEqual(a.rejected.map((r) => r.name), ['a', 'b', 'c']);
    assert.ok(a.rejected.every((r) => r.codes[0] === 'invalid-json'));
  });

  it('enforces limits without quoting content', () => {
    const many = `{"servers": {${Array.from({ length: 513 }, (_, i) => `"s${i}": {"command": "x"}`).join(',')}}}`;
    const a = analyze(many);
    assert.equal(a.usable, false);
    assert.deepEqual(codes(a), ['too-many-servers']);
    assert.equal(analyze(many, { limits: { maxServers: 600 } }).servers.length, 513);

    const secretish = 'Q'.repeat(33 * 1024);
    const b = analyze(`{"servers": {"big": {"command": "x", "args": ["${secretish}"]}, "ok": {"command": "y"}}}`);
    assert.deepEqual(b.rejected, [{ name: 'big', codes: ['value-too-long'] }]);
    assert.deepEqual(b.servers.map((s) => s.name), ['ok']);
    assert.ok(!JSON.stringify(b.problems).includes('QQQQ'));
  });

  it('derives safe, unique, order-independent serverNames and says when it renames', () => {
    const names = ['my server', 'my_server', 'my.server', 'a__b', 'trailing_', 'x'.repeat(40), 'ünïcode', '!!!'];
    const text = (list: string[]) => `{"servers": {${list.map((n) => `${JSON.stringify(n)}: {"command": "x"}`).join(',')}}}`;
    const a = analyze(text(names));
    const b = analyze(text([...names].reverse()));
    const mapA = Object.fromEntries(a.servers.map((s) => [s.name, s.serverName]));
    const mapB = Object.fromEntries(b.servers.map((s) => [s.name, s.serverName]));
    assert.deepEqual(mapA, mapB);
    assert.equal(mapA.my_server, 'my_server');
    assert.match(mapA['my server'], /^my_server-[0-9a-f]{6}$/);
    assert.notEqual(mapA['my server'], mapA['my.server']);
    assert.equal(mapA.a__b, 'a_b');
    assert.equal(mapA.trailing_, 'trailing');
    for (const name of Object.values(mapA)) {
      assert.match(name, /^[A-Za-z0-9_-]{1,32}$/);
      assert.ok(!name.includes('__') && !name.endsWith('_'), name);
    }
    assert.equal(new Set(Object.values(mapA)).size, names.length);
    const renamed = a.problems.filter((p) => p.code === 'server-renamed').map((p) => p.server);
    assert.deepEqual(renamed.sort(), names.filter((n) => n !== 'my_server').sort());
  });

  it('handles Windows paths and docker, npx and uvx launchers', () => {
    const text = String.raw`{"servers": {
      "win": {"command": "C:\\Program Files\\nodejs\\npx.cmd", "args": ["-y", "@scope/pkg"], "cwd": "C:\\work\\app"},
      "dock": {"command": "docker", "args": ["run", "-i", "--rm", "-e", "TOKEN", "ghcr.io/github/github-mcp-server"]},
      "dock2": {"command": "docker", "args": ["run", "-i", "ghcr.io/x/y:1.2.0"]},
      "uv": {"command": "uvx", "args": ["mcp-server-fetch"]},
      "uv2": {"command": "uvx", "args": ["mcp-server-fetch==2025.4.7"]},
      "latest": {"command": "npx", "args": ["-y", "pkg@latest"]}
    }}`;
    const a = analyze(text, { folder: 'C:\\work\\app' });
    const unpinned = a.problems.filter((p) => p.code === 'unpinned-package');
    assert.deepEqual(unpinned.map((p) => p.server), ['win', 'dock', 'uv', 'latest']);
    assert.deepEqual(unpinned.map((p) => covered(text, p.range)), ['"@scope/pkg"', '"ghcr.io/github/github-mcp-server"', '"mcp-server-fetch"', '"pkg@latest"']);
    assert.ok(unpinned.every((p) => p.severity === 'info'));
    assert.equal(a.servers.length, 6);
  });
});

describe('analyze: security lint', () => {
  const lint = (text: string) => analyze(text).problems.filter((p) => p.severity !== 'info');

  it('flags credential-shaped literals by name words, not substrings', () => {
    const text = `{"servers": {"s": {"command": "node", "env": {
      "API_KEY": "abc123", "MONKEY": "banana", "TOKENIZERS_PARALLELISM": "false", "githubToken": "x1",
      "OPENAI": "sk-proj-abcdefghijklmnopqrstuvwxyz", "PLAIN": "hello"}}}}`;
    const flagged = lint(text).filter((p) => p.code === 'literal-secret').map((p) => covered(text, p.range));
    assert.deepEqual(flagged, ['"abc123"', '"x1"', '"sk-proj-abcdefghijklmnopqrstuvwxyz"']);
    assert.ok(!JSON.stringify(analyze(text).problems).includes('abc123'), 'never quotes the value');
  });

  it('flags literal credentials in headers, args and URLs; accepts references', () => {
    const text = `{"inputs": [{"type": "promptString", "id": "k", "description": "key", "password": true}], "servers": {
      "h": {"url": "https://x.dev/mcp", "headers": {"Authorization": "Bearer abc", "X-Api-Key": "\${input:k}"}},
      "g": {"url": "https://x.dev/mcp", "headers": {"Authorization": "Bearer \${input:k}"}},
      "q": {"url": "https://x.dev/mcp?api_key=abc&x=1"},
      "a": {"command": "srv", "args": ["--token", "abc", "--api-key=def", "--verbose", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"]}
    }}`;
    const flagged = lint(text).filter((p) => p.code === 'literal-secret').map((p) => `${p.server}:${covered(text, p.range)}`);
    assert.deepEqual(flagged, ['h:"Bearer abc"', 'q:"https://x.dev/mcp?api_key=abc&x=1"', 'a:"abc"', 'a:"--api-key=def"', 'a:"ghp_abcdefghijklmnopqrstuvwxyz0123456789"']);
  });

  it('flags a connection string\'s password in env and args, and a credential header passed as an argument; accepts references', () => {
    const text = `{"inputs": [{"type": "promptString", "id": "pw", "description": "db password", "password": true}], "servers": {
      "db": {"command": "srv", "args": ["postgresql://app:PASSWORD@host/app", "--dsn=mysql://root:pw1@h/db", "postgresql://app:\${input:pw}@host/app", "postgresql://localhost/app"],
        "env": {"DATABASE_URL": "postgresql://app:PASSWORD@host/app", "CACHE": "redis://:r3dis@cache:6379", "REF": "mongodb+srv://u:\${env:MONGO_PW}@c.example.net/db", "PLAIN": "https://user@example.com/x"}},
      "hdr": {"command": "npx", "args": ["mcp-remote@0.1.29", "https://mcp.linear.app/mcp", "--header", "Authorization: Bearer lin_api_abc", "-H", "Accept: text/plain", "--header=X-Api-Key: k1", "--header", "Authorization: Bearer \${input:pw}"]}
    }}`;
    const flagged = lint(text).filter((p) => p.code === 'literal-secret').map((p) => `${p.server}:${covered(text, p.range)}`);
    assert.deepEqual(flagged, [
      'db:"postgresql://app:PASSWORD@host/app"', 'db:"--dsn=mysql://root:pw1@h/db"', 'db:"postgresql://app:PASSWORD@host/app"', 'db:"redis://:r3dis@cache:6379"',
      'hdr:"Authorization: Bearer lin_api_abc"', 'hdr:"--header=X-Api-Key: k1"',
    ]);
    const messages = analyze(text).problems.filter((p) => p.code === 'literal-secret').map((p) => p.message);
    assert.ok(messages.includes('env "DATABASE_URL" looks like a credential written into the file. Use an input with "password": true (${input:id}) or ${env:NAME} instead.'), messages.join('\n'));
    assert.ok(!JSON.stringify(analyze(text).problems).includes('PASSWORD'), 'never quotes the value');
  });

  it('flags a secret input in args, and a credential input without password', () => {
    const text = `{"inputs": [
        {"type": "promptString", "id": "pw", "description": "db password", "password": true},
        {"type": "promptString", "id": "api-token", "description": "token"},
        {"type": "promptString", "id": "name", "description": "your name"}],
      "servers": {"s": {"command": "srv", "args": ["--password", "\${input:pw}", "\${input:name}"], "env": {"API_TOKEN": "\${input:api-token}"}}}}`;
    const a = analyze(text);
    const inArgs = a.problems.filter((p) => p.code === 'secret-in-args');
    assert.deepEqual(inArgs.map((p) => covered(text, p.range)), ['"${input:pw}"']);
    const unmasked = a.problems.filter((p) => p.code === 'unmasked-secret-input');
    assert.deepEqual(unmasked.map((p) => covered(text, p.range)), ['"api-token"']);
    assert.equal(a.servers.length, 1, 'warnings do not reject');
  });

  it('URL rules: host decided by an input, plain http to a remote host, user info', () => {
    const inputs = '"inputs": [{"type": "promptString", "id": "host", "description": "host"}]';
    const a = analyze(`{${inputs}, "servers": {"s": {"url": "https://\${input:host}/mcp"}}}`);
    assert.deepEqual(codes(a), ['input-controls-url-host']);
    assert.deepEqual(codes(analyze(`{${inputs}, "servers": {"s": {"url": "https://x.dev/\${input:host}"}}}`)), []);
    assert.deepEqual(codes(analyze('{"servers": {"s": {"url": "http://example.com/mcp"}}}')), ['insecure-url']);
    for (const local of ['http://localhost:3000/mcp', 'http://127.0.0.1/mcp', 'http://[::1]:8/mcp']) {
      assert.deepEqual(codes(analyze(`{"servers": {"s": {"url": "${local}"}}}`)), [], local);
    }
    const creds = analyze('{"servers": {"s": {"url": "https://user:pass@x.dev/mcp"}}}');
    assert.deepEqual(creds.rejected, [{ name: 's', codes: ['url-credentials'] }]);
  });
});

/** Text that looks like mcp.json often enough to reach deep paths. */
const fragment = fc.oneof(
  fc.constantFrom('{', '}', '[', ']', ',', ':', '"servers"', '"inputs"', '"command"', '"args"', '"env"', '"url"', '"type"', '"sse"', '"http"',
    '"stdio"', '"headers"', '"${input:x}"', '"${env:A}"', '"${command:y}"', '"${workspaceFolder}"', '"id"', '"password"', 'true', 'null', '1',
    '// c\n', '/* c */', '\r\n', '"\\ud800"', '"mcpServers"', '"cwd"', '"envFile"', '"oauth"', '"sandboxEnabled"', '"a"', '"a"', '"promptString"'),
  fc.string({ maxLength: 8 }),
  fc.json(),
);

describe('analyze: any input (property)', () => {
  it('no input makes the reader or the export throw', () => {
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 60 }), (parts) => {
        const analysis = analyzeSource(Buffer.from(parts.join(''), 'utf8'), options());
        // Whatever was accepted must serialize into a declaration.
        serializeDeclaration(buildDeclarationBody(analysis, '/w'), Buffer.alloc(32));
        for (const p of analysis.problems) assert.ok(p.range.start.line >= 0 && p.range.end.character >= 0);
      }),
      { numRuns: 3000 },
    );
  });

  it('random bytes: never a throw, never a partial declaration; what is not a JSON object is unusable, its first error where jsonc-parser finds it', () => {
    const fixtures = fixtureFiles().map((f) => readFileSync(f));
    const input = fc.oneof(
      { weight: 4, arbitrary: fc.uint8Array({ maxLength: 300 }) },
      // Any JSON value: only an object (or nothing at all) is usable.
      { weight: 2, arbitrary: fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v) ?? '', 'utf8')) },
      // A real file with one byte overwritten.
      { weight: 2, arbitrary: fc.tuple(fc.nat(fixtures.length - 1), fc.nat(), fc.integer({ min: 0, max: 255 })).map(([f, at, byte]) => {
        const bytes = Buffer.from(fixtures[f]);
        bytes[at % bytes.length] = byte;
        return bytes;
      }) },
    );
    const seen = { usable: 0, unusable: 0 };
    fc.assert(fc.property(input, (bytes) => {
      const analysis = analyzeSource(bytes, options());
      const decoded = decodeText(bytes);
      const text = decoded.ok ? decoded.text : '';
      const lines = new LineIndex(text);
      const inside = ({ line, character }: Position) => {
        const start = lines.positionAt(0);
        const end = lines.positionAt(text.length);
        return line >= start.line && line <= end.line && character >= 0;
      };
      for (const p of analysis.problems) assert.ok(inside(p.range.start) && inside(p.range.end), `${p.code} at ${JSON.stringify(p.range)} is outside the text`);
      // An independent reading: jsonc-parser's, as VS Code reads the file.
      const errors: ParseError[] = [];
      const value: unknown = decoded.ok ? parse(text, errors, { allowTrailingComma: true, allowEmptyContent: true }) : undefined;
      const jsonObject = decoded.ok && errors.length === 0 && typeof value === 'object' && value !== null && !Array.isArray(value);
      const nothing = decoded.ok && errors.length === 0 && value === undefined;
      if (analysis.usable) {
        seen.usable++;
        assert.ok(jsonObject || nothing, 'usable, but neither a JSON object nor empty');
        return;
      }
      seen.unusable++;
      assert.ok(analysis.problems.some((p) => p.severity === 'error'), 'unusable without an error');
      assert.deepEqual([analysis.servers, analysis.inputs], [[], []], 'an unusable file exports nothing');
      if (jsonObject || nothing) return; // unusable for what it holds (a duplicate "servers", too many servers...)
      const first = analysis.problems.find((p) => p.code === 'invalid-json' || p.code === 'too-deep');
      assert.ok(first, 'not a JSON object, yet no JSON problem');
      if (first.code === 'too-deep') return; // refused before jsonc-parser reads it
      // Where the text goes wrong: its first syntax error, or a top-level value that is no object.
      const root = decoded.ok ? parseTree(text, [], { allowTrailingComma: true, allowEmptyContent: true }) : undefined;
      const wrong = [...errors.map((e) => e.offset), ...(root && root.type !== 'object' ? [root.offset] : [])];
      const where = lines.positionAt(decoded.ok ? Math.min(...wrong) : 0);
      assert.deepEqual(first.range.start, where, 'the first JSON problem is not where the text goes wrong');
    }), { numRuns: 3000 });
    assert.ok(seen.usable > 50 && seen.unusable > 1500, `both sides checked: ${JSON.stringify(seen)}`);
  });

  it('accepted servers are always canonicalizable (no lone surrogates get through)', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 20 }), (s) => {
      const a = analyzeSource(Buffer.from(JSON.stringify({ servers: { [s]: { command: s, args: [s] } } }), 'utf8'), options());
      for (const server of a.servers) canonicalJson(server);
    }), { numRuns: 2000 });
  });
});
