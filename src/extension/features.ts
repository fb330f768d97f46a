import * as vscode from 'vscode';
import { DeclarationIgnoreCodeActions, McpCodeActions, PortableMoveCodeActions } from './codeActions';
import type { CommandId } from './commandIds';
import { commandTable, Commands, runCommand, type Features } from './commands';
import { Ctx } from './ctx';
import { DiagnosticsOwner } from './diagnostics';
import { Exporter } from './exporter';
import { FolderPlans } from './folderPlan';
import { LspSettingsCheck } from './lsp/lspSettingsCheck';
import { TOOL_CHOICE_FILES, ToolChoiceCheck, ToolChoiceCodeActions } from './toolsView/toolChoiceCheck';
import { userSettingsUri } from './settingLayers';
import { DECLARATION_IGNORE_SELECTOR, MCP_SOURCES_SELECTOR } from './mcpFiles';
import { McpJsonCheck } from './mcpJsonCheck';
import { problemLinks } from './problemDocs';
import { ImportFlow } from './importFlow';
import { createSkillsPart, type SkillsPart } from './skills/index';
import type { SkillsSnapshot } from './skills/skillRoots';
import { StaleSettingsCheck, StaleSettingsCodeActions } from './staleSettingsCheck';
import { DeclarationStatus } from './statusItem';
import { ToolsFeature } from './toolsView';

/** The running features, as the composition root sees them. */
export interface RunningFeatures {
  run(id: CommandId, args: unknown[]): Promise<unknown>;
  /** For the activation API (read-only, nothing secret). */
  status(): ReturnType<DeclarationStatus['snapshot']>;
  skillsStatus(): Promise<SkillsSnapshot>;
  diagnosticsUpdateMs(): number | undefined;
  serversView(): ReturnType<ToolsFeature['view']['snapshot']>;
}

/**
 * Builds every feature around the one context and hands each disposable to it. Loaded by the
 * composition root (extension.ts) right after activation, or at once when a command needs it,
 * so that activation itself does not pay for evaluating the core (zod schemas, parsers). No I/O
 * on this synchronous path: the checks run from timers.
 */
export function startFeatures(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): RunningFeatures {
  const ctx = new Ctx(context, log);
  const { config } = ctx;
  const docsUri = problemLinks(context.extension.packageJSON);
  const diagnostics = ctx.push(new DiagnosticsOwner(config.onDidChange));
  const mcp = ctx.push(new McpJsonCheck(diagnostics, (folder) => config.folder(folder).analyzeOptions, () => ctx.ports(), docsUri, log));
  const lsp = new LspSettingsCheck(diagnostics, userSettingsUri(context.globalStorageUri), docsUri, log);
  const toolChoice = new ToolChoiceCheck(diagnostics, userSettingsUri(context.globalStorageUri), docsUri, log);
  const plans = ctx.push(new FolderPlans(ctx, mcp));
  const staleSettings = ctx.push(new StaleSettingsCheck(diagnostics, plans, ctx, docsUri));
  const status = ctx.push(new DeclarationStatus(mcp, ctx, plans));
  const tools = ctx.push(new ToolsFeature(mcp, ctx, plans, docsUri));

  let disposed = false;
  let skills: Promise<SkillsPart> | undefined;
  const skillsPart = (): Promise<SkillsPart> => skills ??= Promise.resolve().then(() => {
    const part = createSkillsPart(diagnostics, ctx, docsUri);
    if (disposed) part.dispose();
    else {
      diagnostics.add(part.roots);
      // A SKILL.md change reaches the status item and the view through the folders' plans.
      ctx.push(part.roots.onDidRediscover(() => plans.drop()));
    }
    return part;
  });
  ctx.push({
    dispose: () => {
      disposed = true;
      void skills?.then((part) => part.dispose(), () => undefined);
    },
  });

  let importFlow: Promise<ImportFlow> | undefined;
  const features: Features = {
    ctx, diagnostics, mcp, lsp, status, plans, tools,
    exporter: new Exporter(ctx),
    skills: skillsPart,
    importFlow: () => importFlow ??= Promise.resolve().then(() => ctx.push(new ImportFlow(ctx))),
  };
  const commands = new Commands(features);
  const table = commandTable(features, commands);

  ctx.push(vscode.workspace.onDidSaveTextDocument((doc) => commands.exportOnSave(doc)));
  ctx.push(vscode.languages.registerCodeActionsProvider(MCP_SOURCES_SELECTOR, new McpCodeActions(mcp, (folder) => config.folder(folder).analyzeOptions), { providedCodeActionKinds: McpCodeActions.kinds }));
  ctx.push(vscode.languages.registerCodeActionsProvider(MCP_SOURCES_SELECTOR, new PortableMoveCodeActions(), { providedCodeActionKinds: PortableMoveCodeActions.kinds }));
  ctx.push(vscode.languages.registerCodeActionsProvider(TOOL_CHOICE_FILES, new ToolChoiceCodeActions(), { providedCodeActionKinds: ToolChoiceCodeActions.kinds }));
  ctx.push(vscode.languages.registerCodeActionsProvider(TOOL_CHOICE_FILES, new StaleSettingsCodeActions(), { providedCodeActionKinds: StaleSettingsCodeActions.kinds }));
  ctx.push(vscode.languages.registerCodeActionsProvider(DECLARATION_IGNORE_SELECTOR, new DeclarationIgnoreCodeActions(), { providedCodeActionKinds: DeclarationIgnoreCodeActions.kinds }));
  ctx.push(config.onDidChange((changed) => {
    const { trustMode } = config.globalSettings();
    log.info(`settings changed (${Object.entries(changed).filter(([k, v]) => v && k !== 'any').map(([k]) => k).join(', ')}); trust mode ${trustMode}`);
    // A change of the setting writes the machine's mode; another DSH home keeps its own (ctx.trustMode()).
    if (changed.home) ctx.watchHostStore();
    if (changed.trustMode || changed.home) void ctx.trustMode().catch((error) => log.error('writing the trust mode to the host store failed', error));
    if (changed.tools) void commands.exportNarrowedToolChoices().catch((error) => log.error('exporting a narrowed dsh.tools failed', error));
  }));

  diagnostics.add(mcp);
  diagnostics.add(lsp);
  diagnostics.add(toolChoice);
  diagnostics.add(staleSettings);
  // The skills part starts from a timer: loading it (YAML) stays off this path.
  // The trust mode is read (and the setting brought in line with the machine's) from the same timer.
  const start = setTimeout(() => {
    void skillsPart().catch((error) => log.error('loading the skills part failed', error));
    ctx.watchHostStore();
    void ctx.trustMode({ readOnly: true }).catch((error) => log.error('reading the trust mode failed', error));
  }, 0);
  ctx.push({ dispose: () => clearTimeout(start) });

  return {
    run: (id, args) => runCommand(ctx, table, id, args),
    status: () => status.snapshot(),
    skillsStatus: async () => (await skillsPart()).roots.snapshot(),
    diagnosticsUpdateMs: () => mcp.documentUpdateMs(),
    serversView: () => tools.view.snapshot(),
  };
}
