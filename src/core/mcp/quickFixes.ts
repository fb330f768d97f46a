import { applyEdits, modify, type Edit, type FormattingOptions, type Node } from 'jsonc-parser';
import { commaBetween, nodeValue, parseJsonc, properties, propertyValue } from '../json/jsonTree';
import type { Problem } from '../problems/problems';
import { isCredentialName } from './securityLint';
import { LineIndex, sameRange } from '../json/text';
import { dialectOf, MCP_BLOCK_PATH, mcpBlockNode, serverEntryPath } from './sources';

/**
 * Quick fixes for problems of `.vscode/mcp.json`, as text edits computed with jsonc-parser's
 * `modify`, which keeps comments and the rest of the formatting. Pure: text and a problem in,
 * edits out. The editor adapter picks fixes by diagnostic code and words the titles
 * (`title` is an English template with `{placeholders}` and doubles as the l10n key).
 */

export interface TextEdit {
  offset: number;
  length: number;
  content: string;
}

export interface QuickFix {
  /** Stable id of the fix, e.g. `sse-to-http`. */
  id: string;
  title: string;
  args: Record<string, string>;
  edits: TextEdit[];
  isPreferred: boolean;
}

/** The codes that may have an automatic fix. `secret-in-args` has none on purpose. */
export const FIXABLE_CODES: ReadonlySet<string> = new Set([
  'unsupported-transport', 'unsupported-sandbox', 'wrong-root-key', 'wrong-dialect', 'unmasked-secret-input', 'undefined-input',
]);

export interface QuickFixOptions {
  /** Description written into a newly defined input; defaults to the input id. */
  inputDescription?: (id: string) => string;
}

/** Formatting of inserted JSON, read from the text itself: its line ending and indentation. */
export function detectFormatting(text: string): FormattingOptions {
  const eol = /\r\n/.test(text) ? '\r\n' : '\n';
  const indent = /^([ \t]+)\S/m.exec(text)?.[1] ?? '  ';
  if (indent.startsWith('\t')) return { insertSpaces: false, tabSize: 4, eol };
  return { insertSpaces: true, tabSize: Math.min(Math.max(indent.length, 1), 8), eol };
}

function toEdits(edits: Edit[]): TextEdit[] {
  return edits.map((e) => ({ offset: e.offset, length: e.length, content: e.content }));
}

function parse(text: string): Node | undefined {
  return parseJsonc(text).root;
}

/** Index of the input whose `id` is `id` in the (last) `inputs` array of the MCP block, or -1. */
function inputIndex(block: Node | undefined, id: string): number {
  const inputs = propertyValue(block, 'inputs');
  if (inputs?.type !== 'array') return -1;
  let found = -1;
  (inputs.children ?? []).forEach((node, i) => {
    if (propertyValue(node, 'id')?.value === id) found = i;
  });
  return found;
}

/**
 * The fixes for one problem of `text`, the whole file the problem is in (`problem.file` says which
 * kind: `.vscode/mcp.json`, `.mcp.json`, a dev container or workspace file; see ./sources).
 */
export function quickFixesFor(text: string, problem: Problem, options: QuickFixOptions = {}): QuickFix[] {
  if (!FIXABLE_CODES.has(problem.code)) return [];
  const root = parse(text);
  if (!root || root.type !== 'object') return [];
  const dialect = dialectOf(problem.file);
  const block = mcpBlockNode(root, dialect);
  if (!block || block.type !== 'object') return [];
  const blockPath = MCP_BLOCK_PATH[dialect];
  const formattingOptions = detectFormatting(text);
  const lines = new LineIndex(text);
  const server = problem.server;
  const entryPath = server === undefined ? undefined : serverEntryPath(root, dialect, server);
  const entryOf = () => (entryPath ? nodeAt(root, entryPath) : undefined);

  switch (problem.code) {
    case 'unsupported-transport': {
      if (server === undefined) return [];
      const entry = entryOf();
      const typeNode = propertyValue(entry, 'type');
      if (typeNode?.value !== 'sse' || !entryPath) return [];
      const edits = modify(text, [...entryPath, 'type'], 'http', { formattingOptions });
      return [{ id: 'sse-to-http', title: 'Change "type" to "http" (Streamable HTTP)', args: {}, edits: toEdits(edits), isPreferred: true }];
    }
    case 'unsupported-sandbox': {
      if (server === undefined) return [];
      const entry = entryOf();
      if (!entry || !properties(entry).some((p) => p.key === 'sandboxEnabled')) return [];
      const edits = removeProperty(text, entry, 'sandboxEnabled');
      return [{ id: 'remove-sandbox', title: 'Remove "sandboxEnabled" (export without a sandbox)', args: {}, edits, isPreferred: false }];
    }
    case 'wrong-root-key': {
      const key = properties(block).find((p) => p.key === 'mcpServers' && sameRange(lines.rangeAt(p.keyNode.offset, p.keyNode.length), problem.range))
        ?? properties(block).find((p) => p.key === 'mcpServers');
      if (!key) return [];
      if (properties(block).some((p) => p.key === 'servers')) return moveIntoServers(text, block, blockPath, formattingOptions);
      // A key cannot be renamed with modify(); replacing only the key's text keeps everything else.
      const edits = [{ offset: key.keyNode.offset, length: key.keyNode.length, content: '"servers"' }];
      return [{ id: 'rename-mcpServers', title: 'Rename "mcpServers" to "servers"', args: {}, edits, isPreferred: true }];
    }
    case 'wrong-dialect': {
      // VS Code's format pasted into `.mcp.json`: the servers move under Claude Code's key.
      if (dialect !== 'dot-mcp' || properties(block).some((p) => p.key === 'mcpServers')) return [];
      const keys = properties(block).filter((p) => p.key === 'servers');
      if (keys.length !== 1 || !sameRange(lines.rangeAt(keys[0].keyNode.offset, keys[0].keyNode.length), problem.range)) return [];
      const edits = [{ offset: keys[0].keyNode.offset, length: keys[0].keyNode.length, content: '"mcpServers"' }];
      return [{ id: 'rename-servers', title: 'Rename "servers" to "mcpServers" (the format of .mcp.json)', args: {}, edits, isPreferred: true }];
    }
    case 'unmasked-secret-input': {
      const id = String(problem.args.id ?? '');
      const index = inputIndex(block, id);
      if (index < 0) return [];
      const edits = modify(text, [...blockPath, 'inputs', index, 'password'], true, { formattingOptions });
      return [{ id: 'add-password', title: 'Mask input "{id}": add "password": true', args: { id }, edits: toEdits(edits), isPreferred: true }];
    }
    case 'undefined-input': {
      const id = String(problem.args.id ?? '');
      if (id === '' || dialect === 'dot-mcp' || inputIndex(block, id) >= 0) return [];
      const inputs = propertyValue(block, 'inputs');
      if (inputs && inputs.type !== 'array') return [];
      const definition: Record<string, unknown> = {
        type: 'promptString',
        id,
        description: options.inputDescription?.(id) ?? id,
      };
      if (isCredentialName(id)) definition.password = true;
      const edits = modify(text, [...blockPath, 'inputs', -1], definition, { formattingOptions, isArrayInsertion: true });
      return [{
        id: 'define-input',
        title: definition.password ? 'Define input "{id}" (masked prompt)' : 'Define input "{id}" (prompt)',
        args: { id },
        edits: toEdits(edits),
        isPreferred: true,
      }];
    }
    default:
      return [];
  }
}

function nodeAt(root: Node, path: readonly string[]): Node | undefined {
  let node: Node | undefined = root;
  for (const key of path) node = propertyValue(node, key);
  return node;
}

/**
 * VS Code's own migration of a legacy `mcpServers` beside `servers`: every entry moves into
 * `servers` (an entry of `mcpServers` replaces one of the same name) and `mcpServers` goes. The
 * moved entries are written anew (their inner comments do not survive, as in VS Code's rewrite).
 */
function moveIntoServers(text: string, block: Node, blockPath: readonly string[], formattingOptions: FormattingOptions): QuickFix[] {
  const legacy = propertyValue(block, 'mcpServers');
  const servers = propertyValue(block, 'servers');
  if (legacy?.type !== 'object' || servers?.type !== 'object') return [];
  let after = text;
  for (const p of properties(legacy)) {
    if (!p.valueNode) continue;
    after = applyEdits(after, modify(after, [...blockPath, 'servers', p.key], nodeValue(p.valueNode), { formattingOptions }));
  }
  const moved = parse(after);
  let block2: Node | undefined = moved;
  for (const key of blockPath) block2 = propertyValue(block2, key);
  if (!block2) return [];
  after = applyEdits(after, removeProperty(after, block2, 'mcpServers'));
  const edits = [{ offset: 0, length: text.length, content: after }];
  return [{ id: 'merge-mcpServers', title: 'Move the "mcpServers" entries into "servers"', args: {}, edits, isPreferred: true }];
}

/** Widens [start, end) to whole lines when nothing else is left on them. */
function wholeLines(text: string, start: number, end: number): [number, number] {
  let s = start;
  while (s > 0 && (text[s - 1] === ' ' || text[s - 1] === '\t')) s--;
  let e = end;
  while (e < text.length && (text[e] === ' ' || text[e] === '\t')) e++;
  const lineStart = s === 0 || text[s - 1] === '\n' || text[s - 1] === '\r';
  if (!lineStart) return [start, end];
  if (text.startsWith('\r\n', e)) return [s, e + 2];
  if (text[e] === '\n' || text[e] === '\r') return [s, e + 1];
  if (e === text.length) return [s, e];
  return [start, end];
}

/**
 * Removes every `key` property of an object, with its comma, but no comment: jsonc-parser's
 * modify() deletes from the previous value on, which swallows a comment in between.
 */
function removeProperty(text: string, object: Node, key: string): TextEdit[] {
  const members = object.children ?? [];
  const edits: TextEdit[] = [];
  members.forEach((property, i) => {
    if (property.children?.[0]?.value !== key) return;
    const end = property.offset + property.length;
    const next = members[i + 1];
    const objectEnd = object.offset + object.length;
    let start = property.offset;
    let stop = end;
    const after = commaBetween(text, end, next ? next.offset : objectEnd);
    if (after >= 0) {
      stop = after + 1;
    } else if (i > 0) {
      const prev = members[i - 1];
      const before = commaBetween(text, prev.offset + prev.length, property.offset);
      if (before >= 0 && !members.slice(0, i).every((m) => m.children?.[0]?.value === key)) edits.push({ offset: before, length: 1, content: '' });
    }
    [start, stop] = wholeLines(text, start, stop);
    edits.push({ offset: start, length: stop - start, content: '' });
  });
  return edits;
}
