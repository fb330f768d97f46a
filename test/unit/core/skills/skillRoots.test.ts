import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { analyzeSkillText } from '../../../../src/core/skills/frontMatter';
import { discoverSkills, type SkillDiscovery } from '../../../../src/core/skills/discovery';
import { findProjectRoot } from '../../../../src/core/skills/projectRoot';
import { hashSkillRoot } from '../../../../src/core/skills/rootPins';
import { dshSkillRoots, resolveAgentsHome } from '../../../../src/core/skills/skillRoots';
import { skillTrustState, skillsDeclarationSection } from '../../../../src/core/skills/rootTrust';
import { nodeSkillFs } from '../../../../src/core/node/skillFs';
import { SKILL_PROBLEM_CODES } from '../../../../src/core/skills/skillCodes';
import { resolveDshHome } from '../../../../src/core/node/hostStore';
import type { Range } from '../../../../src/core/json/text';
import { makeSkillFixture, type SkillFixture } from './skills.fixture';

/** The text a range covers (ranges count UTF-16 units per line; lines end at \n, \r\n or \r). */
function textAt(text: string, range: Range): string {
  const lines = text.split(/\r\n|\r|\n/);
  if (range.start.line === range.end.line) return lines[range.start.line].slice(range.start.character, range.end.character);
  return [lines[range.start.line].slice(range.start.character), ...lines.slice(range.start.line + 1, range.end.line), lines[range.end.line].slice(0, range.end.character)].join('\n');
}

describe('skills: homes and roots', () => {
  it('resolveDshHome: explicit, then $DSH_HOME (blank = unset), then ~/.dsh; ~ expanded', () => {
    assert.equal(resolveDshHome('/x/home', { DSH_HOME: '/env' }, '/u'), '/x/home');
    assert.equal(resolveDshHome(undefined, { DSH_HOME: '/env' }, '/u'), '/env');
    assert.equal(resolveDshHome(undefined, { DSH_HOME: '  ' }, '/u'), '/u/.dsh');
    assert.equal(resolveDshHome(undefined, {}, '/u'), '/u/.dsh');
    assert.equal(resolveDshHome('~/d', {}, '/u'), '/u/d');
  });

  it('resolveAgentsHome: $DSH_AGENTS_HOME or ~/.agents', () => {
    assert.equal(resolveAgentsHome({ DSH_AGENTS_HOME: '/a' }, '/u', '/anywhere'), '/a');
    assert.equal(resolveAgentsHome({}, '/u', '/anywhere'), '/u/.agents');
    assert.equal(resolveAgentsHome({ DSH_AGENTS_HOME: 'rel' }, '/u', '/base'), '/base/rel');
  });

  it('finds the nearest ancestor with .git, else the cwd; lists roots in DSH order and ranks', async () => {
    const exists = async (p: string) => p === '/w/repo/.git' || p === '/w/.git';
    const fs = { exists };
    assert.equal(await findProjectRoot('/w/repo/a/b', fs), '/w/repo');
    assert.equal(await findProjectRoot('/elsewhere/x', fs), '/elsewhere/x');
    const { projectRoot, roots } = await dshSkillRoots({ cwd: '/w/repo/a', customRoots: ['../shared', '/abs'], dshHome: '/h/.dsh', agentsHome: '/h/.agents' }, fs);
    assert.equal(projectRoot, '/w/repo');
    assert.deepEqual(roots.map((r) => [r.path, r.kind, r.rank, r.skipSystem]), [
      ['/w/repo/.dsh/skills', 'project-dsh', 100, false],
      ['/w/repo/.agents/skills', 'project-agents', 200, false],
      ['/w/repo/shared', 'custom', 300, false],
      ['/abs', 'custom', 300, false],
      ['/h/.dsh/skills', 'user-dsh', 400, true],
      ['/h/.agents/skills', 'user-agents', 500, false],
    ]);
  });
});
