/** Why a probe stopped early, and the words of a failure: a server's text masked before it is cut. */
import type * as z from 'zod/mini';
import type { SecretMask } from '../../tools/maskSecrets';

export type RowProbeFailure = 'did-not-start' | 'timed-out' | 'not-mcp' | 'newer-mcp' | 'cancelled';

/** Why a probe stopped early: becomes the outcome as it is. */
export class ProbeFailure extends Error {
  constructor(readonly failure: RowProbeFailure, detail: string) {
    super(detail);
  }
}

/** A URL's user and password (fetch repeats the whole URL in its errors): never in a failure text. */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]*@/gi;

export function describe(error: unknown): string {
  const e = error as NodeJS.ErrnoException & { cause?: { code?: string; message?: string } };
  const code = e?.code ?? e?.cause?.code;
  const message = String(e?.message ?? error).split('\n')[0].replace(URL_USERINFO, '$1***@').slice(0, 300);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

/** A server's text as shown in a failure: masked first, then cut. */
export function said(mask: SecretMask, text: string, width: number): string {
  const masked = mask.text(text);
  return masked.length > width ? `${masked.slice(0, width - 1)}…` : masked;
}

/** Where a message is not valid (its path names the server's keys: masked). */
export function issues(error: z.core.$ZodError, mask: SecretMask): string {
  const first = error.issues[0];
  return first ? said(mask, `${first.path.join('.') || 'the message'}: ${first.message}`, 300) : 'invalid';
}

/** Why text is not JSON, in the parser's words about the masked text (they quote its start). */
export function notJson(text: string, mask: SecretMask): string {
  try {
    JSON.parse(mask.text(text));
    return 'not valid JSON';
  } catch (error) {
    return describe(error);
  }
}
