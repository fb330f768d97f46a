/**
 * "1 server", "2 servers": a count with its real English plural form, for the CLI's words and
 * the log lines of the extension and the DSH plugin (the editor's own words go through l10n,
 * with a message per form).
 */
export function countOf(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}
