/**
 * The edit a tool's checkbox in the editor makes to one layer of `dsh.tools` (the folder's settings), decided here so the face only writes it. Pure and
 * free of `vscode` (test/unit/core/app/toolChoiceEdit.test.ts). It touches only the tool's own name in
 * that server's lists and keeps everything else of the value as written.
 */
import { isRecord } from '../json/jsonValue';

type Json = Record<string, unknown>;

export type ToolChoiceEdit =
  | { ok: true; value: Json | undefined }
  /** The layer's value is not of the shape the edit understands: it is left alone (Problems shows why). */
  | { ok: false; reason: 'invalid-setting' | 'invalid-entry' | 'invalid-list' };

/**
 * `allow: false` adds the tool to the server's `exclude`; `allow: true` removes it from there
 * and, when this layer has an `only` list, adds it to that list. An entry left with nothing
 * (an empty `exclude` and no `only`) is removed, and so is a value left empty (`undefined`: unset
 * the setting in that layer). Another layer may still leave the tool out: only that layer can
 * bring it back (every layer only narrows).
 */
export function editToolChoice(layerValue: unknown, server: string, tool: string, allow: boolean): ToolChoiceEdit {
  if (layerValue !== undefined && layerValue !== null && !isRecord(layerValue)) return { ok: false, reason: 'invalid-setting' };
  const value: Json = isRecord(layerValue) ? { ...layerValue } : {};
  const current = Object.hasOwn(value, server) ? value[server] : undefined;
  if (current !== undefined && !isRecord(current)) return { ok: false, reason: 'invalid-entry' };
  const entry: Json = { ...(current ?? {}) };
  for (const key of ['exclude', 'only']) {
    if (entry[key] !== undefined && !(Array.isArray(entry[key]) && (entry[key] as unknown[]).every((t) => typeof t === 'string'))) return { ok: false, reason: 'invalid-list' };
  }
  const exclude = ((entry.exclude as string[] | undefined) ?? []).filter((t) => t !== tool);
  if (!allow) exclude.push(tool);
  if (exclude.length) entry.exclude = exclude;
  else delete entry.exclude;
  if (allow && Array.isArray(entry.only) && !entry.only.includes(tool)) entry.only = [...(entry.only as string[]), tool];
  const empty = Object.keys(entry).length === 0;
  if (empty) delete value[server];
  else Object.defineProperty(value, server, { value: entry, enumerable: true, writable: true, configurable: true });
  return { ok: true, value: Object.keys(value).length ? value : undefined };
}
