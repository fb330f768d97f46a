import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { analyzeSource } from '../../../../src/core/mcp/analyze';
import { serializeDeclaration } from '../../../../src/core/declaration/declaration';
import { buildDeclarationBody } from '../../../../src/core/app/export';
import { mergeSources } from '../../../../src/core/mcp/mergeSources';
import { DEVCONTAINER_SOURCE, DOT_MCP_SOURCE, VSCODE_SOURCE, type SourceSpec } from '../../../../src/core/mcp/sources';
import { makeProblem } from '../../../../src/core/problems/problems';
import { reviewLines } from '../../../../src/core/mcp/launchReview';
import { fixtureTrees, fuzzSettings, mutatedFixture, sourceFixtureFiles } from '../../fuzz.mutate';
import { options, rawHidden } from '../../helpers';

/**
 * Fuzz of the source analysis over mutated shipped fixtures (deep nesting,
 * "__proto__"/"constructor"/"prototype" keys, lone surrogates, duplicate keys, wrong types
 * anywhere, input ids that name Object.prototype members).
 */
const trees = fixtureTrees();
const sourceTrees = [...trees, ...fixtureTrees(sourceFixtureFiles())];
const SPECS: SourceSpec[] = [VSCODE_SOURCE, DOT_MCP_SOURCE, DEVCONTAINER_SOURCE, { path: '/ws/multi.code-workspace', dialect: 'code-workspace' }];

describe('fuzz: mutated fixtures (fast-check)', function () {
  this.timeout(0);
  before(() => {
    assert.ok(trees.length >= 5, 'the fixtures were not found');
  });

  it('the core never throws and whatever it accepts serializes', () => {
    fc.assert(fc.property(mutatedFixture(trees), (text) => {
      const analysis = analyzeSource(Buffer.from(text, 'utf8'), options());
      if (analysis.usable) serializeDeclaration(buildDeclarationBody(analysis, '/w'), Buffer.alloc(32));
      for (const p of analysis.problems) assert.ok(p.range.start.line >= 0 && p.range.end.character >= 0);
    }), fuzzSettings(1500));
  });

  it('what the launch review and the problems show has no raw control, bidi or invisible character', () => {
    fc.assert(fc.property(mutatedFixture(trees), (text) => {
      const analysis = analyzeSource(Buffer.from(text, 'utf8'), options());
      const shown = [
        ...analysis.servers.flatMap((s) => reviewLines(s)),
        ...analysis.problems.flatMap((p) => [p.message, ...(p.related ?? []).map((r) => r.message)]),
      ];
      for (const line of shown) assert.equal(rawHidden(line), undefined);
    }), fuzzSettings(1500));
  });

  it('every kind of source file: the core never throws, and a merge of two serializes', () => {
    assert.ok(sourceFixtureFiles().length >= 4, 'the source fixtures were not found');
    fc.assert(fc.property(mutatedFixture(sourceTrees), mutatedFixture(sourceTrees), fc.nat(SPECS.length - 1), (first, second, which) => {
      const spec = SPECS[which];
      const a = analyzeSource(Buffer.from(first, 'utf8'), options(), spec);
      for (const p of a.problems) assert.ok(p.file === spec.path && p.range.start.line >= 0 && p.range.end.character >= 0);
      const b = analyzeSource(Buffer.from(second, 'utf8'), options(), VSCODE_SOURCE);
      const merged = mergeSources([{ spec: VSCODE_SOURCE, analysis: b }, { spec, analysis: a }], makeProblem('missing-source', '.vscode/mcp.json', a.problems[0]?.range ?? { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }));
      if (merged.usable) serializeDeclaration(buildDeclarationBody(merged, '/w'), Buffer.alloc(32));
      assert.ok(new Set(merged.servers.map((s) => s.serverName)).size === merged.servers.length, 'one DSH name once');
    }), fuzzSettings(800));
  });
});
