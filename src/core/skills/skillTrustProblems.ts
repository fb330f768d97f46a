import { formatMessage, type Problem } from '../problems/problems';
import { SKILL_TRUST_PROBLEM_CODES, type SkillTrustProblemCode } from './skillCodes';
import { skillTrustState } from './rootTrust';
import { type SkillDiscovery } from './discovery';

/**
 * What DSH does not know about a skill root (it has no trust step) but the user must: a problem on
 * every skill file of a root whose trusted content changed, or that is too large to pin; placed on
 * the skill's `name` (or its first line). `file` is the absolute path.
 */
export function skillTrustProblems(discovery: Pick<SkillDiscovery, 'roots'>, recorded: Readonly<Record<string, string>>): Problem[] {
  const out: Problem[] = [];
  for (const root of discovery.roots) {
    if (!root.exists) continue;
    const recordedPin = Object.hasOwn(recorded, root.path) ? recorded[root.path] : undefined;
    const code: SkillTrustProblemCode | undefined = root.tooLarge ? 'skill-root-too-large'
      : skillTrustState(root.pin, recordedPin) === 'changed' ? 'skill-root-changed' : undefined;
    if (!code) continue;
    const [severity, template] = SKILL_TRUST_PROBLEM_CODES[code];
    const args = { root: root.path };
    for (const c of root.candidates) {
      out.push({ code, severity, message: formatMessage(template, args), args, file: c.file, range: c.analysis.nameRange });
    }
  }
  return out;
}
