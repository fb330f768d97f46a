import assert from 'node:assert/strict';
import { McpClientModules } from '../../../src/dsh-plugin/mcpModules';
import type { Ctx, Fiber } from '../../../src/dsh-plugin/types';

/**
 * A host whose loader serves a dsh-mcp-client module and whose mount of a row fails with `error`
 * (the real host's conflict is covered by the DSH tier, test/dsh-e2e).
 */
function hostFailingWith(error: Error): Ctx {
  const mod = { apply() {} };
  const fiber = (loading: Promise<void>): Fiber => Object.assign(loading, { ctx: { effect() {} } as unknown as Ctx, dispose: () => undefined });
  return {
    get: (name: string) => (name === 'loader' ? {} : undefined),
    plugin: (plugin: { name?: string; apply(c: unknown): void }) => {
      if (plugin.name !== 'dsh-bridge-loader') return fiber(Promise.reject(error));
      plugin.apply({ loader: { import: async () => mod } });
      return fiber(Promise.resolve());
    },
  } as unknown as Ctx;
}

describe('dsh-plugin: reservation conflict detection', () => {
  const conflict = new Error('mcp-client: serverName "x" is already in use by another mcp-client instance — pick a unique serverName in cordis.yml');

  for (const [what, error] of [['rc.8\'s message', conflict], ['rc.8\'s message as a cause', new Error('wrapped', { cause: conflict })]] as const) {
    it(`${what}: learns that the host reserves per app and tries another module instance`, async () => {
      const ctx = hostFailingWith(error);
      const said: string[] = [];
      const modules = new McpClientModules(ctx, { info: (m) => said.push(m), warn: () => undefined, error: () => undefined });
      await assert.rejects(modules.mount(ctx, { serverName: 'x' }), /another instance|cannot locate the host's/);
      assert.equal(modules.reservesPerApp, true);
      assert.match(said.join('\n'), /reserves MCP serverNames per app/);
    });
  }

  it('any other failure is the mount\'s failure, with no second instance', async () => {
    const ctx = hostFailingWith(new Error('spawn ENOENT'));
    const modules = new McpClientModules(ctx, { info: () => undefined, warn: () => undefined, error: () => undefined });
    await assert.rejects(modules.mount(ctx, { serverName: 'x' }), /^Error: spawn ENOENT$/);
    assert.equal(modules.reservesPerApp, false);
    assert.deepEqual(modules.bookkeeping(), { heldSlots: 0, copies: 0 });
  });
});
