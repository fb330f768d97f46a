/**
 * Skill-root trust as the DSH side enforces it: which roots reach a session, which skills are
 * withheld, and which lower-rank trusted skill takes a withheld one's place. Pure: it works on a
 * {@link SkillDiscovery} (what DSH would load for a session) and the trust records of the host
 * store; the DSH plugin, the CLI and the editor all read it from here.
 *
 * Gated: the project roots (`.dsh/skills`, `.agents/skills`) and custom roots, the ones a
 * repository or a configuration can make appear. Not gated: the user's own roots and bundled
 * skills. A gated root passes only when the host store records its current content pin.
 *
 * A skill whose scan (core/scan) has an error-level finding is withheld too, from any root (your
 * own included: what it says matters, not who put it there), until the user accepts that exact
 * file content (its pin); the next passing skill of its name is offered instead.
 */
import * as path from 'node:path';
import type { SkillRootKind } from '../declaration/declarationModel';
import { withholds } from '../scan/scan';
import { skillTrustState } from './rootTrust';
import type { SkillCandidate, SkillDiscovery } from './discovery';

/** A SKILL.md the user accepted despite an error-level finding, at this pin (the host store's record). */
export interface AcceptedSkill {
  file: string;
  pin: string;
}

/** Why a skill's own content is withheld or let through (absent: its scan has no error). */
export type SkillScanGate = 'withheld' | 'accepted';

/** Whether the scan withholds a candidate: an error-level finding, and no acceptance of this file at this pin. */
export function skillScanGate(candidate: Pick<SkillCandidate, 'file' | 'scan'>, accepted: readonly AcceptedSkill[]): SkillScanGate | undefined {
  if (!withholds(candidate.scan.findings)) return undefined;
  const file = path.resolve(candidate.file);
  return accepted.some((a) => a.file === file && a.pin === candidate.scan.pin) ? 'accepted' : 'withheld';
}

const GATED_SKILL_ROOT_KINDS: ReadonlySet<SkillRootKind> = new Set<SkillRootKind>(['project-dsh', 'project-agents', 'custom']);

/** `not-gated`: a user root (always passes). The other three as {@link skillTrustState}. */
export type SkillRootGate = 'trusted' | 'untrusted' | 'changed' | 'not-gated';

export interface GatedSkillRoot {
  path: string;
  kind: SkillRootKind;
  rank: number;
  gate: SkillRootGate;
  /** Current content pin; absent when the root is too large to pin (then never trusted). */
  pin?: string;
  /** The pin the host store records for this root, if any. */
  recordedPin?: string;
  tooLarge?: boolean;
  /** Names of the skills DSH keeps from this root (winners and shadowed), sorted. */
  skills: string[];
}

/**
 * A skill name whose DSH winner sits in a withheld root. `fallback` is the skill offered
 * instead: the best-ranked candidate of that name from a root that passes (DSH's order).
 */
export interface SkillShadow {
  name: string;
  /** The withheld root whose skill would have won the name. */
  withheldRoot: string;
  /** `scan`: that skill's own content is withheld (an error-level finding, not accepted); `root`: its root is not trusted. */
  why: 'root' | 'scan';
  /** The file of the skill that would have won. */
  file: string;
  fallback?: SkillCandidate;
}

export interface SkillGateResult {
  /** Every existing root in DSH's order. */
  roots: GatedSkillRoot[];
  /** Kept skills whose scan has an error: withheld, or accepted at their pin. */
  scanned: Array<{ candidate: SkillCandidate; gate: SkillScanGate }>;
  /** Kept skills whose scan has findings, none an error: they are loaded, the findings are said. */
  warned: SkillCandidate[];
  /** Roots whose skills are withheld (untrusted or changed). */
  withheld: GatedSkillRoot[];
  /** Names to shadow for the session, sorted. */
  shadows: SkillShadow[];
  /** Names served from a gated root that passes (trusted), with their candidate. */
  trusted: SkillCandidate[];
}

export function isGatedKind(kind: SkillRootKind): boolean {
  return GATED_SKILL_ROOT_KINDS.has(kind);
}

/** The trust record of a root: keys are absolute paths as the host store writes them. */
function recordedPinOf(recorded: Readonly<Record<string, string>>, root: string): string | undefined {
  const key = path.resolve(root);
  return Object.hasOwn(recorded, key) ? recorded[key] : undefined;
}

/** Decides, for one session's discovery, what reaches the session (`accepted`: skills accepted despite a scan's error). */
export function gateSkills(discovery: Pick<SkillDiscovery, 'roots'>, recorded: Readonly<Record<string, string>>, accepted: readonly AcceptedSkill[] = []): SkillGateResult {
  const roots: GatedSkillRoot[] = [];
  const passes = new Map<string, boolean>();
  for (const root of discovery.roots) {
    if (!root.exists) continue;
    const recordedPin = recordedPinOf(recorded, root.path);
    const gate: SkillRootGate = isGatedKind(root.kind) ? skillTrustState(root.pin, recordedPin) : 'not-gated';
    const names = root.candidates.flatMap((c) => (c.analysis.skill ? [c.analysis.skill.name] : []));
    const entry: GatedSkillRoot = { path: root.path, kind: root.kind, rank: root.rank, gate, skills: [...new Set(names)].sort() };
    if (root.pin !== undefined) entry.pin = root.pin;
    if (recordedPin !== undefined) entry.recordedPin = recordedPin;
    if (root.tooLarge) entry.tooLarge = true;
    roots.push(entry);
    passes.set(root.path, gate === 'trusted' || gate === 'not-gated');
  }

  // DSH's order of kept candidates: rank, then discovery order (a stable sort).
  const ordered = discovery.roots.flatMap((r) => r.candidates).filter((c) => c.analysis.skill).sort((a, b) => a.root.rank - b.root.rank);
  const scanned: SkillGateResult['scanned'] = [];
  const warned: SkillCandidate[] = [];
  const scanWithheld = new Set<SkillCandidate>();
  for (const c of ordered) {
    const gate = skillScanGate(c, accepted);
    if (gate) scanned.push({ candidate: c, gate });
    else if (c.scan.findings.length) warned.push(c);
    if (gate === 'withheld') scanWithheld.add(c);
  }
  const candidatePasses = (c: SkillCandidate) => passes.get(c.root.path) === true && !scanWithheld.has(c);
  const byName = new Map<string, SkillCandidate[]>();
  for (const c of ordered) {
    const name = c.analysis.skill!.name;
    const list = byName.get(name);
    if (list) list.push(c);
    else byName.set(name, [c]);
  }
  const shadows: SkillShadow[] = [];
  const trusted: SkillCandidate[] = [];
  for (const [name, candidates] of [...byName].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const winner = candidates[0];
    if (!candidatePasses(winner)) {
      const fallback = candidates.find(candidatePasses);
      const shadow: SkillShadow = { name, withheldRoot: winner.root.path, why: passes.get(winner.root.path) === true ? 'scan' : 'root', file: winner.file };
      shadows.push(fallback ? { ...shadow, fallback } : shadow);
    } else if (isGatedKind(winner.root.kind)) {
      trusted.push(winner);
    }
  }
  return { roots, scanned, warned, withheld: roots.filter((r) => r.gate === 'untrusted' || r.gate === 'changed'), shadows, trusted };
}

