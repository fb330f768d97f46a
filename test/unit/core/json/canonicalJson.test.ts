import { strict as assert } from 'node:assert';
import { canonicalHash, canonicalJson } from '../../../../src/core/json/canonicalJson';

describe('canonicalJson (RFC 8785)', () => {
  it('sorts keys by UTF-16 code units, integer-like keys included', () => {
    // JavaScript enumerates "1", "10", "9" first and in numeric order; JCS sorts them as strings.
    assert.equal(canonicalJson({ b: 1, 10: 'x', a: 2, 9: 'y', 1: 'z' }), '{"1":"z","10":"x","9":"y","a":2,"b":1}');
  });

  it('orders keys by code units, not code points (RFC 8785 section 3.2.3 example)', () => {
    const input = { '\u20ac': 'Euro Sign', '\r': 'Carriage Return', '\ufb33': 'Hebrew Letter Dalet With Dagesh', '1': 'One', '\u{1f600}': 'Emoji: Grinning Face', '\u0080': 'Control', '\u00f6': 'Latin Small Letter O With Diaeresis' };
    // Read the keys from the text: JSON.parse would put "1" first again.
    const keys = [...canonicalJson(input).matchAll(/"((?:[^"\\]|\\.)*)":/g)].map((m) => JSON.parse(`"${m[1]}"`));
    assert.deepEqual(keys, ['\r', '1', '\u0080', '\u00f6', '\u20ac', '\u{1f600}', '\ufb33']);
  });

  it('serializes numbers like ECMAScript (RFC 8785 appendix B samples)', () => {
    assert.equal(canonicalJson([1e21, 1e-7, 0.000001, -0, 333333333.33333329, 1e30, 4.5]), '[1e+21,1e-7,0.000001,0,333333333.3333333,1e+30,4.5]');
  });

  it('escapes strings minimally', () => {
    assert.equal(canonicalJson({ s: '\u0000\b\t\n\f\r"\\/\u001f\u007f\u00e9' }), '{"s":"\\u0000\\b\\t\\n\\f\\r\\"\\\\/\\u001f\u007f\u00e9"}');
  });

  it('matches the RFC 8785 section 3.2.2 example byte for byte', () => {
    const input = JSON.parse('{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001], "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/", "literals": [null, true, false]}');
    assert.equal(
      canonicalJson(input),
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"\u20ac$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('refuses lone surrogates, in keys and in values', () => {
    assert.throws(() => canonicalJson({ a: 'x\uD800' }), /lone surrogate/);
    assert.throws(() => canonicalJson({ ['\uDC00']: 1 }), /lone surrogate/);
    assert.equal(canonicalJson({ a: '\u{1F600}' }), '{"a":"\u{1F600}"}');
  });

  it('hashes the canonical form: key order does not change a pin', () => {
    assert.equal(canonicalHash({ a: 1, b: [1, 2] }), canonicalHash({ b: [1, 2], a: 1 }));
    assert.notEqual(canonicalHash({ a: 1 }), canonicalHash({ a: 2 }));
    assert.match(canonicalHash({}), /^sha256:[0-9a-f]{64}$/);
  });
});

describe('canonicalJson against the canonicalize package (property)', () => {
  it('gives the same text for every well-formed JSON value', async () => {
    const fc = (await import('fast-check')).default;
    const reference = (await import('canonicalize')).default as unknown as (v: unknown) => string;
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        assert.equal(canonicalJson(v), reference(v));
      }),
      { numRuns: 3000 },
    );
  });
});
