import { createRequire } from 'node:module';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { dynamicImport, importHostModule } from './hostModules';
import type { Ctx, Fiber, Logger, McpClientModule } from './types';

/** Built at run time so no bundler or lint rule mistakes it for a static dependency. */
const MCP_CLIENT_SPECIFIER = ['@deepseek-ai', 'dsh-mcp-client'].join('/');

/** rc.8's message when a serverName is already reserved in the app (`ctx.root`). */
const RESERVED = /serverName "[^"]*" is already in use/;

/** At most this many module instances per serverName (= concurrent sessions using it). */
const MAX_INSTANCES = 64;

/** The messages of an error and its causes (rc.8 wraps the reservation conflict), for matching. */
function causeChainText(error: unknown): string {
  let text = '';
  for (let e: unknown = error, depth = 0; e !== undefined && depth < 5; depth++) {
    text += ` ${e instanceof Error ? e.message : String(e)}`;
    e = e instanceof Error ? (e as Error & { cause?: unknown }).cause : undefined;
  }
  return text;
}

function isReservationConflict(error: unknown): boolean {
  return RESERVED.test(causeChainText(error));
}

export interface Mounted {
  fiber: Fiber;
  instance: number;
  /** Stops the server (awaits its teardown) and frees the instance slot. */
  unmount(): Promise<void>;
}

/**
 * Where the host's `@deepseek-ai/dsh-mcp-client` comes from, and the serverName strategy.
 *
 * Instance 0 is the host's own module: `ctx.get('loader').import(...)` when the host runs the
 * cordis Loader, else a plain `import()`. rc.8 reserves serverNames per app in a module-private
 * WeakMap keyed by `ctx.root`, so a second session mounting the same serverName through that
 * module fails. When (and only when) the host reports that conflict, further sessions get
 * another instance of the very same file (the resolved URL of the host's module plus a
 * `?dsh-bridge-instance=N` query): its dependencies (dsh-tools, dsh-subprocess, the MCP SDK)
 * resolve to the host's own instances, only the reservation table is separate. Instances are
 * pooled per serverName and reused when their session ends, so memory is bounded by the
 * peak number of concurrent sessions using one serverName, not by the number of sessions.
 * Public tool names stay `mcp__<serverName>__<tool>` everywhere. A host that reserves per
 * scope (DSH 0.2) never reports the conflict, so it only ever uses instance 0.
 */
export class McpClientModules {
  private primary?: Promise<McpClientModule>;
  private primaryUrl?: Promise<string | undefined>;
  private readonly instances = new Map<number, Promise<McpClientModule>>();
  /** serverName -> instance index -> live or in-flight mounts of this plugin using it. */
  private readonly held = new Map<string, Map<number, number>>();
  /** Learned: the host reserves serverNames per app (rc.8). */
  reservesPerApp = false;

  constructor(private readonly ctx: Ctx, private readonly log: Logger) {}

  /** The host's module instance. */
  host(): Promise<McpClientModule> {
    this.primary ??= (async () => {
      const mod = (await importHostModule(this.ctx, MCP_CLIENT_SPECIFIER)) as McpClientModule;
      if (!mod || typeof mod.apply !== 'function') throw new Error(`${MCP_CLIENT_SPECIFIER} has no plugin "apply" export`);
      return mod;
    })();
    this.primary.catch(() => { this.primary = undefined; });
    return this.primary;
  }

  /** The file URL of the host's module, proven by identity: importing it yields the same namespace. */
  private hostUrl(): Promise<string | undefined> {
    this.primaryUrl ??= (async () => {
      const host = await this.host();
      const bases = [
        this.ctx.baseUrl,
        process.argv[1] ? pathToFileURL(path.resolve(process.argv[1])).href : undefined,
        pathToFileURL(path.join(process.cwd(), 'noop.js')).href,
        typeof __filename === 'string' ? pathToFileURL(__filename).href : undefined,
      ].filter((b): b is string => typeof b === 'string' && b.startsWith('file:'));
      for (const base of bases) {
        let file: string;
        try {
          file = createRequire(base.endsWith('/') ? `${base}noop.js` : base).resolve(MCP_CLIENT_SPECIFIER);
        } catch {
          continue;
        }
        const url = pathToFileURL(file).href;
        try {
          const ns = await dynamicImport(url);
          if (ns === host || ns?.apply === host.apply || ns?.default?.apply === host.apply) return url;
        } catch {
          // not loadable from this base: try the next
        }
      }
      return undefined;
    })();
    return this.primaryUrl;
  }

  private async instance(index: number): Promise<McpClientModule | undefined> {
    if (index === 0) return this.host();
    let pending = this.instances.get(index);
    if (!pending) {
      pending = (async () => {
        const url = await this.hostUrl();
        if (!url) throw new Error(`cannot locate the host's ${MCP_CLIENT_SPECIFIER} file to open another instance`);
        const ns = await dynamicImport(`${url}?dsh-bridge-instance=${index}`);
        const mod = (ns?.apply ? ns : ns?.default) as McpClientModule;
        if (!mod || typeof mod.apply !== 'function') throw new Error(`instance ${index} of ${MCP_CLIENT_SPECIFIER} has no "apply"`);
        return mod;
      })();
      this.instances.set(index, pending);
      pending.catch(() => this.instances.delete(index));
    }
    return pending;
  }

  /**
   * Mounts one row under `parent` (a child fiber of the agent's context). Tries instance 0,
   * and further instances only after the host reported a per-app reservation conflict.
   */
  async mount(parent: Ctx, row: { serverName: string; failOnStartupError?: boolean }): Promise<Mounted> {
    const serverName = row.serverName;
    let lastError: unknown;
    for (let index = 0; index < MAX_INSTANCES; index++) {
      if (this.reservesPerApp && (this.held.get(serverName)?.get(index) ?? 0) > 0) continue;
      const mod = await this.instance(index);
      if (!mod) break;
      this.hold(serverName, index);
      const fiber = parent.plugin(mod, row);
      try {
        await fiber;
      } catch (error) {
        await Promise.resolve(fiber.dispose()).catch(() => undefined);
        this.release(serverName, index);
        if (isReservationConflict(error)) {
          if (!this.reservesPerApp) this.log.info(`dsh-bridge: this DSH reserves MCP serverNames per app (rc.8): concurrent sessions using one serverName get separate ${MCP_CLIENT_SPECIFIER} instances`);
          this.reservesPerApp = true;
          lastError = error;
          continue;
        }
        throw error;
      }
      // The slot is freed when this server's fiber goes, whoever disposes it: unmount(), the
      // session's fiber, the agent's context ending without agent/disposed.
      let released = false;
      const free = () => {
        if (released) return;
        released = true;
        this.release(serverName, index);
      };
      try {
        fiber.ctx.effect(() => free, 'dsh-bridge-slot');
      } catch {
        free(); // already disposed while it loaded
      }
      return {
        fiber,
        instance: index,
        unmount: async () => {
          try {
            await fiber.dispose();
          } finally {
            free();
          }
        },
      };
    }
    throw lastError ?? new Error(`no free ${MCP_CLIENT_SPECIFIER} instance for serverName "${serverName}"`);
  }

  /** Mounts holding a slot (live or in flight) and the extra module copies opened so far. */
  bookkeeping(): { heldSlots: number; copies: number } {
    let heldSlots = 0;
    for (const held of this.held.values()) for (const n of held.values()) heldSlots += n;
    return { heldSlots, copies: this.instances.size };
  }

  private hold(serverName: string, index: number): void {
    let held = this.held.get(serverName);
    if (!held) this.held.set(serverName, (held = new Map()));
    held.set(index, (held.get(index) ?? 0) + 1);
  }

  private release(serverName: string, index: number): void {
    const held = this.held.get(serverName);
    const n = held?.get(index) ?? 0;
    if (!held || n === 0) return;
    if (n > 1) held.set(index, n - 1);
    else held.delete(index);
    if (held.size === 0) this.held.delete(serverName);
  }
}
