import type { LspStdioServer } from '../core/lsp/lspRow';
import { importHostModule } from './hostModules';
import type { Ctx, Fiber, PromptAssembly } from './types';

// Built at run time so no bundler or lint rule mistakes them for static dependencies.
const scoped = (name: string) => ['@deepseek-ai', name].join('/');
const LSP_SPECIFIER = scoped('dsh-lsp');
const LSP_STDIO_SPECIFIER = scoped('dsh-lsp-stdio');
const TOOL_LSP_SPECIFIER = scoped('dsh-tool-lsp');

/** The model tool and prompt section dsh-tool-lsp registers. */
export const LSP_TOOL_NAME = 'lsp';
export const LSP_PROMPT_SECTION = 'tool:lsp';

export interface LspMounted {
  /** Stops the session's language servers (awaits their teardown) and removes the tool. */
  unmount(): Promise<void>;
}

/**
 * Mounts a folder's language servers into one session: under a child fiber of the session's
 * context, a context isolated for the `lsp` service (cordis `isolate`), holding its own
 * `@deepseek-ai/dsh-lsp` service, one `dsh-lsp-stdio` instance with the declared servers and one
 * `dsh-tool-lsp`. rc.8's dsh-lsp keeps one route table per service instance, so a shared service
 * would make two sessions' `.ts` registrations conflict and answer every session from one
 * provider; an isolated instance per session is neither. The tool files into the session's scope
 * (no other session sees it); servers spawn lazily through the host's `subprocess` on the first
 * query, with the session's cwd as their workspace. Disposing the fiber stops them.
 */
export async function mountLsp(host: Ctx, parent: Ctx, config: { servers: Record<string, LspStdioServer> }): Promise<LspMounted> {
  const [lsp, stdio, tool] = await Promise.all([LSP_SPECIFIER, LSP_STDIO_SPECIFIER, TOOL_LSP_SPECIFIER].map((s) => importHostModule(host, s)));
  const fiber: Fiber = parent.plugin({ name: 'dsh-bridge-lsp', apply: () => undefined });
  let stopped = false;
  const unmount = async () => {
    if (stopped) return;
    stopped = true;
    await fiber.dispose();
  };
  try {
    await fiber;
    const isolated = (fiber.ctx as Ctx & { isolate(name: string): Ctx }).isolate('lsp');
    // A service class module: its default export is the plugin (the loader unwraps it; a plain import() does not).
    const service = (lsp as { default?: unknown; apply?: unknown }).default;
    await isolated.plugin(service !== undefined && typeof (lsp as { apply?: unknown }).apply !== 'function' ? service : lsp);
    await isolated.plugin(stdio, config);
    await isolated.plugin(tool, {});
  } catch (error) {
    await unmount().catch(() => undefined);
    throw error;
  }
  return { unmount };
}

interface SectionDefinition {
  name: string;
  order: number;
  text: string | ((context: unknown) => string);
}

/**
 * Adds prompt sections registered during the assembly waterfall (`tool:lsp`) to the snapshot it
 * carries, at the place of their order, as dsh-system-prompt would have put them had they existed
 * before. Reads the system prompt's merged section table for the scope (rc.8's `layers.merge`);
 * a build without it gets the section from its next step, when DSH assembles it itself.
 */
export function mergeSections(assembly: PromptAssembly, systemPrompt: unknown, scope: unknown, names: readonly string[], context: unknown): void {
  const layers = (systemPrompt as { layers?: { merge?: (scope: unknown, pick: (layer: { sections: unknown }) => unknown) => Map<string, SectionDefinition> } } | undefined)?.layers;
  if (typeof layers?.merge !== 'function') return;
  const sections = assembly.sections as Array<{ name: string; text: string }> | undefined;
  if (!Array.isArray(sections)) return;
  let table: Map<string, SectionDefinition>;
  try {
    table = layers.merge(scope, (layer) => layer.sections);
  } catch {
    return;
  }
  const orderOf = (name: string) => table.get(name)?.order ?? Number.POSITIVE_INFINITY;
  for (const name of names) {
    const def = table.get(name);
    if (!def || sections.some((s) => s.name === name)) continue;
    const text = typeof def.text === 'function' ? def.text(context) : def.text;
    let at = sections.findIndex((s) => orderOf(s.name) > def.order);
    if (at < 0) at = sections.length;
    sections.splice(at, 0, { name, text });
  }
}
