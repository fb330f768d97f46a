/**
 * The skill roots of an editor's workspace folders, as the review and the status show them: each
 * folder's discovery (DSH's roots with every pin, its problems and the trust problems), what DSH
 * sessions there are denied, and the roots merged over folders with their trust state.
 */
import type { SkillTrustState } from '../declaration/declarationModel';
import type { Problem } from '../problems/problems';
import type { SkillCandidate, SkillDiscovery, SkillRootReport } from '../skills/discovery';
import { skillTrustState } from '../skills/rootTrust';
import { gateSkills, isGatedKind, skillScanGate, type AcceptedSkill, type SkillGateResult, type SkillScanGate } from '../skills/skillGate';
import { skillTrustProblems } from '../skills/skillTrustProblems';
import type { Ports } from './ports';
import { defaultSkillRoots, discoverSessionSkills } from './sessionSkills';

/** A root merged over folders (one entry per path). */
export interface WorkspaceSkillRoot {
  root: SkillRootReport;
  trust: SkillTrustState;
  /** A project or custom root: DSH sessions load it only while trusted at this content. User roots are not gated. */
  gated: boolean;
  /** The pin the host store records for it. */
  recordedPin?: string;
  /** Indexes of the folders whose DSH session loads this root. */
  folders: number[];
}

export interface WorkspaceSkills {
  /** Per folder, in the order asked: its discovery, what its sessions get, and its problems (discovery's and trust's). */
  folders: Array<{ discovery: SkillDiscovery; gate: SkillGateResult; problems: Problem[] }>;
  /** Every existing root, in DSH's order of the first folder that has it. */
  roots: WorkspaceSkillRoot[];
  /** Why the host store's trust records could not be read (then every root counts as untrusted, nothing as accepted). */
  storeError?: unknown;
  /** What the scan does with a skill (by its file): withheld, accepted at its pin, or undefined (no error-level finding). */
  scanGate(candidate: Pick<SkillCandidate, 'file' | 'scan'>): SkillScanGate | undefined;
}

/** The skill roots of `folders` (each its cwd and custom roots), with the trust and the acceptances of the host store. Throws when a root cannot be listed. */
export async function workspaceSkills(ports: Pick<Ports, 'dshHome' | 'store' | 'files' | 'env' | 'home' | 'cwd'>, folders: ReadonlyArray<{ cwd: string; customRoots: readonly string[] }>): Promise<WorkspaceSkills> {
  const discoveries: SkillDiscovery[] = [];
  for (const folder of folders) {
    discoveries.push(await discoverSessionSkills(ports, { cwd: folder.cwd, roots: defaultSkillRoots(ports, folder.customRoots), pinEveryRoot: true }));
  }
  let recorded: Readonly<Record<string, string>> = {};
  let accepted: readonly AcceptedSkill[] = [];
  let storeError: unknown;
  try {
    recorded = await ports.store.skillTrust();
    accepted = (await ports.store.acceptedDefinitions()).skills;
  } catch (error) {
    storeError = error;
  }
  const byPath = new Map<string, WorkspaceSkillRoot>();
  for (const [index, discovery] of discoveries.entries()) {
    for (const root of discovery.roots) {
      if (!root.exists) continue;
      const existing = byPath.get(root.path);
      if (existing) {
        existing.folders.push(index);
        continue;
      }
      const recordedPin = Object.hasOwn(recorded, root.path) ? recorded[root.path] : undefined;
      byPath.set(root.path, { root, trust: skillTrustState(root.pin, recordedPin), gated: isGatedKind(root.kind), ...(recordedPin !== undefined ? { recordedPin } : {}), folders: [index] });
    }
  }
  return {
    folders: discoveries.map((discovery) => ({
      discovery,
      gate: gateSkills(discovery, recorded, accepted),
      problems: [...discovery.problems, ...skillTrustProblems(discovery, recorded)],
    })),
    roots: [...byPath.values()],
    ...(storeError !== undefined ? { storeError } : {}),
    scanGate: (candidate) => skillScanGate(candidate, accepted),
  };
}
