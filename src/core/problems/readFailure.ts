/** The most bytes of an MCP source file (`.vscode/mcp.json` and the others) the bridge reads; more is `too-large`. */
export const MAX_SOURCE_BYTES = 1024 * 1024;

/** Why a file was not read (the Node adapter's readers report it; the pure core words it). */
export type ReadFailure =
  | { kind: 'missing' }
  | { kind: 'not-a-regular-file' }
  | { kind: 'outside-workspace' }
  | { kind: 'too-large'; size: number }
  | { kind: 'unreadable'; reason: string };
