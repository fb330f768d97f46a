import { strict as assert } from 'node:assert';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { planSession } from '../../../../src/core/app/plan';
import { SCAN_BOUNDS } from '../../../../src/core/scan/scan';
import { SCAN_CODES } from '../../../../src/core/scan/scanCodes';
import { toolPin } from '../../../../src/core/tools/toolDefinitions';
import { exportFolder, folderIdentityOf, tempDir, testPorts, workspace } from '../../helpers';
import { capturedServers, cleanSide, cleanSkills, corpusFigures, figuresSection, poisonedCases, scanCase, SECTION, type CorpusFigures, type PoisonCase } from './corpus.fixture';

const ROOT = path.resolve(__dirname, '../../../..');

/** Whether a case's intended rules include an error (what withholds a tool or skill until accepted), from the rules' table. */
const expectsError = (c: PoisonCase) => c.expect.some((code) => SCAN_CODES[code][0] === 'error');

/**
 * What a DSH session gets of a poisoned tool case: its server (and the other servers it names) in
 * a temp git workspace, each with the tools a probe recorded, exported, then the session plan.
 */
async function plannedTool(c: PoisonCase): Promise<string> {
  const tool = c.tool!;
  const serverName = c.serverName ?? 'fx';
  const others = new Map<string, string[]>();
  for (const o of c.otherTools ?? []) others.set(o.serverName, [...(others.get(o.serverName) ?? []), o.tool]);
  type Listed = { name: string; description: string; inputSchema: unknown };
  const listed = new Map<string, Listed[]>([
    [serverName, [{ name: tool.name, description: tool.description ?? '', inputSchema: tool.inputSchema }]],
    ...[...others].map(([name, tools]): [string, Listed[]] => [name, tools.map((t) => ({ name: t, description: 'Does its job.', inputSchema: { type: 'object' } }))]),
  ]);
  const folder = workspace(JSON.stringify({ servers: Object.fromEntries([...listed.keys()].map((name) => [name, { command: process.execPath, args: [`${name}.js`] }])) }), { '.git/HEAD': '' });
  const ports = testPorts(tempDir('corpus-home-'));
  const reviewed = (await exportFolder(ports, folderIdentityOf(folder), { dryRun: true })).analysis.servers;
  for (const server of reviewed) {
    const tools = listed.get(server.serverName)!.map((t) => ({ ...t, pin: toolPin(t) }));
    await ports.store.recordProbes(folder, { [server.serverName]: { name: server.name, pin: server.pin, probedAt: '2026-01-01T00:00:00.000Z', tools } });
  }
  await exportFolder(ports, folderIdentityOf(folder));
  const { plan } = await planSession(ports, { cwd: folder, skills: false });
  const planned = plan.servers.find((s) => s.serverName === serverName)?.tools?.tools.find((t) => t.name === tool.name);
  return planned ? `${planned.state} ${planned.reason.code}` : `not planned: ${JSON.stringify(plan.servers.map((s) => [s.serverName, s.outcome, s.reason.code]))}`;
}

describe('poisoning corpus: each poisoned case is caught by its rule, the real servers raise nothing', function () {
  this.timeout(240_000);

  for (const c of poisonedCases()) {
    it(`${c.id}: ${c.expect.join(', ')}`, () => {
      const codes = new Set(scanCase(c).map((f) => f.code));
      for (const code of c.expect) assert.ok(codes.has(code), `${c.id} should raise ${code}; it raised ${[...codes].join(', ') || 'nothing'}`);
    });
  }

  it('the session plan withholds every poisoned tool and skill whose intended rules include an error, and offers those with warnings only', async () => {
    const cases = poisonedCases();
    const tools = cases.filter((c) => c.tool);
    const planned: string[] = [];
    for (const c of tools) planned.push(`${c.id}: ${await plannedTool(c)}`);
    assert.deepEqual(planned, tools.map((c) => `${c.id}: ${expectsError(c) ? 'withheld tool-hidden-instructions' : 'offered tool-pinned'}`));
    assert.ok(tools.some((c) => !expectsError(c)), 'warning-only cases are there to be offered');
    // Skills: each poisoned SKILL.md in the user's own root (no trust needed), one session plan.
    const skills = cases.filter((c) => c.skill !== undefined);
    const home = tempDir('corpus-skills-');
    const folder = workspace(undefined, { '.git/HEAD': '' });
    const names = skills.map((c) => /^name: (.+)$/m.exec(c.skill!)![1]);
    skills.forEach((c, i) => {
      mkdirSync(path.join(home, 'skills', names[i]), { recursive: true });
      writeFileSync(path.join(home, 'skills', names[i], 'SKILL.md'), c.skill!);
    });
    const { plan } = await planSession(testPorts(home), { cwd: folder, skillRoots: { includeDefaultRoots: true, customRoots: [], dshHome: home, agentsHome: path.join(home, 'agents') } });
    assert.deepEqual(plan.skills?.withheld.map((w) => `${w.name} ${w.reason?.code}`).sort(), names.filter((_, i) => expectsError(skills[i])).map((n) => `${n} skill-hidden-instructions`).sort());
    assert.ok(skills.some(expectsError), 'a poisoned skill case with an error is there to be withheld');
  });

  it('every rule has a poisoned case (unscannable aside: a definition that cannot be read, see scan.test.ts)', () => {
    const expected = new Set(poisonedCases().flatMap((c) => c.expect));
    for (const code of Object.keys(SCAN_CODES)) if (code !== 'unscannable') assert.ok(expected.has(code as never), code);
  });

  describe('the clean side: real MCP servers from npm, each started (a real process) and listed', () => {
    let figures: CorpusFigures;
    let section: string;
    let clean: Awaited<ReturnType<typeof cleanSide>>;
    before(async () => {
      clean = await cleanSide();
      figures = corpusFigures(poisonedCases(), clean, cleanSkills());
      section = figuresSection(figures, clean);
    });

    it('lists every server whole (tools of each, the instructions of server-everything)', () => {
      assert.equal(figures.cleanServers, 10 + capturedServers().length);
      assert.ok(figures.cleanServers >= 30, `${figures.cleanServers} servers`);
      for (const c of capturedServers()) assert.ok(c.tools.length > 0 && c.package && c.version && c.capturedAt, `${c.serverName}: a captured list says where it came from`);
    });

    it('on the clean side: at most 1 in 200 definitions withheld, at most 3% flagged at any level', () => {
      const definitions = figures.cleanTools + figures.cleanInstructions;
      const shown = figures.cleanFindings.map((f) => `${f.server}/${f.tool ?? '(instructions)'}: ${f.finding.code} ${f.finding.excerpt}`).join('\n');
      assert.ok(figures.cleanWithheld * 200 <= definitions, `${figures.cleanWithheld} of ${definitions} withheld:\n${shown}`);
      assert.ok(figures.cleanFlagged * 100 <= 3 * definitions, `${figures.cleanFlagged} of ${definitions} flagged:\n${shown}`);
    });

    it('real published SKILL.md files: the same figures (at most 1 in 200 withheld, 3% flagged)', () => {
      assert.ok(figures.skills.count >= 10, `${figures.skills.count} skills`);
      assert.ok(figures.skills.withheld * 200 <= figures.skills.count, figures.skills.findings.join('\n'));
      assert.ok(figures.skills.flagged * 100 <= 3 * figures.skills.count, figures.skills.findings.join('\n'));
    });

    it('in all: at least 95% of poisoned tools and skills flagged, 90% withheld', () => {
      assert.ok(figures.flagged * 100 >= 95 * figures.definitions, `${figures.flagged} of ${figures.definitions} flagged`);
      assert.ok(figures.withheld * 100 >= 90 * figures.definitions, `${figures.withheld} of ${figures.definitions} withheld`);
    });

    it('per attack class: at least 95% of poisoned tools and skills flagged, 90% of those meant to be withheld withheld', () => {
      for (const c of figures.classes) {
        assert.ok(c.flagged * 100 >= 95 * c.cases, `${c.name}: ${c.flagged} of ${c.cases} flagged`);
        assert.ok(c.withheld * 100 >= 90 * c.errorCases, `${c.name}: ${c.withheld} of ${c.errorCases} withheld`);
      }
    });

    it('catches every poisoned case by its intended rules (the session plan\'s withholding: above)', () => {
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
      // How far above, as the docs say it (the schema counted as its bound counts).
      const times = (bound: number, clean: number) => Math.round(bound / clean);
      const ratios = `${times(SCAN_BOUNDS.description.large, longest.description)} (description), ${times(SCAN_BOUNDS.instructions.large, longest.instructions)} (instructions) and ${times(SCAN_BOUNDS.inputSchema.large, counted)} (schema`;
      assert.ok(docs.includes(`the warnings sit ${ratios}`), `docs/poisoning.md should say the warnings sit ${ratios}`);
    });

    it('docs/poisoning.md shows these figures (npm run docs writes them)', () => {
      const page = readFileSync(path.join(ROOT, 'docs/poisoning.md'), 'utf8');
      assert.equal(SECTION.exec(page)?.[1], section, 'docs/poisoning.md poisoning figures are stale: npm run docs');
    });
  });
});
