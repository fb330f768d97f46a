/**
 * The settings an export reads for one workspace folder, as one typed contract for every face.
 * A face passes a {@link SettingsView} (what it can see); the core validates each value here, and
 * a value of the wrong shape falls back to its default (reported once through `invalid`).
 */
import * as z from 'zod/mini';
import type { AnalyzeOptions } from '../mcp/analyzeOptions';
import { DSH_DEFAULTS, type Reconnect } from '../declaration/declarationModel';
import { nodeValue } from '../json/jsonTree';
import { settingsObject, type SettingsFileKind } from './settingsFile';
import { mergeSettingLayers, type SettingLayerValue } from './settingLayers';
import { isRecord } from '../json/jsonValue';

/** The effective value of a setting for one folder (the editor: `getConfiguration(undefined, folderUri).get(key)`). */
export type SettingsView = (key: string) => unknown;

export type InvalidSetting = (key: string) => void;

/** `dsh.trustMode`: what DSH may mount from a workspace (the host store keeps the user's choice). */
export const TRUST_MODES = ['ask', 'pinned', 'deny'] as const;
export type TrustMode = (typeof TRUST_MODES)[number];

export const SETTING = {
  trustMode: 'dsh.trustMode',
  home: 'dsh.home',
  auto: 'dsh.export.auto',
  toolCallTimeoutMs: 'dsh.export.toolCallTimeoutMs',
  failOnStartupError: 'dsh.export.failOnStartupError',
  reconnect: 'dsh.export.reconnect',
  lspServers: 'dsh.lsp.servers',
  customSkillRoots: 'dsh.skills.customRoots',
  tools: 'dsh.tools',
} as const;

/**
 * Settings whose scope is `application` or `machine` in package.json: VS Code ignores them in
 * workspace and folder settings, so a repository cannot set them.
 */
const USER_ONLY_SETTINGS: ReadonlySet<string> = new Set([
  SETTING.trustMode, SETTING.home, SETTING.customSkillRoots,
  // VS Code's MCP server policy settings (application scope): a repository can neither widen nor set them.
  'chat.mcp.allowedServers', 'chat.mcp.deniedServers', 'chat.mcp.allowManagedServersOnly',
]);

/**
 * Settings of VS Code's `window` scope the bridge reads: a folder of a multi-root workspace cannot
 * set them (VS Code refuses to write them there and ignores them), only user and workspace settings can.
 */
const WINDOW_SCOPED_SETTINGS: ReadonlySet<string> = new Set(['chat.mcp.access', 'chat.mcp.collisionBehavior']);

const timerMs = z.int().check(z.minimum(1), z.maximum(2147483647));
export const SETTING_SCHEMAS = {
  auto: z.enum(['off', 'onSave']),
  toolCallTimeoutMs: timerMs,
  failOnStartupError: z.boolean(),
  reconnect: z.partial(z.strictObject({ enabled: z.boolean(), initialDelayMs: timerMs, maxDelayMs: timerMs, maxAttempts: timerMs })),
  home: z.string(),
  customSkillRoots: z.array(z.string()),
};

/** One setting through its schema: unset gives `fallback`; a wrong shape gives `fallback` and is reported. */
export function readSetting<T>(view: SettingsView, key: string, schema: z.ZodMiniType<T>, fallback: T, invalid: InvalidSetting): T {
  const value = view(key);
  if (value === undefined || value === null) return fallback;
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  invalid(key);
  return fallback;
}

export interface ExportSettings {
  toolCallTimeoutMs: number;
  failOnStartupError: boolean;
  reconnect: Reconnect;
}

/** `dsh.export.*` as every row of the declaration carries them. */
export function readExportSettings(view: SettingsView, invalid: InvalidSetting): ExportSettings {
  return {
    toolCallTimeoutMs: readSetting(view, SETTING.toolCallTimeoutMs, SETTING_SCHEMAS.toolCallTimeoutMs, DSH_DEFAULTS.toolCallTimeoutMs, invalid),
    failOnStartupError: readSetting(view, SETTING.failOnStartupError, SETTING_SCHEMAS.failOnStartupError, DSH_DEFAULTS.failOnStartupError, invalid),
    reconnect: { ...DSH_DEFAULTS.reconnect, ...readSetting(view, SETTING.reconnect, SETTING_SCHEMAS.reconnect, {}, invalid) },
  };
}

/** `dsh.skills.customRoots` without blank entries. */
export function readCustomSkillRoots(view: SettingsView, invalid: InvalidSetting): string[] {
  return readSetting(view, SETTING.customSkillRoots, SETTING_SCHEMAS.customSkillRoots, [], invalid).filter((p) => p.trim() !== '');
}

/** A workspace folder and its settings, as a face sees them. */
export interface FolderIdentity {
  /** Absolute path of the workspace folder. */
  folder: string;
  /** The folder's name in the workspace (`${workspaceFolder:name}`). */
  folderName: string;
  userHome: string;
  /** The folder's settings as the face sees them. */
  settings: SettingsView;
  invalidSetting?: InvalidSetting;
  /**
   * The values of a setting in each layer, lowest priority first (the editor: `inspect`; the CLI:
   * its settings files). For settings that must not be merged the way VS Code merges, like
   * `dsh.tools` (every layer only narrows). Without it, {@link settingLayerValues} falls back to the
   * merged value as one layer.
   */
  settingLayers?: (key: string) => SettingLayerValue[];
  /** The `.code-workspace` file of a multi-root workspace that holds the folder (absolute), if any. */
  codeWorkspaceFile?: string;
  /** The policy settings beyond `settings` (the policy's own value, each level's), see core/policy/editorPolicy. */
  policySettings?: AnalyzeOptions['policySettings'];
  /** VS Code's policy file as the face read it, pinned into the declaration. */
  vscodePolicyFile?: AnalyzeOptions['vscodePolicyFile'];
  /**
   * The settings files the face reads the folder's layers from (absolute, or `.vscode/settings.json`
   * relative to the folder), pinned into the declaration (core/settings/sessionSettings). Default:
   * the folder's `.vscode/settings.json`, as the workspace layer, or the folder layer beside a `.code-workspace` file.
   */
  settingsFiles?: ReadonlyArray<{ path: string; layer: SettingsFileLayer['level'] }>;
}

/** The layers of a setting for a folder, lowest priority first (see {@link FolderIdentity.settingLayers}). */
export function settingLayerValues(identity: Pick<FolderIdentity, 'settings' | 'settingLayers'>, key: string): SettingLayerValue[] {
  return identity.settingLayers ? identity.settingLayers(key) : [{ level: 'user', value: identity.settings(key) }];
}

/** What the analysis of the folder's source needs from its settings (`${config:...}` and `dsh.export.*`). */
export function folderAnalyzeOptions(identity: FolderIdentity): AnalyzeOptions {
  return {
    folder: identity.folder,
    folderName: identity.folderName,
    userHome: identity.userHome,
    resolveConfig: identity.settings,
    ...(identity.codeWorkspaceFile ? { codeWorkspaceFile: identity.codeWorkspaceFile } : {}),
    ...(identity.policySettings ? { policySettings: identity.policySettings } : {}),
    ...(identity.vscodePolicyFile ? { vscodePolicyFile: identity.vscodePolicyFile } : {}),
    ...readExportSettings(identity.settings, identity.invalidSetting ?? (() => undefined)),
  };
}

// ---------------------------------------------------------------------------------------------
// Settings files, for a face without an editor (the CLI).

/** One settings file: user `settings.json`, a `.code-workspace` (its `settings`), or a folder's `.vscode/settings.json`. */
export interface SettingsFileLayer {
  level: 'user' | 'workspace' | 'folder';
  kind: SettingsFileKind;
  text: string;
  /** The file as problems name it (`Problem.file`: folder-relative inside the folder, else absolute); without it, nothing is placed there. */
  file?: string;
}

/** The folder's own settings file, relative to the folder. */
export const FOLDER_SETTINGS_PATH = '.vscode/settings.json';

/** One settings file of a folder's layers; `F` says where it is (a path, or a face's URI). */
export interface LayerFile<F> {
  level: SettingsFileLayer['level'];
  kind: SettingsFileLayer['kind'];
  file: F;
}

/**
 * The settings files of a folder's layers, lowest priority first, each once, as VS Code layers
 * them: the user settings file (when the face knows where it is); in a multi-root workspace its
 * `.code-workspace` file (the workspace layer, left out when the face cannot read it) and the
 * folder's `.vscode/settings.json` (the folder layer); in a single-folder workspace that file is
 * the workspace layer. Every face reads, pins and places settings by this list.
 */
export function folderSettingsFiles<F>(where: { folder: F; user?: F; codeWorkspace?: F; multiRoot?: boolean }): Array<LayerFile<F>> {
  const multiRoot = where.multiRoot ?? where.codeWorkspace !== undefined;
  const files: Array<LayerFile<F>> = [];
  if (where.user !== undefined) files.push({ level: 'user', kind: 'settings', file: where.user });
  if (multiRoot && where.codeWorkspace !== undefined) files.push({ level: 'workspace', kind: 'code-workspace', file: where.codeWorkspace });
  files.push({ level: multiRoot ? 'folder' : 'workspace', kind: 'settings', file: where.folder });
  return files;
}

/**
 * A settings object as VS Code's configuration model holds it: a dotted key (`dsh.export.auto`)
 * becomes a path in a tree, language overrides (`[json]`) are left out, and a key VS Code would
 * not honour at this level (see {@link USER_ONLY_SETTINGS}) is dropped.
 */
function valueTree(settings: Record<string, unknown>, level: SettingsFileLayer['level']): Record<string, unknown> {
  const tree: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(settings)) {
    if (key.startsWith('[')) continue;
    if (level !== 'user' && USER_ONLY_SETTINGS.has(key)) continue;
    if (level === 'folder' && WINDOW_SCOPED_SETTINGS.has(key)) continue;
    const segments = key.split('.');
    let node = tree;
    let blocked = false;
    for (const segment of segments.slice(0, -1)) {
      const next = Object.hasOwn(node, segment) ? node[segment] : undefined;
      if (next === undefined) {
        const fresh: Record<string, unknown> = {};
        Object.defineProperty(node, segment, { value: fresh, enumerable: true, writable: true, configurable: true });
        node = fresh;
      } else if (isRecord(next)) {
        node = next;
      } else {
        blocked = true; // VS Code reports the conflict and keeps the first value
        break;
      }
    }
    if (!blocked) Object.defineProperty(node, segments[segments.length - 1], { value, enumerable: true, writable: true, configurable: true });
  }
  return tree;
}

/**
 * The settings view of a folder from its settings files, lowest priority first (user, workspace,
 * folder), merged as VS Code merges them: objects key by key, anything else replaced. Defaults
 * contributed by extensions are not known here; the core's own defaults apply as in the editor.
 */
export function settingsViewFromFiles(layers: readonly SettingsFileLayer[]): SettingsView {
  return lookupIn(mergeSettingLayers(fileTrees(layers)));
}

/** Each settings file's value of a setting, lowest priority first, for {@link FolderIdentity.settingLayers}. */
export function settingLayersFromFiles(layers: readonly SettingsFileLayer[]): (key: string) => SettingLayerValue[] {
  const trees = fileTrees(layers);
  return (key) => trees.map((tree, i) => {
    const { level, file, text, kind } = layers[i];
    return { level, value: lookupIn(tree)(key), ...(file !== undefined ? { source: { file, text, kind } } : {}) };
  });
}

function fileTrees(layers: readonly SettingsFileLayer[]): Array<Record<string, unknown> | undefined> {
  return layers.map((layer) => {
    const container = settingsObject(layer.text, layer.kind);
    const value = container?.type === 'object' ? nodeValue(container) : undefined;
    return isRecord(value) ? valueTree(value, layer.level) : undefined;
  });
}

function lookupIn(tree: unknown): SettingsView {
  return (key) => {
    let current: unknown = tree;
    for (const segment of key.split('.')) {
      if (!isRecord(current) || !Object.hasOwn(current, segment)) return undefined;
      current = current[segment];
    }
    return structuredClone(current);
  };
}
