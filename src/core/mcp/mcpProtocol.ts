/**
 * The MCP wire messages a probe reads, as an MCP client checks them. Pure.
 *
 * DSH's `@deepseek-ai/dsh-mcp-client` is the MCP SDK's `Client`: it checks every message it
 * receives against the SDK's JSON-RPC schema and every result against the method's result
 * schema, and fails the call when one does not match. These schemas mirror the SDK's
 * (`@modelcontextprotocol/sdk` 1.32, `types.js`) for the messages and results the probe asks
 * for, rule for rule, so that a listing DSH's client would refuse is refused here too; the
 * unit tier checks them against the SDK's own client on the same servers.
 */
import * as z from 'zod/mini';

/** The protocol version a client asks for, and those it accepts in answer (the SDK's). */
export const LATEST_PROTOCOL_VERSION = '2025-11-25';
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [LATEST_PROTOCOL_VERSION, '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];

/** JSON-RPC error code of a request nobody handles. */
export const METHOD_NOT_FOUND = -32601;

/**
 * MCP 2026-07-28 (stateless): no initialize; a client may ask `server/discover`, each request
 * naming its version in `_meta`. DSH's client does not speak it; the probe asks only to say so.
 */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';
export const DISCOVER_PARAMS = { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN_PROTOCOL_VERSION, 'io.modelcontextprotocol/clientCapabilities': {} } };
export const DiscoverResultSchema = z.looseObject({ supportedVersions: z.array(z.string()).check(z.minLength(1)) });

// The SDK's "is an object" check: arrays pass, null does not.
const anyObject = z.custom<object>((v) => v !== null && (typeof v === 'object' || typeof v === 'function'));
const optionalObject = z.optional(anyObject);
const str = z.string();
const optStr = z.optional(str);
const optBool = z.optional(z.boolean());
const requestId = z.union([z.string(), z.int()]);

const requestMeta = z.looseObject({
  progressToken: z.optional(requestId),
  'io.modelcontextprotocol/related-task': z.optional(z.object({ taskId: str })),
});
const params = z.optional(z.looseObject({ _meta: z.optional(requestMeta) }));

const JsonRpcRequest = z.strictObject({ jsonrpc: z.literal('2.0'), id: requestId, method: str, params });
const JsonRpcNotification = z.strictObject({ jsonrpc: z.literal('2.0'), method: str, params });
const JsonRpcResult = z.strictObject({ jsonrpc: z.literal('2.0'), id: requestId, result: z.looseObject({ _meta: z.optional(requestMeta) }) });
const JsonRpcError = z.strictObject({
  jsonrpc: z.literal('2.0'),
  id: z.optional(requestId),
  error: z.object({ code: z.int(), message: str, data: z.optional(z.unknown()) }),
});

/** One JSON-RPC message: a request, a notification, a result or an error. */
export const JsonRpcMessageSchema = z.union([JsonRpcRequest, JsonRpcNotification, JsonRpcResult, JsonRpcError]);
export type JsonRpcMessage = z.infer<typeof JsonRpcMessageSchema>;

const result = { _meta: z.optional(requestMeta) };
const page = { ...result, nextCursor: optStr };
const icons = {
  icons: z.optional(z.array(z.object({ src: str, mimeType: optStr, sizes: z.optional(z.array(str)), theme: z.optional(z.enum(['light', 'dark'])) }))),
};
const metadata = { name: str, title: optStr, ...icons };

const ImplementationSchema = z.object({ ...metadata, version: str, websiteUrl: optStr, description: optStr });
const listChanged = z.optional(z.object({ listChanged: optBool }));

export const InitializeResultSchema = z.looseObject({
  ...result,
  protocolVersion: str,
  capabilities: z.object({
    experimental: z.optional(z.record(str, anyObject)),
    logging: optionalObject,
    completions: optionalObject,
    prompts: listChanged,
    resources: z.optional(z.object({ subscribe: optBool, listChanged: optBool })),
    tools: listChanged,
    tasks: z.optional(z.looseObject({
      list: optionalObject,
      cancel: optionalObject,
      requests: z.optional(z.looseObject({ tools: z.optional(z.looseObject({ call: optionalObject })) })),
    })),
    extensions: z.optional(z.record(str, anyObject)),
  }),
  serverInfo: ImplementationSchema,
  instructions: optStr,
});

const objectSchema = z.catchall(z.object({
  type: z.literal('object'),
  properties: z.optional(z.record(str, anyObject)),
  required: z.optional(z.array(str)),
}), z.unknown());

const ToolSchema = z.object({
  ...metadata,
  description: optStr,
  inputSchema: objectSchema,
  outputSchema: z.optional(objectSchema),
  annotations: z.optional(z.object({
    title: optStr, readOnlyHint: optBool, destructiveHint: optBool, idempotentHint: optBool, openWorldHint: optBool,
  })),
  execution: z.optional(z.object({ taskSupport: z.optional(z.enum(['required', 'optional', 'forbidden'])) })),
  _meta: z.optional(z.record(str, z.unknown())),
});

export const ListToolsResultSchema = z.looseObject({ ...page, tools: z.array(ToolSchema) });

const itemMeta = z.optional(z.looseObject({}));

export const ListPromptsResultSchema = z.looseObject({
  ...page,
  prompts: z.array(z.object({
    ...metadata,
    description: optStr,
    arguments: z.optional(z.array(z.object({ name: str, description: optStr, required: optBool }))),
    _meta: itemMeta,
  })),
});

export const ListResourcesResultSchema = z.looseObject({
  ...page,
  resources: z.array(z.object({
    ...metadata,
    uri: str,
    description: optStr,
    mimeType: optStr,
    size: z.optional(z.number()),
    annotations: z.optional(z.object({
      audience: z.optional(z.array(z.enum(['user', 'assistant']))),
      priority: z.optional(z.number().check(z.gte(0), z.lte(1))),
      lastModified: z.optional(z.iso.datetime({ offset: true })),
    })),
    _meta: itemMeta,
  })),
});
