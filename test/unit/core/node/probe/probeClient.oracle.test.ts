// The probe's own MCP client against the MCP SDK's Client (what DSH's dsh-mcp-client runs) on
// the same real servers: the same tools, counts and server info, and the same refusals.
import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListPromptsResultSchema, ListResourcesResultSchema, ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { probeRow, type RowProbe } from '../../../../../src/core/node/probe/probeClient';
import type { McpClientConfig } from '../../../../../src/core/mcp/dshRow';

const FIXTURE = path.resolve(__dirname, '../../../../fixtures/mcp-servers/tool-fixture.mjs');
const SCRIPTED = path.resolve(__dirname, '../../../../fixtures/mcp-servers/scripted-server.mjs');
const EVERYTHING = path.resolve(__dirname, '../../../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const NODE = process.execPath;
const common = { serverName: 's', toolCallTimeoutMs: 60000, failOnStartupError: false, reconnect: { enabled: true, initialDelayMs: 500, maxDelayMs: 30000, maxAttempts: 10 } };
const stdio = (args: string[], extra: Partial<McpClientConfig> = {}): McpClientConfig => ({ ...common, transport: 'stdio', command: NODE, args, env: {}, cwd: '', ...extra } as McpClientConfig);
const http = (url: string): McpClientConfig => ({ ...common, transport: 'streamable-http', url, headers: {} });
const probe = (row: McpClientConfig, timeoutMs = 20000, onSpawn?: (pid: number) => void) => probeRow(row, { timeoutMs, parentEnv: process.env, onSpawn });

interface Listing { tools: unknown[]; promptCount: number; resourceCount: number; server: { name: string; version: string } }

/** What the SDK's Client lists, the way dsh-mcp-client does (uncached tools/list, every page). */
async function sdkListing(row: McpClientConfig): Promise<Listing> {
  const client = new Client({ name: 'oracle', version: '0.0.0' }, { capabilities: {} });
  const transport = row.transport === 'stdio'
    ? new StdioClientTransport({ command: row.command, args: row.args, env: row.env, stderr: 'pipe' })
    : new StreamableHTTPClientTransport(new URL(row.url));
  await client.connect(transport);
  try {
    const all = async <T>(method: string, schema: Parameters<Client['request']>[1], key: string): Promise<T[]> => {
      const items: T[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.request({ method, ...(cursor === undefined ? {} : { params: { cursor } }) }, schema) as Record<string, unknown>;
        items.push(...page[key] as T[]);
        cursor = page.nextCursor as string | undefined;
      } while (cursor !== undefined);
      return items;
    };
    const caps = client.getServerCapabilities() ?? {};
    type Listed = { name: string; description?: string; inputSchema: unknown; title?: string; icons?: unknown; outputSchema?: unknown; annotations?: unknown };
    // What DSH sends the model, and beside it what the probe keeps for the scan (title, icons, outputSchema, annotations), as the SDK read them.
    const tools = (await all<Listed>('tools/list', ListToolsResultSchema, 'tools'))
      .map((t) => ({
        name: t.name, description: t.description ?? '', inputSchema: t.inputSchema,
        ...(t.title !== undefined ? { title: t.title } : {}), ...(t.icons !== undefined ? { icons: t.icons } : {}),
        ...(t.outputSchema !== undefined ? { outputSchema: t.outputSchema } : {}), ...(t.annotations !== undefined ? { annotations: t.annotations } : {}),
      }));
    const promptCount = caps.prompts ? (await all('prompts/list', ListPromptsResultSchema, 'prompts')).length : 0;
    const resourceCount = caps.resources ? (await all('resources/list', ListResourcesResultSchema, 'resources')).length : 0;
    const v = client.getServerVersion()!;
    return { tools, promptCount, resourceCount, server: { name: v.name, version: v.version } };
  } finally {
    await client.close();
  }
}

function listingOf(result: RowProbe): Listing {
  assert.ok(result.ok, `probe failed: ${!result.ok && `${result.failure}: ${result.detail}; stderr ${result.stderr}`}`);
  return { tools: result.tools, promptCount: result.promptCount!, resourceCount: result.resourceCount!, server: result.server! };
}

async function freePort(): Promise<number> {
  const s = createNetServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

/** Starts an HTTP server process and waits for `pattern` (its URL or port) on the given stream. */
function startHttpServer(args: string[], pattern: RegExp, env: NodeJS.ProcessEnv = process.env): Promise<{ child: ChildProcess; match: RegExpExecArray; log: () => string }> {
  const child = spawn(NODE, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  let out = '';
  return new Promise((resolve, reject) => {
    const look = (d: Buffer) => {
      out += d.toString();
      const m = pattern.exec(out);
      if (m) resolve({ child, match: m, log: () => out });
    };
    child.stdout!.on('data', look);
    child.stderr!.on('data', look);
    child.on('exit', () => reject(new Error(`server exited: ${out}`)));
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('probe client: the same listing as the MCP SDK\'s Client (the client DSH runs) on real servers', function () {
  this.timeout(60000);
  const children: ChildProcess[] = [];
  after(() => { for (const c of children) c.kill(); });

  it('the SDK fixture server over stdio', async () => {
    const row = stdio([FIXTURE]);
    const mine = listingOf(await probe(row));
    assert.deepEqual(mine, await sdkListing(row));
    assert.equal(mine.tools.length, 3);
  });

  it('@modelcontextprotocol/server-everything over stdio', async () => {
    const row = stdio([EVERYTHING, 'stdio']);
    const mine = listingOf(await probe(row));
    assert.deepEqual(mine, await sdkListing(row));
    assert.ok(mine.tools.length >= 5 && mine.promptCount > 0 && mine.resourceCount > 0, JSON.stringify({ ...mine, tools: mine.tools.length }));
  });

  it('the SDK fixture server over Streamable HTTP', async () => {
    const { child, match } = await startHttpServer([FIXTURE, '--http'], /listening (\S+)/);
    children.push(child);
    const row = http(match[1]);
    assert.deepEqual(listingOf(await probe(row)), await sdkListing(row));
  });

  it('@modelcontextprotocol/server-everything over Streamable HTTP (SSE answers, sessions)', async () => {
    const port = await freePort();
    const { child } = await startHttpServer([EVERYTHING, 'streamableHttp'], /listening on port/, { ...process.env, PORT: String(port) });
    children.push(child);
    const row = http(`http://127.0.0.1:${port}/mcp`);
    const mine = listingOf(await probe(row));
    assert.deepEqual(mine, await sdkListing(row));
    assert.ok(mine.tools.length >= 5 && mine.resourceCount > 0);
  });

  it('a listing the SDK refuses (inputSchema of type "string") is refused too: not-mcp, saying where', async () => {
    const row = stdio([SCRIPTED, '--bad-tool']);
    await assert.rejects(sdkListing(row));
    const result = await probe(row);
    assert.equal(result.ok, false);
    assert.equal(!result.ok && result.failure, 'not-mcp');
    assert.match(!result.ok ? result.detail : '', /tools\/list answer is not valid MCP \(tools\.1\.inputSchema\.type/);
  });

  it('a batch answer with a non-message in it is refused whole, as the SDK refuses it', async () => {
    const { child, match } = await startHttpServer([SCRIPTED, '--http', '--batch-junk'], /listening (\S+)/);
    children.push(child);
    const row = http(match[1]);
    await assert.rejects(sdkListing(row));
    const result = await probe(row, 10000);
    assert.equal(!result.ok && result.failure, 'not-mcp');
  });

  it('a tool list that never ends is not-mcp, not a partial list', async () => {
    const result = await probe(stdio([SCRIPTED, '--endless-pages']), 20000);
    assert.equal(!result.ok && result.failure, 'not-mcp');
    assert.match(!result.ok ? result.detail : '', /still had more pages after 100/);
  });

  it('protocol version: an older supported answer is accepted and sent back as MCP-Protocol-Version; an unsupported one is refused as the SDK refuses it', async () => {
    const { child, match, log } = await startHttpServer([SCRIPTED, '--http', '--version', '2024-11-05'], /listening (\S+)/);
    children.push(child);
    const row = http(match[1]);
    const mine = listingOf(await probe(row));
    assert.deepEqual(mine, await sdkListing(row));
    const requests = log().split('\n').filter((l) => l.startsWith('{"http"')).map((l) => JSON.parse(l) as Record<string, string | undefined>);
    const ours = requests.slice(0, requests.findIndex((r) => r.http === 'DELETE') + 1);
    const session = `session-${child.pid}`;
    // initialize (no session, no version yet), initialized, tools/list, prompts/list, then the session deleted.
    assert.deepEqual(ours.filter((r) => r.http !== 'GET').map((r) => [r.http, r.session, r.protocol]), [
      ['POST', undefined, undefined],
      ['POST', session, '2024-11-05'],
      ['POST', session, '2024-11-05'],
      ['POST', session, '2024-11-05'],
      ['DELETE', session, '2024-11-05'],
    ]);
    // The optional server stream, opened after initialized (this server answers 405, as allowed).
    for (const r of ours.filter((x) => x.http === 'GET')) assert.deepEqual([r.accept, r.session], ['text/event-stream', session]);
    for (const r of ours.filter((x) => x.http === 'POST')) {
      assert.equal(r.accept, 'application/json, text/event-stream');
      assert.equal(r.contentType, 'application/json');
    }

    const refused = stdio([SCRIPTED, '--version', '1999-01-01']);
    await assert.rejects(sdkListing(refused), /protocol version is not supported/);
    const result = await probe(refused);
    assert.equal(!result.ok && result.failure, 'not-mcp');
    assert.match(!result.ok ? result.detail : '', /protocol version "1999-01-01"/);
  });

  it('sends what the SDK\'s client sends: the same initialize request and initialized notification', async () => {
    const received = async (result: RowProbe | string) => (typeof result === 'string' ? result : result.stderr)
      .split('\n').filter((l) => l.startsWith('{"received"')).map((l) => (JSON.parse(l) as { received: Record<string, unknown> }).received);
    const mine = await received(await probe(stdio([SCRIPTED])));
    let theirs = '';
    const client = new Client({ name: 'dsh-bridge-probe', version: '0.1.0' }, { capabilities: {} });
    const transport = new StdioClientTransport({ command: NODE, args: [SCRIPTED], stderr: 'pipe' });
    transport.stderr!.on('data', (d: Buffer) => { theirs += d.toString(); });
    await client.connect(transport);
    await client.request({ method: 'tools/list' }, ListToolsResultSchema);
    await client.close();
    assert.deepEqual(mine.slice(0, 3), await received(theirs));
  });

  it('answers the server\'s own requests as the SDK client with no capabilities does (ping: {}; the others: method not found), then lists', async () => {
    const result = await probe(stdio([SCRIPTED, '--ask-first']), 10000);
    const answers = result.stderr.split('\n').filter((l) => l.startsWith('{"answered"')).map((l) => JSON.parse(l));
    assert.deepEqual(answers.sort((a, b) => a.answered.localeCompare(b.answered)), [
      { answered: 'elicitation/create', with: { error: { code: -32601, message: 'Method not found' } } },
      { answered: 'ping', with: {} },
      { answered: 'roots/list', with: { error: { code: -32601, message: 'Method not found' } } },
      { answered: 'sampling/createMessage', with: { error: { code: -32601, message: 'Method not found' } } },
    ]);
    assert.equal(listingOf(result).tools.length, 1);
  });
});

describe('probe client: failures are outcomes, and the server is always stopped', function () {
  this.timeout(60000);

  it('garbage on stdout: not-mcp', async () => {
    const result = await probe(stdio([FIXTURE, '--garbage']), 3000);
    assert.equal(!result.ok && result.failure, 'not-mcp');
    assert.match(!result.ok ? result.detail : '', /not MCP/);
  });

  it('a server that never answers: timed-out, and its process is gone when the probe returns', async () => {
    let pid = 0;
    const result = await probe(stdio([FIXTURE, '--hang']), 1500, (p) => { pid = p; });
    assert.equal(!result.ok && result.failure, 'timed-out');
    assert.ok(pid > 0);
    assert.equal(alive(pid), false, `process ${pid} still runs`);
  });

  it('a command that does not exist: did-not-start (ENOENT)', async () => {
    const result = await probe(stdio([], { command: 'definitely-not-a-command-dsh-bridge' } as Partial<McpClientConfig>));
    assert.equal(!result.ok && result.failure, 'did-not-start');
    assert.match(!result.ok ? result.detail : '', /ENOENT/);
  });

  it('an exit before answering: did-not-start with the exit code and the stderr', async () => {
    const result = await probe(stdio([FIXTURE, '--exit-early']));
    assert.equal(!result.ok && result.failure, 'did-not-start');
    assert.match(!result.ok ? result.detail : '', /exit code 3/);
    assert.match(result.stderr, /cannot start: missing configuration/);
  });

  describe('HTTP that is not MCP', () => {
    let page: Server;
    let base = '';
    before(async () => {
      page = createServer((req, res) => {
        if (req.url === '/html') res.writeHead(200, { 'content-type': 'text/html' }).end('<html>hello</html>');
        else res.writeHead(404, { 'content-type': 'text/html' }).end('<html>Not Found</html>');
      });
      await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
    });
    after(() => page.close());

    it('a 404 page and an HTML page: not-mcp; a closed port: did-not-start', async () => {
      for (const url of [`${base}/mcp`, `${base}/html`]) {
        const result = await probe(http(url), 5000);
        assert.equal(!result.ok && result.failure, 'not-mcp', url);
        assert.match(!result.ok ? result.detail : '', /did not answer as a Streamable HTTP MCP server/);
      }
      const closed = await probe(http('http://127.0.0.1:9/mcp'), 5000);
      assert.equal(!closed.ok && closed.failure, 'did-not-start');
    });

    it('a password written into the URL is in no failure text (fetch repeats the whole URL)', async () => {
      const result = await probe(http(`${base.replace('http://', 'http://user:s3cret-pw@')}/mcp`), 5000);
      assert.equal(result.ok, false);
      assert.doesNotMatch(JSON.stringify(result), /s3cret-pw/);
    });
  });
});
