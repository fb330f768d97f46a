/** Why a file was not read (the Node adapter's readers report it; the pure core words it). */
export type ReadFailure =
  | { kind: 'missing' }
  | { kind: 'not-a-regular-file' }
  | { kind: 'outside-workspace' }
  | { kind: 'too-large'; size: number }
  | { kind: 'unreadable'; reason: string };
