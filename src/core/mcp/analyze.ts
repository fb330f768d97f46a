/**
 * One MCP source file read as VS Code reads it: its MCP block, its server maps merged in VS
 * Code's order, its inputs, then each server entry (serverEntry.ts). The result is an
 * {@link Analysis}: what may be exported, what is refused and why, every problem located.
 */
import { sha256Hex, withCanonicalText } from '../json/canonicalJson';
import { DSH_DEFAULTS, type DeclaredServer, type RejectedServer } from '../declaration/declarationModel';
import {
  findDuplicateKeys, parseJsonc, properties, propertyKeyNode, propertyValue, describeParseError, MAX_JSON_DEPTH, type DuplicateKey, type Node,
} from '../json/jsonTree';
import { decodeText, LineIndex, type Range } from '../json/text';
import { ROOT_KEYS } from './mcpModel';
import { assignServerNames } from './serverName';
import { sharedMembers } from './serverPin';
import { MCP_BLOCK_PATH, SERVER_MAP_KEYS, mcpBlockNode, VSCODE_SOURCE, type SourceSpec } from './sources';
import { DEFAULT_LIMITS, type AnalyzeOptions, type Limits } from './analyzeOptions';
import { emptyAnalysis, type Analysis } from './analysis';
import { SourceProblems } from './sourceProblems';
import { readInputs, referencedInputs, validInputDefinitions, type InputInfo } from './inputs';
import type { EntryContext } from './entryReading';
import { readServerEntry } from './serverEntry';

/** Root keys whose duplication makes the file unusable (what would be exported is ambiguous). */
const ROOT_DUPLICATE_FATAL: ReadonlySet<string> = new Set(['servers', 'mcpServers', 'inputs']);

/** A server of the merged map: the definition VS Code uses for its name. */
interface MapEntry {
  key: string;
  keyNode: Node;
  valueNode: Node | undefined;
}

/** Analyzes one file's bytes; `source` says which file and so where its servers are (default `.vscode/mcp.json`). */
export function analyzeSource(bytes: Uint8Array, options: AnalyzeOptions, source: SourceSpec = VSCODE_SOURCE): Analysis {
  const analysis = readSource(bytes, options, source);
  // Source order reads best in a terminal and in tests; the sort is stable for equal starts.
  analysis.problems.sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
  return analysis;
}

function readSource(bytes: Uint8Array, options: AnalyzeOptions, source: SourceSpec): Analysis {
  const sha = sha256Hex(bytes);
  const decoded = decodeText(bytes);
  if (!decoded.ok) {
    const report = new SourceProblems(source.path, new LineIndex(''));
    report.add('invalid-json', report.lines.rangeAt(0, 0), { reason: decoded.reason });
    return unusable(report, sha);
  }
  const report = new SourceProblems(source.path, new LineIndex(decoded.text));
  const empty = (usable: boolean): Analysis => ({ ...emptyAnalysis(report.list, sha, report.file), usable });
  const { root, errors, tooDeep } = parseJsonc(decoded.text);
  if (tooDeep) {
    report.add('too-deep', report.lines.rangeAt(tooDeep.offset, tooDeep.length), { limit: MAX_JSON_DEPTH });
    return empty(false);
  }
  for (const error of errors) {
    report.add('invalid-json', report.lines.rangeAt(error.offset, error.length), { reason: describeParseError(error) });
  }
  if (root && root.type !== 'object') {
    report.add('invalid-json', report.range(root), { reason: 'the top level must be an object' });
    return empty(false);
  }
  const syntaxOk = errors.length === 0;
  const dialect = source.dialect;
  const block = mcpBlockNode(root, dialect);
  const duplicates = blockDuplicates(report, root, block, dialect);
  if (!duplicates) return empty(false);
  // A workspace or dev container file without an MCP block: nothing to export from it.
  if (!block) return empty(syntaxOk);
  if (block.type !== 'object') {
    report.add('invalid-server', report.range(block), { reason: `"${MCP_BLOCK_PATH[dialect].join('.')}" must be an object` });
    return empty(false);
  }
  const maps = serverMaps(report, block, dialect);
  if (!maps) return empty(syntaxOk);

  const rejected: RejectedServer[] = [];
  const { winners, place } = mergeServerMaps(report, maps, rejected);
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const mapKeyNode = (map: Node) => (map.parent?.type === 'property' ? map.parent.children?.[0] : undefined) ?? map;
  if (winners.length > limits.maxServers) {
    report.add('too-many-servers', report.range(mapKeyNode(maps[0])), { count: winners.length, limit: limits.maxServers });
    return empty(false);
  }

  // `.mcp.json` has no inputs: VS Code resolves no variable in it.
  const inputs = readInputs(dialect === 'dot-mcp' ? undefined : propertyValue(block, 'inputs'), report);
  const context = entryContext(report, options, limits, dialect, inputs, propertyKeyNode(block, 'inputs') ?? (maps[0] ? mapKeyNode(maps[0]) : undefined));
  const duplicateNames = new Set(duplicates.filter((d) => maps.includes(d.container as Node)).map((d) => d.key));
  const { servers, serverKeys } = readEntries(context, winners, duplicates, duplicateNames, syntaxOk, rejected);
  if (!syntaxOk) return { ...empty(false), rejected };
  const entries = [...winners].sort((a, b) => place.get(a.key)! - place.get(b.key)!)
    .map((p) => ({ name: p.key.toWellFormed(), file: report.file, range: report.range(p.keyNode) }));
  return {
    sourcePath: report.file, usable: true, sourceSha256: sha, problems: report.list, servers, rejected,
    inputs: referencedInputs(servers, inputs), inputDefinitions: validInputDefinitions(inputs), serverKeys, entries,
  };
}

/** What every entry of the file is read with. */
function entryContext(
  report: SourceProblems, options: AnalyzeOptions, limits: Limits, dialect: SourceSpec['dialect'], inputs: Map<string, InputInfo>,
  inputsAnchor: Node | undefined,
): EntryContext {
  const common = {
    toolCallTimeoutMs: options.toolCallTimeoutMs ?? DSH_DEFAULTS.toolCallTimeoutMs,
    failOnStartupError: options.failOnStartupError ?? DSH_DEFAULTS.failOnStartupError,
    reconnect: withCanonicalText({ ...DSH_DEFAULTS.reconnect, ...options.reconnect }),
  };
  return {
    report, inputs, inputsAnchor, common,
    // VS Code starts a `.mcp.json` server without resolving any variable.
    variables: dialect === 'dot-mcp' ? { ...options, literalOnly: true } : options,
    maxStringBytes: limits.maxStringBytes,
    folder: options.folder,
    shared: sharedMembers(common),
    unmaskedReported: new Set(),
  };
}

/**
 * Each server of the merged map, read: exported when it has no error (and the file no syntax
 * error), else refused with its error codes. A duplicate key inside an entry, or a name defined
 * twice in one map, refuses it too.
 */
function readEntries(
  context: EntryContext, winners: readonly MapEntry[], duplicates: readonly DuplicateKey[], duplicateNames: ReadonlySet<string>,
  syntaxOk: boolean, rejected: RejectedServer[],
): { servers: DeclaredServer[]; serverKeys: Record<string, { file: string; range: Range }> } {
  const { report } = context;
  const servers: DeclaredServer[] = [];
  const serverKeys: Record<string, { file: string; range: Range }> = {};
  const names = assignServerNames(winners.map((p) => p.key));
  for (const p of winners) {
    const codes = new Set<string>();
    const before = report.list.length;
    const entry = readServerEntry(context, p.key, p.keyNode, p.valueNode, names.get(p.key)!);
    const value = p.valueNode;
    const inside = value && duplicates.some((d) => d.duplicate.offset > value.offset && d.duplicate.offset < value.offset + value.length);
    if (duplicateNames.has(p.key) || inside) codes.add('duplicate-key');
    for (let i = before; i < report.list.length; i++) if (report.list[i].severity === 'error') codes.add(report.list[i].code);
    const shownName = p.key.toWellFormed(); // the declaration cannot hold an unpaired surrogate
    if (!syntaxOk) {
      rejected.push({ name: shownName, codes: ['invalid-json', ...[...codes].filter((c) => c !== 'invalid-json')] });
    } else if (codes.size > 0 || !entry) {
      rejected.push({ name: shownName, codes: codes.size ? [...codes] : ['invalid-server'] });
    } else {
      servers.push(entry);
      const key = { file: report.file, range: report.range(p.keyNode) };
      Object.defineProperty(serverKeys, entry.name, { value: key, enumerable: true, configurable: true, writable: true });
    }
  }
  return { servers, serverKeys };
}

function unusable(report: SourceProblems, sha: string): Analysis {
  return emptyAnalysis(report.list, sha, report.file);
}

/**
 * Duplicate keys, reported everywhere in the MCP block and on the way to it; each rejects the
 * server it occurs in. Undefined when the file is unusable: a second root "servers" (or
 * "inputs", or a second `settings` on the way to the MCP block) is ambiguous, since a reviewer
 * reading top-down sees the first and a JSON reader keeps the last; both occurrences are marked.
 */
function blockDuplicates(report: SourceProblems, root: Node | undefined, block: Node | undefined, dialect: SourceSpec['dialect']): DuplicateKey[] | undefined {
  // The containers on the way to the MCP block.
  const path: Array<{ container: Node | undefined; key: string }> = [];
  let walk = root;
  for (const key of MCP_BLOCK_PATH[dialect]) {
    path.push({ container: walk, key });
    walk = walk?.type === 'object' ? propertyValue(walk, key) : undefined;
  }
  const inBlock = (n: Node) => !!block && n.offset >= block.offset && n.offset < block.offset + block.length;
  const onPath = (d: DuplicateKey) => path.some((p) => p.container === d.container && p.key === d.key);
  const duplicates = findDuplicateKeys(root).filter((d) => inBlock(d.duplicate) || onPath(d));
  for (const d of duplicates) {
    report.add('duplicate-key', report.range(d.duplicate), { key: d.key }, {
      related: [{ file: report.file, range: report.range(d.first), message: 'first definition' }],
    });
  }
  const rootDuplicates = duplicates.filter((d) => (d.container === block && ROOT_DUPLICATE_FATAL.has(d.key)) || onPath(d));
  if (!rootDuplicates.length) return duplicates;
  for (const d of rootDuplicates) {
    report.add('duplicate-key', report.range(d.first), { key: d.key }, {
      related: [{ file: report.file, range: report.range(d.duplicate), message: 'other definition' }],
    });
  }
  return undefined;
}

/** The server maps of the MCP block, in the order VS Code merges them; undefined when VS Code reads no server from the file. */
function serverMaps(report: SourceProblems, block: Node, dialect: SourceSpec['dialect']): Node[] | undefined {
  const maps: Node[] = [];
  if (dialect === 'dot-mcp') {
    const wrapped = propertyValue(block, 'mcpServers');
    const vscodeKeys = properties(block).filter((p) => p.key === 'servers' || p.key === 'inputs');
    if (!wrapped && vscodeKeys.length) {
      // VS Code's own format in Claude Code's file.
      for (const p of vscodeKeys) report.add('wrong-dialect', report.range(p.keyNode), { key: p.key, file: report.file });
      return undefined;
    }
    for (const p of properties(block)) if (wrapped && p.key !== 'mcpServers') report.add('unknown-field', report.range(p.keyNode), { key: p.key });
    if (wrapped && wrapped.type !== 'object') report.add('invalid-server', report.range(wrapped), { reason: '"mcpServers" must be an object' });
    maps.push(wrapped ?? block); // newer VS Code also reads a flat map of servers
  } else {
    for (const p of properties(block)) {
      if (p.key === 'mcpServers') report.add('wrong-root-key', report.range(p.keyNode));
      else if (!ROOT_KEYS.has(p.key)) report.add('unknown-field', report.range(p.keyNode), { key: p.key });
    }
    for (const key of SERVER_MAP_KEYS[dialect]) {
      const map = propertyValue(block, key);
      if (map && map.type !== 'object') report.add('invalid-server', report.range(map), { reason: `"${key}" must be an object` });
      if (map) maps.push(map);
    }
  }
  return maps;
}

/**
 * The servers of the merged map. A name in a later map replaces the earlier definition (VS
 * Code: {...servers, ...mcpServers}): the earlier one is shadowed-server and refused. `place`:
 * each name's place in the merged map, where it was first defined.
 */
function mergeServerMaps(report: SourceProblems, maps: readonly Node[], rejected: RejectedServer[]): { winners: MapEntry[]; place: Map<string, number> } {
  const winners = new Map<string, MapEntry & { map: Node }>();
  const place = new Map<string, number>();
  for (const map of maps) {
    if (map.type !== 'object') continue;
    const seenHere = new Set<string>();
    for (const p of properties(map)) {
      if (seenHere.has(p.key)) continue;
      seenHere.add(p.key);
      if (!place.has(p.key)) place.set(p.key, place.size);
      const earlier = winners.get(p.key);
      if (earlier) {
        report.add('shadowed-server', report.range(earlier.keyNode), { name: p.key, file: `${report.file} ("${mapKeyOf(map)}")` }, {
          server: p.key, related: [{ file: report.file, range: report.range(p.keyNode), message: 'the definition that is used' }],
        });
        rejected.push({ name: p.key.toWellFormed(), codes: ['shadowed-server'] });
        winners.delete(p.key);
      }
      winners.set(p.key, { ...p, map });
    }
  }
  return { winners: [...winners.values()], place };
}

/** The key a server map is written under (`servers`, `mcpServers`). */
function mapKeyOf(map: Node): string {
  return map.parent?.type === 'property' ? String(map.parent.children?.[0]?.value) : '';
}
