/**
 * Starts one MCP server from its DSH row, lists what it offers, and stops it. Never throws:
 * every failure is an outcome.
 *
 * The probe speaks the few MCP calls it needs itself (initialize, tools/list, prompts/list,
 * resources/list) rather than loading the MCP SDK's client, which would be a quarter of the
 * extension's size budget. What goes over the wire is what DSH's client (the SDK's `Client` with
 * its stdio and Streamable HTTP transports, see `@deepseek-ai/dsh-mcp-client`) sends, and what
 * comes back is checked as strictly (core/mcp/mcpProtocol.ts); the unit tier compares the two
 * clients on the same servers. Unlike the SDK's client it bounds what a server can do to it: one
 * message is at most {@link MAX_MESSAGE_BYTES}, a stdio server's whole process group is stopped,
 * and the server's text is masked before it is cut (test/unit/probeHostile.test.ts).
 */
import type { ChildProcess } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
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
import { secretMask, type SecretMask } from '../../tools/maskSecrets';
import { ProcessWatch, type ProcessLeft } from './processTree';

export type { ProcessLeft } from './processTree';

export type RowProbeFailure = 'did-not-start' | 'timed-out' | 'not-mcp' | 'cancelled';

/**
 * `stderr`, `detail` and `server` are masked by `mask` (a server's text is masked before it is
 * cut); `tools` and `instructions` (from `initialize`) are as the server sent them (the caller
 * pins the real definitions, then masks what it shows and stores). `leftRunning`:
 * processes the server started that still run after the stop (Linux only; absent when none).
 */
export type RowProbe = (
  | { ok: true; startMs: number; tools: ToolDefinition[]; instructions?: string; promptCount?: number; resourceCount?: number; server?: { name: string; version: string }; stderr: string }
  | { ok: false; failure: RowProbeFailure; detail: string; elapsedMs: number; stderr: string }
) & { leftRunning?: ProcessLeft[] };

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
  /** Masks every text taken from the server before it is cut or returned (default: the credential-shaped rules only). */
  mask?: SecretMask;
  /** Aborting ends the probe at once as `cancelled`, the server stopped as after any probe. */
  signal?: AbortSignal;
}

const CLIENT_INFO = { name: 'dsh-bridge-probe', version: '0.1.0' };
const MAX_PAGES = 100;
/**
 * The most one message may take, however it comes: a stdio line (the SDK's own limit), an HTTP
 * JSON answer, one SSE event. Past it the stream is cancelled and the server is not MCP.
 */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
/** Of an HTTP error answer, only the start is read (its first line is shown). */
const MAX_ERROR_TEXT_BYTES = 4096;
/** Between stdin closed, SIGTERM and SIGKILL (the SDK's stop sequence). */
const STOP_GRACE_MS = 2000;

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

/** A server's text as shown in a failure: masked first, then cut. */
function said(mask: SecretMask, text: string, width: number): string {
  const masked = mask.text(text);
  return masked.length > width ? `${masked.slice(0, width - 1)}…` : masked;
}

/** Where a message is not valid (its path names the server's keys: masked). */
function issues(error: z.core.$ZodError, mask: SecretMask): string {
  const first = error.issues[0];
  return first ? said(mask, `${first.path.join('.') || 'the message'}: ${first.message}`, 300) : 'invalid';
}

/** Why text is not JSON, in the parser's words about the masked text (they quote its start). */
function notJson(text: string, mask: SecretMask): string {
  try {
    JSON.parse(mask.text(text));
    return 'not valid JSON';
  } catch (error) {
    return describe(error);
  }
}

/** A JSON-RPC message from text, or why it is not one (as the SDK's transports parse; worded only when asked). */
function parseMessage(text: string, mask: SecretMask): JsonRpcMessage | { garbage: () => string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { garbage: () => notJson(text, mask) };
  }
  const parsed = JsonRpcMessageSchema.safeParse(value);
  return parsed.success ? parsed.data : { garbage: () => `not a JSON-RPC message (${issues(parsed.error, mask)})` };
}

/** The JSON-RPC side both transports share: ids from 0, answers to the server's own requests. */
class Rpc {
  private nextId = 0;
  private readonly pending = new Map<number | string, { resolve: (result: unknown) => void; reject: (error: Error) => void }>();
  /** The first thing received that is not an MCP message (the server may still answer: DSH's client reads on). */
  garbage?: string;
  send: (message: object) => Promise<void> = async () => undefined;

  constructor(readonly mask: SecretMask) {}

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
    const message = parseMessage(text, this.mask);
    if ('garbage' in message) this.garbage ??= message.garbage();
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
    else waiting.reject(new ProbeFailure('not-mcp', `it answered with an error (MCP error ${message.error.code}: ${said(this.mask, message.error.message, 400)})`));
  }

  /** Every open request fails with `error` (the connection is gone). */
  fail(error: Error): void {
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }

  /** A message past {@link MAX_MESSAGE_BYTES}: not MCP, and nothing waits for an answer any more. */
  overflow(what: string): void {
    const text = `${what} of more than ${MAX_MESSAGE_BYTES} bytes`;
    this.garbage ??= text;
    this.fail(new ProbeFailure('not-mcp', `it sent ${text}`));
  }
}

interface Connection {
  /** Stops it; resolves to what the server started and left running (stdio on Linux; else none). */
  stop(): Promise<ProcessLeft[]>;
}

/**
 * Stdio servers not yet stopped, each with what kills it and what it started: called when this
 * process exits first (the CLI interrupted: a server in its own group no longer gets the
 * terminal's Ctrl+C). Synchronous, as an exit handler must be.
 */
const unstopped = new Set<() => void>();
let killOnExit = false;

function killUnstopped(): void {
  for (const kill of unstopped) kill();
}

/** True while a process of the group runs (on Linux an unreaped zombie does not count). */
function groupRuns(group: number): boolean {
  try {
    process.kill(-group, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !ProcessWatch.supported || ProcessWatch.groupHasRunning(group);
}

/** Resolves once `done()` or after `ms` (its timer keeps the process alive: a CLI waits for the stop). */
function until(done: () => boolean, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const deadline = Date.now() + ms;
    const check = () => (done() || Date.now() >= deadline ? resolve() : setTimeout(check, 50));
    check();
  });
}

/**
 * The SDK's StdioClientTransport: its spawn, its inherited environment, its framing, its stop
 * sequence; the server in its own process group (POSIX), which the stop ends whole.
 */
function startStdio(row: Extract<McpClientConfig, { transport: 'stdio' }>, rpc: Rpc, options: RowProbeOptions, onStderr: (text: string) => void): Promise<Connection> {
  const env = { ...sdkDefaultEnvironment(), ...dshServerEnv(options.parentEnv, row.env, options.envRule) };
  const ownGroup = process.platform !== 'win32';
  return new Promise((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawn(row.command, row.args, {
        env,
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
        windowsHide: process.platform === 'win32',
        // POSIX: a new session, so its process group holds what it starts (unless that leaves it).
        detached: ownGroup,
        // '' = DSH's own cwd (contract section 1); the probe's process stands in for it.
        cwd: row.cwd === '' ? undefined : row.cwd,
      });
    } catch (error) {
      reject(new ProbeFailure('did-not-start', `could not be started (${describe(error)})`));
      return;
    }
    let closed = false;
    // The unfinished line, in pieces (no copy per chunk), at most MAX_MESSAGE_BYTES.
    let pieces: Buffer[] = [];
    let pending = 0;
    let exit: string | undefined;
    child.once('close', (code, signal) => {
      closed = true;
      exit = signal ? `signal ${signal}` : `exit code ${code}`;
      rpc.fail(rpc.garbage
        ? new ProbeFailure('not-mcp', `it answered with something that is not MCP (${rpc.garbage}) and stopped (${exit})`)
        : new ProbeFailure('did-not-start', `stopped before answering (${exit})`));
    });
    child.once('error', (error) => reject(new ProbeFailure('did-not-start', `could not be started (${describe(error)})`)));
    child.stdin?.on('error', () => undefined); // a server gone mid-write: its close says so
    const stderr = new StringDecoder('utf8');
    child.stderr?.on('data', (chunk: Buffer) => onStderr(stderr.write(chunk)));
    child.stdout?.on('data', (chunk: Buffer) => {
      let from = 0;
      for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, from)) {
        const tail = chunk.subarray(from, end);
        const line = pending ? Buffer.concat([...pieces, tail]) : tail;
        pieces = [];
        pending = 0;
        from = end + 1;
        rpc.receive(line.toString('utf8').replace(/\r$/, ''));
      }
      if (from < chunk.length) {
        pieces.push(chunk.subarray(from));
        pending += chunk.length - from;
      }
      if (pending > MAX_MESSAGE_BYTES) {
        pieces = [];
        pending = 0;
        rpc.overflow('a line');
      }
    });
    rpc.send = (message) => new Promise((sent) => {
      if (!child.stdin || exit) throw new Error('Not connected');
      if (child.stdin.write(`${JSON.stringify(message)}\n`)) sent();
      else child.stdin.once('drain', sent);
    });
    child.once('spawn', () => {
      const pid = child.pid!;
      options.onSpawn?.(pid);
      const watch = new ProcessWatch(pid);
      watch.watch();
      const kill = () => {
        watch.look();
        try { if (ownGroup) process.kill(-pid, 'SIGKILL'); else child.kill('SIGKILL'); } catch { /* gone */ }
        watch.signalOutside(pid, 'SIGKILL');
      };
      unstopped.add(kill);
      if (!killOnExit) process.once('exit', killUnstopped);
      killOnExit = true;
      resolve({ stop: () => stopTree(child, () => closed, ownGroup, watch, options.mask ?? secretMask([])).finally(() => unstopped.delete(kill)) });
    });
  });
}

/**
 * The SDK's sequence (stdin closed, then SIGTERM, then SIGKILL, two seconds apart) for the server's
 * whole process group and for what it started outside the group while the probe watched (Linux);
 * a group whose leader ended at stdin's close is still signalled if anything in it runs. On
 * Windows (no process groups) the server's process only, as the SDK stops it.
 */
async function stopTree(child: ChildProcess, closed: () => boolean, ownGroup: boolean, watch: ProcessWatch, mask: SecretMask): Promise<ProcessLeft[]> {
  const pid = child.pid!;
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const stopped = () => exited() && (!ownGroup || !groupRuns(pid)) && !watch.outsideRunning(pid);
  const signal = (name: NodeJS.Signals) => {
    if (ownGroup) {
      try { process.kill(-pid, name); } catch { /* the group has ended */ }
    } else if (!exited()) {
      child.kill(name);
    }
    watch.signalOutside(pid, name);
  };
  watch.look(); // what it started, in case it ends as soon as its stdin closes
  try { child.stdin?.end(); } catch { /* gone */ }
  await until(exited, STOP_GRACE_MS);
  watch.look(); // the last look at what it started, before anything is signalled
  watch.stopWatching();
  if (!stopped()) {
    signal('SIGTERM');
    await until(stopped, STOP_GRACE_MS);
  }
  if (!stopped()) {
    signal('SIGKILL');
    await until(stopped, 1000);
  }
  // Its last output read; a process that escaped with its pipes would keep them (and this process) open.
  await until(closed, 200);
  child.stdout?.destroy();
  child.stderr?.destroy();
  child.stdin?.destroy();
  return watch.leftRunning((command) => mask.text(command));
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
function startHttp(row: Extract<McpClientConfig, { transport: 'streamable-http' }>, rpc: Rpc, setVersion: (set: (version: string) => void) => void): Connection {
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

export async function probeRow(row: McpClientConfig, options: RowProbeOptions): Promise<RowProbe> {
  const started = Date.now();
  const maxStderr = options.maxStderrBytes ?? 16 * 1024;
  const mask = options.mask ?? secretMask([]);
  let stderr = '';
  let stderrCut = false;
  const rpc = new Rpc(mask);
  let connection: Connection | undefined;
  let setProtocolVersion: (version: string) => void = () => undefined;
  let expire: (error: ProbeFailure) => void = () => undefined;
  let timedOut = false;
  const expired = new Promise<never>((_, reject) => { expire = reject; });
  expired.catch(() => undefined);
  const timer = setTimeout(() => (timedOut = true) && expire(rpc.garbage
    ? new ProbeFailure('not-mcp', `no MCP answer within ${options.timeoutMs} ms (it wrote something that is not MCP: ${rpc.garbage})`)
    : new ProbeFailure('timed-out', `no MCP answer within ${options.timeoutMs} ms`)), Math.max(1, options.timeoutMs));
  const cancel = () => expire(new ProbeFailure('cancelled', 'cancelled by the user'));
  if (options.signal?.aborted) cancel();
  options.signal?.addEventListener('abort', cancel, { once: true });
  const bounded = <T>(work: Promise<T>): Promise<T> => Promise.race([work, expired]);
  const call = async <S extends z.ZodMiniType>(method: string, schema: S, params?: object): Promise<z.output<S>> => {
    const parsed = schema.safeParse(await bounded(rpc.request(method, params)));
    if (!parsed.success) throw new ProbeFailure('not-mcp', `its ${method} answer is not valid MCP (${issues(parsed.error, mask)})`);
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
  let result: RowProbe;
  try {
    if (row.transport === 'stdio') {
      // Not bounded: a spawn ends at once, and the process it made must be stopped in any case.
      connection = await startStdio(row, rpc, options, (text) => {
        if (stderr.length + text.length > maxStderr) stderrCut = true;
        if (stderr.length < maxStderr) stderr += text.slice(0, maxStderr - stderr.length);
      });
    } else {
      connection = startHttp(row, rpc, (set) => { setProtocolVersion = set; });
    }
    const init = await call('initialize', InitializeResultSchema, { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: CLIENT_INFO });
    if (!SUPPORTED_PROTOCOL_VERSIONS.includes(init.protocolVersion)) {
      throw new ProbeFailure('not-mcp', `its protocol version ${said(mask, JSON.stringify(init.protocolVersion), 40)} is not one the MCP client DSH uses supports`);
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
    result = {
      ok: true, startMs, tools, stderr: '',
      ...(init.instructions !== undefined ? { instructions: init.instructions } : {}),
      ...(promptCount !== undefined ? { promptCount } : {}),
      ...(resourceCount !== undefined ? { resourceCount } : {}),
      server: { name: mask.text(init.serverInfo.name), version: mask.text(init.serverInfo.version) },
    };
  } catch (error) {
    const elapsedMs = Date.now() - started;
    if (error instanceof ProbeFailure) {
      // Garbage then silence or an exit: the server does not speak MCP, whatever ended the wait.
      const failure = rpc.garbage && error.failure !== 'not-mcp' ? 'not-mcp' : error.failure;
      const detail = failure !== error.failure ? `${error.message} (it wrote something that is not MCP: ${rpc.garbage})` : error.message;
      result = { ok: false, failure, detail, elapsedMs, stderr: '' };
    } else {
      result = { ok: false, failure: 'did-not-start', detail: describe(error), elapsedMs, stderr: '' };
    }
  }
  clearTimeout(timer);
  options.signal?.removeEventListener('abort', cancel);
  const leftRunning = await connection?.stop().catch(() => []) ?? [];
  // Masked whole, before anything shows a part of it; a capture cut at its limit loses what the cut split.
  result.stderr = stderrCut ? mask.head(stderr) : mask.text(stderr);
  return leftRunning.length ? { ...result, leftRunning } : result;
}
