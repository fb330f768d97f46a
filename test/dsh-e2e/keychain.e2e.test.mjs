// End-to-end (issue 37): "the DSH plugin reads where the CLI wrote". A real Secret Service (Debian's
// gnome-keyring on a session bus of its own, as the unit tier's keychain tests start it) holds the
// input value the CLI stored; the built plugin, in a smallest rc.8 host of this process on that
// bus, reads it from there and mounts a Streamable HTTP server (the SDK fixture answers 401
// without the right header value). No file under the DSH home holds the value. Without the
// packages (bash scripts/setup-secret-service.sh) it skips and says so.
// Run: DSH_E2E_SUITE=keychain npm run test:dsh
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cli, readDeclaration, setTrustMode, approvePin, startHttpFixture } from './fixtures.mjs';
import { session, withSmallest } from './smallest.mjs';
// The unit tier's fixture, plain TypeScript with erasable types only (Node 24 strips them; a
// computed specifier, as the test typecheck does not take `.ts` import paths).
const { secretServiceMissing, startSecretService } = await import(new URL('../unit/core/node/secretService.fixture.ts', import.meta.url).href);

const MISSING = process.env.DSH_E2E_HOST === 'base' ? 'smallest host only' : secretServiceMissing() ?? false;
const mcpNames = (request) => request.tools.map((x) => x.name).filter((n) => n.startsWith('mcp__'));
const toolResult = (request) => {
  const block = request.messages.at(-1)?.content?.find((b) => b.type === 'tool-result');
  return block ? { text: block.content.map((c) => c.text ?? '').join(''), isError: block.isError === true } : undefined;
};

/** Every file under `dir` whose bytes hold `text`. */
function filesHolding(dir, text) {
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((f) => path.join(dir, f))
    .filter((f) => fs.statSync(f).isFile() && fs.readFileSync(f).includes(text));
}

test('DSH rc.8 with a real Secret Service: the CLI stores the input value in the keychain, the plugin reads it there and the server mounts with it; no file of the DSH home holds it', { timeout: 180000, skip: MISSING }, async (t) => {
  const KEY = `keychain-key-${Date.now().toString(36)}-4e9b`;
  const service = await startSecretService();
  const saved = { bus: process.env.DBUS_SESSION_BUS_ADDRESS, keychain: process.env.DSH_BRIDGE_KEYCHAIN };
  // This process (the host, and the plugin in it) and the CLI it runs use that bus; the keychain on.
  process.env.DBUS_SESSION_BUS_ADDRESS = service.env.DBUS_SESSION_BUS_ADDRESS;
  delete process.env.DSH_BRIDGE_KEYCHAIN;
  const { server, port: listening } = startHttpFixture('vault', KEY);
  try {
    const port = await listening;
    await withSmallest(async ({ h, tmp, turn }) => {
      const folder = path.join(tmp.root, 'K');
      fs.mkdirSync(path.join(folder, '.vscode'), { recursive: true });
      fs.writeFileSync(path.join(folder, '.vscode/mcp.json'), JSON.stringify({
        inputs: [{ id: 'vault-key', type: 'promptString', description: 'The vault key', password: true }],
        servers: { vault: { type: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: { 'x-fixture-key': '${input:vault-key}' } } },
      }, null, 2));
      const stored = cli(tmp.home, ['inputs', 'set', 'vault-key', '--workspace', folder], KEY);
      t.diagnostic(stored.trim());
      assert.match(stored, /in the Secret Service/, 'the CLI says it stored the value in the keychain');
      assert.match(service.search(), /dsh-bridge/, 'the entry is in the Secret Service');
      cli(tmp.home, ['export', '--workspace', folder]);
      assert.deepEqual(filesHolding(tmp.home, KEY), [], 'a file of the DSH home holds the value');
      setTrustMode(tmp.home, 'pinned');
      approvePin(tmp.home, folder, 'vault', readDeclaration(folder).servers[0].pin);
      // approvePin rewrites the folder record: the value stays where the CLI wrote it.
      assert.deepEqual(filesHolding(tmp.home, KEY), []);

      h.llm.scripts.set('k1', [{ tool: 'mcp__vault__ping', args: {} }, { text: 'ok' }]);
      const s = await session(h, 'k1', folder, 'k1');
      await turn(s);
      const [first, second] = h.llm.requests.get('k1');
      assert.deepEqual(mcpNames(first), ['mcp__vault__ping'], h.logs.filter((l) => l.includes('dsh-bridge')).join('\n'));
      assert.deepEqual(toolResult(second), { text: 'pong from vault over http', isError: false }, 'the header value from the keychain reached the server (401 without it)');
      assert.deepEqual(h.logs.filter((l) => l.includes(KEY)), [], 'a log line shows the value');
      await s.dispose();
      assert.deepEqual(filesHolding(tmp.home, KEY), [], 'after the session');
      assert.deepEqual(filesHolding(folder, KEY), []);
    });
  } finally {
    server.kill();
    if (saved.bus === undefined) delete process.env.DBUS_SESSION_BUS_ADDRESS; else process.env.DBUS_SESSION_BUS_ADDRESS = saved.bus;
    if (saved.keychain !== undefined) process.env.DSH_BRIDGE_KEYCHAIN = saved.keychain;
    await service.stop();
  }
});
