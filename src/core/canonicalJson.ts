import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/** True when the string has an unpaired UTF-16 surrogate (not representable in I-JSON). */
export function hasLoneSurrogate(value: string): boolean {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(value);
}

function assertIJson(value: unknown): void {
  if (typeof value === 'string') {
    if (hasLoneSurrogate(value)) throw new Error('lone surrogate: not representable in RFC 8785 canonical JSON');
  } else if (Array.isArray(value)) {
    value.forEach(assertIJson);
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      assertIJson(k);
      assertIJson(v);
    }
  }
}

/**
 * RFC 8785 (JCS) canonical JSON. Keys sort by UTF-16 code units (so "10" sorts before "9",
 * whatever JavaScript's own integer-first key order says); lone surrogates are refused.
 */
export function canonicalJson(value: unknown): string {
  assertIJson(value);
  const out = canonicalize(value);
  if (out === undefined) throw new Error('value has no JSON representation');
  return out;
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

export function canonicalHash(value: unknown): string {
  return `sha256:${sha256Hex(canonicalJson(value))}`;
}
