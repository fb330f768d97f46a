import * as path from 'node:path';
import { hasLoneSurrogate } from '../json/canonicalJson';
import type { DeclaredServer } from '../declaration/declarationModel';
import type { Node } from '../json/jsonTree';
import type { Template } from '../declaration/template';
import { REMOTE_KEYS, STDIO_KEYS, serverShapeIssue } from './mcpModel';
import { findUnpinnedLauncher } from './securityLint';
import { pinnedRemote, pinnedStdio } from './serverPin';
import { LONE_SURROGATE } from './sourceProblems';
import { EntryReading, type EntryContext } from './entryReading';
import { checkUrl, lintSecrets } from './entryLint';

const NO_NODES: readonly Node[] = [];
const UNSUPPORTED_URL_SCHEME = /^(unix|pipe|wss?):/i;
/**
 * Map keys refused in env and headers: JavaScript objects give them a meaning (a prototype,
 * a constructor), so a reader in DSH or a schema library may drop or misread them.
 */
const RESERVED_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** The properties of an entry that the reading looks at (the last of duplicate keys, as a JSON reader keeps). */
interface EntryProperties {
  type?: Node;
  command?: Node;
  url?: Node;
  args?: Node;
  env?: Node;
  envFile?: Node;
  cwd?: Node;
  dev?: Node;
  sandboxEnabled?: Node;
  oauth?: Node;
  headers?: Node;
}

/**
 * One server entry, read from the parse tree in one walk of its fields: each check works on
 * the nodes themselves, and the only values made are the ones the declaration holds.
 * Undefined when it cannot be exported (its problems say why).
 */
export function readServerEntry(
  context: EntryContext, name: string, keyNode: Node, node: Node | undefined, serverName: string,
): DeclaredServer | undefined {
  const entry = new EntryReading(context, name);
  if (!node || node.type !== 'object') {
    entry.problem('invalid-server', node ?? keyNode, { reason: 'a server entry must be an object' });
    return undefined;
  }
  if (hasLoneSurrogate(name)) {
    entry.problem('invalid-server', keyNode, { reason: LONE_SURROGATE });
    return undefined;
  }
  const properties = node.children ?? NO_NODES;
  const found = findProperties(entry, properties);
  if (!found) return undefined;

  const typeNode = found.type?.children?.[1];
  const type = typeNode === undefined ? undefined : typeNode.type === 'string' ? typeNode.value as string : typeNode.type;
  const urlNode = found.url?.children?.[1];
  let kind: 'stdio' | 'remote' | undefined;
  if (type === 'stdio' || (type === undefined && found.command)) kind = 'stdio';
  else if (type === 'http' || (type === undefined && found.url)) kind = 'remote';
  else if (type === 'sse' || type === 'ws' || type === 'websocket') {
    entry.problem('unsupported-transport', typeNode!, { transport: String(type) });
    return undefined;
  } else if (type === undefined) {
    entry.problem('invalid-server', keyNode, { reason: 'a server needs "command" (stdio) or "url" (http)' });
    return undefined;
  } else {
    entry.problem('invalid-server', typeNode!, { reason: '"type" must be "stdio", "http" or "sse"' });
    return undefined;
  }
  if (kind === 'remote' && urlNode?.type === 'string' && UNSUPPORTED_URL_SCHEME.test(urlNode.value as string)) {
    const url = urlNode.value as string;
    entry.problem('unsupported-transport', urlNode, { transport: url.slice(0, url.indexOf(':') + 3) });
    return undefined;
  }
  const issue = serverShapeIssue(node, kind);
  if (issue) {
    entry.problem('invalid-server', issue.node ?? typeNode ?? keyNode, { reason: issue.reason });
    return undefined;
  }
  const known = kind === 'stdio' ? STDIO_KEYS : REMOTE_KEYS;
  for (let i = 0; i < properties.length; i++) {
    const key = properties[i].children?.[0];
    if (key && typeof key.value === 'string' && !known.has(key.value)) entry.problem('unknown-field', key, { key: key.value });
  }
  if (found.dev) entry.problem('dev-ignored', found.dev.children![0]);
  const sandbox = found.sandboxEnabled?.children?.[1];
  if (sandbox?.value === true) entry.problem('unsupported-sandbox', sandbox);
  if (found.oauth) entry.problem('unsupported-auth', found.oauth.children![0]);
  // The shape check above made every value read from here on a string where one is needed.
  return kind === 'stdio' ? readStdio(entry, found, keyNode, serverName) : readRemote(entry, found, urlNode!, keyNode, serverName);
}

/**
 * Limits and encodings first, whatever the fields mean: every string of the entry (keys
 * included) within the size limit and well-formed UTF-16. The same walk finds the fields.
 * Undefined when a string fails.
 */
function findProperties(entry: EntryReading, properties: readonly Node[]): EntryProperties | undefined {
  const found: EntryProperties = {};
  const strings = { tooLong: false, loneSurrogate: false };
  for (let i = 0; i < properties.length; i++) {
    const property = properties[i];
    checkStrings(entry, property, strings);
    switch (property.children?.[0]?.value) {
      case 'type': found.type = property; break;
      case 'command': found.command = property; break;
      case 'url': found.url = property; break;
      case 'args': found.args = property; break;
      case 'env': found.env = property; break;
      case 'envFile': found.envFile = property; break;
      case 'cwd': found.cwd = property; break;
      case 'dev': found.dev = property; break;
      case 'sandboxEnabled': found.sandboxEnabled = property; break;
      case 'oauth': found.oauth = property; break;
      case 'headers': found.headers = property; break;
    }
  }
  return strings.tooLong || strings.loneSurrogate ? undefined : found;
}

/** Every string under `node`, in source order: each too long one reported, the first not well-formed one. */
function checkStrings(entry: EntryReading, node: Node, strings: { tooLong: boolean; loneSurrogate: boolean }): void {
  if (node.type === 'string') {
    const value = node.value as string;
    const limit = entry.context.maxStringBytes;
    if (value.length * 3 > limit) {
      const size = Buffer.byteLength(value, 'utf8');
      if (size > limit) {
        entry.problem('value-too-long', node, { size, limit });
        strings.tooLong = true;
      }
    }
    if (!strings.loneSurrogate && hasLoneSurrogate(value)) {
      entry.problem('invalid-server', node, { reason: LONE_SURROGATE });
      strings.loneSurrogate = true;
    }
  }
  const children = node.children;
  if (children) for (let i = 0; i < children.length; i++) checkStrings(entry, children[i], strings);
}

function readStdio(entry: EntryReading, found: EntryProperties, keyNode: Node, serverName: string): DeclaredServer {
  const { folder } = entry.context;
  const commandNode = found.command!.children![1];
  const command = entry.field('command', commandNode);
  if (typeof command === 'string' && command.trim() === '') entry.problem('invalid-server', commandNode, { reason: '"command" is empty' });
  const argNodes = found.args?.children?.[1]?.children ?? NO_NODES;
  const args: Template[] = [];
  for (let i = 0; i < argNodes.length; i++) args.push(entry.field('arg', argNodes[i]));
  const env: Record<string, Template> = {};
  for (const property of found.env?.children?.[1]?.children ?? NO_NODES) {
    const key = property.children?.[0];
    const v = property.children?.[1];
    // A value of another type can only be a duplicate's (the shape check read the last one); the duplicate rejects the server.
    if (!key || typeof key.value !== 'string' || !v || (v.type !== 'string' && v.type !== 'number' && v.type !== 'null')) continue;
    const variable = key.value;
    if (RESERVED_KEYS.has(variable)) {
      entry.problem('reserved-key', key, { key: variable });
      continue;
    }
    if (v.type === 'null') {
      entry.problem('env-null-dropped', key, { key: variable });
      continue;
    }
    let template: Template;
    if (v.type === 'number') {
      template = String(v.value);
      entry.literalField('env', v, variable, template);
    } else {
      template = entry.field('env', v, variable);
    }
    defineProperty(env, variable, template);
  }
  const cwdNode = found.cwd?.children?.[1];
  const cwd = cwdNode ? absolutize(folder, entry.field('cwd', cwdNode)) : folder;
  const envFileNode = found.envFile?.children?.[1];
  const envFile = envFileNode ? absolutize(folder, entry.field('envFile', envFileNode)) : undefined;

  lintSecrets(entry);
  const launcherArgs: string[] = [];
  for (let i = 0; i < argNodes.length; i++) launcherArgs.push(argNodes[i].value as string);
  const unpinned = findUnpinnedLauncher(commandNode.value as string, launcherArgs);
  if (unpinned) entry.problem('unpinned-package', argNodes[unpinned.argIndex] ?? commandNode, { launcher: unpinned.launcher, hint: unpinned.hint });
  const refs = references(entry, keyNode, serverName);
  const { name } = entry;
  return pinnedStdio({ name, serverName, command, args, env, cwd, envFile, inputRefs: refs.inputs, envRefs: refs.env }, entry.context.common, entry.context.shared);
}

function readRemote(entry: EntryReading, found: EntryProperties, urlNode: Node, keyNode: Node, serverName: string): DeclaredServer {
  const url = entry.field('url', urlNode);
  checkUrl(entry, url, urlNode);
  const headers: Record<string, Template> = {};
  for (const property of found.headers?.children?.[1]?.children ?? NO_NODES) {
    const key = property.children?.[0];
    const v = property.children?.[1];
    // Only a duplicate's value can be of another type; the duplicate rejects the server.
    if (!key || typeof key.value !== 'string' || v?.type !== 'string') continue;
    if (RESERVED_KEYS.has(key.value)) entry.problem('reserved-key', key, { key: key.value });
    else defineProperty(headers, key.value, entry.field('header', v, key.value));
  }
  lintSecrets(entry);
  const refs = references(entry, keyNode, serverName);
  const { name } = entry;
  return pinnedRemote({ name, serverName, url, headers, inputRefs: refs.inputs, envRefs: refs.env }, entry.context.common, entry.context.shared);
}

/** The inputs and environment variables a server uses, each once, in the order its fields name them. */
function references(entry: EntryReading, keyNode: Node, serverName: string): { inputs: string[]; env: string[] } {
  if (serverName !== entry.name) entry.problem('server-renamed', keyNode, { serverName });
  const inputRefs: string[] = [];
  const envRefs: string[] = [];
  const { fields } = entry;
  for (let i = 0; i < fields.length; i++) {
    const refs = fields[i].refs;
    for (const id of refs.inputs) if (!inputRefs.includes(id)) inputRefs.push(id);
    for (const n of refs.env) if (!envRefs.includes(n)) envRefs.push(n);
  }
  for (const id of inputRefs) {
    const info = entry.context.inputs.get(id);
    if (info && !info.valid) entry.problem('invalid-input', keyNode, { reason: `input "${id}" used by this server is not valid` });
  }
  return { inputs: inputRefs, env: envRefs };
}

function absolutize(folder: string, template: Template): Template {
  if (typeof template === 'string') return path.resolve(folder, template);
  const first = template[0];
  if (typeof first === 'string' && !path.isAbsolute(first)) return [path.join(folder, first), ...template.slice(1)];
  return template;
}

/** Sets an own property, "__proto__" included (plain assignment would set the prototype). */
function defineProperty(target: Record<string, unknown>, key: string, value: unknown) {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
