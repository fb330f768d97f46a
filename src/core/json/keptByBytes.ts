/**
 * Values derived from a file's bytes, kept by the SHA-256 of those bytes: the inputs a DSH model
 * step reads (the probe record, settings files, envFiles, the DSH policy) are parsed once per
 * change of their bytes. Exact where size and mtime are not (an edit within the same second, or
 * of the same size, changes the hash); the hash costs far less than the parse it saves.
 */
import { sha256Hex } from './canonicalJson';

export class KeptByBytes<T> {
  private readonly kept = new Map<string, T>();

  constructor(private readonly max: number) {}

  /** `derive`'s value for these bytes of `what` (a file and how it is read): its first answer while the bytes stay the same. */
  of(what: string, bytes: Uint8Array, derive: (sha256: string) => T): T {
    const sha256 = sha256Hex(bytes);
    const key = `${sha256} ${what}`;
    if (this.kept.has(key)) return this.kept.get(key)!;
    const value = derive(sha256);
    if (this.kept.size >= this.max) this.kept.delete(this.kept.keys().next().value!);
    this.kept.set(key, value);
    return value;
  }
}

/** Freezes a value and everything in it (a kept value is shared by its readers). */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
