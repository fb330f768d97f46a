/**
 * The pin of an exported server entry, its canonical text (RFC 8785) written field by field:
 * the entry's shape is known, so its keys are in sorted order here and each value is one native
 * JSON.stringify (strings, lists of templates, and template parts of one key each are canonical
 * as JSON.stringify writes them); only the keys of `env` and `headers` are sorted per entry. Measured: the generic `canonicalJson` (sort the keys of every
 * object, recurse) was a quarter of an export. Whatever this writer cannot vouch for (a lone
 * surrogate, a `__proto__` key, export options without a JSON form) goes through `withPin`,
 * which gives the same pin or refuses as it always did.
 */
import { canonicalJson, freezePinned, pinOfMembers, withPin } from '../json/canonicalJson';
import type { DeclaredServer, Reconnect } from '../declaration/declarationModel';
import type { Template } from '../declaration/template';

/** The export options every entry of an analysis carries. */
export interface CommonOptions {
  toolCallTimeoutMs: number;
  failOnStartupError: boolean;
  reconnect: Reconnect;
}

/** The canonical texts of the shared options, written once per analysis; undefined when one has no JSON form. */
export interface SharedMembers {
  failOnStartupError: string;
  reconnect: string;
  toolCallTimeoutMs: string;
}

export function sharedMembers(common: CommonOptions): SharedMembers | undefined {
  try {
    return {
      failOnStartupError: canonicalJson(common.failOnStartupError),
      reconnect: canonicalJson(common.reconnect),
      toolCallTimeoutMs: canonicalJson(common.toolCallTimeoutMs),
    };
  } catch {
    return undefined; // withPin refuses these entries, as before
  }
}

export interface StdioFields {
  name: string;
  serverName: string;
  command: Template;
  args: Template[];
  env: Record<string, Template>;
  cwd: Template;
  envFile: Template | undefined;
  inputRefs: string[];
  envRefs: string[];
}

export interface RemoteFields {
  name: string;
  serverName: string;
  url: Template;
  headers: Record<string, Template>;
  inputRefs: string[];
  envRefs: string[];
}

/** The pinned, frozen stdio entry; its keys in the order the declaration writes them. */
export function pinnedStdio(f: StdioFields, common: CommonOptions, shared: SharedMembers | undefined): DeclaredServer {
  const entry: Record<string, unknown> & { pin: string } = f.envFile === undefined
    ? {
      name: f.name, serverName: f.serverName, transport: 'stdio', command: f.command, args: f.args, env: f.env, cwd: f.cwd,
      toolCallTimeoutMs: common.toolCallTimeoutMs, failOnStartupError: common.failOnStartupError, reconnect: common.reconnect,
      inputRefs: f.inputRefs, envRefs: f.envRefs, pin: '',
    }
    : {
      name: f.name, serverName: f.serverName, transport: 'stdio', command: f.command, args: f.args, env: f.env, cwd: f.cwd, envFile: f.envFile,
      toolCallTimeoutMs: common.toolCallTimeoutMs, failOnStartupError: common.failOnStartupError, reconnect: common.reconnect,
      inputRefs: f.inputRefs, envRefs: f.envRefs, pin: '',
    };
  const env = shared && record(f.env);
  if (env === undefined) return generic(entry);
  const before = `"args":${JSON.stringify(f.args)},"command":${JSON.stringify(f.command)},"cwd":${JSON.stringify(f.cwd)},"env":${env}${
    f.envFile === undefined ? '' : `,"envFile":${JSON.stringify(f.envFile)}`},"envRefs":${JSON.stringify(f.envRefs)},"failOnStartupError":${
    shared!.failOnStartupError},"inputRefs":${JSON.stringify(f.inputRefs)},"name":${JSON.stringify(f.name)}`;
  const after = `"reconnect":${shared!.reconnect},"serverName":${JSON.stringify(f.serverName)},"toolCallTimeoutMs":${shared!.toolCallTimeoutMs},"transport":"stdio"`;
  return finish(entry, before, after);
}

/** The pinned, frozen remote (Streamable HTTP) entry; its keys in the order the declaration writes them. */
export function pinnedRemote(f: RemoteFields, common: CommonOptions, shared: SharedMembers | undefined): DeclaredServer {
  const entry: Record<string, unknown> & { pin: string } = {
    name: f.name, serverName: f.serverName, transport: 'streamable-http', url: f.url, headers: f.headers,
    toolCallTimeoutMs: common.toolCallTimeoutMs, failOnStartupError: common.failOnStartupError, reconnect: common.reconnect,
    inputRefs: f.inputRefs, envRefs: f.envRefs, pin: '',
  };
  const headers = shared && record(f.headers);
  if (headers === undefined) return generic(entry);
  const before = `"envRefs":${JSON.stringify(f.envRefs)},"failOnStartupError":${shared!.failOnStartupError},"headers":${headers},"inputRefs":${
    JSON.stringify(f.inputRefs)},"name":${JSON.stringify(f.name)}`;
  const after = `"reconnect":${shared!.reconnect},"serverName":${JSON.stringify(f.serverName)},"toolCallTimeoutMs":${shared!.toolCallTimeoutMs},"transport":"streamable-http","url":${JSON.stringify(f.url)}`;
  return finish(entry, before, after);
}

/** A map of templates, its keys in code-unit order; undefined for a "__proto__" key (read through the prototype: the generic path handles it). */
function record(map: Record<string, Template>): string | undefined {
  const keys = Object.keys(map);
  // Insertion sort: maps are small, and Array.prototype.sort allocates for every call.
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i];
    let j = i - 1;
    while (j >= 0 && keys[j] > key) {
      keys[j + 1] = keys[j];
      j--;
    }
    keys[j + 1] = key;
  }
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (key === '__proto__') return undefined;
    out += `${i ? ',' : ''}${JSON.stringify(key)}:${JSON.stringify(map[key])}`;
  }
  return `${out}}`;
}

function finish(entry: Record<string, unknown> & { pin: string }, before: string, after: string): DeclaredServer {
  // JSON.stringify escapes a lone surrogate (as \udXXX) where canonical JSON refuses it.
  if (before.includes('\\ud') || after.includes('\\ud')) return generic(entry);
  entry.pin = pinOfMembers(before, after);
  return freezePinned(entry, before, after) as unknown as DeclaredServer;
}

function generic(entry: Record<string, unknown> & { pin: string }): DeclaredServer {
  const { pin: _unpinned, ...rest } = entry;
  return withPin(rest) as unknown as DeclaredServer;
}
