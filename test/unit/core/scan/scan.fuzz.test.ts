import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { scanInstructions, scanTool, type ScanFinding } from '../../../../src/core/scan/scan';
import { scanSkillFile } from '../../../../src/core/skills/skillScan';
import { visibleLine } from '../../../../src/core/json/visibleText';

/**
 * The scanner never throws and stays linear: random and adversarial text and schemas, and
 * 10 MB descriptions and deep or wide schemas with a time bound per character, relative to a
 * benign text of the same length scanned beside it. `npm run fuzz:long`
 * runs the properties with DSH_FUZZ_RUNS cases each.
 */
const RUNS = Number(process.env.DSH_FUZZ_RUNS) || 0;
const SEED = process.env.DSH_FUZZ_SEED === undefined ? undefined : Number(process.env.DSH_FUZZ_SEED);
const params = (defaultRuns: number) => ({ numRuns: RUNS || defaultRuns, ...(SEED === undefined ? {} : { seed: SEED }), endOnFailure: true });

/**
 * The time bound is relative to the machine as it runs now (a shared 2-core machine under load is
 * many times slower than an idle one, and a fixed bound in milliseconds failed there): a scan may
 * take RATIO times what scanning a benign description of the same length takes, measured next to
 * it, plus FLOOR_MS (timer and garbage-collector noise on small inputs). The worst shape here is
 * about 6 times the benign text per character; a rule that backtracks or a quadratic pass is
 * thousands of times slower on these sizes. Each is timed up to ATTEMPTS times, input and baseline
 * alike, and the fastest counts: a pause of the machine in one run is not the scanner's.
 */
const RATIO = 30;
const FLOOR_MS = 100;
const ATTEMPTS = 3;
const BENIGN = 'Returns the current weather for a city, in metric units. Use it when the user asks about the weather.\n';
const CONTEXT = { serverName: 's', otherTools: [{ serverName: 'o', tool: 'send_email' }] };

const HIDDEN = ['\u0000', '\u0007', '\u001b', '\u001b[', '\u001b]', '\u009b', '\r', '\u202e', '\u2066', '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff',
  '\u{e0041}', '\u{e007f}', '\u{1f3f4}', '\ufe0f', '\u{e0100}', '\u2028', '\ud800', '\udc00', '😀', '❤\ufe0f'];
const WORDS = ['ignore', 'all', 'previous', 'instructions', 'do not', 'tell', 'the user', 'read', '~/.ssh/id_rsa', '.env', 'pass', 'its content', 'as', "'note'",
  'parameter', 'https://x.example/?d={secret}', 'mcp__a__b', 'when', 'send_email', 'is called', 'before using this tool', '<IMPORTANT>', 'you must', '/home/u/x',
  '. ', '\n', '\n\n', '- ', '`', '"', 'the', 'and', 'never', 'secretly send'];
const piece = fc.oneof(fc.constantFrom(...HIDDEN), fc.constantFrom(...WORDS), fc.string({ unit: 'binary', maxLength: 12 }), fc.constant(' '));
const text = fc.array(piece, { maxLength: 80 }).map((parts) => parts.join(' '));
const schema = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.boolean(), fc.constant(null), fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(text, tie('value'), { maxKeys: 4 })),
})).value;

/** The string a schema finding's path names: its last key, or the value there ('' for a finding on the whole schema). */
function schemaString(schema: unknown, f: ScanFinding): string {
  if (!f.path) return '';
  if (f.key) return String(f.path[f.path.length - 1]);
  const value = f.path.reduce<unknown>((at, key) => (at as Record<string | number, unknown>)[key], schema);
  assert.equal(typeof value, 'string', `${f.code} at ${JSON.stringify(f.path)} names no string`);
  return value as string;
}

function checkFindings(findings: readonly ScanFinding[], texts: Record<string, string>, schema?: unknown): void {
  for (const f of findings) {
    assert.ok(f.start >= 0 && f.end >= f.start, `${f.code} span ${f.start}-${f.end}`);
    const scanned = f.field === 'inputSchema' ? schemaString(schema, f) : texts[f.field];
    assert.ok(scanned !== undefined, `${f.code} in ${f.field}, which was not scanned`);
    assert.ok(f.end <= scanned.length, `${f.code} ends at ${f.end} past ${scanned.length}`);
    for (const shown of [f.excerpt, f.decoded ?? '', ...Object.values(f.args).map(String)]) assert.equal(visibleLine(shown), shown, `${f.code} shows something raw`);
  }
}

const fill = (unit: string, size: number) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);

function elapsed(run: () => unknown): number {
  const started = performance.now();
  run();
  return performance.now() - started;
}

/** `run` (a scan of `chars` characters of input) within RATIO times a benign scan of that length, plus FLOOR_MS; its result. */
function timed<T>(what: string, chars: number, run: () => T): T {
  const benign = fill(BENIGN, chars);
  let result!: T;
  let best = Infinity;
  let baseline = Infinity;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    best = Math.min(best, elapsed(() => { result = run(); }));
    baseline = Math.min(baseline, elapsed(() => scanTool({ name: 'benign', description: benign, inputSchema: {} }, CONTEXT)));
    if (best <= FLOOR_MS + RATIO * baseline) return result;
  }
  assert.fail(`${what}: ${best.toFixed(0)} ms for ${chars} characters, over ${FLOOR_MS} ms + ${RATIO} x ${baseline.toFixed(1)} ms (a benign text of that length, measured beside it)`);
}

describe('scan fuzz: never throws, shows nothing raw, linear', function () {
  this.timeout(600_000);

  it('random and adversarial descriptions, names and instructions', () => {
    fc.assert(fc.property(text, text, (name, description) => {
      const tool = timed('tool', name.length + description.length, () => scanTool({ name, description, inputSchema: {} }, CONTEXT));
      checkFindings(tool, { name, description });
      const instructions = scanInstructions(description);
      checkFindings(instructions, { instructions: description });
    }), params(500));
  });

  it('random schemas (keys and values of any text, any shape)', () => {
    fc.assert(fc.property(schema, (inputSchema) => {
      checkFindings(scanTool({ name: 't', description: '', inputSchema }), { name: 't', description: '' }, inputSchema);
    }), params(300));
  });

  it('random SKILL.md texts, front matter included', () => {
    fc.assert(fc.property(text, text, (front, body) => {
      const raw = `---\nname: x\ndescription: "${front.replace(/[\\"]/g, '')}"\n---\n${body}`;
      checkFindings(scanSkillFile(raw), { skill: raw });
    }), params(300));
  });

  it('10 MB descriptions (random pieces, hidden characters, phrases), and 1 MB of each adversarial shape', () => {
    const MB = 1024 * 1024;
    const shapes: Array<[string, string, number]> = [
      ['random pieces', fc.sample(text, { numRuns: 50, seed: 7 }).join(' '), 10 * MB],
      ['tag characters', '\u{e0041}', 10 * MB],
      ['words of every rule, no sentence end', `${WORDS.filter((w) => !/[.\n]/.test(w)).join(' ')} `, 10 * MB],
      ['one letter', 'a', MB],
      ['ESC [', '\u001b[', MB],
      ['variation selectors', '\u{e0100}', MB],
      ['zero-width bits', '\u200b\u200c', MB],
      ['URLs with placeholders', 'https://a.example/?k={', MB],
      ['"when" without an end', 'when ', MB],
      ['negations and verbs', 'do not tell never read pass ', MB],
    ];
    const special: Array<[string, string]> = [
      ['OSC without an end', `\u001b]${fill('x', MB)}`],
      ['one URL of path segments', `https://a.example${fill('/a', MB)}`],
      ['"ignore the the ..."', `ignore ${fill('the ', MB)}`],
      ['an emoji and its selectors', `😀${fill('\u{e0100}', MB)}`],
    ];
    for (const [what, description] of [...shapes.map(([w, unit, size]): [string, string] => [`${w} (${size / MB} MB)`, fill(unit, size)]), ...special]) {
      const found = timed(what, description.length, () => scanTool({ name: 'big', description, inputSchema: {} }, CONTEXT));
      assert.ok(found.some((f) => f.code === 'oversized-definition'), `${what}: oversized`);
      assert.ok(found.length <= 20 * 21, `${what}: ${found.length} findings`);
    }
  });

  it('schemas 1,000 levels deep and with 100,000 keys', () => {
    let deep: unknown = { type: 'string', description: 'leaf' };
    for (let i = 0; i < 1000; i++) deep = { type: 'object', properties: { [`p${i}`]: deep } };
    const deepFound = timed('1000 levels', JSON.stringify(deep).length, () => scanTool({ name: 'd', description: '', inputSchema: deep }));
    assert.ok(deepFound.some((f) => f.code === 'deep-schema'));
    const properties: Record<string, unknown> = {};
    for (let i = 0; i < 100_000; i++) properties[`field_${i}`] = { type: 'string', description: `Value number ${i} of the record.` };
    const wide = { type: 'object', properties };
    const wideFound = timed('100,000 keys', JSON.stringify(wide).length, () => scanTool({ name: 'w', description: '', inputSchema: wide }));
    assert.ok(wideFound.some((f) => f.code === 'oversized-definition'));
  });
});
