import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { SCAN_BOUNDS } from '../../../../src/core/scan/scan';
import { SCAN_CODES } from '../../../../src/core/scan/scanCodes';
import { corpusFigures, figuresSection, poisonedCases, probeCleanServers, scanCase, SECTION, type CorpusFigures } from './corpus.fixture';

const ROOT = path.resolve(__dirname, '../../../..');

describe('poisoning corpus: each poisoned case is caught by its rule, the real servers raise nothing', function () {
  this.timeout(240_000);

  for (const c of poisonedCases()) {
    it(`${c.id}: ${c.expect.join(', ')}`, () => {
      const codes = new Set(scanCase(c).map((f) => f.code));
      for (const code of c.expect) assert.ok(codes.has(code), `${c.id} should raise ${code}; it raised ${[...codes].join(', ') || 'nothing'}`);
    });
  }

  it('every rule has a poisoned case (unscannable aside: a definition that cannot be read, see scan.test.ts)', () => {
    const expected = new Set(poisonedCases().flatMap((c) => c.expect));
    for (const code of Object.keys(SCAN_CODES)) if (code !== 'unscannable') assert.ok(expected.has(code as never), code);
  });

  describe('the clean side: real MCP servers from npm, each started (a real process) and listed', () => {
    let figures: CorpusFigures;
    let section: string;
    let clean: Awaited<ReturnType<typeof probeCleanServers>>;
    before(async () => {
      clean = await probeCleanServers();
      figures = corpusFigures(poisonedCases(), clean);
      section = figuresSection(figures, clean);
    });

    it('lists every server whole (tools of each, the instructions of server-everything)', () => {
      assert.equal(figures.cleanServers, 10);
      assert.ok(figures.cleanTools >= 80, `${figures.cleanTools} tools`);
      assert.equal(figures.cleanInstructions, 1);
    });

    it('raises no finding at all on any clean tool or instructions (no false positive of any severity)', () => {
      assert.deepEqual(figures.cleanFindings.map((f) => `${f.server}/${f.tool ?? '(instructions)'}: ${f.finding.code} ${f.finding.excerpt}`), []);
      assert.ok(figures.rules.every((r) => r.falsePositives === 0));
    });

    it('catches every poisoned case by its intended rules, and withholds those with an error', () => {
      assert.equal(figures.caught, figures.cases);
      for (const r of figures.rules) assert.equal(r.detected, r.expected, r.code);
    });

    it('the longest clean texts are the ones docs/poisoning.md gives, and every warning bound sits well above them', () => {
      const longest = { description: 0, instructions: 0, inputSchema: 0 };
      // What the schema bounds count (scanSchema): the characters of keys and strings.
      const keysAndStrings = (v: unknown): number => (typeof v === 'string' ? v.length : Array.isArray(v) ? v.reduce((n: number, x) => n + keysAndStrings(x), 0)
        : v && typeof v === 'object' ? Object.entries(v).reduce((n, [k, x]) => n + k.length + keysAndStrings(x), 0) : 0);
      let counted = 0;
      for (const server of clean) {
        longest.instructions = Math.max(longest.instructions, server.instructions?.length ?? 0);
        for (const tool of server.tools) {
          longest.description = Math.max(longest.description, tool.description?.length ?? 0);
          longest.inputSchema = Math.max(longest.inputSchema, JSON.stringify(tool.inputSchema ?? {}).length);
          counted = Math.max(counted, keysAndStrings(tool.inputSchema));
        }
      }
      const docs = readFileSync(path.join(ROOT, 'docs/poisoning.md'), 'utf8').replace(/\s+/g, ' ');
      const figure = (n: number) => n.toLocaleString('en-US');
      assert.ok(docs.includes(`a ${figure(longest.description)}-character description, ${figure(longest.instructions)} characters of instructions and a ${figure(longest.inputSchema)}-character input schema`), `docs/poisoning.md should give ${JSON.stringify(longest)}`);
      assert.ok(docs.includes(`fewer: ${figure(counted)} there`), `docs/poisoning.md should give ${counted} characters of keys and strings`);
      for (const field of ['description', 'instructions', 'inputSchema'] as const) {
        assert.ok(SCAN_BOUNDS[field].large >= 2.5 * longest[field], `${field}: the warning at ${SCAN_BOUNDS[field].large} is too close to a clean ${longest[field]}`);
      }
    });

    it('the README shows these figures (npm run docs writes them)', () => {
      const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
      assert.equal(SECTION.exec(readme)?.[1], section, 'README.md poisoning figures are stale: npm run docs');
    });
  });
});
