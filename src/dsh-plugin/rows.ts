import type { DeclaredServer } from '../core/declaration';
import { renderTemplate, type Template, type TemplateLookup } from '../core/template';
import { loadEnvFile } from './envFile';

/** One `@deepseek-ai/dsh-mcp-client` instance config, valid for rc.8 and the stricter 0.2 rules. */
export type McpRow =
  | {
      transport: 'stdio';
      serverName: string;
      command: string;
      args: string[];
      env: Record<string, string>;
      cwd: string;
      toolCallTimeoutMs: number;
      failOnStartupError: boolean;
      reconnect: { enabled: boolean; initialDelayMs: number; maxDelayMs: number; maxAttempts: number };
    }
  | {
      transport: 'streamable-http';
      serverName: string;
      url: string;
      headers: Record<string, string>;
      toolCallTimeoutMs: number;
      failOnStartupError: boolean;
      reconnect: { enabled: boolean; initialDelayMs: number; maxDelayMs: number; maxAttempts: number };
    };

export type RowResult = { ok: true; row: McpRow } | { ok: false; reason: string; missing?: { kind: 'input' | 'env'; name: string } };

class Missing extends Error {
  constructor(readonly missing: { kind: 'input' | 'env'; name: string }, readonly where: string) {
    super('missing');
  }
}

function missingReason(m: { kind: 'input' | 'env'; name: string }, where: string, folder: string): string {
  return m.kind === 'input'
    ? `${where} needs input "${m.name}", which has no value stored on this machine for this folder (set it from the editor, or: dsh-bridge inputs set ${m.name} --workspace ${JSON.stringify(folder)})`
    : `${where} needs the environment variable ${m.name}, which is not set in the DSH process`;
}

/** Every value the row needs, rendered; throws Missing on the first absent reference. */
function renderAll(server: DeclaredServer, lookup: TemplateLookup) {
  const r = (t: Template, where: string): string => {
    const out = renderTemplate(t, lookup);
    if ('missing' in out) throw new Missing(out.missing, where);
    return out.value;
  };
  const renderMap = (m: Record<string, Template>, what: string): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(m)) Object.defineProperty(out, k, { value: r(v, `${what} ${k}`), enumerable: true, writable: true, configurable: true });
    return out;
  };
  if (server.transport === 'stdio') {
    return {
      transport: 'stdio' as const,
      command: r(server.command, 'the command'),
      args: server.args.map((a, i) => r(a, `argument ${i + 1}`)),
      env: renderMap(server.env, 'the env variable'),
      cwd: r(server.cwd, 'the cwd'),
      envFile: server.envFile === undefined ? undefined : r(server.envFile, 'the envFile path'),
    };
  }
  return {
    transport: 'streamable-http' as const,
    url: r(server.url, 'the url'),
    headers: renderMap(server.headers, 'the header'),
  };
}

/**
 * Renders a verified declared server into a dsh-mcp-client row: `${input:}` from the host
 * store (via `lookup.input`), `${env:}` from the DSH process environment, the envFile read at
 * this moment (declared `env` wins over it), and 0.2's stricter checks applied (rc.8 accepts
 * an empty command or a non-URL). A missing value refuses the server; reasons never quote a value.
 */
export async function buildRow(server: DeclaredServer, folder: string, lookup: TemplateLookup): Promise<RowResult> {
  let values: ReturnType<typeof renderAll>;
  try {
    values = renderAll(server, lookup);
  } catch (error) {
    if (error instanceof Missing) return { ok: false, reason: missingReason(error.missing, error.where, folder), missing: error.missing };
    throw error;
  }
  const common = {
    serverName: server.serverName,
    toolCallTimeoutMs: server.toolCallTimeoutMs,
    failOnStartupError: server.failOnStartupError,
    reconnect: { ...server.reconnect },
  };
  if (values.transport === 'stdio') {
    if (values.command.trim() === '') return { ok: false, reason: 'the command is blank' };
    let env = values.env;
    if (values.envFile !== undefined && values.envFile !== '') {
      const loaded = await loadEnvFile(values.envFile, folder);
      if (!loaded.ok) return { ok: false, reason: loaded.reason };
      env = { ...loaded.vars, ...values.env };
    }
    return { ok: true, row: { transport: 'stdio', ...common, command: values.command, args: values.args, env, cwd: values.cwd } };
  }
  let url: URL;
  try {
    url = new URL(values.url);
  } catch {
    return { ok: false, reason: 'the url is not a valid URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, reason: 'the url is not http or https' };
  return { ok: true, row: { transport: 'streamable-http', ...common, url: values.url, headers: values.headers } };
}
