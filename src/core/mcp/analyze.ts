import * as path from 'node:path';
import { hasLoneSurrogate, sha256Hex, withCanonicalText } from '../json/canonicalJson';
import {
  DSH_DEFAULTS, type DeclaredInput, type DeclaredServer, type Reconnect, type RejectedServer,
} from '../declaration/declarationModel';
import {
  findDuplicateKeys, forEachString, nodeAtPath, nodeRange, nodeValue, parseJsonc, properties, propertyKeyNode, propertyValue,
  describeParseError, MAX_JSON_DEPTH, type Node,
} from '../json/jsonTree';
import {
  INPUT_KEYS, INPUT_SCHEMAS, REMOTE_KEYS, ROOT_KEYS, STDIO_KEYS, firstIssue, serverShapeIssue, type InputDefinition, type InputType,
} from './mcpModel';
import { makeProblem, type Problem, type ProblemCode, type RelatedInformation } from '../problems/problems';
import {
  connectionStringPasswords, findArgCredentials, findUnpinnedLauncher, hasLiteralCredential, inputsInUrlAuthority, isCredentialName,
  isLoopbackHost, literalText, looksLikeCredentialValue,
} from './securityLint';
import { assignServerNames } from './serverName';
import { templateRefs, templateWithPlaceholders, type Template } from '../declaration/template';
import { decodeText, LineIndex, type Range } from '../json/text';
import { check02Rules } from './dshRow';
import { resolveVariables, type VariableContext } from './variables';
import { pinnedRemote, pinnedStdio, sharedMembers, type CommonOptions, type RemoteFields, type SharedMembers, type StdioFields } from './serverPin';
import { SECTION_PATH, SERVER_MAP_KEYS, sectionNode, VSCODE_SOURCE, type McpAccess, type SourceSpec } from './sources';

export const SOURCE_PATH = VSCODE_SOURCE.path;

export interface Limits {
  maxServers: number;
  maxStringBytes: number;
}
export const DEFAULT_LIMITS: Limits = { maxServers: 512, maxStringBytes: 32 * 1024 };

export interface ExportOptions {
  toolCallTimeoutMs?: number;
  failOnStartupError?: boolean;
  reconnect?: Partial<Reconnect>;
}

/**
 * The export options as DSH 0.2 will check them at load (contract section 1), through the same
 * rules as a whole row; the offending option names, empty when they are fine. Settings are
 * validated before an export.
 */
export function invalidExportOptions(options: ExportOptions): string[] {
  const row = {
    transport: 'stdio', serverName: 'options', command: 'options',
    toolCallTimeoutMs: options.toolCallTimeoutMs ?? DSH_DEFAULTS.toolCallTimeoutMs,
    failOnStartupError: options.failOnStartupError ?? DSH_DEFAULTS.failOnStartupError,
    reconnect: { ...DSH_DEFAULTS.reconnect, ...options.reconnect },
  };
  return [...new Set(check02Rules(row).map((violation) => violation.split('.')[0]))];
}

export interface AnalyzeOptions extends VariableContext, ExportOptions {
  limits?: Partial<Limits>;
  /**
   * The policy settings beyond their effective values (`resolveConfig`): the value the
   * organization's policy itself sets, when the face can tell, and each settings level's value
   * (see core/policy/editorPolicy).
   */
  policySettings?: { policy?: (key: string) => unknown; layers?: (key: string) => readonly unknown[] };
  /** VS Code's policy file where the face read it (Linux), pinned: a change makes the declaration stale. */
  vscodePolicyFile?: { path: string; sha256: string | null };
  /** The multi-root workspace file that holds the folder (absolute): its `settings.mcp` servers are exported too. */
  codeWorkspaceFile?: string;
}

/** One file the export read besides `.vscode/mcp.json`; `sha256` null: absent at export (its appearance makes the declaration stale). */
export interface SourcePin {
  path: string;
  sha256: string | null;
}

export interface Analysis {
  sourcePath: string;
  /** False when the file could not be used at all: nothing may be exported (CLI exit 1). */
  usable: boolean;
  sourceSha256: string;
  problems: Problem[];
  servers: DeclaredServer[];
  rejected: RejectedServer[];
  inputs: DeclaredInput[];
  /** Every valid input definition of the file, by id (for prompting: options, defaults, commands). */
  inputDefinitions: Record<string, InputDefinition>;
  /** The other files read (`.mcp.json`, dev container, workspace file), present or not; see {@link SourcePin}. */
  sources?: SourcePin[];
  /** The effective `chat.mcp.access` the folder's files were chosen by (analyzeFolder; absent: `all`). */
  mcpAccess?: McpAccess;
  /**
   * Where each exported server's name is written (its file is the server's `source`, else
   * `sourcePath`), for located diagnostics. Each name is an own property (`__proto__` too): look
   * names up with Object.hasOwn.
   */
  serverKeys?: Record<string, { file: string; range: Range }>;
  /**
   * Every server entry of the file that VS Code registers, exported or refused, in VS Code's order
   * (the merged server map's: a name keeps the place of its first definition): the first of a
   * name owns it (see mergeSources).
   */
  entries?: ReadonlyArray<ServerEntryKey>;
  /** The digest of the editor policy's server rules the export applied (core/policy/editorPolicy); absent: none. */
  policyDigest?: string;
  /** VS Code's policy file as read at the export (absent: not read, or not there). */
  policyFile?: { path: string; sha256: string | null };
}

/** A server's name where it is written. */
export interface ServerEntryKey {
  name: string;
  file: string;
  range: Range;
}

interface InputInfo {
  id: string;
  type: InputType | undefined;
  description: string;
  password: boolean;
  valid: boolean;
  node: Node;
}

/** Where a string value of a server came from, for ranges and lint. */
interface Field {
  kind: 'command' | 'arg' | 'env' | 'envFile' | 'cwd' | 'url' | 'header';
  key?: string;
  node: Node;
  template: Template;
  /** Input ids and env names the template references (computed once, used by lint and refs). */
  refs: { readonly inputs: readonly string[]; readonly env: readonly string[] };
  /** Already reported as a literal secret (one report per value). */
  flagged: boolean;
}

/** Shared by every template without a reference (read only; not frozen: frozen arrays take a slower path in loops). */
const NO_REFS: Field['refs'] = { inputs: [], env: [] };
const NO_NODES: readonly Node[] = [];
const UNSUPPORTED_URL_SCHEME = /^(unix|pipe|wss?):/i;

const PLACEHOLDER = 'placeholder';
const LONE_SURROGATE = 'a string contains an unpaired UTF-16 surrogate (\\uD800-\\uDFFF)';
/** Root keys whose duplication makes the file unusable (what would be exported is ambiguous). */
const ROOT_DUPLICATE_FATAL: ReadonlySet<string> = new Set(['servers', 'mcpServers', 'inputs']);
/**
 * Map keys refused in env and headers: JavaScript objects give them a meaning (a prototype,
 * a constructor), so a reader in DSH or a schema library may drop or misread them.
 */
const RESERVED_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** An analysis that exports nothing: the source could not be used, or has no servers. */
export function emptyAnalysis(problems: Problem[], sourceSha256 = '', sourcePath = SOURCE_PATH): Analysis {
  return { sourcePath, usable: false, sourceSha256, problems, servers: [], rejected: [], inputs: [], inputDefinitions: {} };
}

/** Analyzes one file's bytes; `source` says which file and so where its servers are (default `.vscode/mcp.json`). */
export function analyzeSource(bytes: Uint8Array, options: AnalyzeOptions, source: SourceSpec = VSCODE_SOURCE): Analysis {
  const run = new AnalysisRun(bytes, options, source);
  return run.result();
}

class AnalysisRun {
  private readonly problems: Problem[] = [];
  private readonly limits: Limits;
  private lines = new LineIndex('');
  private readonly sha: string;
  private readonly file: string;
  private readonly serverKeys: Record<string, { file: string; range: Range }> = {};

  /** The export options every entry carries: one object, its canonical text computed once. */
  private readonly common: CommonOptions;
  private readonly shared: SharedMembers | undefined;
  private readonly variables: VariableContext;

  constructor(private readonly bytes: Uint8Array, private readonly options: AnalyzeOptions, private readonly source: SourceSpec) {
    this.file = source.path;
    this.common = {
      toolCallTimeoutMs: options.toolCallTimeoutMs ?? DSH_DEFAULTS.toolCallTimeoutMs,
      failOnStartupError: options.failOnStartupError ?? DSH_DEFAULTS.failOnStartupError,
      reconnect: withCanonicalText({ ...DSH_DEFAULTS.reconnect, ...options.reconnect }),
    };
    this.shared = sharedMembers(this.common);
    // VS Code starts a `.mcp.json` server without resolving any variable.
    this.variables = source.dialect === 'dot-mcp' ? { ...options, literalOnly: true } : options;
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.sha = sha256Hex(bytes);
  }

  private add(code: ProblemCode, range: Range, args: Record<string, string | number> = {}, extra: { related?: RelatedInformation[]; server?: string } = {}) {
    this.problems.push(makeProblem(code, this.file, range, args, extra));
  }

  private range(node: Node): Range {
    return nodeRange(this.lines, node);
  }

  private empty(usable: boolean): Analysis {
    return { ...emptyAnalysis(this.problems, this.sha, this.file), usable };
  }

  result(): Analysis {
    const analysis = this.analyze();
    // Source order reads best in a terminal and in tests; the sort is stable for equal starts.
    analysis.problems.sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
    return analysis;
  }

  private analyze(): Analysis {
    const decoded = decodeText(this.bytes);
    if (!decoded.ok) {
      this.add('invalid-json', this.lines.rangeAt(0, 0), { reason: decoded.reason });
      return this.empty(false);
    }
    const text = decoded.text;
    this.lines = new LineIndex(text);
    const { root, errors, tooDeep } = parseJsonc(text);
    if (tooDeep) {
      this.add('too-deep', this.lines.rangeAt(tooDeep.offset, tooDeep.length), { limit: MAX_JSON_DEPTH });
      return this.empty(false);
    }
    for (const error of errors) {
      this.add('invalid-json', this.lines.rangeAt(error.offset, error.length), { reason: describeParseError(error) });
    }
    if (root && root.type !== 'object') {
      this.add('invalid-json', this.range(root), { reason: 'the top level must be an object' });
      return this.empty(false);
    }
    const syntaxOk = errors.length === 0;
    const dialect = this.source.dialect;

    // The containers on the way to the MCP section: a second `settings` (or `mcp`...) makes the
    // section itself ambiguous, like a second root "servers".
    const path: Array<{ container: Node | undefined; key: string }> = [];
    let walk = root;
    for (const key of SECTION_PATH[dialect]) {
      path.push({ container: walk, key });
      walk = walk?.type === 'object' ? propertyValue(walk, key) : undefined;
    }
    const section = sectionNode(root, dialect);
    const inSection = (n: Node) => !!section && n.offset >= section.offset && n.offset < section.offset + section.length;

    // Duplicate keys: reported everywhere in the MCP section; they reject the server they occur in.
    const duplicates = findDuplicateKeys(root).filter((d) => inSection(d.duplicate) || path.some((p) => p.container === d.container && p.key === d.key));
    const duplicateOffsets: number[] = [];
    for (const d of duplicates) {
      this.add('duplicate-key', this.range(d.duplicate), { key: d.key }, {
        related: [{ file: this.file, range: this.range(d.first), message: 'first definition' }],
      });
      duplicateOffsets.push(d.duplicate.offset);
    }
    // Two root "servers" (or "inputs"): a reviewer reading top-down sees the first, a JSON reader
    // keeps the last. Neither may be exported; both occurrences are marked.
    const rootDuplicates = duplicates.filter((d) => (d.container === section && ROOT_DUPLICATE_FATAL.has(d.key))
      || path.some((p) => p.container === d.container && p.key === d.key));
    if (rootDuplicates.length) {
      for (const d of rootDuplicates) {
        this.add('duplicate-key', this.range(d.first), { key: d.key }, {
          related: [{ file: this.file, range: this.range(d.duplicate), message: 'other definition' }],
        });
      }
      return this.empty(false);
    }
    // A workspace or dev container file without an MCP section: nothing to export from it.
    if (!section) return syntaxOk ? this.empty(true) : this.empty(false);
    if (section.type !== 'object') {
      this.add('invalid-server', this.range(section), { reason: `"${SECTION_PATH[dialect].join('.')}" must be an object` });
      return this.empty(false);
    }

    // The server maps, in the order VS Code merges them (a later map wins a name).
    const maps: Node[] = [];
    if (dialect === 'dot-mcp') {
      const wrapped = propertyValue(section, 'mcpServers');
      const vscodeKeys = properties(section).filter((p) => p.key === 'servers' || p.key === 'inputs');
      if (!wrapped && vscodeKeys.length) {
        // VS Code's own format in Claude Code's file: VS Code reads no server from it.
        for (const p of vscodeKeys) this.add('wrong-dialect', this.range(p.keyNode), { key: p.key, file: this.file });
        return syntaxOk ? this.empty(true) : this.empty(false);
      }
      for (const p of properties(section)) if (wrapped && p.key !== 'mcpServers') this.add('unknown-field', this.range(p.keyNode), { key: p.key });
      if (wrapped && wrapped.type !== 'object') this.add('invalid-server', this.range(wrapped), { reason: '"mcpServers" must be an object' });
      maps.push(wrapped ?? section); // newer VS Code also reads a flat map of servers
    } else {
      for (const p of properties(section)) {
        if (p.key === 'mcpServers') this.add('wrong-root-key', this.range(p.keyNode));
        else if (!ROOT_KEYS.has(p.key)) this.add('unknown-field', this.range(p.keyNode), { key: p.key });
      }
      for (const key of SERVER_MAP_KEYS[dialect]) {
        const map = propertyValue(section, key);
        if (map && map.type !== 'object') this.add('invalid-server', this.range(map), { reason: `"${key}" must be an object` });
        if (map) maps.push(map);
      }
    }
    const servers: DeclaredServer[] = [];
    const rejected: RejectedServer[] = [];
    // A name in a later map replaces the earlier definition (VS Code: {...servers, ...mcpServers}).
    const winners = new Map<string, { key: string; keyNode: Node; valueNode: Node | undefined; map: Node }>();
    /** Each name's place in the merged map: where it was first defined. */
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
          this.add('shadowed-server', this.range(earlier.keyNode), { name: p.key, file: `${this.file} ("${mapKeyOf(map)}")` }, {
            server: p.key, related: [{ file: this.file, range: this.range(p.keyNode), message: 'the definition that is used' }],
          });
          rejected.push({ name: p.key.toWellFormed(), codes: ['shadowed-server'] });
          winners.delete(p.key);
        }
        winners.set(p.key, { ...p, map });
      }
    }
    const serverProps = [...winners.values()];
    const mapKeyNode = (map: Node) => (map.parent?.type === 'property' ? map.parent.children?.[0] : undefined) ?? map;
    if (serverProps.length > this.limits.maxServers) {
      this.add('too-many-servers', this.range(mapKeyNode(maps[0])), { count: serverProps.length, limit: this.limits.maxServers });
      return this.empty(false);
    }

    // `.mcp.json` has no inputs: VS Code resolves no variable in it.
    const inputsNode = dialect === 'dot-mcp' ? undefined : propertyValue(section, 'inputs');
    const inputs = this.readInputs(inputsNode);
    const inputsAnchor = propertyKeyNode(section, 'inputs') ?? (maps[0] ? mapKeyNode(maps[0]) : undefined);

    const names = assignServerNames(serverProps.map((p) => p.key));
    const duplicateNames = new Set(duplicates.filter((d) => maps.includes(d.container as Node)).map((d) => d.key));
    for (const p of serverProps) {
      const codes = new Set<string>();
      const before = this.problems.length;
      const entry = this.analyzeServer(p.key, p.keyNode, p.valueNode, names.get(p.key)!, inputs, inputsAnchor);
      const inside = p.valueNode && duplicateOffsets.some((o) => o > p.valueNode!.offset && o < p.valueNode!.offset + p.valueNode!.length);
      if (duplicateNames.has(p.key) || inside) codes.add('duplicate-key');
      for (let i = before; i < this.problems.length; i++) if (this.problems[i].severity === 'error') codes.add(this.problems[i].code);
      const shownName = p.key.toWellFormed(); // the declaration cannot hold an unpaired surrogate
      if (!syntaxOk) {
        rejected.push({ name: shownName, codes: ['invalid-json', ...[...codes].filter((c) => c !== 'invalid-json')] });
      } else if (codes.size > 0 || !entry) {
        rejected.push({ name: shownName, codes: codes.size ? [...codes] : ['invalid-server'] });
      } else {
        servers.push(entry);
        Object.defineProperty(this.serverKeys, entry.name, { value: { file: this.file, range: this.range(p.keyNode) }, enumerable: true, configurable: true, writable: true });
      }
    }
    if (!syntaxOk) return { ...this.empty(false), rejected };
    const entries = [...serverProps].sort((a, b) => place.get(a.key)! - place.get(b.key)!)
      .map((p) => ({ name: p.key.toWellFormed(), file: this.file, range: this.range(p.keyNode) }));

    const referenced: DeclaredInput[] = [];
    const listed = new Set<string>();
    for (const s of servers) {
      for (const id of s.inputRefs) {
        if (listed.has(id)) continue;
        listed.add(id);
        const info = inputs.get(id)!;
        referenced.push({ id, type: info.type!, description: info.description, password: info.password });
      }
    }
    const inputDefinitions: Record<string, InputDefinition> = {};
    for (const info of inputs.values()) {
      if (info.valid) Object.defineProperty(inputDefinitions, info.id, { value: nodeValue(info.node), enumerable: true });
    }
    return { sourcePath: this.file, usable: true, sourceSha256: this.sha, problems: this.problems, servers, rejected, inputs: referenced, inputDefinitions, serverKeys: this.serverKeys, entries };
  }

  private readInputs(inputsNode: Node | undefined): Map<string, InputInfo> {
    const inputs = new Map<string, InputInfo>();
    if (!inputsNode) return inputs;
    if (inputsNode.type !== 'array') {
      this.add('invalid-input', this.range(inputsNode), { reason: '"inputs" must be an array' });
      return inputs;
    }
    for (const node of inputsNode.children ?? []) {
      const value = nodeValue(node) as Record<string, unknown>;
      const id = node.type === 'object' && typeof value.id === 'string' ? value.id : undefined;
      if (id === undefined) {
        this.add('invalid-input', this.range(node), { reason: 'an input needs a string "id"' });
        continue;
      }
      // Own keys only: a type of "constructor" or "__proto__" must not reach Object.prototype.
      const type = typeof value.type === 'string' && Object.hasOwn(INPUT_SCHEMAS, value.type) ? (value.type as InputType) : undefined;
      let valid = true;
      if (!type) {
        this.add('invalid-input', this.range(propertyValue(node, 'type') ?? node), { reason: '"type" must be promptString, pickString or command' });
        valid = false;
      } else {
        const issue = firstIssue(INPUT_SCHEMAS[type].safeParse(value));
        if (issue) {
          this.add('invalid-input', this.range(nodeAtPath(node, issue.path) ?? node), { reason: issue.reason });
          valid = false;
        }
        for (const p of properties(node)) {
          if (!INPUT_KEYS[type].has(p.key)) this.add('unknown-field', this.range(p.keyNode), { key: p.key });
        }
      }
      // Input descriptions go into the declaration, which cannot hold an unpaired surrogate.
      let loneSurrogate = false;
      forEachString(node, (s) => {
        if (!loneSurrogate && hasLoneSurrogate(s.value as string)) {
          this.add('invalid-input', this.range(s), { reason: LONE_SURROGATE });
          loneSurrogate = true;
        }
      });
      if (loneSurrogate) valid = false;
      if (inputs.has(id)) {
        this.add('invalid-input', this.range(propertyValue(node, 'id') ?? node), { reason: `the id "${id}" is defined twice` }, {
          related: [{ file: this.file, range: this.range(inputs.get(id)!.node), message: 'first definition' }],
        });
        inputs.get(id)!.valid = false;
        continue;
      }
      inputs.set(id, {
        id, type, valid,
        description: typeof value.description === 'string' ? value.description : '',
        password: value.password === true,
        node,
      });
    }
    return inputs;
  }

  /** The server being analyzed: its problems carry its name. */
  private server: string | undefined;
  private tooLong = false;
  private loneSurrogate = false;

  private addAt(code: ProblemCode, at: Node, args: Record<string, string | number> = {}, related?: RelatedInformation[]) {
    this.add(code, this.range(at), args, { server: this.server, related });
  }

  /**
   * One server entry, read from the parse tree in one walk of its fields: each check works on
   * the nodes themselves, and the only values made are the ones the declaration holds.
   */
  private analyzeServer(
    name: string, keyNode: Node, node: Node | undefined, serverName: string,
    inputs: Map<string, InputInfo>, inputsAnchor: Node | undefined,
  ): DeclaredServer | undefined {
    this.server = name;
    if (!node || node.type !== 'object') {
      this.addAt('invalid-server', node ?? keyNode, { reason: 'a server entry must be an object' });
      return undefined;
    }
    if (hasLoneSurrogate(name)) {
      this.addAt('invalid-server', keyNode, { reason: LONE_SURROGATE });
      return undefined;
    }
    // Limits and encodings first: they are about the bytes, whatever the fields mean. The same
    // walk of the entry's properties finds each field (the last of duplicate keys, as a JSON reader keeps).
    this.tooLong = false;
    this.loneSurrogate = false;
    const properties = node.children ?? NO_NODES;
    let typeP: Node | undefined;
    let commandP: Node | undefined;
    let urlP: Node | undefined;
    let argsP: Node | undefined;
    let envP: Node | undefined;
    let envFileP: Node | undefined;
    let cwdP: Node | undefined;
    let devP: Node | undefined;
    let sandboxP: Node | undefined;
    let oauthP: Node | undefined;
    let headersP: Node | undefined;
    for (let i = 0; i < properties.length; i++) {
      const property = properties[i];
      this.checkStrings(property);
      switch (property.children?.[0]?.value) {
        case 'type': typeP = property; break;
        case 'command': commandP = property; break;
        case 'url': urlP = property; break;
        case 'args': argsP = property; break;
        case 'env': envP = property; break;
        case 'envFile': envFileP = property; break;
        case 'cwd': cwdP = property; break;
        case 'dev': devP = property; break;
        case 'sandboxEnabled': sandboxP = property; break;
        case 'oauth': oauthP = property; break;
        case 'headers': headersP = property; break;
      }
    }
    if (this.tooLong || this.loneSurrogate) return undefined;

    const typeNode = typeP?.children?.[1];
    const type = typeNode === undefined ? undefined : typeNode.type === 'string' ? typeNode.value as string : typeNode.type;
    const urlNode = urlP?.children?.[1];
    let kind: 'stdio' | 'remote' | undefined;
    if (type === 'stdio' || (type === undefined && commandP)) kind = 'stdio';
    else if (type === 'http' || (type === undefined && urlP)) kind = 'remote';
    else if (type === 'sse' || type === 'ws' || type === 'websocket') {
      this.addAt('unsupported-transport', typeNode!, { transport: String(type) });
      return undefined;
    } else if (type === undefined) {
      this.addAt('invalid-server', keyNode, { reason: 'a server needs "command" (stdio) or "url" (http)' });
      return undefined;
    } else {
      this.addAt('invalid-server', typeNode!, { reason: '"type" must be "stdio", "http" or "sse"' });
      return undefined;
    }
    if (kind === 'remote' && urlNode?.type === 'string' && UNSUPPORTED_URL_SCHEME.test(urlNode.value as string)) {
      const url = urlNode.value as string;
      this.addAt('unsupported-transport', urlNode, { transport: url.slice(0, url.indexOf(':') + 3) });
      return undefined;
    }
    const issue = serverShapeIssue(node, kind);
    if (issue) {
      this.addAt('invalid-server', issue.node ?? typeNode ?? keyNode, { reason: issue.reason });
      return undefined;
    }
    const known = kind === 'stdio' ? STDIO_KEYS : REMOTE_KEYS;
    for (let i = 0; i < properties.length; i++) {
      const key = properties[i].children?.[0];
      if (key && typeof key.value === 'string' && !known.has(key.value)) this.addAt('unknown-field', key, { key: key.value });
    }
    if (devP) this.addAt('dev-ignored', devP.children![0]);
    const sandbox = sandboxP?.children?.[1];
    if (sandbox?.value === true) this.addAt('unsupported-sandbox', sandbox);
    if (oauthP) this.addAt('unsupported-auth', oauthP.children![0]);

    // Variables, field by field (VS Code starts a `.mcp.json` server without resolving any; the shape check above made every value read here a string where one is needed).
    const fields: Field[] = [];
    if (kind === 'stdio') {
      const commandNode = commandP!.children![1];
      const command = this.resolveField(fields, 'command', commandNode, undefined, inputs, inputsAnchor);
      if (typeof command === 'string' && command.trim() === '') this.addAt('invalid-server', commandNode, { reason: '"command" is empty' });
      const argNodes = argsP?.children?.[1]?.children ?? NO_NODES;
      const args: Template[] = [];
      for (let i = 0; i < argNodes.length; i++) args.push(this.resolveField(fields, 'arg', argNodes[i], undefined, inputs, inputsAnchor));
      const env: Record<string, Template> = {};
      for (const property of envP?.children?.[1]?.children ?? NO_NODES) {
        const key = property.children?.[0];
        const v = property.children?.[1];
        // A value of another type can only be a duplicate's (the shape check read the last one); the duplicate rejects the server.
        if (!key || typeof key.value !== 'string' || !v || (v.type !== 'string' && v.type !== 'number' && v.type !== 'null')) continue;
        const variable = key.value;
        if (RESERVED_KEYS.has(variable)) {
          this.addAt('reserved-key', key, { key: variable });
          continue;
        }
        if (v.type === 'null') {
          this.addAt('env-null-dropped', key, { key: variable });
          continue;
        }
        let template: Template;
        if (v.type === 'number') {
          template = String(v.value);
          fields.push({ kind: 'env', key: variable, node: v, template, refs: NO_REFS, flagged: false });
        } else {
          template = this.resolveField(fields, 'env', v, variable, inputs, inputsAnchor);
        }
        defineProperty(env, variable, template);
      }
      const cwdNode = cwdP?.children?.[1];
      const cwd = cwdNode ? this.absolutize(this.resolveField(fields, 'cwd', cwdNode, undefined, inputs, inputsAnchor)) : this.options.folder;
      const envFileNode = envFileP?.children?.[1];
      const envFile = envFileNode ? this.absolutize(this.resolveField(fields, 'envFile', envFileNode, undefined, inputs, inputsAnchor)) : undefined;

      this.lintSecrets(fields, name, inputs);
      const launcherArgs: string[] = [];
      for (let i = 0; i < argNodes.length; i++) launcherArgs.push(argNodes[i].value as string);
      const unpinned = findUnpinnedLauncher(commandNode.value as string, launcherArgs);
      if (unpinned) this.addAt('unpinned-package', argNodes[unpinned.argIndex] ?? commandNode, { launcher: unpinned.launcher, hint: unpinned.hint });
      const refs = this.references(fields, name, keyNode, serverName, inputs);
      return pinnedStdio({ name, serverName, command, args, env, cwd, envFile, inputRefs: refs.inputs, envRefs: refs.env }, this.common, this.shared);
    } else {
      const url = this.resolveField(fields, 'url', urlNode!, undefined, inputs, inputsAnchor);
      this.checkUrl(url, urlNode!, name, inputs);
      const headers: Record<string, Template> = {};
      for (const property of headersP?.children?.[1]?.children ?? NO_NODES) {
        const key = property.children?.[0];
        const v = property.children?.[1];
        if (!key || typeof key.value !== 'string' || v?.type !== 'string') continue; // only a duplicate's value can be another type; the duplicate rejects the server
        if (RESERVED_KEYS.has(key.value)) this.addAt('reserved-key', key, { key: key.value });
        else defineProperty(headers, key.value, this.resolveField(fields, 'header', v, key.value, inputs, inputsAnchor));
      }
      this.lintSecrets(fields, name, inputs);
      const refs = this.references(fields, name, keyNode, serverName, inputs);
      return pinnedRemote({ name, serverName, url, headers, inputRefs: refs.inputs, envRefs: refs.env }, this.common, this.shared);
    }
  }

  /** Every string of a server entry (keys included), in source order: too long, or not well-formed UTF-16. */
  private checkStrings(node: Node): void {
    if (node.type === 'string') {
      const value = node.value as string;
      if (value.length * 3 > this.limits.maxStringBytes) {
        const size = Buffer.byteLength(value, 'utf8');
        if (size > this.limits.maxStringBytes) {
          this.addAt('value-too-long', node, { size, limit: this.limits.maxStringBytes });
          this.tooLong = true;
        }
      }
      if (!this.loneSurrogate && hasLoneSurrogate(value)) {
        this.addAt('invalid-server', node, { reason: LONE_SURROGATE });
        this.loneSurrogate = true;
      }
    }
    const children = node.children;
    if (children) for (let i = 0; i < children.length; i++) this.checkStrings(children[i]);
  }

  /** A string field's template, its variables resolved (problems at the variable itself), remembered for the lint. */
  private resolveField(
    fields: Field[], kind: Field['kind'], valueNode: Node, key: string | undefined, inputs: Map<string, InputInfo>, inputsAnchor: Node | undefined,
  ): Template {
    const raw = valueNode.value as string;
    if (!raw.includes('${')) { // most strings have no variable
      fields.push({ kind, key, node: valueNode, template: raw, refs: NO_REFS, flagged: false });
      return raw;
    }
    const resolved = resolveVariables(raw, this.variables, inputs);
    for (const v of resolved.issues) {
      const at = this.subRange(valueNode, raw, v.index, v.length);
      const variable = v.variable.length > 80 ? `${v.variable.slice(0, 77)}...}` : v.variable;
      if (v.kind === 'undefined-input') {
        const related = inputsAnchor ? [{ file: this.file, range: this.range(inputsAnchor), message: 'inputs are defined here' }] : undefined;
        this.add('undefined-input', at, { id: v.id! }, { server: this.server, related });
      } else {
        this.add(v.kind, at, { variable }, { server: this.server });
      }
    }
    fields.push({ kind, key, node: valueNode, template: resolved.template, refs: templateRefs(resolved.template), flagged: false });
    return resolved.template;
  }

  /** The inputs and environment variables a server uses, each once, in the order its fields name them. */
  private references(fields: Field[], name: string, keyNode: Node, serverName: string, inputs: Map<string, InputInfo>): { inputs: string[]; env: string[] } {
    if (serverName !== name) this.addAt('server-renamed', keyNode, { serverName });
    const inputRefs: string[] = [];
    const envRefs: string[] = [];
    for (let i = 0; i < fields.length; i++) {
      const refs = fields[i].refs;
      for (const id of refs.inputs) if (!inputRefs.includes(id)) inputRefs.push(id);
      for (const n of refs.env) if (!envRefs.includes(n)) envRefs.push(n);
    }
    for (const id of inputRefs) {
      const info = inputs.get(id);
      if (info && !info.valid) this.addAt('invalid-input', keyNode, { reason: `input "${id}" used by this server is not valid` });
    }
    return { inputs: inputRefs, env: envRefs };
  }

  /** Range of a part of a string value; exact when the JSON string has no escapes. */
  private subRange(node: Node, value: string, index: number, length: number): Range {
    const raw = this.lines.text.slice(node.offset + 1, node.offset + node.length - 1);
    if (raw === value) return this.lines.rangeAt(node.offset + 1 + index, length);
    return this.range(node);
  }

  private absolutize(template: Template): Template {
    if (typeof template === 'string') return path.resolve(this.options.folder, template);
    const first = template[0];
    if (typeof first === 'string' && !path.isAbsolute(first)) return [path.join(this.options.folder, first), ...template.slice(1)];
    return template;
  }

  private checkUrl(url: Template, node: Node, server: string, inputs: Map<string, InputInfo>) {
    let parsed: URL;
    try {
      parsed = new URL(templateWithPlaceholders(url, PLACEHOLDER));
    } catch {
      this.addAt('invalid-url', node, { reason: 'it does not parse as a URL' });
      return;
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      this.addAt('invalid-url', node, { reason: 'the scheme must be http or https' });
      return;
    }
    if (parsed.username || parsed.password) this.addAt('url-credentials', node);
    if (parsed.protocol === 'http:' && !parsed.hostname.includes(PLACEHOLDER) && !isLoopbackHost(parsed.hostname)) this.addAt('insecure-url', node);
    if (typeof url !== 'string') for (const id of inputsInUrlAuthority(url)) if (inputs.has(id)) this.addAt('input-controls-url-host', node, { id });
    if (parsed.search === '') return; // no query: no URLSearchParams to make
    for (const [key] of parsed.searchParams) {
      const literal = typeof url === 'string' || !parsed.searchParams.get(key)!.includes(PLACEHOLDER);
      if (isCredentialName(key) && literal && parsed.searchParams.get(key) !== '') {
        this.add('literal-secret', this.range(node), { field: `URL query parameter "${key}"` }, { server });
        break;
      }
    }
  }

  private lintSecrets(fields: Field[], server: string, inputs: Map<string, InputInfo>) {
    let credentialInputs: Set<string> | undefined;
    const args = fields.filter((f) => f.kind === 'arg');
    if (args.length) {
      // On the text as written: a part that is a reference (`${input:x}`) is a name, not a secret.
      for (const c of findArgCredentials(args.map((a) => a.node.value as string))) this.flag(args[c.index], 'This argument', server);
      for (let i = 1; i < args.length; i++) {
        if (args[i].refs.inputs.length === 0) continue;
        const prev = literalText(args[i - 1].template);
        if (prev.startsWith('-') && isCredentialName(prev)) for (const id of args[i].refs.inputs) (credentialInputs ??= new Set()).add(id);
      }
    }
    for (const f of fields) {
      const named = (f.kind === 'env' || f.kind === 'header') && f.key !== undefined && isCredentialName(f.key);
      if (named && hasLiteralCredential(f.template)) this.flag(f, `${f.kind === 'env' ? 'env' : 'Header'} "${f.key}"`, server);
      if (looksLikeCredentialValue(literalText(f.template))) this.flag(f, f.key ? `"${f.key}"` : 'This value', server);
      // postgresql://app:PASSWORD@host/app: the password is literal even when the name is DATABASE_URL.
      if (f.kind === 'env' && typeof f.node.value === 'string' && connectionStringPasswords(f.node.value).length) this.flag(f, `env "${f.key}"`, server);
      if (named) for (const id of f.refs.inputs) (credentialInputs ??= new Set()).add(id);
    }
    for (const a of args) {
      for (const id of a.refs.inputs) {
        const info = inputs.get(id);
        if (info && (info.password || isCredentialName(id))) this.add('secret-in-args', this.range(a.node), { id }, { server });
      }
    }
    for (const f of fields) {
      for (const id of f.refs.inputs) {
        const info = inputs.get(id);
        if (!info || info.password || info.type !== 'promptString') continue;
        if (credentialInputs?.has(id) || isCredentialName(id)) this.reportUnmasked(info);
      }
    }
  }

  /** One literal-secret report per value. */
  private flag(f: Field, field: string, server: string) {
    if (f.flagged) return;
    f.flagged = true;
    this.add('literal-secret', this.range(f.node), { field }, { server });
  }

  private readonly unmaskedReported = new Set<string>();
  private reportUnmasked(info: InputInfo) {
    if (this.unmaskedReported.has(info.id)) return;
    this.unmaskedReported.add(info.id);
    this.add('unmasked-secret-input', this.range(propertyValue(info.node, 'id') ?? info.node), { id: info.id });
  }
}

/** The key a server map is written under (`servers`, `mcpServers`). */
function mapKeyOf(map: Node): string {
  return map.parent?.type === 'property' ? String(map.parent.children?.[0]?.value) : '';
}

/** Sets an own property, "__proto__" included (plain assignment would set the prototype). */
function defineProperty(target: Record<string, unknown>, key: string, value: unknown) {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
