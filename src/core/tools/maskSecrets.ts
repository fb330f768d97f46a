/**
 * Masks secrets in text a server wrote (its stderr) before anyone shows it. Pure.
 * Two passes: every known value (input values, env and header values the row carries) is
 * replaced wherever it occurs, then anything that reads as `name=value` / `name: value` /
 * `Bearer value` with a credential-shaped name loses its value.
 */
const MIN_KNOWN = 4;
const NAMED = /\b([A-Za-z0-9_.-]*(?:key|token|secret|password|passwd|pwd|auth|authorization|cookie|credential)[A-Za-z0-9_.-]*)(\s*[=:]\s*|"\s*:\s*")((?:Bearer|Basic)\s+)?([^\s"',;]+)/gi;
const BEARER = /\b(Bearer|Basic|token)\s+([A-Za-z0-9._~+/=-]{8,})/gi;
export const MASK = '***';

export function maskSecrets(text: string, known: Iterable<string>): string {
  const values = [...new Set([...known].filter((v) => v.length >= MIN_KNOWN))].sort((a, b) => b.length - a.length);
  let out = text;
  for (const value of values) out = out.split(value).join(MASK);
  return out.replace(NAMED, (_, name: string, sep: string) => `${name}${sep}${MASK}`).replace(BEARER, (_, scheme: string) => `${scheme} ${MASK}`);
}

/** The first `lines` lines of `text`, masked, each cut to `width` characters; blank lines dropped. */
export function firstLines(text: string, known: Iterable<string>, lines = 10, width = 240): string[] {
  const masked = maskSecrets(text, known);
  return masked.split(/\r?\n/).filter((l) => l.trim() !== '').slice(0, lines).map((l) => (l.length > width ? `${l.slice(0, width - 1)}…` : l));
}
