import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { findHiddenCharacters, visibleJson, visibleLine, visibleText } from '../../../../src/core/json/visibleText';
import { fuzzSettings } from '../../fuzz.mutate';

/** The class the product gives a code point on its own (a surrogate code point counts as lone). */
const hiddenClass = (codePoint: number) => findHiddenCharacters(String.fromCodePoint(codePoint))[0]?.class;

/** The hidden code points the issue names (C0, DEL, C1, bidi, zero-width and format, tags, variation selectors, separators, surrogates). */
const HIDDEN: Array<[number, number]> = [
  [0x00, 0x1f], [0x7f, 0x9f], [0x061c, 0x061c], [0x200e, 0x200f], [0x202a, 0x202e], [0x2066, 0x2069],
  [0x200b, 0x200d], [0x2060, 0x2064], [0xfeff, 0xfeff], [0x180e, 0x180e], [0xe0000, 0xe007f],
  [0xfe00, 0xfe0f], [0xe0100, 0xe01ef], [0x2028, 0x2029], [0xd800, 0xdfff],
];
const hiddenCodePoint = fc.oneof(...HIDDEN.map(([min, max]) => fc.integer({ min, max })));
const hiddenChar = hiddenCodePoint.map((cp) => (cp >= 0xd800 && cp <= 0xdfff ? String.fromCharCode(cp) : String.fromCodePoint(cp)));
/** Text a file or a server could send: any UTF-16 (lone surrogates too), with hidden characters and emoji mixed in. */
const anyText = fc.array(fc.oneof(
  fc.string({ unit: 'binary' }),
  hiddenChar,
  fc.constantFrom('❤\ufe0f', '👨\u200d👩\u200d👧', '👍🏽', '\ufe0f', '\u200d', '#\ufe0f\u20e3', '\\x1b', 'دوست\u200cها', ' '),
), { maxLength: 12 }).map((parts) => parts.join(''));

/** Code points left in shown text: only those the mode keeps, and variation selectors/joiners that are part of a glyph. */
function assertNothingHidden(shown: string, keepLines: boolean): void {
  for (const c of findHiddenCharacters(shown)) {
    const kept = keepLines && (c.codePoint === 10 || c.codePoint === 9 || (c.codePoint === 13 && shown.charCodeAt(c.index + 1) === 10));
    assert.ok(kept, `U+${c.codePoint.toString(16)} (${c.class}) left in ${JSON.stringify(shown)}`);
  }
  for (const ch of shown) {
    const cls = hiddenClass(ch.codePointAt(0)!);
    assert.ok(cls === undefined || cls === 'variation-selector' || ch === '\u200d' || (keepLines && /[\n\t\r]/.test(ch)), `U+${ch.codePointAt(0)!.toString(16)} (${cls}) left in ${JSON.stringify(shown)}`);
  }
}

describe('visibleText: hidden characters made visible', () => {
  const lines: Array<[string, string, string]> = [
    ['plain ASCII', 'node ./mcp-server.js --port 3000', 'node ./mcp-server.js --port 3000'],
    ['letters, CJK and emoji', 'Café 東京 серверы 🚀 ❤\ufe0f 👨\u200d👩\u200d👧 👍🏽 #\ufe0f\u20e3', 'Café 東京 серверы 🚀 ❤\ufe0f 👨\u200d👩\u200d👧 👍🏽 #\ufe0f\u20e3'],
    ['a Windows path keeps its backslashes', 'C:\\Users\\dev\\x1b', 'C:\\Users\\dev\\x1b'],
    ['the attack of issue 27', '--import=data:text/javascript,x\r\u001b[2K    node', '--import=data:text/javascript,x\\r\\x1b[2K    node'],
    ['ESC, BEL, BS, NUL, DEL', 'a\u001b[2Jb\u0007c\bd\u0000e\u007f', 'a\\x1b[2Jb\\x07c\\x08d\\x00e\\x7f'],
    ['C1 controls', '\u0085\u009b31m', '\\x85\\x9b31m'],
    ['tab and line feed on one line', 'a\tb\nc\r\nd', 'a\\tb\\nc\\r\\nd'],
    ['bidi overrides and isolates', 'abc\u202edcb\u202c \u2066x\u2069 \u200e\u200f\u061c', 'abc\\u{202e}dcb\\u{202c} \\u{2066}x\\u{2069} \\u{200e}\\u{200f}\\u{61c}'],
    ['zero-width and invisible format characters', 'a\u200bb\u200cc\u200dd\u2060e\u2064f\ufeffg\u180eh\u00adi\u3164', 'a\\u{200b}b\\u{200c}c\\u{200d}d\\u{2060}e\\u{2064}f\\u{feff}g\\u{180e}h\\xadi\\u{3164}'],
    ['Unicode tags', 'ok\u{e0041}\u{e0042}\u{e007f}', 'ok\\u{e0041}\\u{e0042}\\u{e007f}'],
    ['line and paragraph separators', 'a\u2028b\u2029c', 'a\\u{2028}b\\u{2029}c'],
    ['lone surrogates', 'a\ud800b\udc00', 'a\\u{d800}b\\u{dc00}'],
    ['a variation selector after nothing visible', '\ufe0fa \ufe0f\u{e0100}', '\\u{fe0f}a \\u{fe0f}\\u{e0100}'],
    ['a second variation selector (data smuggled after an emoji)', '😀\ufe0f\ufe01\u{e0101}', '😀\ufe0f\\u{fe01}\\u{e0101}'],
    ['a joiner outside an emoji sequence', 'pay\u200dpal 👍\u200d', 'pay\\u{200d}pal 👍\\u{200d}'],
  ];
  for (const [what, input, shown] of lines) {
    it(`visibleLine: ${what}`, () => assert.equal(visibleLine(input), shown));
  }

  const blocks: Array<[string, string, string]> = [
    ['line feeds, CR LF and tabs are kept', '{\r\n\t"a": 1\n}', '{\r\n\t"a": 1\n}'],
    ['a lone CR (it overwrites the line) is not', 'safe\rEVIL', 'safe\\rEVIL'],
    ['controls and bidi on a line are escaped', '+  "n\u202e": "\u001b[2J"', '+  "n\\u{202e}": "\\x1b[2J"'],
  ];
  for (const [what, input, shown] of blocks) {
    it(`visibleText: ${what}`, () => assert.equal(visibleText(input), shown));
  }

  it('classifies code points (the classification a poisoning scanner shares)', () => {
    const cases: Array<[number, string | undefined]> = [
      [0x1b, 'control'], [0x0a, 'control'], [0x7f, 'control'], [0x9f, 'control'], [0xa0, undefined], [0x41, undefined],
      [0x202e, 'bidi'], [0x2067, 'bidi'], [0x061c, 'bidi'], [0x200b, 'invisible'], [0xfeff, 'invisible'],
      [0xe0041, 'tag'], [0xfe0f, 'variation-selector'], [0xe01ef, 'variation-selector'], [0x2028, 'line-separator'],
      [0xd800, 'lone-surrogate'], [0x1f680, undefined], [0x6771, undefined],
    ];
    for (const [cp, cls] of cases) assert.equal(hiddenClass(cp), cls, `U+${cp.toString(16)}`);
    for (const [first, last] of HIDDEN) for (let cp = first; cp <= last; cp++) assert.ok(hiddenClass(cp), `U+${cp.toString(16)} is hidden`);
    assert.deepEqual(findHiddenCharacters('a\u202e😀\ufe0f\u{e0041}').map((c) => [c.index, c.length, c.class]), [[1, 1, 'bidi'], [5, 2, 'tag']]);
  });

  it('visibleJson keeps the value and shows every hidden character as a JSON escape', () => {
    const value = { name: 'x\u202e\u001b[2J\u200b\u{e0041}\ud800', n: 1 };
    const json = visibleJson(JSON.stringify(value));
    assert.equal(json, '{"name":"x\\u202e\\u001b[2J\\u200b\\udb40\\udc41\\ud800","n":1}');
    assert.deepEqual(JSON.parse(json), value);
    assert.equal(visibleJson(JSON.stringify({ a: [1, 'b'] }, null, '\t')), JSON.stringify({ a: [1, 'b'] }, null, '\t'), 'the layout of pretty JSON is kept');
  });

  describe('properties', () => {
    // 3000 cases each; `npm run fuzz:long` asks for more (DSH_FUZZ_RUNS), with its seed (DSH_FUZZ_SEED).
    const params = fuzzSettings(3000);

    it('never throws, and shown text has no hidden character left', () => {
      fc.assert(fc.property(anyText, (text) => {
        assertNothingHidden(visibleLine(text), false);
        assertNothingHidden(visibleText(text), true);
        const json = visibleJson(JSON.stringify(text));
        assert.equal(JSON.parse(json), text);
        for (const ch of json) assert.ok(hiddenClass(ch.codePointAt(0)!) === undefined, `U+${ch.codePointAt(0)!.toString(16)} in ${json}`);
      }), params);
    });

    it('text without hidden characters is shown as it is', () => {
      fc.assert(fc.property(anyText, (text) => {
        if (findHiddenCharacters(text).length === 0) {
          assert.equal(visibleLine(text), text);
          assert.equal(visibleText(text), text);
        }
      }), params);
      fc.assert(fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        if (findHiddenCharacters(text).length === 0) assert.equal(visibleLine(text), text);
      }), params);
    });

    it('showing shown text again changes nothing (never escaped twice)', () => {
      fc.assert(fc.property(anyText, (text) => {
        const line = visibleLine(text);
        assert.equal(visibleLine(line), line);
        const block = visibleText(text);
        assert.equal(visibleText(block), block);
        const json = visibleJson(JSON.stringify(text));
        assert.equal(visibleJson(json), json);
      }), params);
    });

    it('two texts that differ only by a hidden character never show the same', () => {
      fc.assert(fc.property(anyText, fc.nat(), hiddenChar, (text, at, hidden) => {
        const p = Math.min(at % (text.length + 1), text.length);
        const changed = text.slice(0, p) + hidden + text.slice(p);
        const reported = findHiddenCharacters(changed).some((c) => c.index === p);
        if (!reported) return; // a variation selector after a visible character, or an emoji joiner: part of a glyph
        assert.notEqual(visibleLine(changed), visibleLine(text), JSON.stringify([text, changed]));
        if (!/^[\n\t\r]$/.test(hidden)) assert.notEqual(visibleText(changed), visibleText(text), JSON.stringify([text, changed]));
      }), params);
    });
  });
});
