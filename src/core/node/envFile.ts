import * as path from 'node:path';
import { deepFreeze, KeptByBytes } from '../json/keptByBytes';
import { isInside, readWorkspaceFile } from './reader';

/**
 * The one envFile parser and loader of the bridge: the export pins what it reads, and the DSH
 * side reads it again at server start through the same functions.
 *
 * The parser follows VS Code's own (`parseEnvFile`, src/vs/base/common/envfile.ts), which the
 * editor uses for an MCP server's `envFile`, rule by rule:
 * - CRLF and lone CR count as line ends; every line stands alone (no value spans lines);
 * - a line is trimmed (which also drops a leading BOM); empty lines and lines starting with `#` are skipped;
 * - a leading `export ` (with one space) is dropped;
 * - the key ends at the first `=` or `:` outside quotes (a quote opens at `"`, `'` or a backtick
 *   anywhere and closes at the same character not preceded by a backslash); key and value are trimmed;
 *   a line with no separator or an empty key defines nothing;
 * - the value ends at the first `#` outside quotes (no space needed before it), trimmed again;
 * - a value of at least two characters that starts and ends with the same quote loses both; inside
 *   double quotes (only) the two-character sequences `\n` and `\r` become a line feed and a carriage
 *   return; nothing else is unescaped and `$VAR` is never expanded;
 * - a later definition of a key replaces an earlier one.
 */
function parseEnvFile(text: string): Map<string, string> {
  const vars = new Map<string, string>();
  for (const rawLine of text.split(/\r\n|\r|\n/)) {
    const line = rawLine.trim();
    if (line === '' || line[0] === '#') continue;
    const body = line.startsWith('export ') ? line.slice('export '.length).trim() : line;
    const separator = firstUnquoted(body, SEPARATORS);
    if (separator < 0) continue;
    const key = body.slice(0, separator).trim();
    if (key === '') continue;
    let value = body.slice(separator + 1).trim();
    const comment = firstUnquoted(value, COMMENT);
    if (comment >= 0) value = value.slice(0, comment).trim();
    vars.set(key, unquote(value));
  }
  return vars;
}

const SEPARATORS = new Set(['=', ':']);
const COMMENT = new Set(['#']);
const QUOTES = new Set(['"', "'", '`']);

/** Index of the first character of `wanted` outside quotes, or -1. */
function firstUnquoted(text: string, wanted: ReadonlySet<string>): number {
  let open: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (open !== undefined) {
      if (c === open && text[i - 1] !== '\\') open = undefined;
    } else if (QUOTES.has(c)) {
      open = c;
    } else if (wanted.has(c)) {
      return i;
    }
  }
  return -1;
}

function unquote(value: string): string {
  const first = value[0];
  if (value.length < 2 || !QUOTES.has(first) || value[value.length - 1] !== first) return value;
  const inner = value.slice(1, -1);
  return first === '"' ? inner.replace(/\\([nr])/g, (_, c: string) => (c === 'n' ? '\n' : '\r')) : inner;
}

const MAX_ENV_FILE_BYTES = 256 * 1024;

export type EnvFileResult =
  | { ok: true; vars: Record<string, string>; names: string[]; sha256: string }
  | { ok: false; reason: string };

/**
 * Reads an envFile (an absolute path). Inside the workspace folder it must stay inside (no
 * symlink or junction out); elsewhere (the user's own configuration put it there) it must stay
 * inside its own directory. Only a regular file, at most MAX_ENV_FILE_BYTES, decoded as UTF-8
 * (invalid bytes become U+FFFD, as VS Code reads it). `sha256` is of the bytes read: what the
 * declaration pins. Reasons never quote the content.
 */
export async function loadEnvFile(file: string, folder: string): Promise<EnvFileResult> {
  if (!path.isAbsolute(file)) return { ok: false, reason: 'the envFile path is not absolute' };
  const target = path.resolve(file);
  const base = isInside(path.resolve(folder), target) ? path.resolve(folder) : path.dirname(target);
  const read = await readWorkspaceFile(base, path.relative(base, target), MAX_ENV_FILE_BYTES);
  if (!read.ok) {
    const why: Record<string, string> = {
      'missing': 'does not exist',
      'not-a-regular-file': 'is not a regular file',
      'outside-workspace': 'is a link that leaves its folder',
      'too-large': `is larger than ${MAX_ENV_FILE_BYTES} bytes`,
      'unreadable': 'cannot be read',
    };
    return { ok: false, reason: `the envFile ${why[read.failure.kind] ?? 'cannot be read'}` };
  }
  return parsedEnvFiles.of('', read.bytes, (sha256) => {
    const parsed = parseEnvFile(new TextDecoder('utf-8').decode(read.bytes));
    const vars: Record<string, string> = {};
    // Own properties whatever the key ("__proto__" included).
    for (const [k, v] of parsed) Object.defineProperty(vars, k, { value: v, enumerable: true, writable: true, configurable: true });
    return deepFreeze({ ok: true, vars, names: [...parsed.keys()], sha256 });
  });
}

/** The envFiles parsed, by their bytes (the plan reads a server's envFile at every model step). Frozen: shared by their readers. */
const parsedEnvFiles = new KeptByBytes<EnvFileResult>(32);

