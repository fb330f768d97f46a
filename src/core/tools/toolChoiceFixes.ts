/**
 * Quick fixes for the problems of `dsh.tools` in one settings file. Pure: the file's text and a
 * placed problem in, comment-preserving edits out. A fix is offered only where the intent is
 * plain and the result never lets more tools through than the user meant:
 * - an unknown option (ignored today): remove it;
 * - an item of `only` that is not a tool name (ignored today): remove it;
 * - a single tool name where a list belongs (`"exclude": "delete_repo"`): make it a list of it.
 * A wrong-shaped entry or setting gets no fix: removing it would allow every tool.
 */
import { findNodeAtLocation, type Node } from 'jsonc-parser';
import { commaBetween, parseJsonc } from '../json/jsonTree';
import { sameRange } from '../json/text';
import { settingPathInFile, settingRange, type SettingsFileKind } from '../settings/settingsFile';
import type { QuickFix, TextEdit } from '../mcp/quickFixes';
import type { Problem } from '../problems/problems';
import { settingValueInText } from '../settings/settingLayers';
import { analyzeToolChoice, TOOLS_SETTING, type ToolChoiceProblem } from './toolChoice';

export const TOOL_CHOICE_FIXABLE_CODES: ReadonlySet<string> = new Set(['tools-unknown-key', 'tools-invalid-name', 'tools-invalid-list']);

/** The problem of this text's own `dsh.tools` value at the problem's code and range, with its JSON path. */
function problemAt(text: string, kind: SettingsFileKind, problem: Pick<Problem, 'code' | 'range'>): ToolChoiceProblem | undefined {
  const value = settingValueInText(text, kind, TOOLS_SETTING);
  return analyzeToolChoice([{ level: 'user', value }]).problems.find((p) => {
    if (p.code !== problem.code) return false;
    const range = settingRange(text, kind, p.path, p.target);
    return range !== undefined && sameRange(range, problem.range);
  });
}

/** The value at a path below the setting (`path[0]` is the setting id). */
function valueAt(text: string, kind: SettingsFileKind, path: readonly (string | number)[]): unknown {
  let current = settingValueInText(text, kind, TOOLS_SETTING);
  for (const key of path.slice(1)) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

/**
 * Removes the member at `path` (a property or an array item) with one comma and no comment:
 * jsonc-parser's modify() reformats around a removal and can leave broken JSONC behind (an item
 * after a trailing comma), and it swallows a comment before the member.
 */
function removeMember(text: string, path: (string | number)[]): TextEdit[] {
  const { root } = parseJsonc(text);
  const container = root ? findNodeAtLocation(root, path.slice(0, -1)) : undefined;
  const last = path[path.length - 1];
  const members: Node[] = container?.children ?? [];
  const index = container?.type === 'array'
    ? (typeof last === 'number' && last < members.length ? last : -1)
    : members.findLastIndex((m) => m.children?.[0]?.value === last);
  if (!container || index < 0) return [];
  const member = members[index];
  const end = member.offset + member.length;
  const next = members[index + 1];
  const after = commaBetween(text, end, next ? next.offset : container.offset + container.length - 1);
  if (after >= 0) {
    // The member, its comma and the blanks up to the next one (or to the line's end).
    let stop = after + 1;
    while (text[stop] === ' ' || text[stop] === '\t') stop++;
    return [{ offset: member.offset, length: stop - member.offset, content: '' }];
  }
  const prev = members[index - 1];
  const before = prev ? commaBetween(text, prev.offset + prev.length, member.offset) : -1;
  if (before < 0) return [{ offset: member.offset, length: member.length, content: '' }];
  // The last member: the comma before it, and the blanks between, go with it.
  if (/^\s*$/.test(text.slice(before + 1, member.offset))) return [{ offset: before, length: end - before, content: '' }];
  return [{ offset: before, length: 1, content: '' }, { offset: member.offset, length: member.length, content: '' }];
}

/** The fixes for one `dsh.tools` problem of a settings file (`kind`: settings.json or a .code-workspace). */
export function toolChoiceFixes(text: string, kind: SettingsFileKind, problem: Pick<Problem, 'code' | 'range'>): QuickFix[] {
  if (!TOOL_CHOICE_FIXABLE_CODES.has(problem.code)) return [];
  const found = problemAt(text, kind, problem);
  if (!found) return [];
  const inFile = settingPathInFile(text, kind, found.path);
  if (!inFile) return [];
  const at = [...inFile];
  switch (found.code) {
    case 'tools-unknown-key': {
      const key = String(found.path[found.path.length - 1]);
      return [{ id: 'tools-remove-option', title: 'Remove "{key}"', args: { key }, edits: removeMember(text, at), isPreferred: true }];
    }
    case 'tools-invalid-name': {
      const index = Number(found.path[found.path.length - 1]) + 1;
      return [{ id: 'tools-remove-item', title: 'Remove item {index} of "only"', args: { index: String(index) }, edits: removeMember(text, at), isPreferred: true }];
    }
    case 'tools-invalid-list': {
      const name = valueAt(text, kind, found.path);
      if (typeof name !== 'string' || name.trim() === '') return [];
      const key = String(found.path[found.path.length - 1]);
      // The value's own text becomes the list, in place (modify() would spread it over new lines).
      const { root } = parseJsonc(text);
      const node = root ? findNodeAtLocation(root, at) : undefined;
      if (!node) return [];
      const raw = text.slice(node.offset, node.offset + node.length);
      return [{ id: 'tools-make-list', title: 'Make "{key}" a list: ["{name}"]', args: { key, name }, edits: [{ offset: node.offset, length: node.length, content: `[${raw}]` }], isPreferred: true }];
    }
    default:
      return [];
  }
}
