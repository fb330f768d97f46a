// A small MCP server written with @modelcontextprotocol/sdk (from the test host's install), for the
// DSH end-to-end tests. Never shipped.
//   node mcp-fixture-server.mjs stdio   FIXTURE_NAME names it (tool `ping` answers "pong from NAME");
//                                       FIXTURE_DELAY_MS sleeps before answering `initialize` (a slow start);
//                                       FIXTURE_EXIT_CODE exits at once with that code (a server that
//                                       fails at start), after a stderr line quoting FIXTURE_TOKEN when set;
//                                       FIXTURE_SPAWN_LOG names a file that gets one
//                                       line "<pid> <FIXTURE_NAME>" per start (what was ever spawned)
//   node mcp-fixture-server.mjs http    streamable HTTP on 127.0.0.1 (a free port, printed as
//                                       "listening PORT"); every request must carry the header
//                                       x-fixture-key: $FIXTURE_KEY, else 401
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

if (process.env.FIXTURE_SPAWN_LOG) appendFileSync(process.env.FIXTURE_SPAWN_LOG, `${process.pid} ${process.env.FIXTURE_NAME ?? 'fixture'}\n`);
if (process.env.FIXTURE_EXIT_CODE) {
  if (process.env.FIXTURE_TOKEN) process.stderr.write(`the token ${process.env.FIXTURE_TOKEN} was refused\n`);
  process.exit(Number(process.env.FIXTURE_EXIT_CODE));
}

const HOST_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dsh-host');
const sdk = (sub) => import(pathToFileURL(createRequire(path.join(HOST_DIR, 'package.json')).resolve(`@modelcontextprotocol/sdk/${sub}`)).href);
const { McpServer } = await sdk('server/mcp.js');

const name = process.env.FIXTURE_NAME ?? 'fixture';
function newServer(answer) {
  const server = new McpServer({ name: `fixture-${name}`, version: '1.0.0' });
  server.registerTool('ping', { description: `Answers pong from ${name}` }, async () => ({ content: [{ type: 'text', text: answer }] }));
  return server;
}

if (process.argv[2] === 'http') {
  const { StreamableHTTPServerTransport } = await sdk('server/streamableHttp.js');
  const http = createServer(async (req, res) => {
    if (req.headers['x-fixture-key'] !== process.env.FIXTURE_KEY) {
      res.writeHead(401).end('missing or wrong x-fixture-key');
      return;
    }
    // Stateless: one server and transport per request.
    const server = newServer(`pong from ${name} over http`);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => { void transport.close(); void server.close(); });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  http.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${/** @type {import('node:net').AddressInfo} */ (http.address()).port}\n`));
} else {
  const { StdioServerTransport } = await sdk('server/stdio.js');
  const delay = Number(process.env.FIXTURE_DELAY_MS ?? 0);
  // The client's initialize waits in the pipe until the server connects.
  if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
  await newServer(`pong from ${name}`).connect(new StdioServerTransport());
}
