/**
 * Skill-root trust: a root's content pin (rootPins.ts) compared with the pin the user
 * recorded when they trusted it.
 */
import type { SkillsDeclaration, SkillsDeclarationRoot, SkillTrustState } from '../declaration/declarationModel';
import type { SkillDiscovery } from './discovery';

/** Trust of one root: no record -> untrusted; recorded pin equal to the current one -> trusted; else changed. */
export function skillTrustState(currentPin: string | undefined, recordedPin: string | undefined): SkillTrustState {
  if (recordedPin === undefined) return 'untrusted';
  return currentPin !== undefined && currentPin === recordedPin ? 'trusted' : 'changed';
}

/**
 * The declaration's `skills` section: every root that exists, in DSH's order, with its trust state
 * and content pin as the user reviewed them.
 */
export function skillsDeclarationSection(discovery: Pick<SkillDiscovery, 'roots'>, recorded: Readonly<Record<string, string>>): SkillsDeclaration {
  const roots: SkillsDeclarationRoot[] = [];
  for (const root of discovery.roots) {
    if (!root.exists) continue;
    const names = root.candidates.flatMap((c) => (c.analysis.skill ? [c.analysis.skill.name] : []));
    roots.push({
      path: root.path,
      kind: root.kind,
      rank: root.rank,
      trust: skillTrustState(root.pin, Object.hasOwn(recorded, root.path) ? recorded[root.path] : undefined),
      pin: root.pin ?? null,
      skills: [...new Set(names)].sort(),
    });
  }
  return { roots };
}
