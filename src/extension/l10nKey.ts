import { createHash } from 'node:crypto';

/**
 * The key of an English message in the l10n bundles as the .vsix ships them: the first four
 * base64url characters of its SHA-256 (24 bits; the keys are a tenth of the shipped bundle). The
 * repository's bundles are keyed by the English text (what translators read and the tests check);
 * `npm run package` rewrites the shipped copies to these keys (scripts/package-vsix.mjs, which
 * fails on a collision: reword one message), so the English text is not shipped twice, once in
 * the code and once per bundle.
 */
export function l10nKey(message: string): string {
  return createHash('sha256').update(message).digest('base64url').slice(0, 4);
}
