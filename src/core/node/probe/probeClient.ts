/**
 * Starts one MCP server from its DSH row, lists what it offers, and stops it. Never throws:
 * every failure is an outcome.
 *
 * The probe speaks the few MCP calls it needs itself (initialize, tools/list, prompts/list,
 * resources/list) rather than loading the MCP SDK's client, which would be a quarter of the
 * extension's size budget. What goes over the wire is what DSH's client (the SDK's `Client` with
 * its stdio and Streamable HTTP transports, see `@deepseek-ai/dsh-mcp-client`) sends, and what
 * comes back is checked as strictly (core/mcp/mcpProtocol.ts); the unit tier compares the two
 * clients on the same servers.
 */
import type { ChildProcess } from 'node:child_process';
import spawn from 'cross-spawn';
import { createParser } from 'eventsource-parser';
import type * as z from 'zod/mini';
import type { McpClientConfig } from '../../mcp/dshRow';
import { dshServerEnv, type DshEnvRule } from '../../mcp/dshEnv';
import {
  InitializeResultSchema, JsonRpcMessageSchema, LATEST_PROTOCOL_VERSION, ListPromptsResultSchema, ListResourcesResultSchema,
  ListToolsResultSchema, METHOD_NOT_FOUND, SUPPORTED_PROTOCOL_VERSIONS, type JsonRpcMessage,
} from '../../mcp/mcpProtocol';
import type { ToolDefinition } from '../../tools/toolDefinitions';

export type RowProbeFailure = 'did-not-start' | 'timed-out' | 'not-mcp';

export type RowProbe =
  | { ok: true; startMs: number; tools: ToolDefinition[]; promptCount?: number; resourceCount?: number; server?: { name: string; version: string }; stderr: string }
  | { ok: false; failure: RowProbeFailure; detail: string; elapsedMs: number; stderr: string };

export interface RowProbeOptions {
  /** Whole budget: start, initialize and the lists (the server is stopped when it runs out). */
  timeoutMs: number;
  /** The environment DSH runs in: the stdio child inherits it scrubbed by `envRule`. */
  parentEnv: Readonly<Record<string, string | undefined>>;
  envRule?: DshEnvRule;
  /** Bytes of stderr kept (the start of it). */
  maxStderrBytes?: number;
  /** Told the stdio server's process id once it runs (tests check that it is stopped). */
  onSpawn?: (pid: number) => void;
}

const CLIENT_INFO = { name: 'dsh-bridge-probe', version: '0.1.0' };
const MAX_PAGES = 100;
/** The SDK's limit on one stdio line. */
const MAX_LINE_BYTES = 10 * 1024 * 1024;

/** Why a probe stopped early: becomes the outcome as it is. */
class ProbeFailure extends Error {
  constructor(readonly failure: RowProbeFailure, detail: string) {
    super(detail);
  }
}

/** A URL's user and password (fetch repeats the whole URL in its errors): never in a failure text. */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]*@/gi;

function describe(error: unknown): string {
  const e = error as NodeJS.ErrnoException & { cause?: { code?: string; message?: string } };
  const code = e?.code ?? e?.cause?.code;
  const message = String(e?.message ?? error).split('\n')[0].replace(URL_USERINFO, '$1***@').slice(0, 300);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

function issues(error: z.core.$ZodError): string {
  const first = error.issues[0];
  return first ? `${first.path.join('.') || 'the message'}: ${first.message}` : 'invalid';
}

/** A JSON-RPC message from text, or why it is not one (as the SDK's transports parse). */
function parseMessage(text: string): JsonRpcMessage | { garbage: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { garbage: describe(error) };
  }
  const parsed = JsonRpcMessageSchema.safeParse(value);
  return parsed.success ? parsed.data : { garbage: `not a JSON-RPC message (${issues(parsed.error)})` };
}

/** The JSON-RPC side both transports share: ids from 0, answers to the server's own requests. */
class Rpc {
  private nextId = 0;
  private readonly pending = new Map<number | string, { resolve: (result: unknown) => void; reject: (error: Error) => void }>();
  /** The first thing received that is not an MCP message (the server may still answer: DSH's client reads on). */
  garbage?: string;
  send: (message: object) => Promise<void> = async () => undefined;

  request(method: string, params?: object): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.send({ method, ...(params ? { params } : {}), jsonrpc: '2.0', id }).catch((error: unknown) => {
        this.pending.delete(id);
        reject(error instanceof Error ? error : new Error(String(error)));
      });
    });
  }

  notify(method: string): Promise<void> {
    return this.send({ method, jsonrpc: '2.0' });
  }

  receive(text: string): void {
    const message = parseMessage(text);
    if ('garbage' in message) this.garbage ??= message.garbage;
    else this.dispatch(message);
  }

  dispatch(message: JsonRpcMessage): void {
    if ('method' in message) {
      // With no capabilities, the SDK's client answers ping and nothing else; notifications are dropped.
      if (!('id' in message)) return;
      const answer = message.method === 'ping'
        ? { result: {}, jsonrpc: '2.0', id: message.id }
        : { jsonrpc: '2.0', id: message.id, error: { code: METHOD_NOT_FOUND, message: 'Method not found' } };
      this.send(answer).catch(() => undefined);
      return;
    }
    const waiting = message.id === undefined ? undefined : this.pending.get(message.id);
    if (!waiting) return;
    this.pending.delete(message.id!);
    if ('result' in message) waiting.resolve(message.result);
    else waiting.reject(new ProbeFailure('not-mcp', `it answered with an error (MCP error ${message.error.code}: ${message.error.message})`));
  }

  /** Every open request fails with `error` (the connection is gone). */
  fail(error: Error): void {
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }
}

interface Connection {
  stop(): Promise<void>;
}

/** The SDK's StdioClientTransport: its spawn, its inherited environment, its framing, its stop sequence. */
function startStdio(row: Extract<McpClientConfig, { transport: 'stdio' }>, rpc: Rpc, options: RowProbeOptions, onStderr: (text: string) => void): Promise<Connection> {
  const env = { ...sdkDefaultEnvironment(), ...dshServerEnv(options.parentEnv, row.env, options.envRule) };
  return new Promise((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawn(row.command, row.args, {
        env,
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
        windowsHide: process.platform === 'win32',
        // '' = DSH's own cwd (contract section 1); the probe's process stands in for it.
        cwd: row.cwd === '' ? undefined : row.cwd,
      });
    } catch (error) {
      reject(new ProbeFailure('did-not-start', `could not be started (${describe(error)})`));
      return;
    }
    let buffer: Buffer = Buffer.alloc(0);
    let exit: string | undefined;
    const closed = new Promise<void>((done) => child.once('close', (code, signal) => {
      exit = signal ? `signal ${signal}` : `exit code ${code}`;
      rpc.fail(rpc.garbage
        ? new ProbeFailure('not-mcp', `it answered with something that is not MCP (${rpc.garbage}) and stopped (${exit})`)
        : new ProbeFailure('did-not-start', `stopped before answering (${exit})`));
      done();
    }));
    child.once('error', (error) => reject(new ProbeFailure('did-not-start', `could not be started (${describe(error)})`)));
    child.stdin?.on('error', () => undefined); // a server gone mid-write: its close says so
    child.stderr?.on('data', (chunk: Buffer) => onStderr(chunk.toString('utf8')));
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
      if (buffer.length > MAX_LINE_BYTES) {
        rpc.fail(new ProbeFailure('not-mcp', `it wrote more than ${MAX_LINE_BYTES} bytes without a line break`));
        buffer = Buffer.alloc(0);
        return;
      }
      for (let end = buffer.indexOf(10); end !== -1; end = buffer.indexOf(10)) {
        const line = buffer.toString('utf8', 0, end).replace(/\r$/, '');
        buffer = buffer.subarray(end + 1);
        rpc.receive(line);
      }
    });
    rpc.send = (message) => new Promise((sent) => {
      if (!child.stdin || exit) throw new Error('Not connected');
      if (child.stdin.write(`${JSON.stringify(message)}\n`)) sent();
      else child.stdin.once('drain', sent);
    });
    child.once('spawn', () => {
      if (child.pid !== undefined) options.onSpawn?.(child.pid);
      resolve({
        // stdin closed, then SIGTERM, then SIGKILL, two seconds apart (the SDK's sequence).
        async stop() {
          const wait = () => Promise.race([closed, new Promise((r) => setTimeout(r, 2000).unref())]);
          const running = () => child.exitCode === null && child.signalCode === null;
          try { child.stdin?.end(); } catch { /* gone */ }
          await wait();
          if (running()) {
            child.kill('SIGTERM');
            await wait();
          }
          if (running()) child.kill('SIGKILL');
        },
      });
    });
  });
}

/** The variables the SDK's stdio transport always passes on from its own process (`getDefaultEnvironment`). */
function sdkDefaultEnvironment(): Record<string, string> {
  const names = process.platform === 'win32'
    ? ['APPDATA', 'HOMEDRIVE', 'HOMEPATH', 'LOCALAPPDATA', 'PATH', 'PROCESSOR_ARCHITECTURE', 'SYSTEMDRIVE', 'SYSTEMROOT', 'TEMP', 'USERNAME', 'USERPROFILE', 'PROGRAMFILES']
    : ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];
  const env: Record<string, string> = {};
  for (const name of names) {
    const value = process.env[name];
    if (value !== undefined && !value.startsWith('()')) env[name] = value;
  }
  return env;
}

/** The media type of a Content-Type header, lowercased, without parameters. */
function mediaType(header: string | null): string | undefined {
  return header ? header.split(';', 1)[0].trim().toLowerCase() : undefined;
}

const REDIRECTS = [301, 302, 303, 307, 308];

/**
 * The SDK's StreamableHTTPClientTransport: POSTs with `Accept: application/json,
 * text/event-stream`, JSON or SSE answers, `Mcp-Session-Id` and `MCP-Protocol-Version` once
 * known, the row's headers over them, redirects followed only within the origin, the optional
 * GET stream after `notifications/initialized`, and the session deleted at the end.
 */
function startHttp(row: Extract<McpClientConfig, { transport: 'streamable-http' }>, rpc: Rpc, setVersion: (set: (version: string) => void) => void): Connection {
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

  const httpError = (status: number, text: string) => new ProbeFailure('not-mcp', `the URL did not answer as a Streamable HTTP MCP server (Streamable HTTP error: ${status} ${text.split('\n')[0].slice(0, 200)})`);

  const readEvents = async (body: ReadableStream<Uint8Array> | null): Promise<void> => {
    if (!body) return;
    const parser = createParser({
      onEvent: (event) => {
        if (event.data && (!event.event || event.event === 'message')) rpc.receive(event.data);
      },
    });
    const decoder = new TextDecoder();
    try {
      for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
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
      const text = REDIRECTS.includes(response.status) ? `redirect to ${response.headers.get('location')} not followed` : await response.text().catch(() => '');
      throw httpError(response.status, text || response.statusText);
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
      const text = await response.text();
      let data: unknown;
      try {
        data = JSON.parse(text);
      } catch (error) {
        throw new ProbeFailure('not-mcp', `it answered with something that is not MCP (${describe(error)})`);
      }
      // Every message of a batch is checked before any is delivered, as the SDK's transport does.
      const messages: JsonRpcMessage[] = [];
      for (const item of Array.isArray(data) ? data : [data]) {
        const parsed = JsonRpcMessageSchema.safeParse(item);
        if (!parsed.success) throw new ProbeFailure('not-mcp', `it answered with something that is not MCP (not a JSON-RPC message: ${issues(parsed.error)})`);
        messages.push(parsed.data);
      }
      for (const message of messages) rpc.dispatch(message);
    } else {
      await response.body?.cancel();
      throw httpError(-1, `Unexpected content type: ${response.headers.get('content-type')}`);
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
    },
  };
}

export async function probeRow(row: McpClientConfig, options: RowProbeOptions): Promise<RowProbe> {
  const started = Date.now();
  const maxStderr = options.maxStderrBytes ?? 16 * 1024;
  let stderr = '';
  const rpc = new Rpc();
  let connection: Connection | undefined;
  let setProtocolVersion: (version: string) => void = () => undefined;
  let expire: (error: ProbeFailure) => void = () => undefined;
  let timedOut = false;
  const expired = new Promise<never>((_, reject) => { expire = reject; });
  expired.catch(() => undefined);
  const timer = setTimeout(() => (timedOut = true) && expire(rpc.garbage
    ? new ProbeFailure('not-mcp', `no MCP answer within ${options.timeoutMs} ms (it wrote something that is not MCP: ${rpc.garbage})`)
    : new ProbeFailure('timed-out', `no MCP answer within ${options.timeoutMs} ms`)), Math.max(1, options.timeoutMs));
  const bounded = <T>(work: Promise<T>): Promise<T> => Promise.race([work, expired]);
  const call = async <S extends z.ZodMiniType>(method: string, schema: S, params?: object): Promise<z.output<S>> => {
    const parsed = schema.safeParse(await bounded(rpc.request(method, params)));
    if (!parsed.success) throw new ProbeFailure('not-mcp', `its ${method} answer is not valid MCP (${issues(parsed.error)})`);
    return parsed.data;
  };
  const list = async <S extends z.ZodMiniType>(method: string, schema: S, each: (page: z.output<S>) => void): Promise<void> => {
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await call(method, schema, cursor === undefined ? undefined : { cursor });
      each(page);
      cursor = (page as { nextCursor?: string }).nextCursor;
    } while (cursor !== undefined && ++pages < MAX_PAGES);
    // A partial list would pin part of the tools (or one page many times): say so instead.
    if (cursor !== undefined) throw new ProbeFailure('not-mcp', `its ${method} answer still had more pages after ${MAX_PAGES}`);
  };
  try {
    if (row.transport === 'stdio') {
      // Not bounded: a spawn ends at once, and the process it made must be stopped in any case.
      connection = await startStdio(row, rpc, options, (text) => {
        if (stderr.length < maxStderr) stderr += text.slice(0, maxStderr - stderr.length);
      });
    } else {
      connection = startHttp(row, rpc, (set) => { setProtocolVersion = set; });
    }
    const init = await call('initialize', InitializeResultSchema, { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: CLIENT_INFO });
    if (!SUPPORTED_PROTOCOL_VERSIONS.includes(init.protocolVersion)) {
      throw new ProbeFailure('not-mcp', `its protocol version ${JSON.stringify(init.protocolVersion).slice(0, 40)} is not one the MCP client DSH uses supports`);
    }
    setProtocolVersion(init.protocolVersion);
    await bounded(rpc.notify('notifications/initialized'));
    const startMs = Date.now() - started;
    const tools: ToolDefinition[] = [];
    // As DSH's client lists: uncached, every page, `description ?? ""` and the schema as checked.
    await list('tools/list', ListToolsResultSchema, (page) => {
      for (const tool of page.tools) tools.push({ name: tool.name, description: tool.description ?? '', inputSchema: tool.inputSchema });
    });
    const count = async (method: string, schema: typeof ListPromptsResultSchema | typeof ListResourcesResultSchema, key: 'prompts' | 'resources'): Promise<number | undefined> => {
      let total = 0;
      try {
        await list(method, schema, (page) => { total += (page as Record<string, unknown[]>)[key].length; });
        return total;
      } catch (error) {
        if (timedOut) throw error;
        return undefined; // advertised but failing: the count is unknown, the tools still count
      }
    };
    const promptCount = init.capabilities.prompts ? await count('prompts/list', ListPromptsResultSchema, 'prompts') : 0;
    const resourceCount = init.capabilities.resources ? await count('resources/list', ListResourcesResultSchema, 'resources') : 0;
    return {
      ok: true, startMs, tools, stderr,
      ...(promptCount !== undefined ? { promptCount } : {}),
      ...(resourceCount !== undefined ? { resourceCount } : {}),
      server: { name: init.serverInfo.name, version: init.serverInfo.version },
    };
  } catch (error) {
    const elapsedMs = Date.now() - started;
    if (error instanceof ProbeFailure) {
      // Garbage then silence or an exit: the server does not speak MCP, whatever ended the wait.
      const failure = rpc.garbage && error.failure !== 'not-mcp' ? 'not-mcp' : error.failure;
      const detail = failure !== error.failure ? `${error.message} (it wrote something that is not MCP: ${rpc.garbage})` : error.message;
      return { ok: false, failure, detail, elapsedMs, stderr };
    }
    return { ok: false, failure: 'did-not-start', detail: describe(error), elapsedMs, stderr };
  } finally {
    clearTimeout(timer);
    await connection?.stop().catch(() => undefined);
  }
}
