import { strict as assert } from 'node:assert';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { DeclaredServer } from '../../../../src/core/declaration/declarationModel';
import { check02Rules, toMcpClientConfig } from '../../../../src/core/mcp/dshRow';
import { analyze } from '../../helpers';

// DSH's own dsh-mcp-client@0.1.0-rc.8, installed test-only by scripts/setup-oracles.sh.
const ORACLE = path.resolve(__dirname, '../../../oracle/mcp/node_modules/@deepseek-ai/dsh-mcp-client/lib/index.js');

/** Files shaped like real ones: every transport, inputs, env references, Windows paths, renamed servers. */
const SOURCES = [
  `{
    "inputs": [{"type": "promptString", "id": "gh", "description": "GitHub token", "password": true},
               {"type": "pickString", "id": "region", "description": "Region", "options": ["eu", "us"]}],
    "servers": {
      "github": {"command": "docker", "args": ["run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server:v0.9.0"],
                 "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "\${input:gh}"}},
      "my fs server": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem@2025.1.1", "\${workspaceFolder}"]},
      "py": {"type": "stdio", "command": "uvx", "args": ["mcp-server-fetch==2025.4.7"], "env": {"PORT": 8080, "REGION": "\${input:region}", "PATH": "\${env:PATH}"}, "cwd": "tools"},
      "remote": {"type": "http", "url": "https://api.example.com/mcp", "headers": {"Authorization": "Bearer \${input:gh}"}},
      "untyped": {"url": "https://\${input:region}.example.com/mcp"},
      "local": {"url": "http://localhost:3000/mcp"},
      "win": {"command": "C:\\\\tools\\\\server.exe", "cwd": "C:\\\\tools", "envFile": ".env"}
    }
  }`,
];

const SAMPLE = { input: (id: string) => `sample-${id}`, env: (name: string) => `/sample/${name}` };

function rows(): Array<{ server: DeclaredServer; config: Record<string, unknown> }> {
  const out = [];
  for (const source of SOURCES) {
    const a = analyze(source);
    assert.deepEqual(a.rejected, []);
    for (const server of a.servers) {
      const r = toMcpClientConfig(server, SAMPLE);
      assert.ok('config' in r);
      out.push({ server, config: r.config as unknown as Record<string, unknown> });
    }
  }
  return out;
}

describe('conformance: exported rows against DSH', () => {
  it('every exported row passes the 0.2 load-time rules', () => {
    const all = rows();
    assert.equal(all.length, 7);
    for (const { server, config } of all) assert.deepEqual(check02Rules(config), [], server.name);
  });

  it('the 0.2 rules refuse what rc.8 lets through', () => {
    const base = { transport: 'stdio', serverName: 's', command: 'x' };
    assert.deepEqual(check02Rules({ ...base, command: ' ' }), ['command']);
    assert.deepEqual(check02Rules({ ...base, toolCallTimeoutMs: -1 }), ['toolCallTimeoutMs']);
    assert.deepEqual(check02Rules({ transport: 'streamable-http', serverName: 's', url: 'nope' }), ['url']);
    assert.deepEqual(check02Rules({ ...base, reconnect: { enabled: true, initialDelayMs: 900, maxDelayMs: 500, maxAttempts: 1 } }), ['reconnect.order']);
    assert.deepEqual(check02Rules({ ...base, reconnect: { enabled: true, initialDelayMs: 1, maxDelayMs: 5, maxAttempts: 1, jitter: 1 } }), ['reconnect.keys']);
    assert.deepEqual(check02Rules({ ...base, serverName: 'a b' }), ['serverName']);
  });

  it('a missing input value refuses the row instead of rendering a blank', () => {
    const [{ server }] = rows();
    assert.deepEqual(toMcpClientConfig(server, { input: () => undefined, env: () => '' }), { missing: { kind: 'input', name: 'gh', where: 'the env variable GITHUB_PERSONAL_ACCESS_TOKEN' } });
  });

  describe('the real @deepseek-ai/dsh-mcp-client@0.1.0-rc.8 Config()', function () {
    let Config: (value: unknown) => Record<string, unknown>;
    before(async function () {
      if (!existsSync(ORACLE)) {
        console.log(`      (skipped: oracle not installed; run scripts/setup-oracles.sh)`);
        this.skip();
      }
      Config = (await import(pathToFileURL(ORACLE).href)).Config;
    });

    it('accepts every exported row and keeps every field as written', () => {
      for (const { server, config } of rows()) {
        const normalized = Config(config);
        assert.deepEqual(normalized, config, server.name);
      }
    });

    it('accepts a row with a toolPolicy (written for DSH 0.2) and keeps it as written', () => {
      const [{ server }] = rows();
      for (const choice of [{ exclude: ['delete_repo'] }, { only: ['read', 'list'], exclude: ['list'] }]) {
        const r = toMcpClientConfig({ ...server, tools: { choice } }, SAMPLE);
        assert.ok('config' in r && r.config.toolPolicy);
        assert.deepEqual(Config(r.config), r.config);
      }
    });

    it('refuses what the bridge refuses (the oracle is not a rubber stamp)', () => {
      assert.throws(() => Config({ transport: 'sse', serverName: 's', url: 'https://x.dev' }));
      assert.throws(() => Config({ transport: 'stdio', serverName: 's', command: 'x', args: [1] }));
      assert.throws(() => Config({ transport: 'streamable-http', serverName: 's', headers: { a: 'b' } }));
    });
  });
});
