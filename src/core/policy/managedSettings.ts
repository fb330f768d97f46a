/**
 * GitHub Copilot's unified managed settings (`managed-settings.json` and its MDM forms), the MCP
 * part of them as VS Code reads it (`src/vs/platform/policy/common/copilotManagedSettings.ts`):
 * `allowedMcpServers` / `deniedMcpServers` (the entries of ./serverMatch; absent: no
 * restriction, `[]`: block all), `allowManagedMcpServersOnly`, and `sandbox` {enabled,
 * allowBypass}. VS Code carries the two lists as JSON strings across every channel (an MDM value
 * is a string of JSON), a file has them as arrays: both are read.
 *
 * Each channel that sets anything becomes one layer of the DSH side's policy (origin `managed`),
 * applied at mount and at export. Where VS Code merges the channels key by key (native MDM, then
 * the server, then the file), the bridge applies every channel's rules: a server any of them
 * blocks is blocked (the stricter result where they disagree). A channel that cannot be read or
 * holds a malformed value blocks every server (VS Code logs it and applies none of it: here it
 * fails closed), with the place of the fault. Pure; never throws.
 */
import * as z from 'zod/mini';
import { parseTree, findNodeAtLocation, type ParseError, printParseErrorCode } from 'jsonc-parser';
import { serverMatchers, type ServerMatcher } from './serverMatch';

/** Where a managed setting came from: native MDM (Windows registry, macOS managed preferences), the enterprise server, a file. */
export type ManagedChannel = 'mdm' | 'server' | 'file';

export const MANAGED_KEYS = {
  allowed: 'allowedMcpServers',
  denied: 'deniedMcpServers',
  managedOnly: 'allowManagedMcpServersOnly',
  sandboxEnabled: 'sandbox.enabled',
  sandboxBypass: 'sandbox.allowBypass',
} as const;

/** The MCP rules of one channel, or why it cannot be used (`refused`: every server is blocked). */
export interface ManagedRules {
  channel: ManagedChannel;
  /** The file, registry key or preferences domain read. */
  location: string;
  /** Undefined: no allowlist (`allowManagedMcpServersOnly` without one: `[]`, nothing allowed). */
  allow?: ServerMatcher[];
  deny: ServerMatcher[];
  managedOnly: boolean;
  /** `sandbox.enabled` forced on without `sandbox.allowBypass`: local servers cannot run unsandboxed. */
  sandboxForced: boolean;
  /** Set when the channel cannot be used: why, with the place (never the content). */
  refused?: string;
}

/** A channel's settings as read: a flat bag (dotted keys) or a located fault. */
export type ManagedBag = { ok: true; values: Readonly<Record<string, unknown>>; locate?: (key: string) => string } | { ok: false; error: string };

const topLevel = z.record(z.string(), z.unknown());

/**
 * A `managed-settings.json` text (JSON, as VS Code's `JSON.parse` takes it: no comments, no
 * trailing commas). A syntax error or a top level that is not an object is a fault at its line and
 * column.
 */
export function parseManagedSettingsJson(text: string): ManagedBag {
  const errors: ParseError[] = [];
  const root = parseTree(text.replace(/^\uFEFF/, ''), errors, { allowTrailingComma: false, disallowComments: true });
  if (errors.length || !root) {
    const first = errors[0];
    const where = first ? lineColumn(text, first.offset) : 'line 1, column 1';
    return { ok: false, error: `${where}: ${first ? printParseErrorCode(first.error) : 'no JSON value'}` };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    return { ok: false, error: `line 1, column 1: ${error instanceof Error ? error.message : String(error)}` };
  }
  const object = topLevel.safeParse(parsed);
  if (!object.success || Array.isArray(parsed)) return { ok: false, error: `${lineColumn(text, root.offset)}: the top level is not a JSON object` };
  return {
    ok: true,
    values: flatten(object.data),
    locate: (key) => {
      const node = findNodeAtLocation(root, key.split('.')) ?? findNodeAtLocation(root, [key]);
      return node ? lineColumn(text, node.offset) : key;
    },
  };
}

/** A bag from already parsed values (a registry key, a managed-preferences dictionary): dotted keys. */
export function managedBag(values: Readonly<Record<string, unknown>>): ManagedBag {
  return { ok: true, values: flatten(values) };
}

/**
 * The MCP rules of one channel's bag. A list that is neither an array nor a string of a JSON
 * array, or a boolean key that is neither a boolean nor 0/1 (a registry DWORD), refuses the
 * channel, at its place.
 */
export function managedRules(channel: ManagedChannel, location: string, bag: ManagedBag): ManagedRules {
  const none = { channel, location, deny: [], managedOnly: false, sandboxForced: false };
  if (!bag.ok) return { ...none, refused: bag.error };
  const at = (key: string) => bag.locate?.(key) ?? key;
  const list = (key: string): { value?: ServerMatcher[]; fault?: string } => {
    if (!Object.hasOwn(bag.values, key)) return {};
    let raw = bag.values[key];
    if (typeof raw === 'string') {
      try {
        raw = JSON.parse(raw);
      } catch {
        return { fault: `${at(key)}: ${key} is a string that is not JSON` };
      }
    }
    if (!Array.isArray(raw)) return { fault: `${at(key)}: ${key} is not a list` };
    return { value: serverMatchers(raw) ?? [] };
  };
  const flag = (key: string): { value?: boolean; fault?: string } => {
    if (!Object.hasOwn(bag.values, key)) return {};
    const raw = bag.values[key];
    if (raw === true || raw === 1) return { value: true };
    if (raw === false || raw === 0) return { value: false };
    return { fault: `${at(key)}: ${key} is not true or false` };
  };
  const allowed = list(MANAGED_KEYS.allowed);
  const denied = list(MANAGED_KEYS.denied);
  const managedOnly = flag(MANAGED_KEYS.managedOnly);
  const sandbox = flag(MANAGED_KEYS.sandboxEnabled);
  const bypass = flag(MANAGED_KEYS.sandboxBypass);
  const fault = [allowed, denied, managedOnly, sandbox, bypass].find((r) => r.fault)?.fault;
  if (fault) return { ...none, refused: fault };
  const allow = allowed.value ?? (managedOnly.value ? [] : undefined);
  return {
    channel, location,
    ...(allow ? { allow } : {}),
    deny: denied.value ?? [],
    managedOnly: managedOnly.value === true,
    // Only an explicit bypass lets a local server run outside the sandbox.
    sandboxForced: sandbox.value === true && bypass.value !== true,
  };
}

/** Whether the channel restricts anything (a channel without MCP keys is not shown as a layer). */
export function restricts(rules: ManagedRules): boolean {
  return rules.refused !== undefined || rules.allow !== undefined || rules.deny.length > 0 || rules.managedOnly || rules.sandboxForced;
}

/**
 * `reg query <key> /s` output (Windows): each key line (`HKEY_...\SOFTWARE\Policies\GitHubCopilot`
 * or a subkey), then its values as `    name    REG_TYPE    data`. A subkey's values get its
 * path below `root` as a dotted prefix (`sandbox\enabled` -> `sandbox.enabled`). REG_DWORD and
 * REG_QWORD are numbers (`0x1`), REG_SZ and REG_EXPAND_SZ strings; other types are left out.
 */
export function parseRegQuery(text: string, root: string): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  const rootUpper = root.toUpperCase();
  let prefix: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    if (/^HKEY_/i.test(line)) {
      const key = line.trim();
      const upper = key.toUpperCase();
      prefix = upper === rootUpper ? '' : upper.startsWith(`${rootUpper}\\`) ? `${key.slice(root.length + 1).split('\\').join('.')}.` : undefined;
      continue;
    }
    const match = /^ {4}(.+?) {4}(REG_[A-Z_]+) {4}(.*)$/.exec(line) ?? /^ {4}(.+?) {4}(REG_[A-Z_]+)$/.exec(line);
    if (!match || prefix === undefined) continue;
    const [, name, type, data = ''] = match;
    const key = `${prefix}${name}`;
    if (type === 'REG_DWORD' || type === 'REG_QWORD') Object.defineProperty(values, key, { value: Number.parseInt(data, 16), enumerable: true });
    else if (type === 'REG_SZ' || type === 'REG_EXPAND_SZ') Object.defineProperty(values, key, { value: data, enumerable: true });
  }
  return values;
}

/**
 * An XML property list (macOS managed preferences, as `plutil -convert xml1` prints them): the
 * top `<dict>` with `<string>`, `<true/>`, `<false/>`, `<integer>`, `<real>`, `<array>` and nested
 * `<dict>` values; `<data>` and `<date>` are left out. A document it cannot read is a fault.
 */
export function parsePlistXml(text: string): ManagedBag {
  const tokens = [...text.replace(/<\?xml[^>]*\?>|<!DOCTYPE[^>]*>|<!--[\s\S]*?-->/g, '').matchAll(/<(\/?)([a-zA-Z]+)(?:\s+[^>]*?)?\s*(\/?)>|([^<]+)/g)];
  let i = 0;
  const skipSpace = () => {
    while (i < tokens.length && tokens[i][4] !== undefined && tokens[i][4].trim() === '') i++;
  };
  const textUntil = (tag: string): string => {
    let out = '';
    while (i < tokens.length && !(tokens[i][1] === '/' && tokens[i][2] === tag)) out += tokens[i++][4] ?? '';
    i++;
    return decodeXml(out);
  };
  const value = (): unknown => {
    skipSpace();
    const token = tokens[i++];
    if (!token || token[4] !== undefined || token[1]) throw new Error('a value was expected');
    const [, , tag, selfClosing] = token;
    if (selfClosing) {
      if (tag === 'true') return true;
      if (tag === 'false') return false;
      if (tag === 'array') return [];
      if (tag === 'dict') return {};
      if (tag === 'string') return '';
      if (tag === 'data' || tag === 'date') return undefined;
      throw new Error(`<${tag}/> is not a property list value`);
    }
    switch (tag) {
      case 'string': return textUntil('string');
      case 'integer': return Number.parseInt(textUntil('integer'), 10);
      case 'real': return Number.parseFloat(textUntil('real'));
      case 'true': textUntil('true'); return true;
      case 'false': textUntil('false'); return false;
      case 'data': case 'date': textUntil(tag); return undefined;
      case 'array': {
        const items: unknown[] = [];
        for (skipSpace(); i < tokens.length && !(tokens[i][1] === '/' && tokens[i][2] === 'array'); skipSpace()) items.push(value());
        i++;
        return items;
      }
      case 'dict': {
        const dict: Record<string, unknown> = {};
        for (skipSpace(); i < tokens.length && !(tokens[i][1] === '/' && tokens[i][2] === 'dict'); skipSpace()) {
          if (tokens[i][2] !== 'key' || tokens[i][1]) throw new Error('a <key> was expected');
          i++;
          const key = textUntil('key');
          const v = value();
          if (v !== undefined) Object.defineProperty(dict, key, { value: v, enumerable: true });
        }
        i++;
        return dict;
      }
      default: throw new Error(`<${tag}> is not a property list value`);
    }
  };
  try {
    skipSpace();
    if (tokens[i]?.[2] === 'plist' && !tokens[i][1]) i++;
    const top = value();
    if (typeof top !== 'object' || top === null || Array.isArray(top)) return { ok: false, error: 'the property list is not a dictionary' };
    return managedBag(top as Record<string, unknown>);
  } catch (error) {
    return { ok: false, error: `the property list cannot be read (${error instanceof Error ? error.message : String(error)})` };
  }
}

function decodeXml(text: string): string {
  return text.replace(/&(lt|gt|amp|quot|apos|#(\d+)|#x([0-9a-fA-F]+));/g, (whole, name: string, dec?: string, hex?: string) => {
    if (dec) return String.fromCodePoint(Number(dec));
    if (hex) return String.fromCodePoint(Number.parseInt(hex, 16));
    return ({ lt: '<', gt: '>', amp: '&', quot: '"', apos: '\'' } as Record<string, string>)[name] ?? whole;
  });
}

const LIST_KEYS: ReadonlySet<string> = new Set([MANAGED_KEYS.allowed, MANAGED_KEYS.denied]);

/** Nested objects as dotted keys (`{sandbox: {enabled: true}}` -> `sandbox.enabled`), as VS Code flattens scalars; lists stay whole. */
function flatten(object: Readonly<Record<string, unknown>>, prefix = '', out: Record<string, unknown> = {}): Record<string, unknown> {
  for (const [key, value] of Object.entries(object)) {
    const dotted = `${prefix}${key}`;
    // The lists stay whole whatever they hold (a list that is an object is a fault, not nested keys).
    if (typeof value === 'object' && value !== null && !Array.isArray(value) && !LIST_KEYS.has(dotted)) flatten(value as Record<string, unknown>, `${dotted}.`, out);
    else Object.defineProperty(out, dotted, { value, enumerable: true, configurable: true });
  }
  return out;
}

function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `line ${before.length}, column ${before[before.length - 1].length + 1}`;
}
