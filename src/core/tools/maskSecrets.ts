/**
 * Masks secrets in text a server wrote (its stderr, its stdout, its error texts, its tool
 * descriptions and schemas) before anything is cut, shown or stored. Pure, and linear in the
 * text (a server chooses the text: up to the probe's message cap).
 *
 * Every known value (input values, env and header values the row carries) is replaced wherever
 * it occurs; then anything that reads as `name=value` / `name: value` / `Bearer value` with a
 * credential-shaped name loses its value, and so do well-known credential shapes (API keys,
 * private keys) and a password in a URL.
 */
import { CREDENTIAL_SHAPES } from '../mcp/securityLint';

/** Shorter known values are not masked (nor looked for in definitions): too many innocent matches. */
export const MIN_KNOWN = 4;
/**
 * `name` then `=`/`:` (or `"name": "`), optionally a scheme, then the value. The name is taken
 * whole (it starts where no name character precedes it, and the lookahead-backreference pair
 * never gives a character back), so a long run of name characters is scanned once, not once per
 * dot or dash in it.
 */
const ASSIGNMENT = /(?<![A-Za-z0-9_.-])(?=([A-Za-z0-9_.-]+))\1(\s*[=:]\s*|"\s*:\s*")((?:Bearer|Basic)\s+)?([^\s"',;]+)/g;
const CREDENTIAL_WORD = /key|token|secret|password|passwd|pwd|auth|authorization|cookie|credential/i;
const BEARER = /\b(Bearer|Basic|token)\s+([A-Za-z0-9._~+/=-]{8,})/gi;
/** scheme://user:password@ (the scheme and user bounded: nothing is scanned twice). */
const URL_PASSWORD = /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]{0,31}:\/\/[^\s/?#@:]{0,256}:)[^\s/?#@]{1,256}@/gi;
/** A private key with its body (the header alone is in CREDENTIAL_SHAPES). */
const PRIVATE_KEY = /-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----[A-Za-z0-9+/=\s:,.-]*?(?:-----END [A-Z ]{0,40}PRIVATE KEY-----|$|(?=[^A-Za-z0-9+/=\s:,.-]))/g;
const SHAPES = new RegExp(CREDENTIAL_SHAPES.map((re) => `(?:${re.source})`).join('|'), 'g');
const MASK = '***';

/** Masking with one set of known values (build once, apply to every text of one server). */
export interface SecretMask {
  /** The text with every known value and credential-shaped value masked. */
  text(text: string): string;
  /**
   * The start of a longer text (a capture that stopped at a byte limit): masked as `text`, and
   * what the cut may have split is dropped too: an unfinished last line (a credential-shaped
   * value missing its end matches no rule) and an ending that starts a known value.
   */
  head(text: string): string;
  /** A copy of a JSON value with every string, keys included, masked. Iterative: any depth. */
  json(value: unknown): unknown;
}

export function secretMask(known: Iterable<string>): SecretMask {
  const values = [...new Set([...known].filter((v) => typeof v === 'string' && v.length >= MIN_KNOWN))].sort((a, b) => b.length - a.length);
  const text = (input: string): string => {
    let out = input;
    for (const value of values) if (out.includes(value)) out = out.split(value).join(MASK);
    return out
      .replace(PRIVATE_KEY, MASK)
      .replace(ASSIGNMENT, (whole: string, name: string, sep: string) => (CREDENTIAL_WORD.test(name) ? `${name}${sep}${MASK}` : whole))
      .replace(BEARER, (_, scheme: string) => `${scheme} ${MASK}`)
      .replace(URL_PASSWORD, `$1${MASK}@`)
      .replace(SHAPES, MASK);
  };
  return {
    text,
    head(input: string): string {
      const lastBreak = input.lastIndexOf('\n');
      let out = text(lastBreak === -1 ? '' : input.slice(0, lastBreak + 1));
      // A known value with a line break in it (a key file) may still end the kept lines unfinished.
      for (const value of values) {
        const cut = unfinishedAt(out, value);
        if (cut !== -1) out = `${out.slice(0, cut)}${MASK}`;
      }
      return out;
    },
    json: (value) => maskJson(value, text),
  };
}

/** Where `text` ends with the start of `value` (a proper prefix of it, one character or more), or -1. */
function unfinishedAt(text: string, value: string): number {
  for (let at = Math.max(0, text.length - value.length + 1); at < text.length; at++) {
    at = text.indexOf(value[0], at);
    if (at === -1) return -1;
    if (value.startsWith(text.slice(at))) return at;
  }
  return -1;
}

function maskJson(value: unknown, text: (s: string) => string): unknown {
  const copy = (v: unknown): unknown => (typeof v === 'string' ? text(v) : Array.isArray(v) ? [] : v !== null && typeof v === 'object' ? {} : v);
  const out = copy(value);
  const work: Array<[unknown, unknown]> = [[value, out]];
  while (work.length) {
    const [from, to] = work.pop()!;
    const entries: Array<[string | undefined, unknown]> = Array.isArray(from) ? from.map((item) => [undefined, item]) : Object.entries(from as object);
    for (const [key, item] of entries) {
      const masked = copy(item);
      if (key === undefined) (to as unknown[]).push(masked);
      else Object.defineProperty(to, text(key), { value: masked, enumerable: true, writable: true, configurable: true });
      if (masked !== null && typeof masked === 'object') work.push([item, masked]);
    }
  }
  return out;
}

/** The first `lines` lines of `text`, masked, each cut to `width` characters; blank lines dropped. */
export function firstLines(text: string, known: Iterable<string>, lines = 10, width = 240): string[] {
  const masked = secretMask(known).text(text);
  return masked.split(/\r?\n/).filter((l) => l.trim() !== '').slice(0, lines).map((l) => (l.length > width ? `${l.slice(0, width - 1)}…` : l));
}
