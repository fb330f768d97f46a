import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
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
    before(async () => {
      const clean = await probeCleanServers();
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

    it('the README shows these figures (npm run docs writes them)', () => {
      const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
      assert.equal(SECTION.exec(readme)?.[1], section, 'README.md poisoning figures are stale: npm run docs');
    });
  });
});
