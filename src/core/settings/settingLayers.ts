/**
 * Settings layers: VS Code merges an object setting (like `dsh.lsp.servers`) across default, user,
 * workspace and folder settings. Pure; no editor. Kept apart from ./sections so the editor can load
 * it without the skills code (and its YAML parser).
 */
import { nodeValue } from '../json/jsonTree';
import { settingValueNode, type JsonPath, type SettingsFileKind, type SettingsSource } from './settingsFile';
import { isRecord } from '../json/jsonValue';

/** One layer's value of a setting (`undefined`: not set in that layer). */
export interface SettingLayerValue {
  level: 'default' | 'user' | 'workspace' | 'folder';
  value: unknown;
  /** The settings file that holds this layer, with its text, when the face can read it (to place problems). */
  source?: SettingsSource;
}

function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function mergeInto(target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(source)) {
    const existing = Object.hasOwn(target, key) ? target[key] : undefined;
    if (isRecord(existing) && isRecord(value)) mergeInto(existing, value);
    else setOwn(target, key, structuredClone(value));
  }
}

/**
 * The effective value of an object setting from its layers, lowest priority first (default,
 * user, workspace, folder), as VS Code computes it: objects merge key by key, recursively;
 * anything else (arrays included) replaces. `undefined` layers are skipped.
 */
export function mergeSettingLayers(layers: readonly unknown[]): unknown {
  let result: unknown;
  for (const layer of layers) {
    if (layer === undefined) continue;
    if (isRecord(result) && isRecord(layer)) mergeInto(result, layer);
    else if (isRecord(layer)) {
      const fresh: Record<string, unknown> = {};
      mergeInto(fresh, layer);
      result = fresh;
    } else result = structuredClone(layer);
  }
  return result;
}

/**
 * The value of a setting as written in a settings text (the last property with that key, as VS
 * Code reads it; under `settings` in a .code-workspace); `undefined` when it is not there. For
 * Restricted Mode, where VS Code hides a restricted setting's workspace value from extensions.
 */
export function settingValueInText(text: string, kind: SettingsFileKind, settingId: string): unknown {
  const node = settingValueNode(text, kind, settingId);
  return node ? nodeValue(node) : undefined;
}

/** Whether `value` (the setting's value in one layer) has the node at `path` (below the setting id). */
function hasPath(value: unknown, path: JsonPath): boolean {
  let current = value;
  for (const key of path) {
    if (typeof key === 'number') {
      if (!Array.isArray(current) || key >= current.length) return false;
      current = current[key];
    } else {
      if (!isRecord(current) || !Object.hasOwn(current, key)) return false;
      current = current[key];
    }
  }
  return true;
}

/**
 * Which layer defines the node at `path` (`[settingId, ...]`): the highest-priority layer whose
 * value has it. `layers` are lowest priority first, as for {@link mergeSettingLayers}; the answer
 * is an index into them, or `undefined`. Where a higher layer replaces a non-object with an
 * object (or the reverse), the lower layer's node is not part of the effective value any more;
 * this picks the highest layer, which is the one that counts.
 */
export function definingLayer(layers: readonly unknown[], path: JsonPath): number | undefined {
  const below = path.slice(1);
  for (let i = layers.length - 1; i >= 0; i--) {
    if (layers[i] !== undefined && hasPath(layers[i], below)) return i;
  }
  return undefined;
}
