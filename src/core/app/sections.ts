/**
 * The declaration's sections for language servers and skills, computed for an export:
 *
 * - `lsp`: `{servers, registersAll, pin}`: the normalized `servers` map of the one
 *   `@deepseek-ai/dsh-lsp-stdio` row (only entries without an error), whether DSH registers all
 *   of them (any invalid entry means none), and `pin` = canonicalHash of `{servers, registersAll}`
 *   (RFC 8785, like a server's pin).
 * - `skills`: every existing skill root in DSH's order with its trust state and content pin: the
 *   signed record of what the user reviewed (declarationModel.ts is the contract both sides read).
 */
import { validateLspServers, type LspValidation } from '../lsp/lspValidation';
import { lspConfigured, lspDeclarationSection } from '../lsp/lspSection';
import { discoverSkills, type SkillDiscovery } from '../skills/discovery';
import { resolveAgentsHome } from '../skills/skillRoots';
import { skillsDeclarationSection } from '../skills/rootTrust';
import type { DeclarationSections } from '../declaration/declarationModel';
import type { Ports } from './ports';

export interface SectionRequest {
  /** Absolute path of the workspace folder (the DSH session cwd). */
  folder: string;
  /** The merged value of `dsh.lsp.servers` for this folder. */
  lspServers?: unknown;
  /** `dsh.skills.customRoots`; relative entries resolve against `folder`. */
  customSkillRoots?: readonly string[];
}

export interface SectionAnalysis {
  sections: DeclarationSections;
  lsp: LspValidation;
  skills: SkillDiscovery;
  recordedTrust: Readonly<Record<string, string>>;
}

/**
 * The sections and everything they are made of: `lsp` when `dsh.lsp.servers` is configured, and
 * `skills` always (an empty `roots` list tells the DSH side that no root was reviewed). Skill
 * roots are those of DSH in `ports.dshHome` and the user's agents home (`$DSH_AGENTS_HOME` or
 * `~/.agents` from the environment port).
 */
export async function analyzeSections(ports: Pick<Ports, 'dshHome' | 'store' | 'files' | 'env' | 'home' | 'cwd' | 'resolveCommand'>, request: SectionRequest): Promise<SectionAnalysis> {
  const lsp = await validateLspServers(request.lspServers, { resolveCommand: ports.resolveCommand });
  const skills = await discoverSkills({
    cwd: request.folder,
    customRoots: request.customSkillRoots ?? [],
    dshHome: ports.dshHome,
    agentsHome: resolveAgentsHome(ports.env, ports.home, ports.cwd),
  }, ports.files.skills);
  const recordedTrust = await ports.store.skillTrust();
  const sections: DeclarationSections = { skills: skillsDeclarationSection(skills, recordedTrust) };
  if (lspConfigured(request.lspServers)) sections.lsp = lspDeclarationSection(lsp);
  return { sections, lsp, skills, recordedTrust };
}
