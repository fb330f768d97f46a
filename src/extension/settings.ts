import * as os from 'node:os';
import * as vscode from 'vscode';
import * as z from 'zod/mini';
import type { AnalyzeOptions } from '../core/analyze';
import { DSH_DEFAULTS, type Reconnect } from '../core/declarationModel';
import { resolveDshHome, TRUST_MODES, type TrustMode } from '../core/hostStore';

/**
 * Settings, read through one validated reader: a value of the wrong shape falls back to its
 * default (and is reported once in the log), so nothing downstream sees an unchecked cast.
 */

const int = z.int().check(z.minimum(1), z.maximum(2147483647));
const SCHEMAS = {
  trustMode: z.enum(TRUST_MODES),
  auto: z.enum(['off', 'onSave']),
  toolCallTimeoutMs: int,
  failOnStartupError: z.boolean(),
  reconnect: z.partial(z.strictObject({ enabled: z.boolean(), initialDelayMs: int, maxDelayMs: int, maxAttempts: int })),
  home: z.string(),
};

export interface FolderSettings {
  auto: 'off' | 'onSave';
  toolCallTimeoutMs: number;
  failOnStartupError: boolean;
  reconnect: Reconnect;
}

export interface GlobalSettings {
  trustMode: TrustMode;
  dshHome: string;
}

export type InvalidSetting = (key: string) => void;

function read<T>(config: vscode.WorkspaceConfiguration, key: string, schema: z.ZodMiniType<T>, fallback: T, invalid: InvalidSetting): T {
  const value = config.get<unknown>(key);
  if (value === undefined || value === null) return fallback;
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  invalid(`dsh.${key}`);
  return fallback;
}

export function readGlobalSettings(invalid: InvalidSetting): GlobalSettings {
  const config = vscode.workspace.getConfiguration('dsh');
  const home = read(config, 'home', SCHEMAS.home, '', invalid);
  return { trustMode: read(config, 'trustMode', SCHEMAS.trustMode, 'ask', invalid), dshHome: resolveDshHome(home) };
}

export function readFolderSettings(folder: vscode.WorkspaceFolder, invalid: InvalidSetting): FolderSettings {
  const config = vscode.workspace.getConfiguration('dsh.export', folder.uri);
  return {
    auto: read(config, 'auto', SCHEMAS.auto, 'off', invalid),
    toolCallTimeoutMs: read(config, 'toolCallTimeoutMs', SCHEMAS.toolCallTimeoutMs, DSH_DEFAULTS.toolCallTimeoutMs, invalid),
    failOnStartupError: read(config, 'failOnStartupError', SCHEMAS.failOnStartupError, DSH_DEFAULTS.failOnStartupError, invalid),
    reconnect: { ...DSH_DEFAULTS.reconnect, ...read(config, 'reconnect', SCHEMAS.reconnect, {}, invalid) },
  };
}

/** What the core needs to analyze or export a folder. */
export function analyzeOptions(folder: vscode.WorkspaceFolder, settings: FolderSettings): AnalyzeOptions {
  return {
    folder: folder.uri.fsPath,
    folderName: folder.name,
    userHome: os.homedir(),
    resolveConfig: (key) => vscode.workspace.getConfiguration(undefined, folder.uri).get(key),
    toolCallTimeoutMs: settings.toolCallTimeoutMs,
    failOnStartupError: settings.failOnStartupError,
    reconnect: settings.reconnect,
  };
}

export { changedConcerns } from './logic';
