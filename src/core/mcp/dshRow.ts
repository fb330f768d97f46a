import type { DeclaredServer, Reconnect } from '../declaration/declarationModel';
import { renderTemplate, type Template, type TemplateLookup } from '../declaration/template';
import { choiceNarrows, type ToolChoice } from '../declaration/toolsModel';

/** DSH 0.2's per-tool policy of a dsh-mcp-client row (raw tool names); rc.8 keeps it unread. */
export interface ToolPolicy {
  default: 'ask' | 'allow' | 'deny';
  tools: Record<string, 'ask' | 'allow' | 'deny'>;
}

/**
 * The `toolPolicy` that makes DSH 0.2 enforce a tool choice itself: an allow-list denies by
 * default and names its tools `ask`; a leave-out list names its tools `deny` over the default
 * `ask`. Never `allow`: a choice narrows, it never waives DSH's per-call approval.
 * Undefined when the choice leaves nothing out.
 */
function toolPolicyOf(choice: ToolChoice | undefined): ToolPolicy | undefined {
  if (!choiceNarrows(choice)) return undefined;
  const tools: Record<string, 'ask' | 'deny'> = {};
  const set = (name: string, mode: 'ask' | 'deny') => Object.defineProperty(tools, name, { value: mode, enumerable: true, writable: true, configurable: true });
  for (const name of choice.only ?? []) set(name, 'ask');
  for (const name of choice.exclude) set(name, 'deny');
  return { default: choice.only ? 'deny' : 'ask', tools };
}

/** Config of one `@deepseek-ai/dsh-mcp-client` row (contract section 1), every field written. */
export type McpClientConfig =
  | {
    transport: 'stdio'; serverName: string; command: string; args: string[]; env: Record<string, string>; cwd: string;
    toolCallTimeoutMs: number; failOnStartupError: boolean; reconnect: Reconnect; toolPolicy?: ToolPolicy;
  }
  | {
    transport: 'streamable-http'; serverName: string; url: string; headers: Record<string, string>;
    toolCallTimeoutMs: number; failOnStartupError: boolean; reconnect: Reconnect; toolPolicy?: ToolPolicy;
  };

/** A reference without a value, and where it was needed ("argument 2", "the header Authorization"). */
export interface MissingValue {
  kind: 'input' | 'env';
  name: string;
  where: string;
}

export type RowResult = { config: McpClientConfig } | { missing: MissingValue };

class Missing extends Error {
  constructor(readonly detail: MissingValue) {
    super('missing value');
  }
}

/**
 * Renders a declared server into a dsh-mcp-client row config. `envFileValues` (the parsed
 * envFile, loaded by the DSH side at start) go under the explicit env, as in VS Code.
 * `serverName` may be overridden (the DSH side may have to rename per session).
 */
export function toMcpClientConfig(
  server: DeclaredServer,
  lookup: TemplateLookup,
  options: { envFileValues?: Record<string, string>; serverName?: string } = {},
): RowResult {
  const render = (t: Template, where: string): string => {
    const r = renderTemplate(t, lookup);
    if ('missing' in r) throw new Missing({ ...r.missing, where });
    return r.value;
  };
  const renderMap = (m: Record<string, Template>, what: string, base: Record<string, string> = {}) => {
    const out: Record<string, string> = {};
    const set = (k: string, v: string) => Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    for (const [k, v] of Object.entries(base)) set(k, v);
    for (const [k, v] of Object.entries(m)) set(k, render(v, `${what} ${k}`));
    return out;
  };
  const common = {
    serverName: options.serverName ?? server.serverName,
    toolCallTimeoutMs: server.toolCallTimeoutMs,
    failOnStartupError: server.failOnStartupError,
    reconnect: { ...server.reconnect },
    // DSH 0.2 enforces the tool choice itself; the DSH Bridge plugin also filters on rc.8.
    ...(toolPolicyOf(server.tools?.choice) ? { toolPolicy: toolPolicyOf(server.tools?.choice) } : {}),
  };
  try {
    if (server.transport === 'stdio') {
      return {
        config: {
          transport: 'stdio', ...common,
          command: render(server.command, 'the command'),
          args: server.args.map((a, i) => render(a, `argument ${i + 1}`)),
          env: renderMap(server.env, 'the env variable', options.envFileValues),
          cwd: render(server.cwd, 'the cwd'),
        },
      };
    }
    return { config: { transport: 'streamable-http', ...common, url: render(server.url, 'the url'), headers: renderMap(server.headers, 'the header') } };
  } catch (error) {
    if (error instanceof Missing) return { missing: error.detail };
    throw error;
  }
}

const INT32_MAX = 2147483647;
const isInt = (n: unknown, min: number, max = Number.MAX_SAFE_INTEGER) => typeof n === 'number' && Number.isInteger(n) && n >= min && n <= max;

/**
 * DSH 0.2's load-time rules for a dsh-mcp-client row (contract section 1). rc.8 accepts more
 * (an empty command, a negative timeout, a non-URL url), so the bridge applies these itself.
 * Returns the violations; empty means accepted.
 */
export function check02Rules(config: Record<string, unknown>): string[] {
  const errors: string[] = [];
  if (typeof config.serverName !== 'string' || !/^[A-Za-z0-9_-]{1,32}$/.test(config.serverName)) errors.push('serverName');
  if (config.transport === 'stdio') {
    if (typeof config.command !== 'string' || config.command.trim() === '') errors.push('command');
    if (config.args !== undefined && !(Array.isArray(config.args) && config.args.every((a) => typeof a === 'string'))) errors.push('args');
    if (config.env !== undefined && !isStringMap(config.env)) errors.push('env');
    if (config.cwd !== undefined && typeof config.cwd !== 'string') errors.push('cwd');
  } else if (config.transport === 'streamable-http') {
    try {
      const url = new URL(String(config.url));
      if (url.protocol !== 'http:' && url.protocol !== 'https:') errors.push('url');
    } catch {
      errors.push('url');
    }
    if (config.headers !== undefined && !isStringMap(config.headers)) errors.push('headers');
  } else {
    errors.push('transport');
  }
  if (config.toolCallTimeoutMs !== undefined && !isInt(config.toolCallTimeoutMs, 1, INT32_MAX)) errors.push('toolCallTimeoutMs');
  if (config.failOnStartupError !== undefined && typeof config.failOnStartupError !== 'boolean') errors.push('failOnStartupError');
  const r = config.reconnect as Record<string, unknown> | undefined;
  if (r !== undefined) {
    const keys = Object.keys(r).sort().join(',');
    if (keys !== 'enabled,initialDelayMs,maxAttempts,maxDelayMs') errors.push('reconnect.keys');
    if (typeof r.enabled !== 'boolean') errors.push('reconnect.enabled');
    if (!isInt(r.initialDelayMs, 1, INT32_MAX)) errors.push('reconnect.initialDelayMs');
    if (!isInt(r.maxDelayMs, 1, INT32_MAX)) errors.push('reconnect.maxDelayMs');
    if (isInt(r.initialDelayMs, 1) && isInt(r.maxDelayMs, 1) && (r.initialDelayMs as number) > (r.maxDelayMs as number)) errors.push('reconnect.order');
    if (!isInt(r.maxAttempts, 1)) errors.push('reconnect.maxAttempts');
  }
  return errors;
}

function isStringMap(value: unknown): boolean {
  return !!value && typeof value === 'object' && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'string');
}
