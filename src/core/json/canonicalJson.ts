import * as crypto from 'node:crypto';

/** True when the string has an unpaired UTF-16 surrogate (not representable in I-JSON). */
export function hasLoneSurrogate(value: string): boolean {
  return !value.isWellFormed();
}

/**
 * RFC 8785 (JCS) canonical JSON. Written here rather than taken from the `canonicalize`
 * package for two measured reasons: that package serializes a lone surrogate as an escape
 * where RFC 8785 (I-JSON) has no representation for it, and it was the largest single cost
 * of an export (see README, Performance). The unit tests check it against the RFC's examples
 * and, as a property, against `canonicalize` for every well-formed value.
 *
 * - Strings and numbers: ECMAScript's JSON.stringify is exactly JCS's serialization.
 * - Keys sort by UTF-16 code units (Array.prototype.sort's default), so "10" < "9" < "a",
 *   whatever order JavaScript enumerates integer-like keys in.
 * - Lone surrogates are refused.
 */
export function canonicalJson(value: unknown): string {
  switch (typeof value) {
    case 'string':
      if (!value.isWellFormed()) throw new Error('lone surrogate: not representable in RFC 8785 canonical JSON');
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new Error('non-finite number: not representable in JSON');
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) out += (i ? ',' : '') + canonicalJson(value[i] === undefined ? null : value[i]);
        return `${out}]`;
      }
      const known = pinnedCanonical.get(value);
      if (known !== undefined) return known;
      const record = value as Record<string, unknown>;
      if (typeof (record as { toJSON?: unknown }).toJSON === 'function') return canonicalJson((record as { toJSON(): unknown }).toJSON());
      const keys = Object.keys(record).sort();
      let out = '{';
      let first = true;
      for (const key of keys) {
        const v = record[key];
        if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
        if (!key.isWellFormed()) throw new Error('lone surrogate: not representable in RFC 8785 canonical JSON');
        out += `${first ? '' : ','}${JSON.stringify(key)}:${canonicalJson(v)}`;
        first = false;
      }
      return `${out}}`;
    }
    default:
      throw new Error(`a ${typeof value} has no JSON representation`);
  }
}

// crypto.hash (Node >= 20.12) is a one-shot digest without a Hash object: ~20% faster on short inputs.
const oneShot = (crypto as { hash?: (algorithm: string, data: string | Uint8Array, encoding: 'hex') => string }).hash;

export function sha256Hex(data: string | Uint8Array): string {
  return oneShot ? oneShot('sha256', data, 'hex') : crypto.createHash('sha256').update(data).digest('hex');
}

export function canonicalHash(value: unknown): string {
  return `sha256:${sha256Hex(canonicalJson(value))}`;
}

/**
 * Canonical texts of pinned entries, kept so the document digest does not serialize every
 * server a second time. Weak keys: an entry's text lives as long as the entry. Entries are
 * frozen so the remembered text cannot go out of date.
 */
const pinnedCanonical = new WeakMap<object, string>();

/** A frozen copy of `value` whose canonical text is computed now, once, for every entry that shares it. */
export function withCanonicalText<T extends object>(value: T): Readonly<T> {
  const frozen = Object.freeze({ ...value });
  pinnedCanonical.set(frozen, canonicalJson(frozen));
  return frozen;
}

/** The entry with `pin` = sha256 of the canonical JSON of the entry without it. */
export function withPin<T extends object>(entry: T): Readonly<T & { pin: string }> {
  if ('pin' in entry) throw new Error('entry is already pinned');
  // Serialize the members once; the pinned text is the same members with "pin" spliced in.
  const keys = Object.keys(entry).sort();
  let before = '';
  let after = '';
  for (const key of keys) {
    const value = (entry as Record<string, unknown>)[key];
    if (value === undefined) continue;
    const member = `${JSON.stringify(key)}:${canonicalJson(value)}`;
    if (key < 'pin') before += (before ? ',' : '') + member;
    else after += (after ? ',' : '') + member;
  }
  if (!keys.every((k) => k.isWellFormed())) throw new Error('lone surrogate: not representable in RFC 8785 canonical JSON');
  const pin = `sha256:${sha256Hex(`{${before}${before && after ? ',' : ''}${after}}`)}`;
  const pinned = Object.freeze({ ...entry, pin });
  pinnedCanonical.set(pinned, `{${before}${before ? ',' : ''}"pin":${JSON.stringify(pin)}${after ? ',' : ''}${after}}`);
  return pinned;
}
