/** The scan's public shapes: what is scanned, where a finding is, what it says. */
import type { ScanCode, ScanSeverity } from './scanCodes';

/** What kind of text is scanned: phrase rules differ (a skill is addressed to the model by design). */
export type ScanTarget = 'tool' | 'instructions' | 'skill';
/** Which part of a definition a finding is in. */
export type ScanField = 'name' | 'description' | 'inputSchema' | 'instructions' | 'skill';

export interface ScanFinding {
  code: ScanCode;
  severity: ScanSeverity;
  field: ScanField;
  /** In an input schema: the keys and indices down to the string (its last key, when `key`). */
  path?: Array<string | number>;
  /** The string scanned is a key (the last element of `path`), not a value. */
  key?: true;
  /** UTF-16 offsets of the span in the scanned string (the whole value for a finding on a whole definition). */
  start: number;
  end: number;
  /** The span with a little context, on one line, hidden characters escaped, at most ~200 characters. */
  excerpt: string;
  /** What hidden characters encode, shown escaped (tag characters as ASCII, variation selectors as UTF-8). */
  decoded?: string;
  /** The message's arguments (shown text: escaped and bounded). */
  args: Record<string, string | number>;
  /** In a SKILL.md: the line of the span's start (1-based). */
  line?: number;
}

/** The other tools a definition could steer: those of the same folder or session. */
export interface ScanContext {
  /** DSH's serverName of the server whose definition this is. */
  serverName?: string;
  /** Raw names of that server's own tools. */
  ownTools?: readonly string[];
  /** Tools of the other servers (raw names). */
  otherTools?: ReadonlyArray<{ serverName: string; tool: string }>;
}

/** One tool as a server lists it (`tools/list`): the parts DSH passes to the model. */
export interface ScannedTool {
  name: string;
  description?: string;
  inputSchema?: unknown;
}
