/**
 * The user's consent to skills, the one use case the CLI (`dsh-bridge skills trust | accept`) and
 * the editor's review share: a gated root is trusted, and a SKILL.md the scan withholds is
 * accepted, only at the content the user reviewed, checked again on disk at that moment (as
 * {@link acceptProbedTool} accepts only the tool definition reviewed).
 */
import * as path from 'node:path';
import type { ScanFinding } from '../scan/scan';
import { hashSkillRoot } from '../skills/rootPins';
import type { GatedSkillRoot, SkillGateResult } from '../skills/skillGate';
import { confinedRoot } from '../skills/skillRoots';
import type { Ports } from './ports';
import { skillContentPin, type ConsentQuestion } from './scanFindings';

export type SkillAcceptance =
  /** Not a skill the folder's sessions keep whose scan has an error-level finding (nothing to accept), or no longer readable. */
  | { outcome: 'no-skill' }
  /** Its content on disk is not the one reviewed. */
  | { outcome: 'pin-changed'; pin: string }
  /** The face's question was answered no: nothing recorded. */
  | { outcome: 'declined'; name: string; file: string; pin: string; findings: ScanFinding[] }
  | { outcome: 'accepted'; name: string; file: string; pin: string; findings: ScanFinding[]; withheldBefore: boolean };

/**
 * Accepts the SKILL.md `file` of a session's skills (`skills`: the gate's result the user
 * reviewed) at its content now, only if that content still has `reviewedPin` (default: the pin
 * the review saw), and `confirm` (when given) says yes. Any later change of the file withholds it again.
 */
export async function acceptReviewedSkill(
  ports: Pick<Ports, 'store' | 'files'>, skills: Pick<SkillGateResult, 'scanned'>, file: string, reviewedPin?: string,
  confirm?: ConsentQuestion<{ name: string; file: string; pin: string; findings: ScanFinding[] }>,
): Promise<SkillAcceptance> {
  const target = path.resolve(file);
  const scanned = skills.scanned.find((s) => s.candidate.file === target);
  if (!scanned) return { outcome: 'no-skill' };
  const { candidate, gate } = scanned;
  // The same safe read as discovery: a regular file, size-capped, no link out of a non-custom root.
  const raw = await ports.files.skills.readText(target, { within: confinedRoot(candidate.root) }).catch(() => undefined);
  if (raw === undefined) return { outcome: 'no-skill' };
  const pin = skillContentPin(raw);
  if (pin !== (reviewedPin ?? candidate.scan.pin)) return { outcome: 'pin-changed', pin };
  const review = { name: candidate.analysis.skill!.name, file: target, pin, findings: candidate.scan.findings };
  if (confirm && !(await confirm(review))) return { outcome: 'declined', ...review };
  if (!(gate === 'accepted' && pin === candidate.scan.pin)) await ports.store.acceptSkill(target, pin);
  return { outcome: 'accepted', ...review, withheldBefore: gate === 'withheld' };
}

export type SkillRootTrust =
  /** Not an existing root of the session. */
  | { outcome: 'no-root' }
  /** The user's own root: not gated, needs no trust. */
  | { outcome: 'not-gated'; root: GatedSkillRoot }
  /** Too large to pin, so it cannot be trusted. */
  | { outcome: 'cannot-pin'; root: GatedSkillRoot }
  /** Its content on disk is not the one reviewed (`pin` undefined: it cannot be pinned now). */
  | { outcome: 'pin-changed'; root: GatedSkillRoot; pin?: string }
  /** The face's question was answered no: nothing recorded. */
  | { outcome: 'declined'; root: GatedSkillRoot; pin: string }
  | { outcome: 'trusted'; root: GatedSkillRoot; pin: string };

/**
 * Trusts the gated root `rootPath` of a session's skills (`skills`: the gate's result the user
 * reviewed) at its content now, only if that content still has `reviewedPin` (default: the pin
 * the review saw).
 */
export async function trustReviewedSkillRoot(
  ports: Pick<Ports, 'store' | 'files'>, skills: Pick<SkillGateResult, 'roots'>, rootPath: string, reviewedPin?: string,
  confirm?: ConsentQuestion<{ root: GatedSkillRoot; pin: string }>,
): Promise<SkillRootTrust> {
  const target = path.resolve(rootPath);
  const root = skills.roots.find((r) => r.path === target);
  if (!root) return { outcome: 'no-root' };
  if (root.gate === 'not-gated') return { outcome: 'not-gated', root };
  if (root.pin === undefined) return { outcome: 'cannot-pin', root };
  // Gated roots are project and custom roots: none skips a `.system` entry.
  const now = await hashSkillRoot({ path: root.path, kind: root.kind, skipSystem: false }, ports.files.skills).catch(() => undefined);
  if (now?.pin === undefined || now.pin !== (reviewedPin ?? root.pin)) return { outcome: 'pin-changed', root, ...(now?.pin !== undefined ? { pin: now.pin } : {}) };
  if (confirm && !(await confirm({ root, pin: now.pin }))) return { outcome: 'declined', root, pin: now.pin };
  await ports.store.trustSkillRoot(root.path, now.pin);
  return { outcome: 'trusted', root, pin: now.pin };
}
