/**
 * The move of `.vscode/mcp.json`'s servers into the portable `.mcp.json` (`mcpServers`), the
 * file *MCP: Add Server* writes since VS Code 1.140. Pure: both texts in, both new texts out,
 * with what stays behind and why. Each moved entry is carried as its text, with the comments
 * above it and beside it, so nothing of it is rewritten. Never throws.
 *
 * What may move is what VS Code itself writes to `.mcp.json`
 * (`getWorkspaceRootMcpConfigurationError`, microsoft/vscode
 * `src/vs/platform/mcp/common/mcpWorkspaceConfiguration.ts`, and its test): a stdio server with
 * only `type`, `command`, `args`, `env` (string or finite number values), an HTTP server with only
 * `type`, `url`, `headers` (string values), `transport` ("http"); no `${...}` anywhere, since VS
 * Code resolves no variable in `.mcp.json` and the file has no `inputs`. Everything else (`cwd`,
 * `envFile`, `dev`, `sandboxEnabled`, `oauth`, `sse`, `${input:...}`, `${env:...}`, ...) keeps its
 * server in `.vscode/mcp.json`.
 */
import { createHash } from 'node:crypto';
import { createScanner } from 'jsonc-parser';
import { commaBetween, findDuplicateKeys, nodeValue, parseJsonc, properties, propertyValue, type Node } from '../json/jsonTree';
import { canonicalJson } from '../json/canonicalJson';
import { detectFormatting } from './quickFixes';

/** Why a server stays in `.vscode/mcp.json` (the face words it; {@link MOVE_HOLD_TEMPLATES}). */
export type MoveHoldCode =
  | 'field-not-portable' | 'value-not-portable' | 'variable-not-portable' | 'type-not-portable'
  | 'name-in-dot-mcp' | 'duplicate-name';

export interface MoveHold {
  name: string;
  code: MoveHoldCode;
  args: Record<string, string>;
}

/** Why nothing can be planned: a file that cannot be edited safely. */
export type MoveBlockCode = 'no-vscode-file' | 'vscode-unparsable' | 'vscode-legacy-map' | 'dot-mcp-unparsable' | 'dot-mcp-not-portable' | 'not-verified';

export interface PortableMovePlan {
  /** False when a file cannot be edited safely (`blocked` says why): nothing changes. */
  ok: boolean;
  blocked?: { code: MoveBlockCode; args: Record<string, string> };
  /** The servers moved, in their order in `.vscode/mcp.json`. */
  moved: string[];
  /** The servers that stay, each with its reason. */
  held: MoveHold[];
  vscodeBefore: string | undefined;
  /** The new `.vscode/mcp.json`; undefined: the file goes (nothing is left in it but an empty `servers` and unused `inputs`). */
  vscodeAfter: string | undefined;
  dotMcpBefore: string | undefined;
  dotMcpAfter: string | undefined;
  /** Something to write. */
  changed: boolean;
}

/** English templates of the reasons, `{placeholders}` filled from `args`; they double as l10n keys. */
export const MOVE_HOLD_TEMPLATES: Record<MoveHoldCode, string> = {
  'field-not-portable': '"{field}" is not supported in .mcp.json (VS Code writes only type, command, args, env, url, headers there)',
  'value-not-portable': '{field} has a value .mcp.json cannot hold ({reason})',
  'variable-not-portable': '{field} uses {variable}: VS Code resolves no variable in .mcp.json and the file has no inputs',
  'type-not-portable': 'type "{type}" is not supported in .mcp.json (stdio or http only)',
  'name-in-dot-mcp': '.mcp.json already defines a server named "{other}"',
  'duplicate-name': 'the name is defined twice in .vscode/mcp.json',
};

export const MOVE_BLOCK_TEMPLATES: Record<MoveBlockCode, string> = {
  'no-vscode-file': 'There is no .vscode/mcp.json to move.',
  'vscode-unparsable': '.vscode/mcp.json has errors ({reason}): fix them first.',
  'vscode-legacy-map': '.vscode/mcp.json keeps servers under "mcpServers": apply its quick fix (move them into "servers") first.',
  'dot-mcp-unparsable': '.mcp.json has errors ({reason}): fix them first.',
  'dot-mcp-not-portable': '.mcp.json is not in the portable format ({reason}): fix it first.',
  'not-verified': 'The moved text could not be checked ({reason}); nothing was changed.',
};

const LOCAL_KEYS = new Set(['type', 'command', 'args', 'env']);
const REMOTE_KEYS = new Set(['type', 'url', 'headers', 'transport']);

/** Why `value` (a `.vscode/mcp.json` entry) cannot be written to `.mcp.json`, as VS Code decides it; undefined: it can. */
export function portableHold(value: unknown): Omit<MoveHold, 'name'> | undefined {
  if (!isObject(value)) return { code: 'value-not-portable', args: { field: 'the entry', reason: 'not an object' } };
  const type = value.type ?? (typeof value.command === 'string' ? 'stdio' : 'http');
  if (type !== 'stdio' && type !== 'http') return { code: 'type-not-portable', args: { type: String(type) } };
  const allowed = type === 'stdio' ? LOCAL_KEYS : REMOTE_KEYS;
  for (const key of Object.keys(value)) {
    if (!allowed.has(key) && value[key] !== undefined) return { code: 'field-not-portable', args: { field: key } };
  }
  const bad = (field: string, reason: string) => ({ code: 'value-not-portable' as const, args: { field, reason } });
  if (type === 'stdio') {
    if (typeof value.command !== 'string' || !value.command.trim()) return bad('command', 'not a non-empty string');
    if (value.args !== undefined && (!Array.isArray(value.args) || value.args.some((a) => typeof a !== 'string'))) return bad('args', 'not a list of strings');
    if (value.env !== undefined) {
      if (!isObject(value.env)) return bad('env', 'not an object');
      for (const [name, v] of Object.entries(value.env)) {
        if (typeof v !== 'string' && (typeof v !== 'number' || !Number.isFinite(v))) return bad(`env.${name}`, v === null ? 'null, which removes a variable, only in .vscode/mcp.json' : 'not a string or a number');
      }
    }
  } else {
    if (typeof value.url !== 'string' || !value.url.trim()) return bad('url', 'not a non-empty string');
    if (value.transport !== undefined && value.transport !== 'http') return bad('transport', 'only "http"');
    if (value.headers !== undefined) {
      if (!isObject(value.headers)) return bad('headers', 'not an object');
      for (const [name, v] of Object.entries(value.headers)) if (typeof v !== 'string') return bad(`headers.${name}`, 'not a string');
    }
  }
  const variable = firstVariable(value, '');
  if (variable) return { code: 'variable-not-portable', args: variable };
  return undefined;
}

function firstVariable(value: unknown, at: string): { field: string; variable: string } | undefined {
  if (typeof value === 'string') {
    const m = /\$\{[^}]*\}?/.exec(value);
    return m ? { field: at || 'the entry', variable: m[0] } : undefined;
  }
  const entries: Array<[string, unknown]> = Array.isArray(value) ? value.map((v, i) => [`[${i}]`, v]) : isObject(value) ? Object.entries(value).map(([k, v]) => [`.${k}`, v]) : [];
  for (const [key, v] of entries) {
    const found = firstVariable(v, at ? `${at}${key}` : key.replace(/^\./, ''));
    if (found) return found;
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Plans the move: every server of `.vscode/mcp.json` that `.mcp.json` can hold moves there (with
 * its comments), the others stay with their reason. `vscodeText` / `dotMcpText`: the current
 * texts (undefined: no file). `only`: move only these servers (an import's), leave the rest as they are.
 */
export function planPortableMove(vscodeText: string | undefined, dotMcpText: string | undefined, only?: ReadonlySet<string>): PortableMovePlan {
  const base = { moved: [], held: [], vscodeBefore: vscodeText, vscodeAfter: vscodeText, dotMcpBefore: dotMcpText, dotMcpAfter: dotMcpText, changed: false };
  const blocked = (code: MoveBlockCode, args: Record<string, string> = {}): PortableMovePlan => ({ ...base, ok: false, blocked: { code, args } });
  try {
    if (vscodeText === undefined) return blocked('no-vscode-file');
    const source = parseJsonc(vscodeText);
    if (source.errors.length || source.tooDeep || source.root?.type !== 'object') return blocked('vscode-unparsable', { reason: source.root && source.root.type !== 'object' ? 'the top level is not an object' : 'invalid JSON' });
    if (propertyValue(source.root, 'mcpServers')) return blocked('vscode-legacy-map');
    const servers = propertyValue(source.root, 'servers');
    if (servers && servers.type !== 'object') return blocked('vscode-unparsable', { reason: '"servers" is not an object' });

    const target = readTarget(dotMcpText);
    if ('code' in target) return blocked(target.code, target.args);

    const duplicates = new Set(findDuplicateKeys(servers).filter((d) => d.container === servers).map((d) => d.key));
    const taken = new Map(target.names.map((n) => [n.toLowerCase(), n]));
    const moving: Array<{ key: string; property: Node; value: unknown }> = [];
    const held: MoveHold[] = [];
    let untouched = 0;
    for (const p of properties(servers)) {
      if (only && !only.has(p.key)) {
        untouched++;
        continue;
      }
      if (duplicates.has(p.key)) {
        if (!held.some((h) => h.name === p.key)) held.push({ name: p.key, code: 'duplicate-name', args: {} });
        continue;
      }
      const other = taken.get(p.key.toLowerCase());
      if (other !== undefined) {
        held.push({ name: p.key, code: 'name-in-dot-mcp', args: { other } });
        continue;
      }
      const value = nodeValue(p.valueNode);
      const hold = portableHold(value);
      if (hold) held.push({ name: p.key, ...hold });
      else {
        moving.push({ key: p.key, property: p.property, value });
        taken.set(p.key.toLowerCase(), p.key);
      }
    }
    if (!moving.length) return { ...base, ok: true, held };

    const chunks = moving.map((m) => memberChunk(vscodeText, servers!, m.property));
    const sourceIndent = indentOf(vscodeText, moving[0].property.offset);
    const vscodeAfter = withoutChunks(vscodeText, servers!, chunks, held.length === 0 && untouched === 0 ? source.root : undefined);
    const sourceFormat = detectFormatting(vscodeText);
    const dotMcpAfter = withChunks(dotMcpText, target, chunks, sourceIndent, detectFormatting(dotMcpText ?? vscodeText), sourceFormat.insertSpaces === false ? '\t' : ' '.repeat(sourceFormat.tabSize ?? 2));
    const plan: PortableMovePlan = {
      ok: true, moved: moving.map((m) => m.key), held, vscodeBefore: vscodeText, vscodeAfter, dotMcpBefore: dotMcpText, dotMcpAfter, changed: true,
    };
    const problem = verify(plan, moving, held, untouched);
    return problem ? blocked('not-verified', { reason: problem }) : plan;
  } catch (error) {
    return blocked('not-verified', { reason: error instanceof Error ? error.message : String(error) });
  }
}

/** The id of what a preview showed: both files before and after. */
export function portableMovePreviewId(plan: PortableMovePlan): string {
  return createHash('sha256').update(JSON.stringify(['dsh-bridge portable move', plan.vscodeBefore ?? null, plan.vscodeAfter ?? null, plan.dotMcpBefore ?? null, plan.dotMcpAfter ?? null]), 'utf8').digest('hex').slice(0, 16);
}

type TargetRead =
  | { text: string | undefined; root: Node | undefined; map: Node | undefined; names: string[] }
  | { code: MoveBlockCode; args: Record<string, string> };

/** `.mcp.json` as VS Code reads it: the `mcpServers` map, or the flat root map (`parseWorkspaceRootMcpConfiguration`). */
function readTarget(text: string | undefined): TargetRead {
  if (text === undefined || text.trim() === '') return { text: undefined, root: undefined, map: undefined, names: [] };
  const parsed = parseJsonc(text);
  if (parsed.errors.length || parsed.tooDeep || parsed.root?.type !== 'object') return { code: 'dot-mcp-unparsable', args: { reason: parsed.root && parsed.root.type !== 'object' ? 'the top level is not an object' : 'invalid JSON' } };
  const root = parsed.root;
  const wrapped = propertyValue(root, 'mcpServers');
  if (wrapped && wrapped.type !== 'object') return { code: 'dot-mcp-not-portable', args: { reason: '"mcpServers" is not an object' } };
  if (!wrapped && properties(root).some((p) => p.key === 'servers' || p.key === 'inputs')) return { code: 'dot-mcp-not-portable', args: { reason: 'VS Code\'s "servers" format' } };
  const map = wrapped ?? root;
  return { text, root, map, names: properties(map).map((p) => p.key) };
}

interface Chunk {
  /** The member's text with the comments above it, to the end of its value. */
  body: string;
  /** A comment after the member on its line (after its comma), moved with it. */
  comment: string;
  /** What the removal takes: the chunk's whole lines, its comma and its comment. */
  removeStart: number;
  removeEnd: number;
}

/**
 * A member of an object as text: from the first comment line directly above it (the line after
 * the previous member, when only comments stand between) to the end of its value, and a comment
 * on its line after its comma.
 */
function memberChunk(text: string, object: Node, property: Node): Chunk {
  const members = object.children ?? [];
  const i = members.indexOf(property);
  const prev = members[i - 1];
  // Where the previous member (with its comma) ends, or the object's `{`.
  let floor = prev ? prev.offset + prev.length : object.offset + 1;
  if (prev) {
    const comma = commaBetween(text, floor, property.offset);
    if (comma >= 0) floor = comma + 1;
  }
  // The rest of that line (a comment there) belongs to the previous member; the lines after it to this one.
  const nl = text.indexOf('\n', floor);
  let start = property.offset;
  if (nl >= 0 && nl < property.offset) {
    start = nl + 1;
    while (start < property.offset && (text[start] === ' ' || text[start] === '\t' || text[start] === '\r' || text[start] === '\n')) start++;
  }
  const valueEnd = property.offset + property.length;
  const next = members[i + 1];
  const comma = commaBetween(text, valueEnd, next ? next.offset : object.offset + object.length - 1);
  let removeEnd = comma >= 0 ? comma + 1 : valueEnd;
  const rest = /^[ \t]*(\/\/[^\r\n]*|\/\*[^\n]*?\*\/)?[ \t]*/.exec(text.slice(removeEnd))!;
  const comment = rest[1] ?? '';
  if (comment) removeEnd += rest[0].length;
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const removeStart = text.slice(lineStart, start).trim() === '' ? lineStart : start;
  if (text.slice(removeEnd).match(/^[ \t]*\r?\n/)) removeEnd += /^[ \t]*\r?\n/.exec(text.slice(removeEnd))![0].length;
  return { body: text.slice(start, valueEnd), comment, removeStart, removeEnd };
}

function hasComment(text: string): boolean {
  const scanner = createScanner(text, false);
  // jsonc-parser's SyntaxKind (a const enum): 12 line comment, 13 block comment, 17 end.
  for (let kind: number = scanner.scan(); kind !== 17; kind = scanner.scan()) {
    if (kind === 12 || kind === 13) return true;
  }
  return false;
}

function indentOf(text: string, offset: number): string {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))?.[0] ?? '';
}

/**
 * `.vscode/mcp.json` without the moved members. When nothing is left in it but `servers` and
 * `inputs` (`root` given: no server stays) and no comment, the file goes: the inputs no staying
 * server uses are not needed, and VS Code then reads the folder's servers from `.mcp.json` alone.
 * A comment left (one not above or beside a server) keeps the file, with an empty `servers`.
 */
function withoutChunks(text: string, servers: Node, chunks: readonly Chunk[], root: Node | undefined): string | undefined {
  let out = text;
  for (const c of [...chunks].sort((a, b) => b.removeStart - a.removeStart)) out = out.slice(0, c.removeStart) + out.slice(c.removeEnd);
  // The member now last has a comma after it only if the file's last member had one.
  const members = servers.children ?? [];
  const lastBefore = members[members.length - 1];
  const trailing = !!lastBefore && commaBetween(text, lastBefore.offset + lastBefore.length, servers.offset + servers.length - 1) >= 0;
  const map = propertyValue(parseJsonc(out).root, 'servers');
  const last = map?.children?.[map.children.length - 1];
  if (!trailing && map && last) {
    const comma = commaBetween(out, last.offset + last.length, map.offset + map.length - 1);
    if (comma >= 0) out = out.slice(0, comma) + out.slice(comma + 1);
  }
  // An emptied map with only blanks inside reads as `{}`.
  const emptied = propertyValue(parseJsonc(out).root, 'servers');
  if (emptied?.type === 'object' && !emptied.children?.length && out.slice(emptied.offset + 1, emptied.offset + emptied.length - 1).trim() === '') {
    out = `${out.slice(0, emptied.offset)}{}${out.slice(emptied.offset + emptied.length)}`;
  }
  const onlyServersAndInputs = root && properties(root).every((p) => p.key === 'servers' || p.key === 'inputs' || p.key === '$schema');
  return onlyServersAndInputs && !hasComment(out) ? undefined : out;
}

/** The moved members as text at `indent`, joined by commas (before a member's own comment), with a comma after the last one too when `trailingComma`. */
function joinChunks(chunks: readonly Chunk[], sourceIndent: string, indent: string, eol: string, trailingComma: boolean, units: { source: string; target: string }): string {
  // Deeper lines keep their depth in the target's unit (a tab-indented entry into a space-indented file).
  const deeper = (extra: string) => {
    if (units.source === units.target) return extra;
    const width = units.source === '\t' ? 1 : units.source.length;
    const levels = units.source === '\t' ? (extra.match(/^\t*/)?.[0].length ?? 0) : Math.floor((extra.match(/^ */)?.[0].length ?? 0) / width);
    return units.target.repeat(levels) + extra.slice(levels * width);
  };
  const reindent = (body: string) => body.split(/\r?\n/).map((line, i) => {
    if (i === 0 || !line.startsWith(sourceIndent)) return line;
    const rest = line.slice(sourceIndent.length);
    const extra = /^[ \t]*/.exec(rest)![0];
    return indent + deeper(extra) + rest.slice(extra.length);
  }).join(eol);
  return chunks.map((c, i) => {
    const comma = i < chunks.length - 1 || trailingComma ? ',' : '';
    return `${indent}${reindent(c.body)}${comma}${c.comment ? ` ${c.comment}` : ''}`;
  }).join(eol);
}

/** `.mcp.json` with the moved members added at the end of its map (a new file: `mcpServers`). */
function withChunks(
  text: string | undefined, target: Extract<TargetRead, { names: string[] }>, chunks: readonly Chunk[], sourceIndent: string,
  formatting: ReturnType<typeof detectFormatting>, sourceUnit: string,
): string {
  const eol = formatting.eol ?? '\n';
  const unit = formatting.insertSpaces === false ? '\t' : ' '.repeat(formatting.tabSize ?? 2);
  const units = { source: sourceUnit, target: unit };
  if (!target.map || text === undefined) {
    return `{${eol}${unit}"mcpServers": {${eol}${joinChunks(chunks, sourceIndent, unit.repeat(2), eol, false, units)}${eol}${unit}}${eol}}${eol}`;
  }
  const map = target.map;
  const members = map.children ?? [];
  const close = map.offset + map.length - 1;
  if (!members.length) {
    const outer = indentOf(text, map.offset);
    const inside = text.slice(map.offset + 1, close).replace(/\s+$/, '');
    return `${text.slice(0, map.offset + 1)}${inside}${eol}${joinChunks(chunks, sourceIndent, outer + unit, eol, false, units)}${eol}${outer}${text.slice(close)}`;
  }
  const last = members[members.length - 1];
  const indent = indentOf(text, last.offset);
  const lastEnd = last.offset + last.length;
  const comma = commaBetween(text, lastEnd, close);
  // After the last member, its comma and a comment on its line: the new members.
  let at = comma >= 0 ? comma + 1 : lastEnd;
  const lineEnd = text.indexOf('\n', at);
  const sameLine = text.slice(at, lineEnd < 0 || lineEnd > close ? close : lineEnd).replace(/\r$/, '');
  if (/^\s*(\/\/|\/\*)/.test(sameLine)) at += sameLine.length;
  const added = `${eol}${joinChunks(chunks, sourceIndent, indent, eol, comma >= 0, units)}`;
  // Without a comma after the last member, one goes right after its value.
  return comma >= 0 ? text.slice(0, at) + added + text.slice(at) : `${text.slice(0, lastEnd)},${text.slice(lastEnd, at)}${added}${text.slice(at)}`;
}

/** Both new texts parse, `.mcp.json` holds every moved entry as it was and `.vscode/mcp.json` every held one. */
function verify(plan: PortableMovePlan, moving: ReadonlyArray<{ key: string; value: unknown }>, held: readonly MoveHold[], untouched: number): string | undefined {
  const dot = parseJsonc(plan.dotMcpAfter ?? '');
  if (dot.errors.length || dot.root?.type !== 'object') return '.mcp.json would not parse';
  const map = propertyValue(dot.root, 'mcpServers') ?? dot.root;
  const now = nodeValue(map) as Record<string, unknown>;
  for (const m of moving) if (!Object.hasOwn(now, m.key) || canonicalJson(now[m.key]) !== canonicalJson(m.value)) return `"${m.key}" would not be in .mcp.json as it is`;
  if (plan.vscodeAfter === undefined) return held.length || untouched ? 'the file would go with servers in it' : undefined;
  const vs = parseJsonc(plan.vscodeAfter);
  if (vs.errors.length || vs.root?.type !== 'object') return '.vscode/mcp.json would not parse';
  const left = (nodeValue(propertyValue(vs.root, 'servers')) ?? {}) as Record<string, unknown>;
  if (moving.some((m) => Object.hasOwn(left, m.key))) return 'a moved server would stay in .vscode/mcp.json';
  if (held.some((h) => !Object.hasOwn(left, h.name))) return 'a server that stays would be lost';
  return undefined;
}
