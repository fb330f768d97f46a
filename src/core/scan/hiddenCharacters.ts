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
const TAG_FLAG_BODY = /^[\u{e0030}-\u{e0039}\u{e0061}-\u{e007a}]{1,7}\u{e007f}$/u;
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
  selectors: number[] = [];
  selectorCount = 0;
  selectorStart = -1;
  invisible: number[] = [];
  invisibleCount = 0;
  invisibleKinds = new Set<number>();
  bidiOverride = false;
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
      case 'variation-selector':
        if (this.selectorCount === 0) {
          this.selectorStart = c.index;
          // The first selector of a run may follow its emoji and count as shown: it carries a byte all the same.
          const before = c.index > 0 ? text.codePointAt(cut(text, c.index - 1)) : undefined;
          if (c.index === this.start && before !== undefined && SELECTOR.test(String.fromCodePoint(before))) {
            this.selectors.push(before);
            this.selectorCount++;
            this.selectorStart = c.index - (before > 0xffff ? 2 : 1);
          }
        }
        this.selectorCount++;
        if (this.selectors.length < MAX_DECODED * 4) this.selectors.push(c.codePoint);
        break;
      case 'invisible':
        this.invisibleCount++;
        if (this.invisibleKinds.size < 3) this.invisibleKinds.add(c.codePoint);
        if (this.invisible.length < MAX_DECODED * 8) this.invisible.push(c.codePoint);
        break;
      case 'bidi':
        if (BIDI_OVERRIDE.test(String.fromCodePoint(c.codePoint))) this.bidiOverride = true;
        else this.other++;
        break;
      default:
        this.other++;
    }
  }

  /** The run's findings (a subdivision flag, 🏴 + tag letters + cancel tag, shows a flag: it hides nothing). */
  report(text: string, place: Place, out: Findings): void {
    const { start, end } = this;
    let reported = false;
    const flag = this.tags > 0 && this.tags * 2 === end - start && text.slice(Math.max(0, start - 2), start) === FLAG_BASE
      && TAG_FLAG_BODY.test(text.slice(start, end));
    if (flag) return;
    if (this.tags) {
      const decoded = () => visibleLine(this.tagText);
      out.add(place, text, 'hidden-tag-text', this.tagStart, this.tagEnd, () => ({ decoded: decoded() }), decoded);
      reported = true;
    }
    if (this.selectorCount >= 2) {
      const decoded = () => visibleLine(decodeVariationSelectors(this.selectors));
      out.add(place, text, 'hidden-variation-selectors', this.selectorStart, end, () => ({ count: this.selectorCount, decoded: decoded() }), decoded);
      reported = true;
    }
    const shown = () => ({ shown: shownRun(text, start, end) });
    if (this.bidiOverride) {
      out.add(place, text, 'bidi-override', start, end, shown);
      reported = true;
    }
    if (this.invisibleCount >= 3) {
      out.add(place, text, 'hidden-invisible-run', start, end, () => ({ count: this.invisibleCount, ...shown() }), () => (this.invisibleKinds.size === 2 ? decodeBits(this.invisible) : undefined));
      reported = true;
    }
    if (!reported) out.add(place, text, 'hidden-characters', start, end, shown);
  }
}

export function scanHidden(text: string, place: Place, out: Findings): void {
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
    if (run.start >= 0) run.report(text, place, out);
    run = new HiddenRun();
  };
  forEachHiddenCharacter(text, (c) => {
    if (isText(text, c) || inAnsi(c.index)) return flush();
    if (run.end >= 0 && run.end !== c.index) flush();
    run.add(text, c);
  });
  flush();
}
