import { sha256Hex } from '../json/canonicalJson';

const MAX = 32;

function candidate(sourceName: string): string {
  const base = sourceName
    .replace(/[^A-Za-z0-9_-]/g, '_')
    .replace(/_+/g, '_')
    .slice(0, MAX)
    .replace(/_+$/, '');
  return base === '' ? 'server' : base;
}

function withHash(base: string, sourceName: string, hashLength: number): string {
  const suffix = `-${sha256Hex(sourceName).slice(0, hashLength)}`;
  return base.slice(0, MAX - suffix.length).replace(/_+$/, '') + suffix;
}

/**
 * DSH serverNames for the source names of one file. Deterministic and independent of order:
 * a name keeps its sanitized form unless another source name sanitizes to the same form, in
 * which case every source whose name is not exactly that form gets a short hash of its own
 * source name appended.
 */
export function assignServerNames(sourceNames: readonly string[]): Map<string, string> {
  const unique = [...new Set(sourceNames)];
  const byCandidate = new Map<string, string[]>();
  for (const name of unique) {
    const c = candidate(name);
    byCandidate.set(c, [...(byCandidate.get(c) ?? []), name]);
  }
  const result = new Map<string, string>();
  const taken = new Set<string>();
  for (const [c, names] of byCandidate) {
    if (names.length === 1) {
      result.set(names[0], c);
      taken.add(c);
    }
  }
  for (const [c, names] of byCandidate) {
    if (names.length === 1) continue;
    for (const name of names) {
      if (name === c) {
        result.set(name, c);
        taken.add(c);
      }
    }
  }
  const collided = [...byCandidate].filter(([, names]) => names.length > 1).flatMap(([c, names]) => names.filter((n) => n !== c).map((n) => [c, n] as const));
  collided.sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  for (const [c, name] of collided) {
    let length = 6;
    let proposal = withHash(c, name, length);
    while (taken.has(proposal) && length < 16) proposal = withHash(c, name, ++length);
    result.set(name, proposal);
    taken.add(proposal);
  }
  return result;
}
