import { strict as assert } from 'node:assert';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { MAX_MESSAGE_BYTES } from '../../../../../src/core/node/probe/jsonRpcSession';
import { probeRow } from '../../../../../src/core/node/probe/probeClient';
import { secretMask } from '../../../../../src/core/tools/maskSecrets';
import { FUZZ_RUNS, fuzzSettings } from '../../../fuzz.mutate';

/** One answer shape of a hostile Streamable HTTP server (every request of a case gets it). */
interface HttpShape {
  status: number;
  type: string | undefined;
  session: boolean;
  kind: 'valid' | 'random' | 'json' | 'oversized' | 'endless' | 'events' | 'silent' | 'truncated';
  text: string;
}

const CANARY = 'canary-fuzz-0123456789abcdef';
const httpShape: fc.Arbitrary<HttpShape> = fc.record({
  status: fc.constantFrom(200, 200, 200, 202, 204, 301, 400, 404, 500),
  type: fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/event-stream', 'text/html', undefined),
  session: fc.boolean(),
  kind: fc.constantFrom('valid', 'random', 'json', 'oversized', 'endless', 'events', 'silent', 'truncated'),
  // Text the server repeats (descriptions, error pages, event data): sometimes with the secret in it.
  text: fc.oneof(fc.string({ maxLength: 200 }), fc.string({ maxLength: 50 }).map((t) => `${t}${CANARY}${t}`), fc.string({ unit: 'binary', maxLength: 300 })),
});

/** The answer a well-behaved server would give `message`, with the shape's text in it. */
function validAnswer(message: { id?: unknown; method?: string; params?: { protocolVersion?: string } }, text: string): object {
  const result = message.method === 'initialize'
    ? { protocolVersion: message.params?.protocolVersion ?? '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: text, version: '1' } }
    : { tools: [{ name: 'look', description: text, inputSchema: { type: 'object', properties: { [text]: { type: 'string', description: text } } } }] };
  return { jsonrpc: '2.0', id: message.id, result };
}

async function serveShape(shape: HttpShape, oversized: Buffer, req: IncomingMessage, res: ServerResponse): Promise<void> {
  res.on('error', () => undefined);
  let body = '';
  for await (const chunk of req) body += chunk;
  if (req.method === 'DELETE') return void res.writeHead(200).end();
  if (req.method === 'GET' && shape.kind !== 'endless' && shape.kind !== 'events') return void res.writeHead(405).end();
  let message: { id?: unknown; method?: string } = {};
  try { message = JSON.parse(body); } catch { /* a GET */ }
  if (req.method === 'POST' && message.id === undefined) return void res.writeHead(202).end();
  const sse = shape.type === 'text/event-stream';
  const headers: Record<string, string> = {
    ...(shape.type ? { 'content-type': shape.type } : {}),
    ...(shape.session ? { 'mcp-session-id': 'session-1' } : {}),
    ...(shape.status === 301 ? { location: `/moved?${encodeURIComponent(shape.text)}` } : {}),
  };
  res.writeHead(shape.status, headers);
  if (shape.status === 204) return void res.end(); // no body: Node drops what is written (write() says true)
  const answer = JSON.stringify(validAnswer(message, shape.text));
  switch (shape.kind) {
    case 'valid': return void res.end(sse ? `event: message\ndata: ${answer}\n\n` : answer);
    case 'random': return void res.end(shape.text);
    case 'json': return void res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -1, message: shape.text } }));
    case 'oversized': return void res.end(oversized);
    case 'truncated': return void res.end(answer.slice(0, answer.length >> 1));
    case 'events': return void res.end(Array.from({ length: 50 }, () => `data: ${shape.text.replace(/[\r\n]/g, ' ')}\n\n`).join(''));
    case 'silent': return void res.flushHeaders();
    case 'endless': {
      const more = () => {
        if (res.destroyed) return;
        if (res.write(oversized.subarray(0, 65536))) setImmediate(more);
        else res.once('drain', more);
      };
      res.write(sse ? 'data: ' : '{"jsonrpc":"2.0","result":"');
      return more();
    }
  }
}

describe('fuzz: the probe client against hostile HTTP servers (in process)', function () {
  this.timeout(0);
  // Each case is a real exchange that may last its timeout: fewer cases than the pure properties.
  const runs = FUZZ_RUNS ? Math.max(30, Math.floor(FUZZ_RUNS / 100)) : 30;
  const oversized = Buffer.alloc(MAX_MESSAGE_BYTES + 1, 'x');
  let shape: HttpShape;
  const server = createServer((req, res) => void serveShape(shape, oversized, req, res).catch(() => res.destroy()));
  let url = '';
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  it('never throws, never reads a message past the cap, ends by its timeout, and repeats no secret', async () => {
    const row = { serverName: 's', toolCallTimeoutMs: 60000, failOnStartupError: false, reconnect: { enabled: false, initialDelayMs: 500, maxDelayMs: 30000, maxAttempts: 1 }, transport: 'streamable-http' as const, url, headers: {} };
    await fc.assert(fc.asyncProperty(httpShape, async (s) => {
      shape = s;
      // Time to read a message past the cap from a server in this same process; others go on to the timeout quickly.
      const timeoutMs = s.kind === 'oversized' || s.kind === 'endless' ? 3000 : 300;
      const started = Date.now();
      const result = await probeRow(row, { timeoutMs, parentEnv: {}, mask: secretMask([CANARY]) });
      const elapsed = Date.now() - started;
      // The timeout, then at most the session's DELETE (2 s) and the stop.
      assert.ok(elapsed < timeoutMs + 2500, `took ${elapsed} ms`);
      // The tools are as listed (their pins are of the real definitions); every text about the server is masked.
      assert.ok(!JSON.stringify({ ...result, tools: undefined }).includes(CANARY.slice(0, 8)), JSON.stringify(result));
      if (result.ok) assert.ok(s.kind === 'valid' && s.status === 200, JSON.stringify(s));
      const json = s.type === 'text/event-stream' || s.type?.startsWith('application/json');
      if (s.status === 200 && json && (s.kind === 'oversized' || s.kind === 'endless')) {
        assert.equal(!result.ok && result.failure, 'not-mcp', JSON.stringify(result));
        assert.match(!result.ok ? result.detail : '', /more than \d+ bytes/);
      }
    }), { ...fuzzSettings(runs), numRuns: runs });
  });
});
