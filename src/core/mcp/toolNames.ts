import { createHash } from 'node:crypto';

const MAX_TOOL_NAME = 64;

/**
 * The public name DSH gives an MCP tool (identical in every DSH version read):
 * `mcp__<serverName>__<rawName>` with every UTF-16 code unit outside [A-Za-z0-9_-] replaced
 * by `_`; if anything was replaced or the name is longer than 64, the first 51 characters
 * plus `_` plus 12 hex digits of sha256(serverName + "\0" + rawName).
 */
export function publicToolName(serverName: string, rawName: string): string {
  const joined = `${toolNamePrefix(serverName)}${rawName}`;
  const normalized = joined.replace(/[^A-Za-z0-9_-]/g, '_');
  if (normalized === joined && normalized.length <= MAX_TOOL_NAME) return normalized;
  // Node encodes lone surrogates as U+FFFD in UTF-8, as DSH's own hashing does.
  const hash = createHash('sha256').update(`${serverName}\0${rawName}`, 'utf8').digest('hex').slice(0, 12);
  return `${normalized.slice(0, 51)}_${hash}`;
}

/**
 * How every public tool name of `serverName` starts: `mcp__<serverName>__`. {@link publicToolName}
 * keeps it whole for every serverName a declaration allows (1 to 32 of [A-Za-z0-9_-]: at most 39
 * characters, within the 51 kept when a name is hashed), so it tells whose a registered tool is.
 */
export function toolNamePrefix(serverName: string): string {
  return `mcp__${serverName}__`;
}

/** The server among `serverNames` that a public tool name belongs to (the first whose prefix it has). */
export function serverOfTool(toolName: string, serverNames: Iterable<string>): string | undefined {
  for (const serverName of serverNames) if (toolName.startsWith(toolNamePrefix(serverName))) return serverName;
  return undefined;
}
