/**
 * npx tsx bench/import.bench.ts [COUNT...]: `dsh-bridge import --dry-run --json` (the built CLI,
 * a real process) on generated Codex config.toml and Claude Code .mcp.json files of COUNT
 * servers (default 250 1000 2000 5000) into a small existing .vscode/mcp.json; prints the wall
 * time, the time per server and its ratio to the first count's. Past 512 servers the CLI refuses
 * (the export's limit), so the same files also go through the core's planImport in this process
 * with the limits lifted: the import's own growth. One run each: the figures in docs/import.md
 * are from it. Run `npm run build` first.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { planImport } from '../src/core/import/importPlan';

const ROOT = path.resolve(__dirname, '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');
const counts = process.argv.slice(2).map(Number).filter((n) => n > 0);
if (!counts.length) counts.push(250, 1000, 2000, 5000);

const TARGET = '{\n  // the team\'s server\n  "servers": {\n    "memory": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory@2025.8.4"] }\n  }\n}\n';

/** Two of three servers stdio (args, env, one an inline credential), one of three HTTP with a header. */
function servers(count: number) {
  const list: Array<{ name: string; url?: string; headers?: Record<string, string>; command?: string; args?: string[]; env?: Record<string, string> }> = [];
  for (let i = 0; i < count; i++) {
    if (i % 3 === 2) list.push({ name: `remote-${i}`, url: `https://mcp${i}.example.com/mcp`, headers: { 'X-Region': 'eu-west-1' } });
    else list.push({ name: `tool-${i}`, command: 'npx', args: ['-y', `@example/mcp-tool-${i}@1.2.${i}`, '--root', '.'], env: { LOG_LEVEL: 'info', ...(i % 3 === 0 ? { API_KEY: `k-${i}-abcdefghijklmnop` } : {}) } });
  }
  return list;
}

function codexToml(count: number) {
  const q = (v: unknown) => JSON.stringify(v);
  return servers(count).map((s) => (s.url
    ? `[mcp_servers.${q(s.name)}]\nurl = ${q(s.url)}\nhttp_headers = { ${Object.entries(s.headers!).map(([k, v]) => `${q(k)} = ${q(v)}`).join(', ')} }\n`
    : `[mcp_servers.${q(s.name)}]\ncommand = ${q(s.command)}\nargs = [${s.args!.map(q).join(', ')}]\nenv = { ${Object.entries(s.env!).map(([k, v]) => `${k} = ${q(v)}`).join(', ')} }\n`)).join('\n');
}

function claudeJson(count: number) {
  const mcpServers: Record<string, unknown> = {};
  for (const s of servers(count)) mcpServers[s.name] = s.url ? { type: 'http', url: s.url, headers: s.headers } : { command: s.command, args: s.args, env: s.env };
  return JSON.stringify({ mcpServers }, null, 2);
}

const base = mkdtempSync(path.join(os.tmpdir(), 'import-bench-'));
try {
  const clients = [['codex', '.codex/config.toml', codexToml], ['claude', '.mcp.json', claudeJson]] as const;
  console.log('CLI (dsh-bridge import --dry-run --json, one process each)');
  for (const [client, file, make] of clients) {
    let first: number | undefined;
    for (const count of counts) {
      const folder = path.join(base, `${client}-${count}`);
      mkdirSync(path.join(folder, path.dirname(file)), { recursive: true });
      mkdirSync(path.join(folder, '.vscode'), { recursive: true });
      writeFileSync(path.join(folder, file), make(count));
      writeFileSync(path.join(folder, '.vscode', 'mcp.json'), TARGET);
      const t0 = process.hrtime.bigint();
      const r = spawnSync(process.execPath, [CLI, 'import', '--from', client, '--workspace', folder, '--dsh-home', path.join(base, 'home'), '--dry-run', '--json'], { encoding: 'utf8', maxBuffer: 1 << 30 });
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      let outcome = `exit ${r.status}`;
      try {
        const out = JSON.parse(r.stdout) as { servers: unknown[]; notes?: Array<{ kind: string; code: string }> };
        const refusal = out.notes?.find((n) => n.kind === 'error');
        outcome = refusal ? `exit ${r.status}: ${refusal.code}` : `exit ${r.status}: ${out.servers.length} servers`;
      } catch { /* not JSON: the exit code says it */ }
      const perServer = ms / count;
      first ??= perServer;
      console.log(`${client}\t${count}\t${(ms / 1000).toFixed(2)} s\t${perServer.toFixed(3)} ms/server\tx${(perServer / first).toFixed(2)}\t${outcome}`);
    }
  }
  console.log('\nplanImport in this process, limits lifted (the import itself, without process start, reading and output)');
  for (const [client, file, make] of clients) {
    let first: number | undefined;
    for (const count of counts) {
      const text = make(count);
      const t0 = process.hrtime.bigint();
      const plan = planImport({ client, sources: [{ file, text, scope: 'project' }], folder: '/w', target: TARGET, limits: { maxServers: Infinity, maxBytes: Infinity } });
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      const perServer = ms / count;
      first ??= perServer;
      console.log(`${client}\t${count}\t${(ms / 1000).toFixed(2)} s\t${perServer.toFixed(3)} ms/server\tx${(perServer / first).toFixed(2)}\t${plan.servers.length} servers, ${plan.after.length} characters`);
    }
  }
} finally {
  rmSync(base, { recursive: true, force: true });
}
