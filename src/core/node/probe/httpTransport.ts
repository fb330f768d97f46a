/** The Streamable HTTP transport of the probe (SSE answers and the server's GET stream included): the MCP SDK's StreamableHTTPClientTransport. */
import { createParser } from 'eventsource-parser';
import type { McpClientConfig } from '../../mcp/dshRow';
import { JsonRpcMessageSchema, type JsonRpcMessage } from '../../mcp/mcpProtocol';
import { MAX_MESSAGE_BYTES, type Connection, type JsonRpcSession } from './jsonRpcSession';
import { describe, issues, notJson, ProbeFailure } from './probeFailure';

/** Of an HTTP error answer, only the start is read (its first line is shown). */
const MAX_ERROR_TEXT_BYTES = 4096;
/** The media type of a Content-Type header, lowercased, without parameters. */
function mediaType(header: string | null): string | undefined {
  return header ? header.split(';', 1)[0].trim().toLowerCase() : undefined;
}

const REDIRECTS = [301, 302, 303, 307, 308];

/**
 * A body read to its end or to `limit` bytes, whichever comes first; at the limit the stream is
 * cancelled (the connection closed) and `whole` is false. An abort of the fetch rejects.
 */
async function readBody(body: ReadableStream<Uint8Array> | null, limit: number): Promise<{ text: string; whole: boolean }> {
  if (!body) return { text: '', whole: true };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let whole = true;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.length > limit) {
      chunks.push(value.subarray(0, limit - size));
      size = limit;
      whole = false;
      reader.cancel().catch(() => undefined);
      break;
    }
    chunks.push(value);
    size += value.length;
  }
  // TextDecoder as Response.text() decodes (a byte order mark dropped).
  return { text: new TextDecoder().decode(Buffer.concat(chunks, size)), whole };
}

/**
 * The SDK's StreamableHTTPClientTransport: POSTs with `Accept: application/json,
 * text/event-stream`, JSON or SSE answers, `Mcp-Session-Id` and `MCP-Protocol-Version` once
 * known, the row's headers over them, redirects followed only within the origin, the optional
 * GET stream after `notifications/initialized`, and the session deleted at the end.
 */
export function startHttp(row: Extract<McpClientConfig, { transport: 'streamable-http' }>, rpc: JsonRpcSession, setVersion: (set: (version: string) => void) => void): Connection {
  const { mask } = rpc;
  const url = new URL(row.url);
  const abort = new AbortController();
  let sessionId: string | undefined;
  let protocolVersion: string | undefined;
  setVersion((version) => { protocolVersion = version; });

  const headers = (extra: Record<string, string>): Headers => {
    const h = new Headers({
      ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
      ...(protocolVersion ? { 'mcp-protocol-version': protocolVersion } : {}),
      ...row.headers,
    });
    for (const [k, v] of Object.entries(extra)) h.set(k, v);
    return h;
  };

  /** fetch with redirects followed while they stay in the URL's origin (at most 5). */
  const fetchInOrigin = async (init: RequestInit): Promise<Response> => {
    let target = url;
    for (let hops = 0; ; hops++) {
      const response = await fetch(target, { ...init, redirect: 'manual', signal: init.signal ?? abort.signal });
      const location = REDIRECTS.includes(response.status) ? response.headers.get('location') : null;
      let next: URL | undefined;
      try { next = location ? new URL(location, target) : undefined; } catch { next = undefined; }
      const keepsMethod = response.status === 307 || response.status === 308 || init.method === 'GET';
      const sameOrigin = next && (next.origin === target.origin
        || (next.hostname === target.hostname && target.protocol === 'http:' && target.port === '' && next.protocol === 'https:' && next.port === ''));
      const addsUser = next && (next.username || next.password) && (next.username !== target.username || next.password !== target.password);
      if (!next || hops === 5 || !keepsMethod || !sameOrigin || addsUser) return response;
      await response.body?.cancel();
      target = next;
    }
  };

  /** `masked`: the server's text, already masked (it is cut here). */
  const httpError = (status: number, masked: string) => new ProbeFailure('not-mcp', `the URL did not answer as a Streamable HTTP MCP server (Streamable HTTP error: ${status} ${masked.split('\n')[0].slice(0, 200)})`);

  /** An SSE stream, each event at most MAX_MESSAGE_BYTES (past it the stream is cancelled: not MCP). */
  const readEvents = async (body: ReadableStream<Uint8Array> | null): Promise<void> => {
    if (!body) return;
    let sinceEvent = 0;
    const parser = createParser({
      onEvent: (event) => {
        sinceEvent = 0;
        if (event.data && (!event.event || event.event === 'message')) rpc.receive(event.data);
      },
    });
    const decoder = new TextDecoder();
    const reader = body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        sinceEvent += value.length;
        if (sinceEvent > MAX_MESSAGE_BYTES) {
          reader.cancel().catch(() => undefined);
          rpc.overflow('an event');
          return;
        }
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } catch {
      // the stream was cut (the probe's own stop, or the server): an open request then times out
    }
  };

  rpc.send = async (message) => {
    const init: RequestInit = {
      method: 'POST',
      headers: headers({ 'content-type': 'application/json', accept: 'application/json, text/event-stream' }),
      body: JSON.stringify(message),
    };
    let response: Response;
    try {
      response = await fetchInOrigin(init);
    } catch (error) {
      throw new ProbeFailure('did-not-start', `could not connect (${describe(error)})`);
    }
    sessionId = response.headers.get('mcp-session-id') ?? sessionId;
    if (!response.ok) {
      let text: string;
      if (REDIRECTS.includes(response.status)) {
        text = `redirect to ${mask.text(response.headers.get('location') ?? 'null')} not followed`;
      } else {
        const body = await readBody(response.body, MAX_ERROR_TEXT_BYTES).catch(() => ({ text: '', whole: true }));
        text = body.whole ? mask.text(body.text) : mask.head(body.text);
      }
      throw httpError(response.status, text || mask.text(response.statusText));
    }
    if (response.status === 202) {
      await response.body?.cancel();
      if ((message as { method?: string }).method === 'notifications/initialized') void openGetStream();
      return;
    }
    if (!('method' in message && 'id' in message)) {
      await response.body?.cancel();
      return;
    }
    const type = mediaType(response.headers.get('content-type'));
    if (type === 'text/event-stream') {
      void readEvents(response.body);
    } else if (type === 'application/json') {
      const { text, whole } = await readBody(response.body, MAX_MESSAGE_BYTES);
      if (!whole) return rpc.overflow('an answer');
      let data: unknown;
      try {
        data = JSON.parse(text);
      } catch {
        throw new ProbeFailure('not-mcp', `it answered with something that is not MCP (${notJson(text, mask)})`);
      }
      // Every message of a batch is checked before any is delivered, as the SDK's transport does.
      const messages: JsonRpcMessage[] = [];
      for (const item of Array.isArray(data) ? data : [data]) {
        const parsed = JsonRpcMessageSchema.safeParse(item);
        if (!parsed.success) throw new ProbeFailure('not-mcp', `it answered with something that is not MCP (not a JSON-RPC message: ${issues(parsed.error, mask)})`);
        messages.push(parsed.data);
      }
      for (const message of messages) rpc.dispatch(message);
    } else {
      await response.body?.cancel();
      throw httpError(-1, `Unexpected content type: ${mask.text(response.headers.get('content-type') ?? 'null')}`);
    }
  };

  // The server's own stream for requests and notifications outside an answer (405: it has none).
  const openGetStream = async (): Promise<void> => {
    try {
      const response = await fetchInOrigin({ method: 'GET', headers: headers({ accept: 'text/event-stream' }) });
      if (response.ok) await readEvents(response.body);
      else await response.body?.cancel();
    } catch {
      // optional in the protocol: the answers come on the POSTs
    }
  };

  return {
    async stop() {
      if (sessionId) {
        try {
          const response = await fetchInOrigin({ method: 'DELETE', headers: headers({}), signal: AbortSignal.any([abort.signal, AbortSignal.timeout(2000)]) });
          await response.body?.cancel();
        } catch {
          // a server that cannot end its session ends it by itself
        }
      }
      abort.abort();
      return [];
    },
  };
}
