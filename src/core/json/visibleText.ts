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

/** Hidden code points by class (one code point per test; lone surrogates as code points of their own). */
const HIDDEN_CLASSES: ReadonlyArray<readonly [HiddenClass, RegExp]> = [
  ['control', /[\0-\x1f\x7f-\x9f]/u], // C0 (TAB, LF and CR included), DEL, C1
  ['bidi', /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u], // marks, embeddings, overrides, isolates
  ['line-separator', /[\u2028\u2029]/u],
  ['tag', /[\u{e0000}-\u{e007f}]/u],
  ['variation-selector', /[\u180b-\u180d\u180f\ufe00-\ufe0f\u{e0100}-\u{e01ef}]/u],
  // Zero width space, (non-)joiner, word joiner and invisible operators, BOM, soft hyphen, fillers, other format controls.
  ['invisible', /[\xad\u034f\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200d\u2060-\u2065\u206a-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb\u{1bca0}-\u{1bca3}\u{1d173}-\u{1d17a}]/u],
  ['lone-surrogate', /[\u{d800}-\u{dfff}]/u],
];

const hex = (n: number) => n.toString(16);
/** Any code point that may be hidden (context decides for variation selectors and the joiner). */
const MAYBE_HIDDEN = new RegExp(HIDDEN_CLASSES.map(([, re]) => re.source).join('|'), 'u');
const MAYBE_HIDDEN_ALL = new RegExp(MAYBE_HIDDEN.source, 'gu');
const PICTOGRAPHIC = /\p{Extended_Pictographic}/u;
const WHITESPACE = /\s/u;

/**
 * The class of each code point below U+10000 seen so far (0: not looked up yet, 255: not hidden,
 * else 1 + its index in HIDDEN_CLASSES): a long text is classified by lookup, each code point
 * tested against HIDDEN_CLASSES once.
 */
const bmpClasses = new Uint8Array(0x10000);
const NOT_HIDDEN = 255;
/** The class of a code point on its own, or undefined when it is not hidden (a surrogate code point counts as lone). */
function hiddenClass(codePoint: number): HiddenClass | undefined {
  const known = codePoint < 0x10000 ? bmpClasses[codePoint] : 0;
  if (known) return known === NOT_HIDDEN ? undefined : HIDDEN_CLASSES[known - 1][0];
  const ch = String.fromCodePoint(codePoint);
  const index = HIDDEN_CLASSES.findIndex(([, re]) => re.test(ch));
  if (codePoint < 0x10000) bmpClasses[codePoint] = index < 0 ? NOT_HIDDEN : index + 1;
  return index < 0 ? undefined : HIDDEN_CLASSES[index][0];
}

export interface HiddenCharacter {
  /** UTF-16 offset in the text. */
  index: number;
  /** UTF-16 length (2 for a code point above U+FFFF). */
  length: number;
  codePoint: number;
  class: HiddenClass;
}

/** The character that ends just before `index` (a surrogate pair is one), or undefined at the start. */
function charBefore(text: string, index: number): string | undefined {
  if (index <= 0) return undefined;
  const low = text.charCodeAt(index - 1);
  const high = index >= 2 ? text.charCodeAt(index - 2) : 0;
  const pair = low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff;
  return text.slice(pair ? index - 2 : index - 1, index);
}

/** A character that shows something: a variation selector after it selects its glyph. */
function isVisibleBase(ch: string | undefined): boolean {
  return ch !== undefined && hiddenClass(ch.codePointAt(0)!) === undefined && !WHITESPACE.test(ch);
}

/** A zero width joiner inside an emoji sequence (👨‍👩‍👧) joins glyphs that are shown: it hides nothing. */
function joinsEmoji(text: string, index: number): boolean {
  let before = charBefore(text, index);
  // One emoji presentation selector or skin tone may sit between the emoji and the joiner.
  if (before !== undefined && /^[\ufe0f\u{1f3fb}-\u{1f3ff}]$/u.test(before)) before = charBefore(text, index - before.length);
  const after = [...text.slice(index + 1, index + 3)][0];
  return before !== undefined && after !== undefined && PICTOGRAPHIC.test(before) && PICTOGRAPHIC.test(after);
}

/**
 * Every hidden character of `text`, in order. A variation selector right after a visible
 * character selects that character's glyph (❤️) and is not reported, nor is the joiner of an
 * emoji sequence; anywhere else both hide something and are.
 */
export function findHiddenCharacters(text: string): HiddenCharacter[] {
  const found: HiddenCharacter[] = [];
  forEachHiddenCharacter(text, (c) => found.push(c));
  return found;
}

/** {@link findHiddenCharacters} one at a time, without a list (a long text may hold millions). */
export function forEachHiddenCharacter(text: string, visit: (found: HiddenCharacter) => void): void {
  if (!MAYBE_HIDDEN.test(text)) return;
  // From one candidate to the next: a long text with few hidden characters is one regex pass.
  for (const match of text.matchAll(MAYBE_HIDDEN_ALL)) {
    const i = match.index;
    const codePoint = text.codePointAt(i)!;
    const cls = hiddenClass(codePoint)!;
    const shown = (cls === 'variation-selector' && isVisibleBase(charBefore(text, i))) || (codePoint === 0x200d && joinsEmoji(text, i));
    if (!shown) visit({ index: i, length: match[0].length, codePoint, class: cls });
  }
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
  forEachHiddenCharacter(text, (found) => {
    if (keep(found)) return;
    out += text.slice(last, found.index) + escapeCodePoint(found.codePoint);
    last = found.index + found.length;
  });
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
  return json.replace(new RegExp(MAYBE_HIDDEN.source, 'gu'), (ch) => {
    if (ch === '\n' || ch === '\t') return ch;
    let out = '';
    for (let i = 0; i < ch.length; i++) out += `\\u${hex(ch.charCodeAt(i)).padStart(4, '0')}`;
    return out;
  });
}
