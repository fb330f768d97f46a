/**
 * The skill roots of a DSH session and what reaches it: the one function the DSH plugin's skill
 * gate, the session plan and `dsh-bridge skills` decide with (discovery as DSH does it, the trust
 * records and the accepted skill definitions of the host store, core/skills/skillGate.ts).
 */
import { isGatedKind, gateSkills, type SkillGateResult } from '../skills/skillGate';
import { discoverSkills } from '../skills/discovery';
import { hashSkillRoot } from '../skills/rootPins';
import { resolveAgentsHome } from '../skills/skillRoots';
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

export interface SessionSkillsRequest {
  /** The session cwd; undefined: a session without a workspace (no project root is read). */
  cwd: string | undefined;
  roots: SessionSkillRoots;
  /** Also pin the roots that are not gated (the user's own; the CLI lists their pins). Default: only gated roots are hashed. */
  pinEveryRoot?: boolean;
}

/**
 * What a DSH session in `cwd` gets from its skill roots. Only gated roots are hashed by default:
 * the plugin runs this at every model step, and the user's own roots need no pin. Throws when a
 * root cannot be read (the plugin's gate then fails closed).
 */
export async function gateSessionSkills(ports: Pick<Ports, 'store' | 'files' | 'cwd'>, request: SessionSkillsRequest): Promise<SkillGateResult> {
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
  // A skill whose SKILL.md has an error-level scan finding passes only at the content the user accepted.
  return gateSkills({ roots: kept }, await ports.store.skillTrust(), (await ports.store.acceptedDefinitions()).skills);
}
