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
      const known = (value as { [CANONICAL_TEXT]?: string })[CANONICAL_TEXT];
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
 * The canonical text of a pinned entry, kept on the entry so the document digest does not
 * serialize every server a second time. A non-enumerable symbol: JSON, spreads and copies never
 * see it (a copy is serialized afresh), and the entry is frozen so the text cannot go out of
 * date. Not a WeakMap: its entries outlive minor collections, and every export paid for that.
 */
const CANONICAL_TEXT = Symbol('canonicalText');

function remember<T extends object>(value: T, text: string): Readonly<T> {
  Object.defineProperty(value, CANONICAL_TEXT, { value: text });
  return Object.freeze(value);
}

/** A frozen copy of `value` whose canonical text is computed now, once, for every entry that shares it. */
export function withCanonicalText<T extends object>(value: T): Readonly<T> {
  const copy = { ...value };
  return remember(copy, canonicalJson(copy));
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
  return remember({ ...entry, pin }, `{${before}${before ? ',' : ''}"pin":${JSON.stringify(pin)}${after ? ',' : ''}${after}}`);
}

/**
 * For a caller that writes an entry's canonical members itself (the export's hot path, see
 * `core/mcp/serverPin.ts`): `before` and `after` are the comma-joined members whose keys sort
 * before and after "pin", both non-empty. {@link pinOfMembers} is the pin; {@link freezePinned}
 * freezes the entry, "pin" included, with its canonical text, as {@link withPin} does.
 */
export function pinOfMembers(before: string, after: string): string {
  return `sha256:${sha256Hex(`{${before},${after}}`)}`;
}

export function freezePinned<T extends { pin: string }>(entry: T, before: string, after: string): Readonly<T> {
  return remember(entry, `{${before},"pin":${JSON.stringify(entry.pin)},${after}}`);
}
