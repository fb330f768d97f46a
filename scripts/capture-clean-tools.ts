// Captures the clean side of the poisoning corpus: starts each server of test/oracle/clean-servers
// (real MCP servers from npm, installed by scripts/setup-oracles.sh without their install scripts)
// through the MCP SDK's client (the whole definitions: title, annotations and outputSchema too, which
// the scan reads), lists its tools and instructions, and writes them with where they
// came from to test/fixtures/poisoning/clean/<server>.json. Nothing is called; every credential a
// server wants before it lists its tools is the word "unused".
//   npx tsx scripts/capture-clean-tools.ts [server ...]
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const MODULES = path.join(ROOT, 'test/oracle/clean-servers/node_modules');
const OUT = path.join(ROOT, 'test/fixtures/poisoning/clean');

/** What a server reads before it lists its tools (never a real value). */
const UNUSED_KEYS = [
  'FIRECRAWL_API_KEY', 'EVERART_API_KEY', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_REGION', 'TAVILY_API_KEY', 'EXA_API_KEY',
  'HEROKU_API_KEY', 'PRIVATE_APP_ACCESS_TOKEN', 'CIRCLECI_TOKEN', 'PERPLEXITY_API_KEY', 'BRAVE_API_KEY', 'AIRTABLE_API_KEY',
  'LARA_ACCESS_KEY_ID', 'LARA_ACCESS_KEY_SECRET', 'SENTRY_ACCESS_TOKEN', 'SUPABASE_ACCESS_TOKEN', 'NOTION_TOKEN', 'FIGMA_API_KEY',
  'MYSQL_HOST', 'MYSQL_USER', 'MYSQL_PASS', 'MYSQL_DB', 'STRIPE_SECRET_KEY',
];

/** Each server: its package, the bin to start (default: the only one), its arguments. */
const SERVERS: ReadonlyArray<{ serverName: string; pkg: string; bin?: string; args?: (dir: string) => string[] }> = [
  { serverName: 'firecrawl', pkg: 'firecrawl-mcp' },
  { serverName: 'desktop-commander', pkg: '@wonderwhy-er/desktop-commander', bin: 'desktop-commander' },
  { serverName: 'playwright', pkg: '@playwright/mcp' },
  { serverName: 'context7', pkg: '@upstash/context7-mcp' },
  { serverName: 'puppeteer', pkg: '@modelcontextprotocol/server-puppeteer' },
  { serverName: 'redis', pkg: '@modelcontextprotocol/server-redis', args: () => ['redis://127.0.0.1:1'] },
  { serverName: 'everart', pkg: '@modelcontextprotocol/server-everart' },
  { serverName: 'aws-kb-retrieval', pkg: '@modelcontextprotocol/server-aws-kb-retrieval' },
  { serverName: 'notion', pkg: '@notionhq/notion-mcp-server' },
  { serverName: 'supabase', pkg: '@supabase/mcp-server-supabase', args: () => ['--access-token=unused', '--read-only'] },
  { serverName: 'kubernetes', pkg: 'mcp-server-kubernetes' },
  { serverName: 'tavily', pkg: 'tavily-mcp' },
  { serverName: 'exa', pkg: 'exa-mcp-server' },
  { serverName: 'heroku', pkg: '@heroku/mcp-server' },
  { serverName: 'mysql', pkg: '@benborla29/mcp-server-mysql' },
  { serverName: 'stripe', pkg: '@stripe/mcp', args: () => ['--tools=all', '--api-key=sk_test_unused'] },
  { serverName: 'hubspot', pkg: '@hubspot/mcp-server' },
  { serverName: 'playwright-ea', pkg: '@executeautomation/playwright-mcp-server' },
  { serverName: 'youtube-transcript', pkg: '@kimtaeyoon83/mcp-server-youtube-transcript' },
  { serverName: 'circleci', pkg: '@circleci/mcp-server-circleci' },
  { serverName: 'chrome-devtools', pkg: 'chrome-devtools-mcp' },
  { serverName: 'figma', pkg: 'figma-developer-mcp', args: () => ['--figma-api-key=unused', '--stdio'] },
  { serverName: 'perplexity', pkg: '@perplexity-ai/mcp-server' },
  { serverName: 'brave', pkg: '@brave/brave-search-mcp-server', args: () => ['--transport', 'stdio'] },
  { serverName: 'airtable', pkg: 'airtable-mcp-server' },
  { serverName: 'taskmanager', pkg: '@kazuph/mcp-taskmanager' },
  { serverName: 'code-runner', pkg: 'mcp-server-code-runner' },
  { serverName: 'lara', pkg: '@translated/lara-mcp' },
  { serverName: 'sqlite', pkg: 'mcp-server-sqlite-npx', args: (dir) => [path.join(dir, 'db.sqlite')] },
  { serverName: 'sentry', pkg: '@sentry/mcp-server', args: () => ['--access-token=unused'] },
];

function binOf(pkgDir: string, wanted?: string): string {
  const manifest = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as { bin?: string | Record<string, string>; main?: string };
  const bins = typeof manifest.bin === 'string' ? { only: manifest.bin } : (manifest.bin ?? {});
  const file = (wanted && bins[wanted]) || Object.values(bins)[0] || manifest.main || 'index.js';
  return path.join(pkgDir, file);
}

/** The capturing machine's paths (a server may list its allowed folders) replaced by neutral ones: the repository holds none. */
function scrubbed(text: string, dir: string): string {
  const mounts = [...new Set([...text.matchAll(/\/mnt\/([\w.-]+)/g)].map((m) => m[1]))];
  // desktop-commander lists the folders it may use: the machine's mounts and home folder.
  const hosts = [...new Set([...text.matchAll(/Host folder: ([\w.-]+)/g)].map((m) => m[1]))];
  let out = text.split(dir).join('/tmp/capture').split(os.homedir()).join('/home/me');
  for (const name of hosts) out = out.split(`/home/${name}`).join('/home/me').split(`Host folder: ${name}`).join('Host folder: me');
  for (const name of mounts) out = out.split(`/mnt/${name}`).join('/srv/projects').split(`folder: ${name}`).join('folder: projects');
  return out;
}

async function capture(s: (typeof SERVERS)[number], dir: string): Promise<string> {
  const pkgDir = path.join(MODULES, s.pkg);
  const version = (JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as { version: string }).version;
  const args = [binOf(pkgDir, s.bin), ...(s.args?.(dir) ?? [])];
  const client = new Client({ name: 'dsh-bridge-capture', version: '0' });
  const transport = new StdioClientTransport({ command: process.execPath, args, cwd: dir, stderr: 'ignore', env: { PATH: process.env.PATH ?? '', HOME: dir, ...Object.fromEntries(UNUSED_KEYS.map((k) => [k, 'unused'])) } });
  const timeout = setTimeout(() => void transport.close(), 90_000);
  let tools: unknown[] = [];
  let instructions: string | undefined;
  try {
    await client.connect(transport);
    instructions = client.getInstructions();
    for (let cursor: string | undefined, first = true; first || cursor; first = false) {
      const page = await client.listTools(cursor ? { cursor } : {});
      tools = [...tools, ...page.tools.map((t) => ({ ...t, description: t.description ?? '' }))];
      cursor = page.nextCursor;
    }
  } catch (error) {
    return `${s.serverName}: did not answer (${error instanceof Error ? error.message.slice(0, 200) : String(error)})`;
  } finally {
    clearTimeout(timeout);
    await client.close().catch(() => undefined);
  }
  const record = {
    serverName: s.serverName,
    package: s.pkg,
    version,
    capturedAt: new Date().toISOString().slice(0, 10),
    how: `node <${s.pkg}>/${path.relative(pkgDir, args[0])}${s.args ? ` ${s.args('<temp dir>').join(' ')}` : ''}, credentials "unused", tools/list through the MCP SDK client`,
    tools,
    ...(instructions !== undefined ? { instructions } : {}),
  };
  writeFileSync(path.join(OUT, `${s.serverName}.json`), `${scrubbed(JSON.stringify(record, null, 2), dir)}\n`);
  return `${s.serverName}: ${tools.length} tools${instructions !== undefined ? ', instructions' : ''}`;
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const only = process.argv.slice(2);
  const servers = only.length ? SERVERS.filter((s) => only.includes(s.serverName)) : SERVERS;
  // Two at a time: the machine is shared.
  for (let i = 0; i < servers.length; i += 2) {
    const lines = await Promise.all(servers.slice(i, i + 2).map(async (s) => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'dsh-bridge-capture-'));
      try {
        return await capture(s, dir);
      } catch (error) {
        return `${s.serverName}: ${error instanceof Error ? error.message : String(error)}`;
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }));
    for (const line of lines) process.stdout.write(`${line}\n`);
  }
}

void main();
