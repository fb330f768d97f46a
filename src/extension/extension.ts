import * as vscode from 'vscode';
import { COMMAND, COMMAND_IDS } from './commandIds';
import type { RunningFeatures } from './features';
import { showErrorWithLogs } from './log';
import { visibleLog } from './visible';
import { l10n } from './l10nLookup';

// What dist/features.js takes from this file instead of bundling them again (scripts/build.mjs).
export * from './commandIds';
export * from './visible';
export * from '../core/json/visibleText';
export { l10n } from './l10nLookup';
export { showErrorWithLogs } from './log';

/** What activate() returns: timings and read-only state for tests; nothing secret. */
export interface ExtensionApi {
  /** Time spent in activate() itself. */
  readonly activationMs: number;
  /** Time it took to load and start the features (after activation, or on the first command), once done. */
  startupMs(): number | undefined;
  status(): ReturnType<RunningFeatures['status']> | { text: string; detail: string | undefined };
  skillsStatus(): unknown;
  /** Milliseconds of the last mcp.json diagnostics update from an edited document (debounce excluded). */
  diagnosticsUpdateMs(): number | undefined;
  /** What the "MCP Servers for DSH" view shows (rendered items), once the features run. */
  serversView(): Promise<unknown>;
}

/**
 * Composition root. activate() creates the log and registers every command once, each running
 * through the command table's one guard; then it returns: no I/O, and no evaluation of the core
 * on its synchronous path. The features (features.ts, bundled as dist/features.js and required
 * only then) start from a timer right after activation, or at once when a command is invoked
 * first. A failure to start is logged with its stack and shown once.
 */
export function activate(context: vscode.ExtensionContext): ExtensionApi {
  const started = performance.now();
  const channel = vscode.window.createOutputChannel('DSH Bridge', { log: true });
  context.subscriptions.push(channel);
  const log = visibleLog(channel);

  let features: RunningFeatures | undefined;
  let failed = false;
  let startupMs: number | undefined;
  const load = (): RunningFeatures | undefined => {
    if (features || failed) return features;
    const t = performance.now();
    try {
      // A separate file (scripts/build.mjs), loaded only now.
      const { startFeatures } = require('./features') as typeof import('./features');
      features = startFeatures(context, log);
      startupMs = performance.now() - t;
      log.info(`started in ${startupMs.toFixed(1)} ms (Restricted Mode: ${!vscode.workspace.isTrusted})`);
    } catch (error) {
      failed = true;
      log.error('starting DSH Bridge failed', error);
      void showErrorWithLogs(log, l10n.t('DSH Bridge failed to start. The log has the details.'));
    }
    return features;
  };

  for (const id of COMMAND_IDS) {
    context.subscriptions.push(vscode.commands.registerCommand(id, (...args: unknown[]) => {
      const running = load();
      if (running) return running.run(id, args);
      // The features did not start: the log still opens.
      if (id === COMMAND.showLogs) log.show();
      return undefined;
    }));
  }
  const timer = setTimeout(load, 0);
  context.subscriptions.push({ dispose: () => clearTimeout(timer) });

  const activationMs = performance.now() - started;
  log.info(`activated in ${activationMs.toFixed(1)} ms`);
  return {
    activationMs,
    startupMs: () => startupMs,
    status: () => load()?.status() ?? { text: '', detail: undefined },
    skillsStatus: () => load()?.skillsStatus(),
    diagnosticsUpdateMs: () => features?.diagnosticsUpdateMs(),
    serversView: async () => load()?.serversView(),
  };
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
