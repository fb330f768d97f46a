/**
 * VS Code's MCP server allow/deny rules (`chat.mcp.allowedServers`, `chat.mcp.deniedServers`), as
 * VS Code matches them: `src/vs/platform/mcp/common/allowedMcpServers.ts` (entries, validation, URL
 * patterns) and `allowedMcpServersService.ts` (deny first, the allowlist). The DSH side's own
 * policy files use the same entries. Pure; never throws.
 */

/** One entry: exactly one of the three fields (anything else is dropped when the list is read). */
export interface ServerMatcher {
  readonly serverName?: string;
  readonly serverUrl?: string;
  readonly serverCommand?: readonly string[];
}

/**
 * What a rule is matched against: the server's configured name (the mcp.json key), and for a
 * remote server its URL, for a local one `[command, ...args]`, both after variable resolution.
 * `unresolved`: the URL or command still holds a reference (`${input:...}`, `${env:...}`) whose
 * value is not known here; URL and command rules cannot decide on it.
 */
export interface ServerIdentity {
  readonly name: string;
  readonly url?: string;
  readonly command?: readonly string[];
  readonly unresolved?: boolean;
}

export type MatchOutcome = 'allowed' | 'denied' | 'not-allowed' | 'unresolved';

export interface MatchResult {
  outcome: MatchOutcome;
  /** The entry that decided (`denied`: the deny entry; `unresolved`: a URL or command entry that could decide). */
  entry?: ServerMatcher;
}

/**
 * A list as VS Code reads it: not an array means "not configured" (undefined); an array keeps the
 * entries with exactly one well-formed field (a non-empty string name or URL, or a non-empty array
 * of strings), dropping the rest silently. An empty (or all-dropped) list stays a list: as an
 * allowlist it blocks everything.
 */
export function serverMatchers(value: unknown): ServerMatcher[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const kept: ServerMatcher[] = [];
  for (const entry of value) {
    const matcher = validMatcher(entry);
    if (matcher) kept.push(matcher);
  }
  return kept;
}

function validMatcher(entry: unknown): ServerMatcher | undefined {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return undefined;
  const record = entry as Record<string, unknown>;
  const name = Object.hasOwn(record, 'serverName') ? record.serverName : undefined;
  const url = Object.hasOwn(record, 'serverUrl') ? record.serverUrl : undefined;
  const command = Object.hasOwn(record, 'serverCommand') ? record.serverCommand : undefined;
  const hasName = typeof name === 'string' && name.length > 0;
  const hasUrl = typeof url === 'string' && url.length > 0;
  const hasCommand = Array.isArray(command) && command.length > 0 && command.every((c) => typeof c === 'string');
  if ((hasName ? 1 : 0) + (hasUrl ? 1 : 0) + (hasCommand ? 1 : 0) !== 1) return undefined;
  // Only the one field is kept: VS Code's matcher looks at the field that is valid.
  if (hasName) return { serverName: name as string };
  if (hasUrl) return { serverUrl: url as string };
  return { serverCommand: [...(command as string[])] };
}

/** Whether one entry matches the server (a name exactly, a URL by pattern, a command element by element). */
function matchesEntry(matcher: ServerMatcher, identity: ServerIdentity): boolean {
  if (matcher.serverName !== undefined) return matcher.serverName === identity.name;
  if (matcher.serverUrl !== undefined) return identity.url !== undefined && !identity.unresolved && matchesUrlPattern(matcher.serverUrl, identity.url);
  if (matcher.serverCommand !== undefined) {
    const command = identity.command;
    return command !== undefined && !identity.unresolved && command.length === matcher.serverCommand.length && command.every((c, i) => c === matcher.serverCommand![i]);
  }
  return false;
}

/** An entry that looks at the server's URL or command: it cannot decide while they are unresolved. */
function looksAtLaunch(matcher: ServerMatcher, identity: ServerIdentity): boolean {
  return (matcher.serverUrl !== undefined && identity.url !== undefined) || (matcher.serverCommand !== undefined && identity.command !== undefined);
}

/**
 * Deny first (a match is blocked even when it is also allowed), then the allowlist: undefined
 * imposes nothing, a list requires a match. A server whose URL or command is unresolved is decided
 * by name rules where they decide; when a URL or command entry could still change the outcome, it
 * is `unresolved` (VS Code defers such a check to the launch; the bridge has no launch to wait for
 * at export, so it does not let it through).
 */
export function checkServer(allow: readonly ServerMatcher[] | undefined, deny: readonly ServerMatcher[] | undefined, identity: ServerIdentity): MatchResult {
  const denied = deny?.find((m) => matchesEntry(m, identity));
  if (denied) return { outcome: 'denied', entry: denied };
  if (identity.unresolved) {
    const undecidedDeny = deny?.find((m) => looksAtLaunch(m, identity));
    if (undecidedDeny) return { outcome: 'unresolved', entry: undecidedDeny };
  }
  if (allow === undefined || allow.some((m) => matchesEntry(m, identity))) return { outcome: 'allowed' };
  if (identity.unresolved) {
    const undecidedAllow = allow.find((m) => looksAtLaunch(m, identity));
    if (undecidedAllow) return { outcome: 'unresolved', entry: undecidedAllow };
  }
  return { outcome: 'not-allowed' };
}

/**
 * VS Code's URL pattern: the whole URL, case-insensitively; `*` in the authority (after `://`, up
 * to the first `/ \ ? #`) matches a run without `/ @ \ ? #`, so `https://*.example.com/*` admits
 * neither the apex nor `https://evil.test/.example.com/x`; elsewhere `*` matches anything. An
 * http(s) URL is compared as the destination `fetch` uses (see {@link networkDestination}).
 */
function matchesUrlPattern(pattern: string, url: string): boolean {
  const destination = networkDestination(url);
  if (destination === undefined) return false;
  try {
    return new RegExp(urlPatternSource(pattern), 'i').test(destination);
  } catch {
    return false;
  }
}

/**
 * The URL as `fetch` reaches it: origin + path + query (user info and fragment dropped, the host
 * lowercased and punycoded, a default port dropped, an empty path `/`, `\` read as `/`); another
 * scheme as written; undefined when it is not a URL.
 */
function networkDestination(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return parsed.origin + parsed.pathname + parsed.search;
    return url;
  } catch {
    return undefined;
  }
}

/**
 * The URL as written and the same server spelled plainly: the host without its trailing dot,
 * the path percent-decoded and its runs of `/` made one (a server answers them alike). The DSH
 * side's deny rules match any of them; VS Code's matching, and so the editor's check, only the
 * first (docs/policy.md).
 */
export function urlSpellings(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [url];
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return [url];
  const host = parsed.host.replace(/\.+(?=:\d+$|$)/, '');
  let path = parsed.pathname;
  try {
    path = decodeURIComponent(path);
  } catch {
    // a malformed escape: the path as written
  }
  path = path.replace(/\/{2,}/g, '/');
  const plain = `${parsed.protocol}//${host}${path}${parsed.search}`;
  return plain === url ? [url] : [url, plain];
}

function urlPatternSource(pattern: string): string {
  const scheme = pattern.indexOf('://');
  const authorityStart = scheme >= 0 ? scheme + 3 : 0;
  let authorityEnd = pattern.length;
  for (let i = authorityStart; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '/' || c === '\\' || c === '?' || c === '#') {
      authorityEnd = i;
      break;
    }
  }
  let source = '^';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*') source += i < authorityEnd ? '[^/@\\\\?#]*' : '.*';
    else source += c.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  }
  return `${source}$`;
}

/** An entry as the policy file writes it (JSON), for messages; shown escaped by the caller. */
export function describeMatcher(matcher: ServerMatcher): string {
  return JSON.stringify(matcher);
}
