/**
 * The skill roots of a DSH session and what reaches it: the one function the DSH plugin's skill
 * gate, the session plan and `dsh-bridge skills` decide with (discovery as DSH does it, the trust
 * records and the accepted skill definitions of the host store, core/skills/skillGate.ts), what
 * the gate lists in the session's catalog, and whether a skill it listed still loads.
 */
import * as path from 'node:path';
import { isGatedKind, gateSkills, type GatedSkillRoot, type SkillGateResult, type SkillShadow } from '../skills/skillGate';
import { discoverSkills, type SkillCandidate, type SkillDiscovery } from '../skills/discovery';
import { analyzeSkillText, skillBody, type SkillSummary } from '../skills/frontMatter';
import { hashSkillRoot } from '../skills/rootPins';
import { resolveAgentsHome } from '../skills/skillRoots';
import type { SkillRootKind } from '../declaration/declarationModel';
import { skillContentGate } from './scanFindings';
import { planFix, reason, scanErrorCodes, type PlanReason } from './planReasons';
import type { Ports } from './ports';

/** Where DSH's `dsh-skill-filesystem` looks for a session's skills. */
export interface SessionSkillRoots {
  /** The project and user roots (false: only `customRoots`). */
  includeDefaultRoots: boolean;
  /** Custom roots (absolute). */
  customRoots: readonly string[];
  /** The DSH home whose `skills/` is the user's DSH root. */
  dshHome: string;
  agentsHome: string;
}

/** DSH's default roots for a face that does not see DSH's rows: the ports' DSH home and agents home, and `customRoots`. */
export function defaultSkillRoots(ports: Pick<Ports, 'dshHome' | 'env' | 'home' | 'cwd'>, customRoots: readonly string[] = []): SessionSkillRoots {
  return { includeDefaultRoots: true, customRoots, dshHome: ports.dshHome, agentsHome: resolveAgentsHome(ports.env, ports.home, ports.cwd) };
}

/**
 * The roots DSH's `dsh-skill-filesystem` rows read (`rows`: their configs; undefined: the host
 * has no Loader, so DSH's defaults). No row: DSH reads no skill root, so nothing is gated (and
 * offering a user skill would add one DSH does not have). `resolveHome` resolves the DSH home
 * as DSH does: a row's `dshHome`, or (undefined) DSH's own.
 */
export function skillRootsOfRows(ports: Pick<Ports, 'env' | 'home' | 'cwd'>, rows: readonly unknown[] | undefined, resolveHome: (given: string | undefined) => string): SessionSkillRoots {
  const found = { includeDefaultRoots: true, customRoots: [] as string[], dshHome: resolveHome(undefined), agentsHome: resolveAgentsHome(ports.env, ports.home, ports.cwd) };
  if (rows === undefined) return found;
  if (rows.length === 0) found.includeDefaultRoots = false;
  for (const row of rows) {
    if (typeof row !== 'object' || row === null) continue;
    const config = row as Record<string, unknown>;
    if (config.includeDefaultRoots === false) found.includeDefaultRoots = false;
    if (Array.isArray(config.customSkillDirs)) found.customRoots.push(...config.customSkillDirs.filter((d): d is string => typeof d === 'string').map((d) => path.resolve(d)));
    if (typeof config.dshHome === 'string') found.dshHome = resolveHome(config.dshHome);
    if (typeof config.agentsHome === 'string') found.agentsHome = path.resolve(config.agentsHome);
  }
  return found;
}

export interface SessionSkillsRequest {
  /** The session cwd; undefined: a session without a workspace (no project root is read). */
  cwd: string | undefined;
  roots: SessionSkillRoots;
  /** Also pin the roots that are not gated (the user's own; the CLI lists their pins). Default: only gated roots are hashed. */
  pinEveryRoot?: boolean;
}

/** The roots and skills DSH reads for the session, gated roots pinned (every root with `pinEveryRoot`). */
export async function discoverSessionSkills(ports: Pick<Ports, 'files' | 'cwd'>, request: SessionSkillsRequest): Promise<SkillDiscovery> {
  const { roots } = request;
  const fs = ports.files.skills;
  const discovery = await discoverSkills({
    cwd: request.cwd ?? ports.cwd,
    customRoots: roots.customRoots,
    dshHome: roots.dshHome,
    agentsHome: roots.agentsHome,
    hash: request.pinEveryRoot === true,
  }, fs);
  const kept = discovery.roots.filter((r) => (r.kind === 'custom' || roots.includeDefaultRoots) && (request.cwd !== undefined || !r.kind.startsWith('project-')));
  if (request.pinEveryRoot !== true) {
    for (const root of kept) {
      if (!root.exists || !isGatedKind(root.kind)) continue;
      const content = await hashSkillRoot(root, fs);
      if (content.pin !== undefined) root.pin = content.pin;
      if (content.tooLarge) root.tooLarge = true;
    }
  }
  return { ...discovery, roots: kept };
}

/**
 * What a DSH session in `cwd` gets from its skill roots. Only gated roots are hashed by default:
 * the plugin runs this at every model step, and the user's own roots need no pin. Throws when a
 * root cannot be read (the plugin's gate then fails closed).
 */
export async function gateSessionSkills(ports: Pick<Ports, 'store' | 'files' | 'cwd'>, request: SessionSkillsRequest): Promise<SkillGateResult> {
  const discovery = await discoverSessionSkills(ports, request);
  // A skill whose SKILL.md has an error-level scan finding passes only at the content the user accepted.
  return gateSkills(discovery, await ports.store.skillTrust(), (await ports.store.acceptedDefinitions()).skills);
}

/** Names of the skills in the session's gated roots, without pins or trust: what a gate that cannot decide withholds (none when even they cannot be read). */
export async function gatedSkillNames(ports: Pick<Ports, 'files' | 'cwd'>, request: SessionSkillsRequest): Promise<string[]> {
  try {
    const discovery = await discoverSkills({ cwd: request.cwd ?? ports.cwd, customRoots: request.roots.customRoots, dshHome: request.roots.dshHome, agentsHome: request.roots.agentsHome, hash: false }, ports.files.skills);
    return discovery.roots.filter((r) => isGatedKind(r.kind)).flatMap((r) => r.candidates.flatMap((c) => (c.analysis.skill ? [c.analysis.skill.name] : [])));
  } catch {
    return [];
  }
}

/** What the gate's decision rests on (gated roots' trust and pins, scanned skills' state): a change of it is a new catalog. */
export function skillGateBasis(result: SkillGateResult): string {
  return JSON.stringify([
    result.roots.filter((r) => isGatedKind(r.kind)).map((r) => [r.path, r.gate, r.pin ?? null]),
    result.scanned.map((s) => [s.candidate.file, s.gate, s.candidate.scan.pin]),
  ]);
}

/**
 * A skill root's trust as a reason, with the fix of a root that can be trusted (`skills trust`;
 * `workspace` as in {@link skillScanReason}). A root too large to pin has none.
 */
export function skillRootReason(root: GatedSkillRoot, workspace: string | undefined): PlanReason {
  const fix = planFix('skills-trust', { root: root.path, workspace });
  return root.gate === 'not-gated' ? reason('root-not-gated')
    : root.gate === 'trusted' ? reason('root-trusted')
      : root.tooLarge ? reason('root-too-large')
        : root.gate === 'changed' ? reason('root-changed', {}, fix) : reason('root-untrusted', {}, fix);
}

/**
 * Why a skill is withheld for its SKILL.md's scan (`shadow.why` `scan`), with the fix: accepting
 * that content at its pin. `workspace`: the session's folder (undefined: a session without one;
 * the command then names none). Undefined for a skill withheld for its root.
 */
export function skillScanReason(result: SkillGateResult, shadow: SkillShadow, workspace: string | undefined): PlanReason | undefined {
  const scan = shadow.why === 'scan' ? result.scanned.find((x) => x.candidate.file === shadow.file)?.candidate.scan : undefined;
  return scan && reason('skill-hidden-instructions', { codes: scanErrorCodes(scan.findings) }, planFix('skills-accept', { file: shadow.file, pin: scan.pin, workspace }));
}

/** A skill the gate offers: its file, the folder its resources resolve in, and whether its root is gated (then checked again at load). */
export interface OfferedSkill {
  offered: SkillCandidate;
  directory: string;
  gated: boolean;
}

/** A name the gate withholds: the root whose skill would have won it, and why. */
export interface WithheldSkill {
  withheld: string;
  root?: GatedSkillRoot;
  why: 'root' | 'scan';
}

/**
 * The session layer of the catalog, sorted by name: for every name a gated root wins, the same
 * skill while its root is trusted (and its content passes the scan), else the best passing skill
 * of that name, else a withheld entry.
 */
export function sessionSkillCatalog(result: SkillGateResult): Array<OfferedSkill | WithheldSkill> {
  const offer = (c: SkillCandidate, gated: boolean): OfferedSkill => ({
    offered: c,
    // A SKILL.md in its own folder: that folder; a flat `<name>.md`: the root.
    directory: path.basename(c.file) === 'SKILL.md' && path.dirname(c.file) !== c.root.path ? path.dirname(c.file) : c.root.path,
    gated,
  });
  const entries: Array<OfferedSkill | WithheldSkill> = result.trusted.map((c) => offer(c, true));
  for (const shadow of result.shadows) {
    entries.push(shadow.fallback
      ? offer(shadow.fallback, isGatedKind(shadow.fallback.root.kind))
      : { withheld: shadow.name, root: result.roots.find((r) => r.path === shadow.withheldRoot), why: shadow.why });
  }
  const nameOf = (e: OfferedSkill | WithheldSkill) => ('offered' in e ? e.offered.analysis.skill!.name : e.withheld);
  return entries.sort((a, b) => (nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0));
}

/** Where an offered skill is, as the gate listed it. */
export interface SkillLocator {
  path: string;
  directory: string;
  root: string;
  kind: SkillRootKind;
  gated: boolean;
}

export type SkillLoad =
  | { outcome: 'loaded'; skill: SkillSummary; content: string }
  /** Its gated root's content is not the pin the host store records (changed since trusted, or distrusted). */
  | { outcome: 'root-changed' }
  /** Its SKILL.md now has an error-level scan finding whose content is not accepted. */
  | { outcome: 'scan-withheld' }
  /** Gone, refused by the safe read, or no longer the skill of that name. */
  | { outcome: 'missing' };

/**
 * Whether a skill the gate listed loads now, and its body: its gated root's pin and its content's
 * scan are checked again at this moment, so an edit after the catalog is refused. Throws when a
 * file cannot be read (the gate then loads nothing).
 */
export async function loadSessionSkill(ports: Pick<Ports, 'store' | 'files'>, locator: SkillLocator, name: string): Promise<SkillLoad> {
  const fs = ports.files.skills;
  if (locator.gated) {
    const recordedTrust = await ports.store.skillTrust();
    const root = path.resolve(locator.root);
    const recorded = Object.hasOwn(recordedTrust, root) ? recordedTrust[root] : undefined;
    const current = await hashSkillRoot({ path: locator.root, skipSystem: false, kind: locator.kind }, fs);
    if (recorded === undefined || current.pin !== recorded) return { outcome: 'root-changed' };
  }
  // The same safe read as discovery: a regular file, size-capped, no link out of a non-custom root.
  const raw = await fs.readText(locator.path, { within: locator.kind === 'custom' ? undefined : locator.root });
  if (raw === undefined) return { outcome: 'missing' };
  if (skillContentGate(locator.path, raw, (await ports.store.acceptedDefinitions()).skills) === 'withheld') return { outcome: 'scan-withheld' };
  const analysis = analyzeSkillText(raw, locator.path);
  const content = skillBody(raw);
  if (!analysis.skill || analysis.skill.name !== name || content === undefined) return { outcome: 'missing' };
  return { outcome: 'loaded', skill: analysis.skill, content };
}
