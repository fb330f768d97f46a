/**
 * Language servers for DSH from the editor's `dsh.lsp.servers` setting (contract section 4).
 * The setting maps a provider id to `{command, args, env, extensions, initializationOptions,
 * configuration, maxMessageBytes, maxStderrBytes, maxDocumentBytes, shutdownTimeoutMs,
 * killGraceMs}`; DSH runs them all from ONE `@deepseek-ai/dsh-lsp-stdio` row (lspRow.ts) whose
 * `config.servers` holds the same entries with `extensions` renamed `extensionToLanguage`.
 */

/** The setting id as written at the top level of settings.json (or under `settings` in a .code-workspace). */
export const LSP_SETTING = 'dsh.lsp.servers';
/** Largest delay Node schedules as written (2^31 - 1 ms); DSH refuses larger timers. */
export const MAX_TIMER_DELAY_MS = 2_147_483_647;
/** dsh-lsp's well-formed normalized extension: a dot and one segment without `.`, `/` or `\`. */
export const LSP_EXTENSION_PATTERN = /^\.[^./\\]+$/;

export const LSP_DEFAULT_LIMITS = {
  maxMessageBytes: 16_000_000,
  maxStderrBytes: 1_000_000,
  maxDocumentBytes: 4_000_000,
  shutdownTimeoutMs: 5_000,
  killGraceMs: 2_000,
} as const;

/** One entry of the dsh-lsp-stdio row's `config.servers`, every default filled in. */
export interface LspServerConfig {
  command: string;
  args: string[];
  env: Record<string, string>;
  /** Keys normalized: lowercase with a leading dot. */
  extensionToLanguage: Record<string, string>;
  initializationOptions: unknown;
  configuration: unknown;
  maxMessageBytes: number;
  maxStderrBytes: number;
  maxDocumentBytes: number;
  shutdownTimeoutMs: number;
  killGraceMs: number;
}
