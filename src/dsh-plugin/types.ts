/**
 * The few DSH/cordis shapes the plugin touches, typed structurally: the plugin never imports
 * `@deepseek-ai/*` (the host supplies those modules at run time), so these are the contract it
 * relies on, checked against the published 0.1.0-rc.8 packages.
 */

export interface Disposer {
  (): unknown;
}

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  debug?(message: string): void;
}

/** A cordis fiber as returned by `ctx.plugin()`: thenable once loading settled. */
export interface Fiber extends PromiseLike<unknown> {
  ctx: Ctx;
  dispose(): unknown;
  state?: number;
}

/** A cordis plugin object. */
export interface PluginObject {
  name?: string;
  inject?: unknown;
  apply(ctx: Ctx, config?: unknown): unknown;
}

export interface Ctx {
  plugin(plugin: unknown, config?: unknown): Fiber;
  on(event: string, listener: (...args: any[]) => unknown): Disposer;
  effect(execute: () => unknown, label?: string): Disposer;
  get(name: string): any;
  logger: Logger;
  baseUrl?: string;
  fiber: { dispose(): unknown; state?: number };
}

export interface ToolSchema {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface PromptAssembly {
  tools: ToolSchema[];
  [key: string]: unknown;
}

export interface SessionLike {
  header?: { cwd?: string };
  events?: ReadonlyArray<{ type: string; seq?: number }>;
}

export interface AgentLike {
  id: string;
  ctx: Ctx;
  session: SessionLike;
}

export interface AssembleContext {
  agent?: AgentLike;
  scope?: unknown;
  signal?: AbortSignal;
}

export type ApprovalOutcome = 'allowed-once' | 'rejected' | 'cancelled' | 'unavailable';

export interface ApprovalService {
  request(req: { agent: AgentLike; toolName: string; callId?: string; reason?: string; signal?: AbortSignal }): Promise<ApprovalOutcome>;
}

export interface ToolsService {
  schemas(scope?: unknown): ToolSchema[];
  wireSchemas?(scope?: unknown): { schemas: ToolSchema[]; knownNames?: string[] };
  get?(name: string, scope?: unknown): unknown;
  /** rc.8: a check after `tools/pre-execute`; a returned string denies the call. Returns its disposer. */
  guard?(guard: (exec: { name?: unknown; agent?: unknown }) => string | undefined): () => void;
}

export interface AgentsService {
  list(): AgentLike[];
}

/** `@deepseek-ai/dsh-mcp-client`'s module namespace (a cordis namespace plugin). */
export interface McpClientModule {
  name?: string;
  inject?: unknown;
  Config?: unknown;
  apply(ctx: unknown, config: unknown): Promise<void>;
}
