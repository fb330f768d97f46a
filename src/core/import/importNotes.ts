import { formatMessage } from '../problems/problems';

/** The clients whose MCP configuration files the bridge imports. */
export const IMPORT_CLIENTS = ['cursor', 'claude', 'gemini', 'codex'] as const;
export type ImportClient = (typeof IMPORT_CLIENTS)[number];

export const CLIENT_NAMES: Record<ImportClient, string> = {
  cursor: 'Cursor',
  claude: 'Claude Code',
  gemini: 'Gemini CLI',
  codex: 'Codex',
};

/**
 * What an import changed or could not carry, per field. `changed`: carried with another
 * spelling, same meaning; `secret`: a literal credential moved out of the file; `lost`: not
 * carried; `skipped`: a whole server not imported; `error`: a whole file not imported.
 * Each template is an English message with `{name}` placeholders and doubles as the editor's
 * l10n key. Templates never quote a configuration value (it may be a secret): names only.
 */
export type NoteKind = 'changed' | 'secret' | 'lost' | 'skipped' | 'error';

export const IMPORT_NOTES = {
  'env-reference': ['changed', '{from} became {to}: VS Code reads environment variables only as ${env:NAME}.'],
  'env-default-dropped': ['lost', 'The default of {from} is not carried: VS Code has no defaults for ${env:NAME}, so {to} is empty when {name} is not set.'],
  'secret-to-input': ['secret', 'The literal credential was replaced by {reference} (a password input); its value goes to secret storage on this machine, never into the file.'],
  'input-renamed': ['secret', 'The input id "{id}" is already yours in .vscode/mcp.json or has a value stored for this folder: this credential got the id "{newId}", and your stored value is left as it is.'],
  'url-credentials-to-header': ['secret', 'The user name and password in the URL were moved into the header "Authorization": "Basic {reference}" (a password input holding base64 of user:password, which is what HTTP Basic authentication sends): VS Code\'s HTTP client refuses a URL with credentials, and the export refuses one (url-credentials). The value goes to secret storage on this machine, never into the file.'],
  'url-credentials-dropped': ['lost', 'The user name and password in the URL are not carried: the entry sets its own "{header}" header, which is what the server receives. (VS Code\'s HTTP client refuses a URL with credentials.)'],
  'url-credentials-placeholder': ['lost', 'The URL holds a placeholder where the password goes: the user name and password are not carried, since VS Code\'s HTTP client refuses a URL with credentials. If the server needs them, add an "Authorization" header that uses a password input.'],
  'too-many-servers': ['error', 'Importing would give .vscode/mcp.json {count} servers; the limit is {limit}, as for the export, and this server is the first past it: nothing was imported.'],
  'target-too-large': ['error', '.vscode/mcp.json would be {size} bytes after the import; the bridge reads at most {limit} bytes of it (and so would export nothing): nothing was imported.'],
  'placeholder-to-input': ['secret', 'The value looks like a placeholder, not a credential: it was replaced by {reference} (a password input) for you to enter.'],
  'sse-transport': ['changed', '{client} connects to "{field}" over SSE: written as "type": "sse". VS Code runs it, but DSH has no SSE and the export refuses it; if the server also serves Streamable HTTP, change "type" to "http".'],
  'http-url': ['changed', '"httpUrl" became "url" with "type": "http" (Streamable HTTP).'],
  'field-converted': ['changed', '"{field}" became {to}.'],
  'unsupported-transport': ['skipped', 'The transport {transport} has no VS Code equivalent: the server was not imported.'],
  'tool-filter-dropped': ['lost', '"{field}" ({tools}) is not carried: VS Code keeps tool enablement in its own state, not in mcp.json. Turn those tools on or off in the chat tool picker.'],
  'timeout-dropped': ['lost', '"{field}" is not carried: VS Code has no per-server timeout. DSH\'s tool-call timeout is the setting dsh.export.toolCallTimeoutMs.'],
  'trust-dropped': ['lost', '"{field}" is not carried: VS Code and DSH ask before tool calls of this server as they do for any other.'],
  'field-dropped': ['lost', '"{field}" has no VS Code equivalent and is not carried.'],
  'invalid-field': ['lost', '"{field}" is not carried: {reason}.'],
  'server-disabled': ['skipped', 'The server is turned off in {client}: it was not imported.'],
  'shadowed': ['skipped', 'A server of the same name in {other} takes precedence in {client}: this one was not imported.'],
  'already-present': ['skipped', '.vscode/mcp.json already has this server as "{name}": nothing to add.'],
  'also-in-dot-mcp': ['changed', 'VS Code can run the servers of the workspace\'s .mcp.json itself too (when its discovery of that file is on): this server is now defined in both files. DSH Bridge exports the .vscode/mcp.json entry; remove the other one if Claude Code no longer needs it.'],
  'renamed': ['changed', '.vscode/mcp.json already has a different server "{name}": this one was imported as "{newName}".'],
  'invalid-server': ['skipped', 'Not a server entry {client} would run ({reason}): it was not imported.'],
  'wrong-dialect': ['error', 'This file is {actual}, not {expected}: nothing was imported from it.'],
  'parse-error': ['error', 'Line {line}, column {column}: {reason}. Nothing was imported from this file.'],
  'unreadable': ['error', 'The file cannot be read ({reason}): nothing was imported from it.'],
  'no-servers': ['error', 'The file defines no MCP servers.'],
  'target-invalid': ['error', '.vscode/mcp.json cannot be edited safely ({reason}): nothing was changed.'],
} as const satisfies Record<string, readonly [NoteKind, string]>;

export type ImportNoteCode = keyof typeof IMPORT_NOTES;

export interface ImportNote {
  code: ImportNoteCode;
  kind: NoteKind;
  /** The source file (as the face shows it), when the note is about one. */
  file?: string;
  /** The server's name in the source. */
  server?: string;
  /** The source field, dotted (`env.API_KEY`, `headers.Authorization`). */
  field?: string;
  args: Record<string, string | number>;
  /** The English message (the template filled). */
  message: string;
}

export function makeNote(code: ImportNoteCode, where: { file?: string; server?: string; field?: string }, args: Record<string, string | number> = {}): ImportNote {
  const [kind, template] = IMPORT_NOTES[code];
  const allArgs = where.field !== undefined && !('field' in args) ? { ...args, field: where.field } : args;
  const note: ImportNote = { code, kind, args: allArgs, message: formatMessage(template, allArgs) };
  if (where.file !== undefined) note.file = where.file;
  if (where.server !== undefined) note.server = where.server;
  if (where.field !== undefined) note.field = where.field;
  return note;
}

export function noteTemplate(code: string): string | undefined {
  return Object.hasOwn(IMPORT_NOTES, code) ? IMPORT_NOTES[code as ImportNoteCode][1] : undefined;
}
