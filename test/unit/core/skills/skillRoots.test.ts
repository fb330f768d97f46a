import * as assert from 'node:assert/strict';
import { findProjectRoot } from '../../../../src/core/skills/projectRoot';
import { dshSkillRoots, resolveAgentsHome } from '../../../../src/core/skills/skillRoots';
import { resolveDshHome } from '../../../../src/core/node/hostStore';

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
