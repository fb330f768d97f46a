/**
 * Matching a phrase rule: a short sequence of keyword classes that must appear in that order,
 * within a number of characters and in one sentence. A sequence is matched from each class's hits
 * (the nearest earlier hit of each class), so no pattern can backtrack over the text.
 */
import { CLASSES, eachMatch, type ClassName } from './phraseClasses';
import { MAX_HITS, MAX_PER_CODE } from './scanBounds';
import type { ScanCode } from './scanCodes';
import type { ScanTarget } from './scanTypes';

export interface Hit {
  start: number;
  end: number;
  groups?: Array<string | undefined>;
}

export interface PhraseRule {
  code: ScanCode;
  targets: readonly ScanTarget[];
  /** Classes in this order, from the first hit's start to the last hit's end within `within` characters, in one sentence. */
  seq: readonly ClassName[];
  within?: number;
  /** Not when a hit of `neg` ends at most 16 characters before the hit of `seq[negBefore]`. */
  negBefore?: number;
  /** Also a hit of one of these classes in the same sentence, at most 160 characters from the span. */
  also?: readonly ClassName[];
}

const NEG_GAP = 16;
export const MAX_SPANS = 10 * MAX_PER_CODE;
const ALSO_GAP = 160;

const SENTENCE_END = /[.!?](?=\s)|\n[ \t]*(?=\n|[-*•]\s|\d{1,3}[.)]\s)/g;

/** Offsets where sentences end: ". " / "! " / "? ", a blank line, a line that starts a list item. */
function sentenceEnds(text: string): number[] {
  const ends: number[] = [];
  eachMatch(SENTENCE_END, text, (m) => {
    ends.push(m.index + m[0].length);
  });
  return ends;
}

/** How many leading values of an ascending sequence (`length` values, `valueAt` each) are at most `x`. */
function countAtMost(length: number, valueAt: (i: number) => number, x: number): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (valueAt(mid) <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The last hit (sorted, not overlapping) that ends at or before `x`, as an index, or -1. */
export const lastEndingBy = (hits: readonly Hit[], x: number) => countAtMost(hits.length, (i) => hits[i].end, x) - 1;

/** The hits of each class in one text, computed on first use. */
export class TextHits {
  private readonly cache = new Map<ClassName, Hit[]>();
  private ends?: number[];

  constructor(readonly text: string) {}

  of(name: ClassName): Hit[] {
    let hits = this.cache.get(name);
    if (!hits) {
      hits = [];
      const list = hits;
      eachMatch(CLASSES[name], this.text, (m) => {
        list.push(m.length > 1 ? { start: m.index, end: m.index + m[0].length, groups: m.slice(1) } : { start: m.index, end: m.index + m[0].length });
        return list.length < MAX_HITS;
      });
      this.cache.set(name, hits);
    }
    return hits;
  }

  sentence(offset: number): number {
    const ends = (this.ends ??= sentenceEnds(this.text));
    return countAtMost(ends.length, (i) => ends[i], offset);
  }
}

/** Every span where a phrase rule holds (see PhraseRule), one per last hit, not overlapping. */
export function phraseSpans(hits: TextHits, rule: PhraseRule): Array<[number, number]> {
  const lists: Hit[][] = [];
  for (const c of rule.seq) {
    const list = hits.of(c);
    if (list.length === 0) return [];
    lists.push(list);
  }
  const spans: Array<[number, number]> = [];
  for (const last of lists[lists.length - 1]) {
    // The nearest earlier hit of each class before it: the shortest chain ending here.
    const chain: Hit[] = [last];
    for (let k = lists.length - 2; k >= 0; k--) {
      const i = lastEndingBy(lists[k], chain[0].start);
      if (i < 0) break;
      chain.unshift(lists[k][i]);
    }
    if (chain.length !== lists.length) continue;
    const start = chain[0].start;
    const end = last.end;
    if (rule.within !== undefined && end - start > rule.within) continue;
    const sentence = hits.sentence(start);
    if (hits.sentence(Math.max(start, end - 1)) !== sentence) continue;
    if (rule.negBefore !== undefined) {
      const at = chain[rule.negBefore].start;
      const neg = hits.of('neg');
      const i = lastEndingBy(neg, at);
      if (i >= 0 && at - neg[i].end <= NEG_GAP && hits.sentence(neg[i].start) === sentence) continue;
    }
    if (rule.also && !rule.also.some((c) => nearby(hits, c, start, end, sentence))) continue;
    spans.push([start, end]);
    // Enough to give MAX_PER_CODE findings after merging: the rest of a flood is not shown.
    if (spans.length >= MAX_SPANS) break;
  }
  return spans;
}

export function nearby(hits: TextHits, name: ClassName, start: number, end: number, sentence: number): boolean {
  const list = hits.of(name);
  // The first hit that ends after start - gap, then any before end + gap in the sentence.
  for (let i = Math.max(0, lastEndingBy(list, start - ALSO_GAP) + 1); i < list.length && list[i].start <= end + ALSO_GAP; i++) {
    if (hits.sentence(list[i].start) === sentence) return true;
  }
  return false;
}
