/**
 * Settings files (a settings.json, or a .code-workspace's `settings`): from a setting's JSON path
 * to the exact node, and setting problems placed there. Pure.
 */
import { parseJsonc, properties, propertyValue, type Node } from '../json/jsonTree';
import type { Problem, RelatedInformation, Severity } from '../problems/problems';
import { LineIndex, type Range } from '../json/text';

/** Keys and array indices from the top of a settings object: `['dsh.lsp.servers', 'ts', 'extensions', '.d.ts']`. */
export type JsonPath = ReadonlyArray<string | number>;

/** Which part of the property at a path a problem points at. */
export type JsonTarget = 'key' | 'value';

/** A problem in a setting value, located by JSON path; {@link placeSettingProblems} turns it into a {@link Problem}. */
export interface SettingProblem<Code extends string = string> {
  code: Code;
  severity: Severity;
  message: string;
  args: Record<string, string | number>;
  path: JsonPath;
  target: JsonTarget;
  /** The provider id the problem belongs to, if any. */
  server?: string;
  related?: Array<{ path: JsonPath; target: JsonTarget; message: string }>;
}

/** `settings`: a settings.json (user or `.vscode/settings.json`); `code-workspace`: settings under `settings`. */
export type SettingsFileKind = 'settings' | 'code-workspace';

/** The settings object of a settings text: the root of a settings.json, the top-level `settings` of a .code-workspace. */
export function settingsObject(text: string, kind: SettingsFileKind): Node | undefined {
  const { root } = parseJsonc(text);
  return kind === 'code-workspace' ? propertyValue(root, 'settings') : root;
}

/**
 * The range of the node at `path` in a settings text, or of its nearest existing ancestor when the
 * path does not exist there. `path[0]` is the dotted setting id, a top-level key of settings.json,
 * or a key of the top-level `settings` object of a .code-workspace. With several properties of one
 * key, the last one counts (as VS Code reads it). `undefined` when the setting is not in the text.
 */
export function settingRange(text: string, kind: SettingsFileKind, path: JsonPath, target: JsonTarget = 'value'): Range | undefined {
  const container = settingsObject(text, kind);
  const keys = settingKeys(container, String(path[0]));
  const node = keys ? settingNode(container, [...keys, ...path.slice(1)], target) : undefined;
  return node ? new LineIndex(text).rangeAt(node.offset, node.length) : undefined;
}

/**
 * The keys that hold a setting in a settings object, as VS Code reads it: a top-level key is a
 * dotted path (`"dsh.tools"`), and an object below it is nested (`"dsh": {"tools": ...}`), so
 * `['dsh.tools']` or `['dsh', 'tools']`. The last top-level key that holds it counts.
 */
function settingKeys(container: Node | undefined, settingId: string): string[] | undefined {
  const segments = settingId.split('.');
  let found: string[] | undefined;
  for (const p of container?.type === 'object' ? properties(container) : []) {
    const top = p.key.split('.');
    if (top.length > segments.length || top.some((segment, i) => segment !== segments[i])) continue;
    const nested = segments.slice(top.length);
    let node = p.valueNode;
    for (const key of nested) node = node?.type === 'object' ? lastProperty(node, key)?.valueNode : undefined;
    if (node) found = [p.key, ...nested];
  }
  return found;
}

/** The value node of a setting in a settings text (the last property that holds it), or undefined when it is not there. */
export function settingValueNode(text: string, kind: SettingsFileKind, settingId: string): Node | undefined {
  const container = settingsObject(text, kind);
  const keys = settingKeys(container, settingId);
  return keys ? settingNode(container, keys, 'value') : undefined;
}

/**
 * The path from the file's root to the node at `path` (`path[0]` the dotted setting id), as the
 * file writes it: under `settings` in a .code-workspace, the setting's keys nested or dotted.
 * `undefined` when the setting is not in the text.
 */
export function settingPathInFile(text: string, kind: SettingsFileKind, path: JsonPath): JsonPath | undefined {
  const keys = settingKeys(settingsObject(text, kind), String(path[0]));
  return keys ? [...(kind === 'code-workspace' ? ['settings'] : []), ...keys, ...path.slice(1)] : undefined;
}

function lastProperty(node: Node | undefined, key: string | number): { keyNode: Node; valueNode: Node | undefined } | undefined {
  if (!node) return undefined;
  if (typeof key === 'number') {
    const child = node.type === 'array' ? node.children?.[key] : undefined;
    return child ? { keyNode: child, valueNode: child } : undefined;
  }
  let found: { keyNode: Node; valueNode: Node | undefined } | undefined;
  for (const p of properties(node)) if (p.key === key) found = { keyNode: p.keyNode, valueNode: p.valueNode };
  return found;
}

function settingNode(container: Node | undefined, path: JsonPath, target: JsonTarget): Node | undefined {
  let current = container;
  let best: Node | undefined;
  for (let i = 0; i < path.length; i++) {
    const found = lastProperty(current, path[i]);
    if (!found) return best;
    const last = i === path.length - 1;
    if (last) return target === 'key' ? found.keyNode : (found.valueNode ?? found.keyNode);
    best = found.keyNode;
    current = found.valueNode;
  }
  return best;
}

/** Where one settings file is: the caller decides which file defines which path (VS Code's `inspect`). */
export interface SettingsSource {
  /** As `Problem.file`: workspace-relative when inside the folder, else absolute. */
  file: string;
  text: string;
  kind: SettingsFileKind;
}

/**
 * Turns setting problems into placed problems. `locate` answers which settings file defines a path
 * (VS Code merges an object setting across user, workspace and folder settings, so different
 * entries can live in different files). When `locate` knows no file for a path, the file that
 * defines the setting itself (`locate([path[0]])`) is used; when there is none either, the
 * problem is left out.
 */
export function placeSettingProblems(problems: readonly SettingProblem[], locate: (path: JsonPath) => SettingsSource | undefined): Problem[] {
  const out: Problem[] = [];
  const place = (p: JsonPath, target: JsonTarget): { file: string; range: Range } | undefined => {
    const source = locate(p) ?? locate(p.slice(0, 1));
    if (!source) return undefined;
    const range = settingRange(source.text, source.kind, p, target);
    return range ? { file: source.file, range } : undefined;
  };
  for (const p of problems) {
    const at = place(p.path, p.target);
    if (!at) continue;
    const placed: Problem = { code: p.code, severity: p.severity, message: p.message, args: p.args, file: at.file, range: at.range };
    if (p.server !== undefined) placed.server = p.server;
    const related: RelatedInformation[] = [];
    for (const r of p.related ?? []) {
      const where = place(r.path, r.target);
      if (where) related.push({ ...where, message: r.message });
    }
    if (related.length) placed.related = related;
    out.push(placed);
  }
  return out;
}
