import * as vscode from 'vscode';
import type { Bridge } from './features';

/** What activate() returns: timings and read-only state for tests; nothing secret. */
export interface BridgeApi {
  /** Time spent in activate() itself. */
  readonly activationMs: number;
  /** Time it took to load and start the features (after activation, or on the first command), once done. */
  startupMs(): number | undefined;
  status(): ReturnType<Bridge['status']> | { text: string; detail: string | undefined };
  skillsStatus(): unknown;
  /** Milliseconds of the last mcp.json diagnostics update from an edited document (debounce excluded). */
  diagnosticsUpdateMs(): number | undefined;
  /** What the "MCP Servers for DSH" view shows (rendered items), once the features run. */
  serversView(): Promise<unknown>;
}

/**
 * Composition root. activate() only creates the log and registers a forwarder for each
 * contributed command, then returns: no I/O, and no evaluation of the core on its synchronous
 * path. The features (features.ts, required lazily so the bundler defers its evaluation) start
 * from a timer right after activation, or at once when a command is invoked first; their own
 * command registrations then replace the forwarders. Failures are logged with their stack and
 * shown once.
 */
export function activate(context: vscode.ExtensionContext): BridgeApi {
  const started = performance.now();
  const log = vscode.window.createOutputChannel('DSH Bridge', { log: true });
  context.subscriptions.push(log);

  let bridge: Bridge | undefined;
  let failed = false;
  let startupMs: number | undefined;
  const forwarders: vscode.Disposable[] = [];
  const load = (): Bridge | undefined => {
    if (bridge || failed) return bridge;
    const t = performance.now();
    for (const f of forwarders.splice(0)) f.dispose();
    try {
      const { startBridge } = require('./features') as typeof import('./features');
      bridge = startBridge(context, log);
      startupMs = performance.now() - t;
      log.info(`started in ${startupMs.toFixed(1)} ms (Restricted Mode: ${!vscode.workspace.isTrusted})`);
    } catch (error) {
      failed = true;
      log.error('starting DSH Bridge failed', error);
      const showLogs = vscode.l10n.t('Show Logs');
      void vscode.window.showErrorMessage(vscode.l10n.t('DSH Bridge failed to start. The log has the details.'), showLogs).then((c) => {
        if (c === showLogs) log.show();
      });
    }
    return bridge;
  };

  const contributed = (context.extension.packageJSON as { contributes?: { commands?: Array<{ command: string }> } }).contributes?.commands ?? [];
  for (const { command } of contributed) {
    forwarders.push(vscode.commands.registerCommand(command, (...args: unknown[]) => {
      if (command === 'dsh.showLogs' && !load()) return log.show();
      load();
      return vscode.commands.executeCommand(command, ...args);
    }));
  }
  context.subscriptions.push({ dispose: () => forwarders.splice(0).forEach((f) => f.dispose()) });
  const timer = setTimeout(load, 0);
  context.subscriptions.push({ dispose: () => clearTimeout(timer) });

  const activationMs = performance.now() - started;
  log.info(`activated in ${activationMs.toFixed(1)} ms`);
  return {
    activationMs,
    startupMs: () => startupMs,
    status: () => load()?.status() ?? { text: '', detail: undefined },
    skillsStatus: () => load()?.skillsStatus(),
    diagnosticsUpdateMs: () => bridge?.diagnosticsUpdateMs(),
    serversView: async () => load()?.serversView(),
  };
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
