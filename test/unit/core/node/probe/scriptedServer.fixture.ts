// The hand-written MCP server of test/fixtures/mcp-servers/scripted-server.mjs as the probe's
// tests start it: its DSH rows (stdio, Streamable HTTP) and an HTTP one started apart.
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import type { McpClientConfig } from '../../../../../src/core/mcp/dshRow';

export const SCRIPTED = path.resolve(__dirname, '../../../../fixtures/mcp-servers/scripted-server.mjs');
export const NODE = process.execPath;
const common = { serverName: 's', toolCallTimeoutMs: 60000, failOnStartupError: false, reconnect: { enabled: true, initialDelayMs: 500, maxDelayMs: 30000, maxAttempts: 10 } };
export const stdio = (args: string[], env: Record<string, string> = {}): McpClientConfig => ({ ...common, transport: 'stdio', command: NODE, args, env, cwd: '' });
export const http = (url: string): McpClientConfig => ({ ...common, transport: 'streamable-http', url, headers: {} });

/** Starts the server over Streamable HTTP on a free port; resolves with its URL. */
export async function startHttp(args: string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(NODE, [SCRIPTED, '--http', ...args], { stdio: ['ignore', 'pipe', 'ignore'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening (\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.on('exit', () => reject(new Error(`server exited: ${out}`)));
  });
  return { child, url };
}

