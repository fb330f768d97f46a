import * as vscode from 'vscode';
import { HostStore } from '../core/node/hostStore';
import { McpCodeActions } from './codeActions';
import { BridgeCommands } from './commands';
import { McpDiagnostics } from './diagnostics';
import { registerLspAndSkills } from './lspAndSkills';
import { MCP_SOURCES_SELECTOR } from './mcpFiles';
import { EXPLAIN_COMMAND, explainProblem, problemLink } from './problemDocs';
import { InputSecrets } from './secrets';
import { analyzeOptions, readGlobalSettings } from './settings';
import { changedConcerns } from './decisions';
import { DeclarationStatus } from './statusItem';
import { ToolsFeature } from './toolsView';

/** The running features, for the activation API (read-only, nothing secret). */
export interface Bridge {
  status(): ReturnType<DeclarationStatus['snapshot']>;
  skillsStatus(): unknown;
  diagnosticsUpdateMs(): number | undefined;
  serversView(): ReturnType<ToolsFeature['view']['snapshot']>;
}

/**
 * Builds every feature and hands each disposable to the context. Loaded by the composition
 * root (extension.ts) right after activation, or at once when a command needs it, so that
 * activation itself does not pay for evaluating the core (zod schemas, parsers).
 */
export function startBridge(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): Bridge {
  const reported = new Set<string>();
  const invalidSetting = (key: string) => {
    if (reported.has(key)) return;
    reported.add(key);
    log.warn(`setting ${key} has an invalid value; its default is used`);
  };
  const docsUri = problemLink;
  const options = (folder: vscode.WorkspaceFolder) => analyzeOptions(folder, invalidSetting);
  const diagnostics = new McpDiagnostics(options, docsUri, log);
  const status = new DeclarationStatus(diagnostics, () => readGlobalSettings(invalidSetting), log);
  const lspAndSkills = registerLspAndSkills(context, { log, dshHome: () => readGlobalSettings(invalidSetting).dshHome, invalidSetting });
  const tools = new ToolsFeature(diagnostics, () => readGlobalSettings(invalidSetting), log, invalidSetting);
  const commands = new BridgeCommands(new InputSecrets(context.secrets), diagnostics, status, log, invalidSetting, (folder) => lspAndSkills.skillGate(folder));
  context.subscriptions.push(
    diagnostics,
    status,
    tools,
    commands,
    lspAndSkills,
    vscode.commands.registerCommand(EXPLAIN_COMMAND, (code: unknown) => explainProblem(context.extensionUri, code)),
    vscode.languages.registerCodeActionsProvider(MCP_SOURCES_SELECTOR, new McpCodeActions(options), { providedCodeActionKinds: McpCodeActions.kinds }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      const changed = changedConcerns((section) => e.affectsConfiguration(section));
      if (!changed.any) return;
      reported.clear();
      const settings = readGlobalSettings(invalidSetting);
      log.info(`settings changed (${Object.entries(changed).filter(([k, v]) => v && k !== 'any').map(([k]) => k).join(', ')}); trust mode ${settings.trustMode}`);
      if (changed.trustMode || changed.home) {
        void new HostStore(settings.dshHome).setTrustMode(settings.trustMode).catch((error) => log.error('writing the trust mode to the host store failed', error));
      }
      diagnostics.refreshAll();
      status.refresh();
    }),
  );
  diagnostics.refreshAll();
  return { status: () => status.snapshot(), skillsStatus: () => lspAndSkills.skillsStatus(), diagnosticsUpdateMs: () => diagnostics.documentUpdateMs(), serversView: () => tools.view.snapshot() };
}
