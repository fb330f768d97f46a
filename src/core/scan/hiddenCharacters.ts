/**
 * Hidden text, any language: the characters of core/json/visibleText.ts's classification, read
 * in runs. Unicode tag characters are decoded back to ASCII, a run of variation selectors to the
 * bytes it encodes, a run of two kinds of zero-width characters to the bits it encodes; ANSI
 * escape sequences are found on their own.
 */
import { forEachHiddenCharacter, visibleLine, type HiddenCharacter } from '../json/visibleText';
import { cut, shownRun, type Findings, type Place } from './findingSpans';
import { eachMatch } from './phraseClasses';
import { MAX_DECODED } from './scanBounds';

const BIDI_OVERRIDE = /^[\u202a-\u202e\u2066-\u2069]$/u;
const SELECTOR = /^[\ufe00-\ufe0f\u{e0100}-\u{e01ef}]$/u;
/** The subdivision flags a host shows (Unicode's recommended set): any other black flag with tag letters is a message. */
const TAG_FLAG_BODY = /^(?:\u{e0067}\u{e0062}(?:\u{e0065}\u{e006e}\u{e0067}|\u{e0073}\u{e0063}\u{e0074}|\u{e0077}\u{e006c}\u{e0073}))\u{e007f}$/u;
const FLAG_BASE = '\u{1f3f4}';
/** CSI (ESC [ or C1 CSI) with parameters, OSC up to its terminator, or a two-character escape. */
const ANSI = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[0-~])|\x9b[0-?]*[ -/]*[@-~]/g;

/** A letter of a script other than Latin: where a joiner or non-joiner between two is orthography. */
const NON_LATIN_LETTER = /^(?![A-Za-z\u00c0-\u024f])\p{L}$/u;

/**
 * What is text, not hidden: TAB, LF and CR LF, a byte order mark at the start; and a single zero width (non-)joiner between two
 * letters of a script that uses them (Persian, Indic scripts), the way a word is spelt there.
 */
function isText(text: string, c: HiddenCharacter): boolean {
  if (c.codePoint === 9 || c.codePoint === 10 || (c.codePoint === 13 && text.charCodeAt(c.index + 1) === 10)) return true;
  if (c.codePoint === 0xfeff && c.index === 0) return true; // a byte order mark: how the file is encoded
  if (c.codePoint !== 0x200c && c.codePoint !== 0x200d) return false;
  const before = text.codePointAt(cut(text, c.index - 1));
  const after = text.codePointAt(c.index + 1);
  return before !== undefined && after !== undefined && NON_LATIN_LETTER.test(String.fromCodePoint(before)) && NON_LATIN_LETTER.test(String.fromCodePoint(after));
}

/** Variation selectors as bytes (U+FE00-FE0F: 0-15, U+E0100-E01EF: 16-255), read as UTF-8. */
function decodeVariationSelectors(codePoints: readonly number[]): string {
  const bytes = codePoints.map((cp) => (cp <= 0xfe0f ? cp - 0xfe00 : cp - 0xe0100 + 16)).filter((b) => b >= 0 && b <= 255);
  return new TextDecoder('utf-8').decode(new Uint8Array(bytes));
}

/** Two kinds of invisible characters as bits (the lower code point 0), read as ASCII when every byte is printable. */
function decodeBits(codePoints: readonly number[]): string | undefined {
  const kinds = [...new Set(codePoints)].sort((a, b) => a - b);
  if (kinds.length !== 2 || codePoints.length < 8) return undefined;
  for (const zero of kinds) {
    let out = '';
    for (let i = 0; i + 8 <= codePoints.length; i += 8) {
      let byte = 0;
      for (let b = 0; b < 8; b++) byte = (byte << 1) | (codePoints[i + b] === zero ? 0 : 1);
      if (byte < 0x20 || byte > 0x7e) {
        out = '';
        break;
      }
      out += String.fromCharCode(byte);
    }
    if (out) return out;
  }
  return undefined;
}

/** One run of adjacent hidden characters, read as it goes (a run may be millions long: only bounded parts are kept). */
class HiddenRun {
  start = -1;
  end = -1;
  tags = 0;
  tagStart = -1;
  tagEnd = -1;
  tagText = '';
  invisible: number[] = [];
  invisibleCount = 0;
  invisibleKinds = new Set<number>();
  bidiOverride = false;
  c1 = false;
  other = 0;

  add(text: string, c: HiddenCharacter): void {
    if (this.start < 0) this.start = c.index;
    this.end = c.index + c.length;
    switch (c.class) {
      case 'tag': {
        if (this.tags++ === 0) this.tagStart = c.index;
        this.tagEnd = c.index + c.length;
        const ascii = c.codePoint - 0xe0000;
        if (ascii >= 0x20 && ascii <= 0x7e && this.tagText.length < MAX_DECODED) this.tagText += String.fromCharCode(ascii);
        break;
      }
      case 'invisible':
        this.invisibleCount++;
        if (this.invisibleKinds.size < 3) this.invisibleKinds.add(c.codePoint);
        if (this.invisible.length < MAX_DECODED * 8) this.invisible.push(c.codePoint);
        break;
      case 'bidi':
        if (BIDI_OVERRIDE.test(String.fromCodePoint(c.codePoint))) this.bidiOverride = true;
        else this.other++;
        break;
      case 'control':
        if (c.codePoint >= 0x80 && c.codePoint <= 0x9f) this.c1 = true;
        else this.other++;
        break;
      default:
        this.other++;
    }
  }

  /** The run's findings (a subdivision flag, 🏴 + tag letters + cancel tag, shows a flag: it hides nothing); what it decodes to is added to `messages`. */
  report(text: string, place: Place, out: Findings, messages: DecodedMessage[]): void {
    const { start, end } = this;
    let reported = false;
    const flag = this.tags > 0 && this.tags * 2 === end - start && text.slice(Math.max(0, start - 2), start) === FLAG_BASE
      && TAG_FLAG_BODY.test(text.slice(start, end));
    if (flag) return;
    if (this.tags) {
      const decoded = () => visibleLine(this.tagText);
      out.add(place, text, 'hidden-tag-text', this.tagStart, this.tagEnd, () => ({ decoded: decoded() }), decoded);
      messages.push({ start: this.tagStart, end: this.tagEnd, text: this.tagText });
      reported = true;
    }
    const shown = () => ({ shown: shownRun(text, start, end) });
    if (this.bidiOverride) {
      out.add(place, text, 'bidi-override', start, end, shown);
      reported = true;
    }
    if (this.invisibleCount >= 3) {
      const bits = this.invisibleKinds.size === 2 ? decodeBits(this.invisible) : undefined;
      out.add(place, text, 'hidden-invisible-run', start, end, () => ({ count: this.invisibleCount, ...shown() }), bits);
      if (bits) messages.push({ start, end, text: bits });
      reported = true;
    }
    if (this.c1) {
      out.add(place, text, 'ansi-escape', start, end, shown); // an 8-bit terminal control (CSI, OSC, ...) on its own
      reported = true;
    }
    if (!reported && end > start) out.add(place, text, hiddenCode(place), start, end, shown);
  }
}

/**
 * A hidden character in a tool's name is an error: DSH's tool name makes it "_", so `read\u200bfile`
 * is offered as another server's `read_file` would be; elsewhere it is a warning.
 */
function hiddenCode(place: Place): 'hidden-characters' | 'hidden-characters-in-name' {
  return place.field === 'name' && place.target === 'tool' ? 'hidden-characters-in-name' : 'hidden-characters';
}

/** Text that hidden characters encode, and the span that carries it: judged like any other text. */
export interface DecodedMessage {
  start: number;
  end: number;
  text: string;
}

/**
 * The findings of the hidden characters of one string; returns what they decode to. Variation
 * selectors are read over the whole string (one after each letter carries a byte per letter).
 */
export function scanHidden(text: string, place: Place, out: Findings): DecodedMessage[] {
  const messages: DecodedMessage[] = [];
  scanSelectors(text, place, out, messages);
  const ansi: Array<[number, number]> = [];
  if (text.includes('\x1b') || text.includes('\x9b')) {
    eachMatch(ANSI, text, (m) => {
      ansi.push([m.index, m.index + m[0].length]);
      out.add(place, text, 'ansi-escape', m.index, m.index + m[0].length, () => ({ shown: shownRun(text, m.index, m.index + m[0].length) }));
    });
  }
  // Runs of adjacent hidden characters, leaving out text controls and what the ANSI rule took.
  let a = 0;
  const inAnsi = (i: number) => {
    while (a < ansi.length && ansi[a][1] <= i) a++;
    return a < ansi.length && ansi[a][0] <= i;
  };
  let run = new HiddenRun();
  const flush = () => {
    if (run.start >= 0) run.report(text, place, out, messages);
    run = new HiddenRun();
  };
  forEachHiddenCharacter(text, (c) => {
    if (c.class === 'variation-selector') return; // read by scanSelectors
    if (isText(text, c) || inAnsi(c.index)) return flush();
    // A row of black flags with tag letters is one message, not a row of flags.
    const nextFlag = c.class === 'tag' && run.tags > 0 && c.index === run.end + FLAG_BASE.length && text.slice(run.end, c.index) === FLAG_BASE;
    if (run.end >= 0 && run.end !== c.index && !nextFlag) flush();
    run.add(text, c);
  });
  flush();
  return messages;
}

const ANY_SELECTOR = /[\ufe00-\ufe0f\u{e0100}-\u{e01ef}]/gu;
const PRESENTATION_BASE = /^[\p{Emoji}\p{Extended_Pictographic}]$/u;
const VARIANT_BASE = /^[\p{Ideographic}\p{Sm}\p{So}\p{Script=Myanmar}\p{Script=Phags_Pa}\p{Script=Mongolian}]$/u;

/**
 * Whether a variation selector selects a glyph, as a font uses it: text or emoji presentation
 * (U+FE0E/FE0F) after an emoji, a standardized variant (U+FE00-FE0D) after an ideograph, a math
 * symbol or a letter of a script that has them, an ideographic variant (U+E0100-) after an
 * ideograph; and not followed by another selector. Anything else carries a byte.
 */
function selectsGlyph(text: string, index: number, codePoint: number): boolean {
  if (index === 0) return false;
  const base = String.fromCodePoint(text.codePointAt(cut(text, index - 1))!);
  const next = text.codePointAt(index + (codePoint > 0xffff ? 2 : 1));
  if (next !== undefined && SELECTOR.test(String.fromCodePoint(next))) return false;
  if (codePoint === 0xfe0e || codePoint === 0xfe0f) return PRESENTATION_BASE.test(base);
  if (codePoint < 0xfe0e) return VARIANT_BASE.test(base);
  return /^\p{Ideographic}$/u.test(base);
}

/** Variation selectors that carry bytes, over the whole string: two or more are a message, decoded as UTF-8. */
function scanSelectors(text: string, place: Place, out: Findings, messages: DecodedMessage[]): void {
  const bytes: number[] = [];
  let count = 0;
  let first = -1;
  let last = -1;
  eachMatch(ANY_SELECTOR, text, (m) => {
    const codePoint = m[0].codePointAt(0)!;
    if (selectsGlyph(text, m.index, codePoint)) return;
    if (count++ === 0) first = m.index;
    last = m.index + m[0].length;
    if (bytes.length < MAX_DECODED * 4) bytes.push(codePoint);
  });
  if (count === 0) return;
  if (count === 1) {
    out.add(place, text, hiddenCode(place), first, last, { shown: shownRun(text, first, last) });
    return;
  }
  const message = decodeVariationSelectors(bytes);
  const decoded = visibleLine(message);
  out.add(place, text, 'hidden-variation-selectors', first, last, { count, decoded }, decoded);
  messages.push({ start: first, end: last, text: message });
}
