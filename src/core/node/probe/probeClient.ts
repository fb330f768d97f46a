/**
 * Starts one MCP server from its DSH row with the MCP SDK's client, lists what it offers, and
 * stops it. Bundled as its own file (dist/mcp-probe.js), loaded only when a probe runs, so
 * neither the extension's activation nor the CLI's cold start pays for the SDK.
 * Never throws: every failure is an outcome.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ListPromptsResultSchema, ListResourcesResultSchema, ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpClientConfig } from '../../mcp/dshRow';
import { dshServerEnv, type DshEnvRule } from '../../mcp/dshEnv';
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
}

const CLIENT_INFO = { name: 'dsh-bridge-probe', version: '0.1.0' };
const NO_OUTPUT_VALIDATION = {
  getValidator: () => () => ({ valid: false as const, data: undefined, errorMessage: 'the probe validates no tool output' }),
};
const MAX_PAGES = 100;

class ProbeTimeout extends Error {}
class NotMcp extends Error {}

/** A parse or validation failure of what the server sent: it does not speak MCP (JSON-RPC over this transport). */
function isProtocolGarbage(error: unknown): boolean {
  const name = (error as { name?: string })?.name;
  return error instanceof SyntaxError || name === 'ZodError' || name === '$ZodError' || /JSON|Unexpected token|invalid_type|invalid_union/i.test(String((error as Error)?.message ?? ''));
}

function describe(error: unknown): string {
  const e = error as NodeJS.ErrnoException & { cause?: { code?: string; message?: string } };
  const code = e?.code ?? e?.cause?.code;
  const message = String(e?.message ?? error).split('\n')[0].slice(0, 300);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

export async function probeRow(row: McpClientConfig, options: RowProbeOptions): Promise<RowProbe> {
  const started = Date.now();
  const maxStderr = options.maxStderrBytes ?? 16 * 1024;
  let stderr = '';
  let exited: string | undefined;
  let garbage: unknown;
  let transport: Transport;
  try {
    if (row.transport === 'stdio') {
      const stdio = new StdioClientTransport({
        command: row.command,
        args: row.args,
        env: dshServerEnv(options.parentEnv, row.env, options.envRule),
        // '' = DSH's own cwd (contract section 1); the probe's process stands in for it.
        cwd: row.cwd === '' ? undefined : row.cwd,
        stderr: 'pipe',
      });
      stdio.stderr?.on('data', (chunk: Buffer) => {
        if (stderr.length < maxStderr) stderr += chunk.toString('utf8').slice(0, maxStderr - stderr.length);
      });
      transport = stdio;
    } else {
      transport = new StreamableHTTPClientTransport(new URL(row.url), { requestInit: { headers: row.headers } });
    }
  } catch (error) {
    return { ok: false, failure: 'did-not-start', detail: describe(error), elapsedMs: Date.now() - started, stderr };
  }
  // The probe calls no tool, so no output schema is ever validated: no JSON Schema engine is
  // needed (the build leaves the SDK's default one, Ajv, out of dist/mcp-probe.js).
  const client = new Client(CLIENT_INFO, { capabilities: {}, jsonSchemaValidator: NO_OUTPUT_VALIDATION });
  let rejectEarly: (error: Error) => void = () => undefined;
  const early = new Promise<never>((_, reject) => { rejectEarly = reject; });
  early.catch(() => undefined);
  transport.onerror = (error) => {
    if (isProtocolGarbage(error)) {
      garbage ??= error;
      rejectEarly(new NotMcp(describe(error)));
    }
  };
  const timer = setTimeout(() => rejectEarly(new ProbeTimeout()), Math.max(1, options.timeoutMs));
  const bounded = <T>(work: Promise<T>): Promise<T> => Promise.race([work, early]);
  try {
    await bounded(client.connect(transport));
    const startMs = Date.now() - started;
    const tools: ToolDefinition[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      // As DSH's client lists: uncached, every page, `description ?? ""` and the schema as sent.
      const page = await bounded(client.request({ method: 'tools/list', ...(cursor === undefined ? {} : { params: { cursor } }) }, ListToolsResultSchema));
      for (const tool of page.tools) tools.push({ name: tool.name, description: tool.description ?? '', inputSchema: tool.inputSchema });
      cursor = page.nextCursor;
    } while (cursor !== undefined && ++pages < MAX_PAGES);
    const capabilities = client.getServerCapabilities() ?? {};
    const count = async (method: 'prompts/list' | 'resources/list'): Promise<number | undefined> => {
      try {
        let total = 0;
        let next: string | undefined;
        let n = 0;
        do {
          const params = next === undefined ? {} : { params: { cursor: next } };
          const page = method === 'prompts/list'
            ? await bounded(client.request({ method, ...params }, ListPromptsResultSchema)).then((p) => ({ n: p.prompts.length, nextCursor: p.nextCursor }))
            : await bounded(client.request({ method, ...params }, ListResourcesResultSchema)).then((p) => ({ n: p.resources.length, nextCursor: p.nextCursor }));
          total += page.n;
          next = page.nextCursor;
        } while (next !== undefined && ++n < MAX_PAGES);
        return total;
      } catch (error) {
        if (error instanceof ProbeTimeout) throw error;
        return undefined; // advertised but failing: the count is unknown, the tools still count
      }
    };
    const promptCount = capabilities.prompts ? await count('prompts/list') : 0;
    const resourceCount = capabilities.resources ? await count('resources/list') : 0;
    const version = client.getServerVersion();
    return {
      ok: true, startMs, tools, stderr,
      ...(promptCount !== undefined ? { promptCount } : {}),
      ...(resourceCount !== undefined ? { resourceCount } : {}),
      ...(version ? { server: { name: String(version.name), version: String(version.version) } } : {}),
    };
  } catch (error) {
    const elapsedMs = Date.now() - started;
    if (error instanceof ProbeTimeout) {
      const detail = garbage ? `no MCP answer within ${options.timeoutMs} ms (it wrote something that is not MCP: ${describe(garbage)})` : `no MCP answer within ${options.timeoutMs} ms`;
      return { ok: false, failure: garbage ? 'not-mcp' : 'timed-out', detail, elapsedMs, stderr };
    }
    if (error instanceof NotMcp || garbage) return { ok: false, failure: 'not-mcp', detail: `it answered with something that is not MCP (${describe(garbage ?? error)})`, elapsedMs, stderr };
    if (error instanceof StreamableHTTPError) {
      return { ok: false, failure: 'not-mcp', detail: `the URL did not answer as a Streamable HTTP MCP server (${describe(error)})`, elapsedMs, stderr };
    }
    const detail = describe(error);
    if (row.transport === 'streamable-http') {
      const connectFailed = /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ECONNRESET|fetch failed/i.test(detail);
      return { ok: false, failure: connectFailed ? 'did-not-start' : 'not-mcp', detail: connectFailed ? `could not connect (${detail})` : detail, elapsedMs, stderr };
    }
    exited = /ENOENT|EACCES|spawn/i.test(detail) ? `could not be started (${detail})` : `stopped before answering (${detail})`;
    return { ok: false, failure: 'did-not-start', detail: exited, elapsedMs, stderr };
  } finally {
    clearTimeout(timer);
    // Stops the server: stdin closed, then SIGTERM, then SIGKILL (the SDK's own sequence).
    await client.close().catch(() => undefined);
    await transport.close().catch(() => undefined);
  }
}
