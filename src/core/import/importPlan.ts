import { createHmac } from 'node:crypto';
import { createScanner, type Node } from 'jsonc-parser';
import { describeParseError, nodeValue, parseJsonc, propertyValue } from '../json/jsonTree';
import { LineIndex } from '../json/text';
import { DEFAULT_LIMITS } from '../mcp/analyzeOptions';
import { detectFormatting } from '../mcp/quickFixes';
import { MAX_SOURCE_BYTES } from '../problems/readFailure';
import { convertServer, type TakenSecret } from './convert';
import { CLIENT_NAMES, makeNote, type ImportClient, type ImportNote } from './importNotes';
import { mergeByPrecedence, readSourceFile, type ImportSourceFile, type SourceServer } from './clientFiles';

/**
 * The one import of the bridge, the same for every face: other clients' files and the current
 * `.vscode/mcp.json` text in, the new text (edited with jsonc-parser, so comments and
 * formatting stay), the notes and the secrets out. Nothing is read or written here; the CLI and
 * the editor show the change before anything is written. Never throws.
 */

export interface ImportRequest {
  client: ImportClient;
  /** The client's files, in the order the face found them. */
  sources: ImportSourceFile[];
  /** The workspace folder (absolute): Claude Code keys local-scope servers by it. */
  folder: string;
  /** The current `.vscode/mcp.json` text; undefined when there is none. */
  target: string | undefined;
  /** Notes of the face's reading (a file that could not be read), listed first. */
  readNotes?: ImportNote[];
  /** Input ids that already have a stored value for this folder: never reused, so never overwritten. */
  storedInputIds?: readonly string[];
  /** Bounds of the result (tests raise them): the export's server limit and the reader's byte limit by default. */
  limits?: Partial<ImportLimits>;
}

export interface ImportLimits {
  /** Servers `.vscode/mcp.json` may hold after the import (the export refuses a file with more). */
  maxServers: number;
  /** UTF-8 bytes `.vscode/mcp.json` may have after the import (the reader refuses a larger file). */
  maxBytes: number;
}

export const IMPORT_LIMITS: ImportLimits = { maxServers: DEFAULT_LIMITS.maxServers, maxBytes: MAX_SOURCE_BYTES };

export interface ImportedServer {
  /** The name in the source file. */
  sourceName: string;
  /** The name in `.vscode/mcp.json` (differs when the source name was taken). */
  name: string;
  file: string;
  entry: Record<string, unknown>;
}

/** A credential taken out of a source: goes to secret storage under `inputId`, never anywhere else. */
export interface ImportSecret {
  inputId: string;
  server: string;
  field: string;
  value: string;
}

export interface AddedInput {
  type: 'promptString';
  id: string;
  description: string;
  password: true;
}

export interface ImportPlan {
  client: ImportClient;
  /** False when `.vscode/mcp.json` cannot be edited safely: `after` equals `before`. */
  ok: boolean;
  servers: ImportedServer[];
  inputs: AddedInput[];
  /** Values for the added inputs (placeholders have none). Keep them out of logs and output. */
  secrets: ImportSecret[];
  notes: ImportNote[];
  /** The current text ('' when there is no file). */
  before: string;
  /** The text to write; equal to `before` when nothing changes. */
  after: string;
  changed: boolean;
}

type Json = Record<string, unknown>;

const TARGET_FILE = '.vscode/mcp.json';

/**
 * JSON text with every object's keys sorted, to compare two entries. Not canonicalJson: an entry
 * may hold a lone surrogate, which RFC 8785 cannot write (JSON.stringify escapes it).
 */
function sortedJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, (v as Record<string, unknown>)[k]])) : v));
}

/** A fresh file, as VS Code's own "Add Server" starts one. */
const NEW_FILE = '{\n\t"servers": {}\n}\n';

export function planImport(request: ImportRequest): ImportPlan {
  const before = request.target ?? '';
  const empty: ImportPlan = { client: request.client, ok: false, servers: [], inputs: [], secrets: [], notes: [...(request.readNotes ?? [])], before, after: before, changed: false };
  try {
    return plan(request, before, empty);
  } catch (error) {
    // A bug, not an input problem: reported as a note, nothing changed.
    return { ...empty, notes: [...empty.notes, makeNote('target-invalid', {}, { reason: `internal error: ${(error as Error)?.message ?? String(error)}` })] };
  }
}

function plan(request: ImportRequest, before: string, empty: ImportPlan): ImportPlan {
  const { client } = request;
  const notes: ImportNote[] = [...(request.readNotes ?? [])];
  const found: SourceServer[] = [];
  for (const source of request.sources) {
    const read = readSourceFile(client, source, request.folder);
    found.push(...read.servers);
    notes.push(...read.notes);
  }
  const merged = mergeByPrecedence(client, found);
  notes.push(...merged.notes);

  // The target as it is: its servers and input ids decide collisions.
  const target = readTarget(before);
  if ('reason' in target) return { ...empty, notes: [...notes, makeNote('target-invalid', { file: TARGET_FILE }, { reason: target.reason })] };
  const existingServers = target.servers as Record<string, unknown>;
  const takenIds = new Set([...target.inputIds, ...(request.storedInputIds ?? [])]);
  const takenNames = new Set(Object.keys(existingServers));
  const usersIds = new Set(takenIds);

  /** The name under which this source's entry is already in the target, if it is. */
  const presentAs = (sourceName: string, entry: Record<string, unknown>, ids: readonly string[]): string | undefined => {
    // An earlier import may have given an input a suffixed id (`-2`): the same entry all the same.
    const plain = (value: unknown) => ids.reduce((text, id) => text.replace(new RegExp(`\\$\\{input:${id.replace(/[.]/g, '\\.')}(?:-\\d+)?\\}`, 'g'), `\${input:${id}}`), sortedJson(value));
    let name = sourceName;
    for (let n = 0; takenNames.has(name); n++) {
      if (existingServers[name] !== undefined && plain(existingServers[name]) === plain(entry)) return name;
      name = n === 0 ? `${sourceName}-${client}` : `${sourceName}-${client}-${n + 1}`;
    }
    return undefined;
  };
  const servers: ImportedServer[] = [];
  const inputs: AddedInput[] = [];
  const secrets: ImportSecret[] = [];
  for (const source of merged.servers) {
    // Probe with the plain ids: an identical entry already in the target (an earlier import) is skipped.
    const probeIds: string[] = [];
    const probe = convertServer(client, source, (key) => {
      const base = inputId(source.name, key);
      let id = base;
      for (let n = 2; probeIds.includes(id); n++) id = `${base}-${n}`;
      probeIds.push(id);
      return id;
    });
    // Input ids of this server are committed only when the server is imported. An id already
    // defined in the target or stored for the folder belongs to the user: a new id, never a reuse,
    // so no stored value is overwritten and no user input is sent to an imported server.
    const mine: Array<{ id: string; base: string; secret: TakenSecret }> = [];
    const earlier = probe.entry && presentAs(source.name, probe.entry, probeIds);
    if (earlier !== undefined) {
      notes.push(makeNote('already-present', { file: source.file, server: source.name }, { name: earlier }));
      continue;
    }
    const converted = convertServer(client, source, (key, secret) => {
      const base = inputId(source.name, key);
      let id = base;
      for (let n = 2; takenIds.has(id) || mine.some((m) => m.id === id); n++) id = `${base}-${n}`;
      mine.push({ id, base, secret });
      return id;
    });
    if (!converted.entry) {
      notes.push(...converted.notes);
      continue;
    }
    // A taken name: the same entry there already (an earlier import) is skipped; else a new name.
    let name = source.name;
    let present: string | undefined;
    for (let n = 0; takenNames.has(name); n++) {
      if (existingServers[name] !== undefined && sortedJson(existingServers[name]) === sortedJson(converted.entry)) {
        present = name;
        break;
      }
      name = n === 0 ? `${source.name}-${client}` : `${source.name}-${client}-${n + 1}`;
    }
    if (present !== undefined) {
      notes.push(makeNote('already-present', { file: source.file, server: source.name }, { name: present }));
      continue;
    }
    if (name !== source.name) converted.notes.push(makeNote('renamed', { file: source.file, server: source.name }, { name: source.name, newName: name }));
    takenNames.add(name);
    notes.push(...converted.notes);
    servers.push({ sourceName: source.name, name, file: source.file, entry: converted.entry });
    if (client === 'claude' && source.scope === 'project' && source.file === '.mcp.json') notes.push(makeNote('also-in-dot-mcp', { file: source.file, server: source.name }));
    for (const m of mine) {
      takenIds.add(m.id);
      if (usersIds.has(m.base)) notes.push(makeNote('input-renamed', { file: source.file, server: source.name, field: m.secret.field }, { id: m.base, newId: m.id }));
      inputs.push({ type: 'promptString', id: m.id, description: `${m.secret.field} of ${source.name} (imported from ${CLIENT_NAMES[client]})`, password: true });
      if (m.secret.value !== undefined) secrets.push({ inputId: m.id, server: name, field: m.secret.field, value: m.secret.value });
    }
  }

  if (!servers.length) return { ...empty, ok: true, notes };
  // Nothing partial: a result the export or the reader would refuse is not written at all.
  const limits = { ...IMPORT_LIMITS, ...request.limits };
  if (takenNames.size > limits.maxServers) {
    const first = servers[Math.max(0, servers.length - (takenNames.size - limits.maxServers))];
    return { ...empty, notes: [...notes, makeNote('too-many-servers', { file: first.file, server: first.sourceName }, { count: takenNames.size, limit: limits.maxServers })] };
  }
  const after = edit(before.trim() === '' ? NEW_FILE : before, servers, inputs);
  const size = Buffer.byteLength(after, 'utf8');
  if (size > limits.maxBytes) {
    return { ...empty, notes: [...notes, makeNote('target-too-large', { file: TARGET_FILE }, { size, limit: limits.maxBytes })] };
  }
  return { client, ok: true, servers, inputs, secrets, notes, before, after, changed: after !== before };
}

/**
 * Names exactly what a preview showed, so that `--yes ID` applies only what was reviewed: the
 * text before and after and the credential values going to the host store (a changed credential
 * is a changed import). Keyed with a key of this machine (`key`: the DSH home's signing key),
 * so the printed id tells nothing about a credential to anyone without the key, however short
 * the credential; a separate derived key keeps it apart from the declaration's signature.
 */
export function importPreviewId(plan: ImportPlan, key: Uint8Array): string {
  const previewKey = createHmac('sha256', key).update('dsh-bridge import preview id', 'utf8').digest();
  const reviewed = JSON.stringify([plan.before, plan.after, plan.secrets.map((s) => [s.inputId, s.value])]);
  return createHmac('sha256', previewKey).update(reviewed, 'utf8').digest('hex').slice(0, 16);
}

/** An input id for a server's secret: readable, `[A-Za-z0-9_.-]`. */
function inputId(server: string, key: string): string {
  const clean = (s: string) => s.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^-+|-+$/g, '');
  return `${clean(server) || 'server'}-${clean(key) || 'secret'}`;
}

type TargetRead = { servers: Record<string, unknown>; inputIds: string[] } | { reason: string };

function readTarget(text: string): TargetRead {
  if (text.trim() === '') return { servers: {}, inputIds: [] };
  const parsed = parseJsonc(text);
  if (parsed.tooDeep) return { reason: 'it nests too deeply' };
  if (parsed.errors.length) {
    const at = new LineIndex(text).positionAt(parsed.errors[0].offset);
    return { reason: `line ${at.line + 1}, column ${at.character + 1}: ${describeParseError(parsed.errors[0])}` };
  }
  const root = parsed.root;
  if (root?.type !== 'object') return { reason: 'it is not a JSON object' };
  const serversNode = propertyValue(root, 'servers');
  if (serversNode && serversNode.type !== 'object') return { reason: '"servers" is not an object' };
  // VS Code also runs a legacy "mcpServers" map beside "servers": its names are taken too.
  const legacy = propertyValue(root, 'mcpServers');
  const inputsNode = propertyValue(root, 'inputs');
  if (inputsNode && inputsNode.type !== 'array') return { reason: '"inputs" is not a list' };
  const inputs = (nodeValue(inputsNode) as unknown[] | undefined) ?? [];
  const isInput = (i: unknown): i is Json => typeof i === 'object' && i !== null && typeof (i as Json).id === 'string';
  return {
    servers: { ...(legacy?.type === 'object' ? nodeValue(legacy) as Record<string, unknown> : {}), ...(nodeValue(serversNode) as Record<string, unknown> | undefined) },
    inputIds: inputs.filter(isInput).map((i) => i.id as string),
  };
}

/**
 * The new text: the servers added at the end of `servers`, the inputs at the end of `inputs`
 * (both created when missing), each list in one insertion: the text is parsed a fixed number of
 * times whatever the number of servers, so the import takes linear time. Insertions only: no
 * existing character changes, so comments, trailing commas and the formatting of every existing
 * line stay as they are. (jsonc-parser's `modify` would reformat the line an insertion starts on.)
 */
function edit(text: string, servers: ImportedServer[], inputs: AddedInput[]): string {
  const format = detectFormatting(text);
  const unit = format.insertSpaces ? ' '.repeat(format.tabSize ?? 2) : '\t';
  const eol = format.eol ?? '\n';
  let out = text;
  let root = parseJsonc(out).root!;
  if (!propertyValue(root, 'servers')) {
    out = insertMembers(out, root, [['servers', {}]], unit, eol);
    root = parseJsonc(out).root!;
  }
  out = insertMembers(out, propertyValue(root, 'servers')!, servers.map((s) => [s.name, s.entry]), unit, eol);
  if (!inputs.length) return out;
  root = parseJsonc(out).root!;
  if (!propertyValue(root, 'inputs')) {
    out = insertMembers(out, root, [['inputs', []]], unit, eol);
    root = parseJsonc(out).root!;
  }
  return insertMembers(out, propertyValue(root, 'inputs')!, inputs.map((input) => [undefined, input]), unit, eol);
}

const lineStart = (text: string, offset: number) => Math.max(text.lastIndexOf('\n', offset - 1), text.lastIndexOf('\r', offset - 1)) + 1;
const indentAt = (text: string, offset: number) => /^[ \t]*/.exec(text.slice(lineStart(text, offset), offset))![0];

/**
 * Inserts `key: value` members at the end of an object node, or `value` items at the end of an
 * array node (key undefined), each on its own line with the indentation of the last member.
 */
function insertMembers(text: string, container: Node, members: Array<[string | undefined, unknown]>, unit: string, eol: string): string {
  if (!members.length) return text;
  const close = container.offset + container.length - 1; // the closing brace or bracket
  const children = container.children ?? [];
  const last = children[children.length - 1];
  const ownIndent = indentAt(text, container.offset);
  const indent = last ? indentAt(text, last.offset) : ownIndent + unit;
  const lines = members.map(([key, value]) => {
    const pretty = JSON.stringify(value, null, unit).replace(/\n/g, eol + indent);
    return `${eol}${indent}${key === undefined ? pretty : `${JSON.stringify(key)}: ${pretty}`}`;
  });
  // After the last member's trailing comma and comments, before the whitespace that leads to the close.
  let at = close;
  while (at > container.offset + 1 && /\s/.test(text[at - 1])) at--;
  const tail = last ? text.slice(last.offset + last.length, close) : '';
  const hasComma = last !== undefined && scanHasComma(tail);
  const closeOnOwnLine = /[\r\n]/.test(text.slice(at, close));
  const insertion = `${lines.join(',')}${closeOnOwnLine ? '' : eol + ownIndent}`;
  if (!last || hasComma) return text.slice(0, at) + insertion + text.slice(at);
  const afterLast = last.offset + last.length;
  return text.slice(0, afterLast) + ',' + text.slice(afterLast, at) + insertion + text.slice(at);
}

/** True when the text between a last member and the close holds a comma outside comments. */
function scanHasComma(between: string): boolean {
  const scanner = createScanner(between, true);
  for (let token = scanner.scan(); token !== 17 /* EOF */; token = scanner.scan()) if (token === 5 /* CommaToken */) return true;
  return false;
}
