/**
 * Starts one MCP server from its DSH row, lists what it offers, and stops it. Never throws:
 * every failure is an outcome.
 *
 * The probe speaks the few MCP calls it needs itself (initialize, tools/list, prompts/list,
 * resources/list; server/discover only to tell a server of MCP 2026-07-28 from one that is not MCP) rather than loading the MCP SDK's client, which would be a quarter of the
 * extension's size budget. What goes over the wire is what DSH's client (the SDK's `Client` with
 * its stdio and Streamable HTTP transports, see `@deepseek-ai/dsh-mcp-client`) sends, and what
 * comes back is checked as strictly (core/mcp/mcpProtocol.ts); the unit tier compares the two
 * clients on the same servers. Unlike the SDK's client it bounds what a server can do to it: one
 * message is at most MAX_MESSAGE_BYTES (jsonRpcSession.ts), a stdio server's whole process group is stopped,
 * and the server's text is masked before it is cut (test/unit/core/node/probe/probeClient.hostile.test.ts).
 *
 * As the SDK does, one file per transport (stdioTransport.ts, httpTransport.ts) over one
 * JSON-RPC session (jsonRpcSession.ts).
 */
import type * as z from 'zod/mini';
import type { McpClientConfig } from '../../mcp/dshRow';
import {
  DISCOVER_PARAMS, DiscoverResultSchema, InitializeResultSchema, LATEST_PROTOCOL_VERSION, ListPromptsResultSchema, ListResourcesResultSchema, ListToolsResultSchema,
  MODERN_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS,
} from '../../mcp/mcpProtocol';
import type { ToolDefinition } from '../../tools/toolDefinitions';
import { secretMask, type SecretMask } from '../../tools/maskSecrets';
import { startHttp } from './httpTransport';
import { JsonRpcSession, type Connection } from './jsonRpcSession';
import { describe, issues, ProbeFailure, said, type RowProbeFailure } from './probeFailure';
import type { ProcessLeft } from './processTree';
import { startStdio, type StdioOptions } from './stdioTransport';

export type { ProcessLeft } from './processTree';

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

export interface RowProbeOptions extends StdioOptions {
  /** Whole budget: start, initialize and the lists (the server is stopped when it runs out). */
  timeoutMs: number;
  /** Bytes of stderr kept (the start of it). */
  maxStderrBytes?: number;
  /** Masks every text taken from the server before it is cut or returned (default: the credential-shaped rules only). */
  mask?: SecretMask;
  /** Aborting ends the probe at once as `cancelled`, the server stopped as after any probe. */
  signal?: AbortSignal;
}

const CLIENT_INFO = { name: 'dsh-bridge-probe', version: '0.1.0' };
const MAX_PAGES = 100;
/**
 * All the pages of one list together: each message is bounded (MAX_MESSAGE_BYTES), and 100 pages
 * of them were 1 GB (issue 37). 16 MiB of JSON holds thousands of tools (the probe record is
 * capped at 32 MiB); 2,000 tools are far more than a model is ever offered.
 */
export const MAX_LIST_BYTES = 16 * 1024 * 1024;
export const MAX_LIST_ITEMS = 2000;
export async function probeRow(row: McpClientConfig, options: RowProbeOptions): Promise<RowProbe> {
  const started = Date.now();
  const maxStderr = options.maxStderrBytes ?? 16 * 1024;
  const mask = options.mask ?? secretMask([]);
  let stderr = '';
  let stderrCut = false;
  const rpc = new JsonRpcSession(mask);
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
    let bytes = 0;
    let items = 0;
    do {
      const page = await call(method, schema, cursor === undefined ? undefined : { cursor });
      bytes += Buffer.byteLength(JSON.stringify(page));
      items += Object.values(page as object).find(Array.isArray)?.length ?? 0;
      if (bytes > MAX_LIST_BYTES || items > MAX_LIST_ITEMS) {
        // What was cut is said; a partial list is not pinned (as with too many pages).
        throw new ProbeFailure('not-mcp', `its ${method} answers passed the probe's bound for one list (${bytes > MAX_LIST_BYTES ? `${MAX_LIST_BYTES} bytes` : `${MAX_LIST_ITEMS} items`}) at page ${pages + 1}, with ${items} items in ${bytes} bytes so far: the probe stopped reading there, and nothing of the list is recorded or pinned`);
      }
      each(page);
      cursor = (page as { nextCursor?: string }).nextCursor;
    } while (cursor !== undefined && ++pages < MAX_PAGES);
    // A partial list would pin part of the tools (or one page many times): say so instead.
    if (cursor !== undefined) throw new ProbeFailure('not-mcp', `its ${method} answer still had more pages after ${MAX_PAGES}`);
  };
  /**
   * An initialize the server refused may be a server of MCP 2026-07-28 only, which has no
   * handshake: asked `server/discover`, such a server names its versions, and the failure says
   * that instead of "not MCP". Anything else keeps the initialize's own failure.
   */
  const newerMcp = async (error: unknown): Promise<unknown> => {
    if (!(error instanceof ProbeFailure) || error.failure !== 'not-mcp' || timedOut) return error;
    setProtocolVersion(MODERN_PROTOCOL_VERSION); // the HTTP header must name what _meta names
    const discovered = await bounded(rpc.request('server/discover', DISCOVER_PARAMS)).catch(() => undefined);
    const parsed = DiscoverResultSchema.safeParse(discovered);
    if (!parsed.success) return error;
    const versions = parsed.data.supportedVersions.slice(0, 5).map((v) => said(mask, v, 20)).join(', ');
    return new ProbeFailure('newer-mcp', `it speaks MCP ${versions} only (it answered server/discover and refused initialize), while the MCP client DSH uses speaks ${LATEST_PROTOCOL_VERSION} and earlier, which begin with initialize: DSH cannot use this server until its client learns ${MODERN_PROTOCOL_VERSION}, or the server also keeps ${LATEST_PROTOCOL_VERSION}`);
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
    const init = await call('initialize', InitializeResultSchema, { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: CLIENT_INFO })
      .catch(async (error: unknown) => { throw await newerMcp(error); });
    if (!SUPPORTED_PROTOCOL_VERSIONS.includes(init.protocolVersion)) {
      throw new ProbeFailure('not-mcp', `its protocol version ${said(mask, JSON.stringify(init.protocolVersion), 40)} is not one the MCP client DSH uses supports`);
    }
    setProtocolVersion(init.protocolVersion);
    await bounded(rpc.notify('notifications/initialized'));
    const startMs = Date.now() - started;
    const tools: ToolDefinition[] = [];
    // As DSH's client lists: uncached, every page, `description ?? ""` and the schema as checked.
    await list('tools/list', ListToolsResultSchema, (page) => {
      for (const tool of page.tools) {
        tools.push({
          name: tool.name, description: tool.description ?? '', inputSchema: tool.inputSchema,
          // For the scan only (toolDefinitions.ts): what MCP 2025-11-25 and 2026-07-28 add beside them.
          ...(tool.title !== undefined ? { title: tool.title } : {}), ...(tool.icons !== undefined ? { icons: tool.icons } : {}),
          ...(tool.outputSchema !== undefined ? { outputSchema: tool.outputSchema } : {}), ...(tool.annotations !== undefined ? { annotations: tool.annotations } : {}),
        });
      }
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
