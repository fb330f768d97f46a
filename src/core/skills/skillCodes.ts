import { formatMessage, type Problem, type RelatedInformation, type Severity } from '../problems/problems';
import type { Range } from '../json/text';

// The skill code tables live apart from the skills code so that a code catalog (loaded when the
// extension activates) does not pull in the YAML parser.

/**
 * Codes, severities and English templates (stable l10n keys; `{name}` filled from `args`).
 * Errors are exactly the conditions under which DSH drops the skill without telling anyone.
 */
export const SKILL_PROBLEM_CODES = {
  'skill-missing-front-matter': ['error', 'DSH ignores this skill: it does not start with YAML front matter between "---" lines ({reason}).'],
  'skill-unreadable': ['warning', 'DSH Bridge did not read this skill file: {reason}. Only regular files of at most 1 MiB inside their skill root are read (a link out is followed only in a custom root).'],
  'skill-not-a-skill': ['warning', 'DSH reads every .md file at the top of a skill root as a skill and ignores this one: it does not start with a "---" front matter line.'],
  'skill-invalid-yaml': ['error', 'DSH ignores this skill: its front matter is not valid YAML ({reason}).'],
  'skill-missing-name': ['error', 'DSH ignores this skill: the front matter has no "name" (a non-empty string).'],
  'skill-invalid-name': ['error', 'DSH ignores this skill: "name" must be kebab-case (lowercase letters and digits separated by single hyphens).'],
  'skill-missing-description': ['error', 'DSH ignores this skill: the front matter has no "description" (a non-empty string).'],
  'skill-camelcase-key': ['error', 'DSH ignores this skill: "{key}" is not supported; use "{use}".'],
  'skill-invalid-flag': ['error', 'DSH ignores this skill: "{key}" must be true or false (also yes/no, on/off, 1/0).'],
  'skill-ignored-field': ['warning', 'DSH ignores "{key}" here: it must be {expected}.'],
  'skill-shadowed': ['warning', 'DSH does not load this skill: skill "{name}" from {winnerKind} (rank {winnerRank}) takes precedence over this one from {kind} (rank {rank}).'],
} as const satisfies Record<string, readonly [Severity, string]>;

export type SkillProblemCode = keyof typeof SKILL_PROBLEM_CODES;

/**
 * Codes of what DSH does not know about a skill root (it has no trust step) but the user must:
 * severities and English templates (stable l10n keys), as in the core's other tables. No
 * dependencies, so a code catalog can import it without the skills code.
 */
export const SKILL_TRUST_PROBLEM_CODES = {
  'skill-root-changed': ['warning', 'The skill root {root} changed since you trusted it: DSH sessions withhold its skills until you trust it again (DSH: Review Skill Roots).'],
  'skill-root-too-large': ['warning', 'The skill root {root} is too large to pin (more than 10000 files or 64 MiB), so it cannot be trusted.'],
} as const satisfies Record<string, readonly [Severity, string]>;

export type SkillTrustProblemCode = keyof typeof SKILL_TRUST_PROBLEM_CODES;

/** A problem of a skill file, worded from {@link SKILL_PROBLEM_CODES}. */
export function skillProblem(code: SkillProblemCode, file: string, range: Range, args: Record<string, string | number> = {}, related?: RelatedInformation[]): Problem {
  const [severity, template] = SKILL_PROBLEM_CODES[code];
  const out: Problem = { code, severity, message: formatMessage(template, args), args, file, range };
  if (related?.length) out.related = related;
  return out;
}
