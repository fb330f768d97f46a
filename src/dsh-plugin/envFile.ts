import * as path from 'node:path';
import { readWorkspaceFile, isInside } from '../core/reader';

export const MAX_ENV_FILE_BYTES = 256 * 1024;

export type EnvFileResult = { ok: true; vars: Record<string, string> } | { ok: false; reason: string };

/**
 * Parses a dotenv file the way VS Code's `envFile` is commonly written: `KEY=value`,
 * optional `export `, `#` comments, single quotes literal, double quotes with \n \r \t \\ \"
 * escapes, unquoted values trimmed with a trailing ` #comment` removed. Never expands `$VAR`.
 */
export function parseDotenv(text: string): Record<string, string> {
  const vars: Record<string, string> = Object.create(null);
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const lines = body.split(/\r\n|\n|\r/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)$/.exec(line);
    if (!m) continue;
    const key = m[1];
    let raw = m[2];
    let value: string;
    const quote = raw[0];
    if (quote === '"' || quote === "'" || quote === '`') {
      // A quoted value may span lines.
      let end = findClosingQuote(raw, quote);
      while (end < 0 && i + 1 < lines.length) {
        raw += `\n${lines[++i]}`;
        end = findClosingQuote(raw, quote);
      }
      const inner = end < 0 ? raw.slice(1) : raw.slice(1, end);
      value = quote === '"' ? inner.replace(/\\([nrt"\\])/g, (_, c: string) => ({ n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' })[c] ?? c) : inner;
    } else {
      value = raw.replace(/\s+#.*$/, '').trim();
    }
    Object.defineProperty(vars, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return { ...vars };
}

function findClosingQuote(raw: string, quote: string): number {
  for (let i = 1; i < raw.length; i++) {
    if (raw[i] === '\\' && quote === '"') {
      i++;
      continue;
    }
    if (raw[i] === quote) return i;
  }
  return -1;
}

/**
 * Reads a declared envFile at server start. Inside the workspace folder it must stay inside
 * (no symlink or junction out); elsewhere (the user's own export put it there) it must stay
 * inside its own directory. Only a regular file, at most MAX_ENV_FILE_BYTES. Error reasons
 * never quote the content.
 */
export async function loadEnvFile(file: string, folder: string): Promise<EnvFileResult> {
  if (!path.isAbsolute(file)) return { ok: false, reason: 'the envFile path is not absolute' };
  const base = isInside(path.resolve(folder), path.resolve(file)) ? path.resolve(folder) : path.dirname(path.resolve(file));
  const read = await readWorkspaceFile(base, path.relative(base, path.resolve(file)), MAX_ENV_FILE_BYTES);
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
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(read.bytes);
  } catch {
    return { ok: false, reason: 'the envFile is not UTF-8' };
  }
  return { ok: true, vars: parseDotenv(text) };
}
