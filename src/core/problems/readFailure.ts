/** The most bytes of an MCP source file (`.vscode/mcp.json` and the others) the bridge reads; more is `too-large`. */
export const MAX_SOURCE_BYTES = 1024 * 1024;

/** Why a file was not read (the Node adapter's readers report it; the pure core words it). */
export type ReadFailure =
  | { kind: 'missing' }
  | { kind: 'not-a-regular-file' }
  | { kind: 'outside-workspace' }
  | { kind: 'too-large'; size: number }
  | { kind: 'unreadable'; reason: string };

/** Why a file was not read, in words for a message that already names the file (`{file} cannot be read ({reason})`). */
export function readFailureReason(failure: ReadFailure, maxBytes?: number): string {
  switch (failure.kind) {
    case 'missing': return 'it does not exist';
    case 'not-a-regular-file': return 'it is not a regular file: a FIFO, a device or a folder is never read';
    case 'outside-workspace': return 'it is outside the workspace folder';
    case 'too-large': return maxBytes === undefined ? `it is too large (${failure.size} bytes)` : `it is larger than ${maxBytes} bytes`;
    case 'unreadable': return failure.reason;
  }
}
