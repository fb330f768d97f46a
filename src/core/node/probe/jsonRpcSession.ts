/**
 * The JSON-RPC session both transports share (as the MCP SDK's `Protocol` under its transports):
 * requests with ids from 0, answers matched to them, the server's own requests answered. A
 * transport sets `send` and feeds what it receives to `receive` or `dispatch`.
 */
import { JsonRpcMessageSchema, METHOD_NOT_FOUND, type JsonRpcMessage } from '../../mcp/mcpProtocol';
import type { SecretMask } from '../../tools/maskSecrets';
import { issues, notJson, ProbeFailure, said } from './probeFailure';
import type { ProcessLeft } from './processTree';

/**
 * The most one message may take, however it comes: a stdio line (the SDK's own limit), an HTTP
 * JSON answer, one SSE event. Past it the stream is cancelled and the server is not MCP.
 */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
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

/** One session with one server, over whichever transport sets `send`. */
export class JsonRpcSession {
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

/** A transport's hold on the server. */
export interface Connection {
  /** Stops it; resolves to what the server started and left running (stdio on Linux; else none). */
  stop(): Promise<ProcessLeft[]>;
}
