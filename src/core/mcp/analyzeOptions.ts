import { DSH_DEFAULTS, type Reconnect } from '../declaration/declarationModel';
import { check02Rules } from './dshRow';
import type { VariableContext } from './variables';

export interface Limits {
  maxServers: number;
  maxStringBytes: number;
}
export const DEFAULT_LIMITS: Limits = { maxServers: 512, maxStringBytes: 32 * 1024 };

export interface ExportOptions {
  toolCallTimeoutMs?: number;
  failOnStartupError?: boolean;
  reconnect?: Partial<Reconnect>;
}

/**
 * The export options as DSH 0.2 will check them at load (contract section 1), through the same
 * rules as a whole row; the offending option names, empty when they are fine. Settings are
 * validated before an export.
 */
export function invalidExportOptions(options: ExportOptions): string[] {
  const row = {
    transport: 'stdio', serverName: 'options', command: 'options',
    toolCallTimeoutMs: options.toolCallTimeoutMs ?? DSH_DEFAULTS.toolCallTimeoutMs,
    failOnStartupError: options.failOnStartupError ?? DSH_DEFAULTS.failOnStartupError,
    reconnect: { ...DSH_DEFAULTS.reconnect, ...options.reconnect },
  };
  return [...new Set(check02Rules(row).map((violation) => violation.split('.')[0]))];
}

export interface AnalyzeOptions extends VariableContext, ExportOptions {
  limits?: Partial<Limits>;
  /**
   * The policy settings beyond their effective values (`resolveConfig`): the value the
   * organization's policy itself sets, when the face can tell, and each settings level's value
   * (see core/policy/editorPolicy).
   */
  policySettings?: { policy?: (key: string) => unknown; layers?: (key: string) => readonly unknown[] };
  /** VS Code's policy file where the face read it (Linux), pinned: a change makes the declaration stale. */
  vscodePolicyFile?: { path: string; sha256: string | null };
  /** The multi-root workspace file that holds the folder (absolute): its `settings.mcp` servers are exported too. */
  codeWorkspaceFile?: string;
}
