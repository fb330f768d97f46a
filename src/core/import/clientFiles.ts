import { parse as parseToml, TomlError } from 'smol-toml';
import { describeParseError, nodeValue, parseJsonc } from '../json/jsonTree';
import { LineIndex } from '../json/text';
import { CLIENT_NAMES, makeNote, type ImportClient, type ImportNote } from './importNotes';
import { isRecord } from '../json/jsonValue';

/**
 * Reading other clients' MCP files into server entries, one dialect each. Pure: the text comes
 * in (the Node adapter reads the files). Facts on each format: docs/import.md.
 */

/** Where a server was defined, for the client's own precedence: local > project > user. */
export type SourceScope = 'local' | 'project' | 'user';
const SCOPE_RANK: Record<SourceScope, number> = { local: 0, project: 1, user: 2 };

export interface ImportSourceFile {
  /** The file as the face shows it (a path). */
  file: string;
  text: string;
  /** A file in the workspace folder is `project`; one in the home folder is `user`. */
  scope: 'project' | 'user';
}

export interface SourceServer {
  name: string;
  entry: Record<string, unknown>;
  file: string;
  scope: SourceScope;
}

type Json = Record<string, unknown>;
const has = (o: Json, key: string) => Object.hasOwn(o, key);

/** The servers of one file of `client`, and why any part of it was not read. Never throws. */
export function readSourceFile(client: ImportClient, source: ImportSourceFile, folder: string): { servers: SourceServer[]; notes: ImportNote[] } {
  const notes: ImportNote[] = [];
  const where = { file: source.file };
  const parsed = client === 'codex' ? parseCodex(source, notes) : parseJson(client, source, notes);
  if (!parsed) return { servers: [], notes };
  const servers: SourceServer[] = [];
  const take = (map: unknown, scope: SourceScope) => {
    if (!isRecord(map)) return;
    for (const [name, entry] of Object.entries(map)) {
      if (!isRecord(entry)) {
        notes.push(makeNote('invalid-server', { ...where, server: name }, { client: CLIENT_NAMES[client], reason: 'not an object' }));
        continue;
      }
      servers.push({ name, entry, file: source.file, scope });
    }
  };
  if (client === 'codex') {
    take(parsed.mcp_servers, source.scope);
  } else if (client === 'claude' && isRecord(parsed.projects)) {
    // ~/.claude.json: user-scope servers at the root, local-scope ones under the project's path.
    take(parsed.mcpServers, 'user');
    for (const [project, settings] of Object.entries(parsed.projects)) {
      if (isRecord(settings) && samePath(project, folder)) take(settings.mcpServers, 'local');
    }
  } else {
    take(parsed.mcpServers, source.scope);
  }
  if (client === 'gemini' && isRecord(parsed.mcp)) applyGeminiLists(parsed.mcp, servers, notes, source.file);
  if (!servers.length && !notes.length) notes.push(makeNote('no-servers', where));
  return { servers, notes };
}

/** Gemini's `mcp.allowed` / `mcp.excluded` name lists switch servers off. */
function applyGeminiLists(mcp: Json, servers: SourceServer[], notes: ImportNote[], file: string) {
  const names = (v: unknown) => (Array.isArray(v) ? new Set(v.filter((x): x is string => typeof x === 'string')) : undefined);
  const allowed = names(mcp.allowed);
  const excluded = names(mcp.excluded) ?? new Set<string>();
  for (let i = servers.length - 1; i >= 0; i--) {
    const { name } = servers[i];
    if (excluded.has(name) || (allowed && !allowed.has(name))) {
      notes.push(makeNote('server-disabled', { file, server: name, field: excluded.has(name) ? 'mcp.excluded' : 'mcp.allowed' }, { client: CLIENT_NAMES.gemini }));
      servers.splice(i, 1);
    }
  }
}

const DIALECT_OF_ROOT: Record<string, string> = {
  servers: 'VS Code\'s format ("servers")',
  mcp_servers: 'Codex\'s format ("mcp_servers")',
  mcpServers: 'the "mcpServers" format of Cursor, Claude Code and Gemini CLI',
};

function expectedFormat(client: ImportClient): string {
  return client === 'codex' ? 'Codex\'s config.toml ([mcp_servers.NAME] tables)' : `${CLIENT_NAMES[client]}'s format ("mcpServers")`;
}

function parseJson(client: ImportClient, source: ImportSourceFile, notes: ImportNote[]): Json | undefined {
  const where = { file: source.file };
  const { root, errors, tooDeep } = parseJsonc(source.text);
  if (tooDeep) {
    const at = new LineIndex(source.text).positionAt(tooDeep.offset);
    notes.push(makeNote('parse-error', where, { line: at.line + 1, column: at.character + 1, reason: 'nested too deeply' }));
    return undefined;
  }
  if (errors.length || !root) {
    if (looksLikeToml(source.text)) {
      notes.push(makeNote('wrong-dialect', where, { actual: 'a TOML file (Codex\'s config.toml format)', expected: expectedFormat(client) }));
      return undefined;
    }
    const first = errors[0];
    const at = new LineIndex(source.text).positionAt(first?.offset ?? 0);
    notes.push(makeNote('parse-error', where, { line: at.line + 1, column: at.character + 1, reason: first ? describeParseError(first) : 'the file is empty' }));
    return undefined;
  }
  const value = nodeValue(root);
  if (!isRecord(value)) {
    notes.push(makeNote('wrong-dialect', where, { actual: `a JSON ${Array.isArray(value) ? 'array' : typeof value}`, expected: expectedFormat(client) }));
    return undefined;
  }
  if (!has(value, 'mcpServers') && !(client === 'claude' && isRecord(value.projects))) {
    const other = ['servers', 'mcp_servers'].find((k) => has(value, k));
    if (other) {
      notes.push(makeNote('wrong-dialect', where, { actual: DIALECT_OF_ROOT[other], expected: expectedFormat(client) }));
      return undefined;
    }
  }
  return value;
}

function looksLikeToml(text: string): boolean {
  return !/^\s*[{[]\s*["{\]]/.test(text) && /^\s*\[[^\]\n]+\]\s*$/m.test(text);
}

function parseCodex(source: ImportSourceFile, notes: ImportNote[]): Json | undefined {
  const where = { file: source.file };
  if (/^\s*\{/.test(source.text)) {
    const json = parseJsonc(source.text);
    const root = json.errors.length ? undefined : nodeValue(json.root);
    const actual = isRecord(root) && has(root, 'servers') ? DIALECT_OF_ROOT.servers : isRecord(root) && has(root, 'mcpServers') ? DIALECT_OF_ROOT.mcpServers : 'a JSON file';
    notes.push(makeNote('wrong-dialect', where, { actual, expected: expectedFormat('codex') }));
    return undefined;
  }
  let value: unknown;
  try {
    value = parseToml(source.text);
  } catch (error) {
    const e = error as Partial<TomlError> & { message?: string };
    const reason = (e.message ?? 'invalid TOML').split('\n')[0].replace(/^Invalid TOML document: /, '');
    notes.push(makeNote('parse-error', where, { line: e.line ?? 1, column: e.column ?? 1, reason }));
    return undefined;
  }
  if (isRecord(value) && !has(value, 'mcp_servers') && has(value, 'mcpServers')) {
    notes.push(makeNote('wrong-dialect', where, { actual: 'a TOML file with "mcpServers" tables', expected: expectedFormat('codex') }));
    return undefined;
  }
  return isRecord(value) ? value : undefined;
}

/** Paths as Claude Code keys its projects: separators and a drive letter's case do not matter. */
function samePath(a: string, b: string): boolean {
  const norm = (p: string) => {
    let s = p.replace(/\\/g, '/').replace(/\/+$/, '');
    if (/^[A-Za-z]:/.test(s)) s = s.toLowerCase();
    return s;
  };
  return norm(a) === norm(b);
}

/**
 * The servers of several files of one client, as that client merges them: a name defined in a
 * narrower scope (local, then project, then user) wins; the others are noted as shadowed.
 */
export function mergeByPrecedence(client: ImportClient, servers: SourceServer[]): { servers: SourceServer[]; notes: ImportNote[] } {
  const ordered = servers.map((s, i) => ({ s, i })).sort((a, b) => SCOPE_RANK[a.s.scope] - SCOPE_RANK[b.s.scope] || a.i - b.i).map((x) => x.s);
  const kept = new Map<string, SourceServer>();
  const notes: ImportNote[] = [];
  for (const s of ordered) {
    const winner = kept.get(s.name);
    if (winner) {
      notes.push(makeNote('shadowed', { file: s.file, server: s.name }, { other: `${winner.file} (${winner.scope})`, client: CLIENT_NAMES[client] }));
      continue;
    }
    kept.set(s.name, s);
  }
  // Back in source order: what the user reads in the files is what the diff shows.
  return { servers: servers.filter((s) => kept.get(s.name) === s), notes };
}
