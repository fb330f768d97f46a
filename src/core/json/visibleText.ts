/**
 * Text from a file or a server, made safe to show. A hidden character is one that moves the
 * cursor or clears the screen (controls), reorders what follows (bidi), shows nothing (zero-width
 * and other invisible format characters, Unicode tags) or breaks a line where one line is
 * expected. Each is shown as an escape, in one notation: `\t`, `\n`, `\r`; `\xhh` for any other
 * code point below U+0100 (`\x1b`, `\x00`, `\x85`); `\u{h...}` above (`\u{202e}`, `\u{e0041}`,
 * a lone surrogate `\u{d800}`), lowercase hex, as JavaScript writes them. A backslash is shown as
 * it is, so paths stay readable: a text may spell `\x1b` itself, but two texts that differ in
 * hidden characters never show the same, and showing shown text again changes nothing.
 */

/** Why a code point is hidden; issue scanners and the escaping below share this classification. */
export type HiddenClass = 'control' | 'bidi' | 'invisible' | 'tag' | 'variation-selector' | 'line-separator' | 'lone-surrogate';

/** Hidden code points: [first, last, class], ascending and disjoint (lone surrogates are found while scanning). */
export const HIDDEN_RANGES: ReadonlyArray<readonly [number, number, HiddenClass]> = [
  [0x0000, 0x001f, 'control'], // C0, TAB, LF and CR included
  [0x007f, 0x009f, 'control'], // DEL and C1
  [0x00ad, 0x00ad, 'invisible'], // soft hyphen
  [0x034f, 0x034f, 'invisible'], // combining grapheme joiner
  [0x061c, 0x061c, 'bidi'], // Arabic letter mark
  [0x115f, 0x1160, 'invisible'], // Hangul fillers
  [0x17b4, 0x17b5, 'invisible'], // Khmer inherent vowels
  [0x180b, 0x180d, 'variation-selector'], // Mongolian free variation selectors
  [0x180e, 0x180e, 'invisible'], // Mongolian vowel separator
  [0x180f, 0x180f, 'variation-selector'],
  [0x200b, 0x200d, 'invisible'], // zero width space, non-joiner, joiner
  [0x200e, 0x200f, 'bidi'], // left-to-right and right-to-left marks
  [0x2028, 0x2029, 'line-separator'],
  [0x202a, 0x202e, 'bidi'], // embeddings and overrides
  [0x2060, 0x2065, 'invisible'], // word joiner, invisible operators
  [0x2066, 0x2069, 'bidi'], // isolates
  [0x206a, 0x206f, 'invisible'], // deprecated format characters
  [0x3164, 0x3164, 'invisible'], // Hangul filler
  [0xfe00, 0xfe0f, 'variation-selector'],
  [0xfeff, 0xfeff, 'invisible'], // zero width no-break space (BOM)
  [0xffa0, 0xffa0, 'invisible'], // halfwidth Hangul filler
  [0xfff9, 0xfffb, 'invisible'], // interlinear annotation
  [0x1bca0, 0x1bca3, 'invisible'], // shorthand format controls
  [0x1d173, 0x1d17a, 'invisible'], // musical symbol format controls
  [0xe0000, 0xe007f, 'tag'],
  [0xe0100, 0xe01ef, 'variation-selector'],
];

const hex = (n: number) => n.toString(16);
const rangeClass = HIDDEN_RANGES.map(([a, b]) => (a === b ? `\\u{${hex(a)}}` : `\\u{${hex(a)}}-\\u{${hex(b)}}`)).join('');
/** Any code point that may be hidden (context decides for variation selectors and the joiner). */
const MAYBE_HIDDEN = new RegExp(`[${rangeClass}\\u{d800}-\\u{dfff}]`, 'u');
const MAYBE_HIDDEN_ALL = new RegExp(MAYBE_HIDDEN.source, 'gu');
const PICTOGRAPHIC = /\p{Extended_Pictographic}/u;
const WHITESPACE = /\s/u;

/** The class of a code point on its own, or undefined when it is not hidden (a surrogate code point counts as lone). */
export function hiddenClass(codePoint: number): HiddenClass | undefined {
  if (codePoint >= 0xd800 && codePoint <= 0xdfff) return 'lone-surrogate';
  let low = 0;
  let high = HIDDEN_RANGES.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const [first, last, cls] = HIDDEN_RANGES[mid];
    if (codePoint < first) high = mid - 1;
    else if (codePoint > last) low = mid + 1;
    else return cls;
  }
  return undefined;
}

export interface HiddenCharacter {
  /** UTF-16 offset in the text. */
  index: number;
  /** UTF-16 length (2 for a code point above U+FFFF). */
  length: number;
  codePoint: number;
  class: HiddenClass;
}

const isEmojiModifier = (cp: number) => cp >= 0x1f3fb && cp <= 0x1f3ff;

/** The code point that ends just before `index`, or undefined at the start. */
function codePointBefore(text: string, index: number): { codePoint: number; index: number } | undefined {
  if (index <= 0) return undefined;
  const low = text.charCodeAt(index - 1);
  if (index >= 2 && low >= 0xdc00 && low <= 0xdfff) {
    const high = text.charCodeAt(index - 2);
    if (high >= 0xd800 && high <= 0xdbff) return { codePoint: text.codePointAt(index - 2)!, index: index - 2 };
  }
  return { codePoint: low, index: index - 1 };
}

/** A character that shows something: a variation selector after it selects its glyph. */
function isVisibleBase(codePoint: number | undefined): boolean {
  return codePoint !== undefined && hiddenClass(codePoint) === undefined && !WHITESPACE.test(String.fromCodePoint(codePoint));
}

/** A zero width joiner inside an emoji sequence (👨‍👩‍👧) joins glyphs that are shown: it hides nothing. */
function joinsEmoji(text: string, index: number): boolean {
  let before = codePointBefore(text, index);
  // One emoji presentation selector or skin tone may sit between the emoji and the joiner.
  if (before && (before.codePoint === 0xfe0f || isEmojiModifier(before.codePoint))) before = codePointBefore(text, before.index);
  const after = text.codePointAt(index + 1);
  return before !== undefined && PICTOGRAPHIC.test(String.fromCodePoint(before.codePoint)) && after !== undefined && PICTOGRAPHIC.test(String.fromCodePoint(after));
}

/**
 * Every hidden character of `text`, in order. A variation selector right after a visible
 * character selects that character's glyph (❤️) and is not reported, nor is the joiner of an
 * emoji sequence; anywhere else both hide something and are.
 */
export function findHiddenCharacters(text: string): HiddenCharacter[] {
  const found: HiddenCharacter[] = [];
  if (!MAYBE_HIDDEN.test(text)) return found;
  for (let i = 0; i < text.length;) {
    const codePoint = text.codePointAt(i)!;
    const length = codePoint > 0xffff ? 2 : 1;
    const cls = hiddenClass(codePoint);
    if (cls !== undefined) {
      const shown = (cls === 'variation-selector' && isVisibleBase(codePointBefore(text, i)?.codePoint)) || (codePoint === 0x200d && joinsEmoji(text, i));
      if (!shown) found.push({ index: i, length, codePoint, class: cls });
    }
    i += length;
  }
  return found;
}

export function hasHiddenCharacters(text: string): boolean {
  return MAYBE_HIDDEN.test(text) && findHiddenCharacters(text).length > 0;
}

function escapeCodePoint(codePoint: number): string {
  if (codePoint === 9) return '\\t';
  if (codePoint === 10) return '\\n';
  if (codePoint === 13) return '\\r';
  return codePoint < 0x100 ? `\\x${hex(codePoint).padStart(2, '0')}` : `\\u{${hex(codePoint)}}`;
}

function escapeHidden(text: string, keep: (found: HiddenCharacter) => boolean): string {
  let out = '';
  let last = 0;
  for (const found of findHiddenCharacters(text)) {
    if (keep(found)) continue;
    out += text.slice(last, found.index) + escapeCodePoint(found.codePoint);
    last = found.index + found.length;
  }
  return last === 0 ? text : out + text.slice(last);
}

/** A text shown on one line (a name, a command line, a table cell, a message): every hidden character escaped. */
export function visibleLine(text: string): string {
  return escapeHidden(String(text), () => false);
}

/** A text shown as lines (a diff, a report, a description in a tooltip): line feeds, CR LF and tabs kept, every other hidden character escaped. */
export function visibleText(text: string): string {
  const s = String(text);
  return escapeHidden(s, (c) => c.codePoint === 10 || c.codePoint === 9 || (c.codePoint === 13 && s.charCodeAt(c.index + 1) === 10));
}

/**
 * A JSON text with every hidden character inside its strings written as a JSON escape
 * (`\u202e`): the same value for a reader that parses it, nothing hidden for one that looks
 * at it. Line feeds and tabs are kept: JSON.stringify writes them only between tokens.
 */
export function visibleJson(json: string): string {
  if (!MAYBE_HIDDEN.test(json)) return json;
  return json.replace(MAYBE_HIDDEN_ALL, (ch) => {
    if (ch === '\n' || ch === '\t') return ch;
    let out = '';
    for (let i = 0; i < ch.length; i++) out += `\\u${hex(ch.charCodeAt(i)).padStart(4, '0')}`;
    return out;
  });
}
