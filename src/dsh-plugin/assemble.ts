/**
 * The `system-prompt/assemble` waterfall, for one session: after the session's mount step, the
 * tools of its mounted servers join the request being assembled (the tool gate keeps out what
 * the declaration's tool choice and pins do not allow), tools of servers stopped meanwhile leave
 * it, and the lsp prompt section joins with the lsp tool.
 */
import { serverOfTool } from '../core/mcp/toolNames';
import { dropTools, mergeTools } from './assembly';
import { LSP_PROMPT_SECTION, LSP_TOOL_NAME, mergeSections } from './lspMount';
import type { Session } from './session';
import type { ApprovalService, AssembleContext, Ctx, Logger, PromptAssembly, ToolSchema, ToolsService } from './types';

export interface AssembleHost {
  ctx: Ctx;
  log: Logger;
  notice?: (line: string) => void;
}

/** The tools the session's model would see now (restrictions and presentation mode honoured). */
function visibleTools(host: AssembleHost, context: AssembleContext, session: Session): ToolSchema[] {
  if (session.mounts.size === 0 && session.stopped.size === 0 && !session.lsp && !session.lspStopped) return [];
  const tools = host.ctx.get('tools') as ToolsService | undefined;
  if (!tools) return [];
  const scope = context.scope ?? session.agent;
  return typeof tools.wireSchemas === 'function' ? tools.wireSchemas(scope).schemas : tools.schemas(scope);
}

/** The visible tools minus those the session's tool gate keeps out (asks in `ask` mode; never throws: the gate fails closed). */
async function gateTools(host: AssembleHost, session: Session, visible: ToolSchema[], signal: AbortSignal | undefined): Promise<ToolSchema[]> {
  if (session.mounts.size === 0 || (session.trustMode !== 'ask' && session.trustMode !== 'pinned')) return visible;
  const approval = host.ctx.get('approval') as ApprovalService | undefined;
  const servers = [...session.mounts.keys()];
  const log = (line: string, level: 'info' | 'warn' = 'warn') => {
    host.log[level](line);
    host.notice?.(line);
  };
  let turn: string;
  try {
    turn = session.turnMarker();
  } catch (error) {
    return session.toolGate.failClosed(visible, servers, { where: session.where, log }, error);
  }
  return session.toolGate.offered(visible, servers, {
    trustMode: session.trustMode,
    turn,
    where: session.where,
    ask: approval ? (tool, question) => approval.request({ agent: session.agent, toolName: tool.name, reason: question, signal }) : undefined,
    log,
  });
}

/** Merges the session's tools (and the lsp section) into this assembly and the one `next()` returns. */
export async function assembleSession(host: AssembleHost, session: Session, assembly: PromptAssembly, context: AssembleContext, next: () => Promise<PromptAssembly>): Promise<PromptAssembly> {
  const visible = visibleTools(host, context, session);
  const offered = await gateTools(host, session, visible, context.signal);
  const blocked = new Set(session.toolGate.blocked);
  const mounted = [...session.mounts.keys()];
  const added = offered.filter((tool) => serverOfTool(tool.name, mounted) !== undefined || (session.lsp !== undefined && tool.name === LSP_TOOL_NAME));
  const gone = new Set(session.stopped);
  session.stopped.clear();
  const lspGone = session.lspStopped;
  session.lspStopped = false;
  const order = host.ctx.get('systemPrompt')?.toolOrder;
  const toolOrder = Array.isArray(order) ? order as string[] : undefined;
  const apply = (target: PromptAssembly) => {
    // Tools of servers stopped during this assembly are still in the base snapshot.
    const stillVisible = new Set(visible.map((t) => t.name));
    if (gone.size) dropTools(target, gone, stillVisible);
    if (lspGone && !stillVisible.has(LSP_TOOL_NAME)) target.tools = target.tools.filter((t) => t.name !== LSP_TOOL_NAME);
    // Registered tools the gate keeps out are in the base snapshot too.
    if (blocked.size) target.tools = target.tools.filter((t) => !blocked.has(t.name));
    mergeTools(target, added, toolOrder);
    if (session.lsp) mergeSections(target, host.ctx.get('systemPrompt'), context.scope ?? session.agent, [LSP_PROMPT_SECTION], context);
  };
  apply(assembly);
  const result = await next();
  if (result && result !== assembly && Array.isArray(result.tools)) apply(result);
  const sent = result && Array.isArray(result.tools) ? result.tools : assembly.tools;
  const ours = (name: string) => serverOfTool(name, mounted) !== undefined || (session.lsp !== undefined && name === LSP_TOOL_NAME);
  session.lastRequest = {
    offered: sent.map((t) => t.name).filter(ours),
    withheld: [...blocked].sort().map((name) => ({ name: session.toolGate.shownName(name), why: session.toolGate.whyBlocked(name) })),
  };
  return result;
}
