/**
 * The declaration's extra sections for language servers and skills, and the settings-layer
 * logic the editor needs to compute and place them. Pure apart from the injected command
 * resolver and file access; no editor, no DSH runtime.
 *
 * - `lsp`: `{servers, registersAll, pin}`: the normalized `servers` map of the one
 *   `@deepseek-ai/dsh-lsp-stdio` row (only entries without an error), whether DSH registers all
 *   of them (any invalid entry means none), and `pin` = {@link canonicalHash} of
 *   `{servers, registersAll}` (RFC 8785, like a server's pin).
 * - `skills`: {@link skillsDeclarationSection}: every existing root in DSH's order with its trust
 *   state and content pin: the signed record of what the user reviewed (the model in
 *   declarationModel.ts is the contract both sides read).
 */
import * as os from 'node:os';
import { canonicalHash } from '../json/canonicalJson';
import { formatMessage, type Problem } from '../problems/problems';
import { SKILL_TRUST_PROBLEM_CODES, type SkillTrustProblemCode } from '../skills/skillCodes';
import { HostStore } from '../node/hostStore';
import { gateSkills, type SkillGateResult } from '../skills/skillGate';
import { validateLspServers, type CommandResolver, type LspServerConfig, type LspValidation } from '../lsp/lsp';
import { createPathResolver } from '../node/commandPath';
import {
  discoverSkills, resolveAgentsHome, skillTrustState, skillsDeclarationSection, type SkillDiscovery, type SkillFs,
} from '../skills/skills';
import { nodeSkillFs } from '../node/skillFs';

import { lspDeclarationSection } from '../lsp/lspSection';
import type { DeclarationSections } from '../declaration/declarationModel';



/** No setting, `null`, or VS Code's default `{}`: nothing configured, no `lsp` section. */
export function lspConfigured(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  return !(typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0);
}

export interface SectionOptions {
  /** Absolute path of the workspace folder (the DSH session cwd). */
  folder: string;
  /** Resolved DSH home (host store and `<dshHome>/skills`). */
  dshHome: string;
  /** The merged value of `dsh.lsp.servers` for this folder ({@link mergeSettingLayers}). */
  lspServers?: unknown;
  /** `dsh.skills.customRoots`; relative entries resolve against `folder`. */
  customSkillRoots?: readonly string[];
  /** Default `$DSH_AGENTS_HOME` or `~/.agents` from `env` and `homedir`. */
  agentsHome?: string;
  env?: Readonly<Record<string, string | undefined>>;
  homedir?: string;
  /** Default: PATH lookup in `env` ({@link createPathResolver}). */
  resolveCommand?: CommandResolver;
  /** Trusted roots `{rootPath: pin}`; default: read from the host store under `dshHome`. */
  recordedTrust?: Readonly<Record<string, string>>;
  /** Skills accepted despite a scan's error; default: read from the host store. */
  acceptedSkills?: ReadonlyArray<{ file: string; pin: string }>;
  fs?: SkillFs;
}

export interface SectionAnalysis {
  sections: DeclarationSections;
  lsp: LspValidation;
  skills: SkillDiscovery;
  recordedTrust: Readonly<Record<string, string>>;
}

/** Everything the sections are made of, for callers that also show the problems. */
export async function analyzeSections(options: SectionOptions): Promise<SectionAnalysis> {
  const env = options.env ?? process.env;
  const homedir = options.homedir ?? os.homedir();
  const lsp = await validateLspServers(options.lspServers, { resolveCommand: options.resolveCommand ?? createPathResolver({ env }) });
  const skills = await discoverSkills({
    cwd: options.folder,
    customRoots: options.customSkillRoots ?? [],
    dshHome: options.dshHome,
    agentsHome: options.agentsHome ?? resolveAgentsHome(env, homedir, process.cwd()),
  }, options.fs ?? nodeSkillFs);
  const recordedTrust = options.recordedTrust ?? await new HostStore(options.dshHome).skillTrust();
  const sections: DeclarationSections = { skills: skillsDeclarationSection(skills, recordedTrust) };
  if (lspConfigured(options.lspServers)) sections.lsp = lspDeclarationSection(lsp);
  return { sections, lsp, skills, recordedTrust };
}

/**
 * The `sections` to pass to `exportFolder`: `lsp` when `dsh.lsp.servers` is configured, and
 * `skills` always (an empty `roots` list tells the DSH side that no root was reviewed).
 */
export async function computeDeclarationSections(options: SectionOptions): Promise<DeclarationSections> {
  return (await analyzeSections(options)).sections;
}

// Settings layers live in ./settingLayers (no skills, no YAML: the editor loads them eagerly).

// ---------------------------------------------------------------------------------------------
// Trust problems: what DSH does not know about a root (it has no trust step) but the user must.


/**
 * A problem on every skill file of a root whose trusted content changed, or that is too large to
 * pin; placed on the skill's `name` (or its first line). `file` is the absolute path.
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

export interface FolderSkillGateOptions {
  /** The session cwd (workspace folder). */
  folder: string;
  /** Resolved DSH home: `<dshHome>/skills` and the host store's trust records. */
  dshHome: string;
  agentsHome: string;
  /** Custom roots DSH reads (absolute). */
  customRoots?: readonly string[];
  /** Default: read from the host store under `dshHome`. */
  recordedTrust?: Readonly<Record<string, string>>;
  /** Skills accepted despite a scan's error; default: read from the host store. */
  acceptedSkills?: ReadonlyArray<{ file: string; pin: string }>;
  fs?: SkillFs;
}

/** What a DSH session in `folder` gets from its skill roots, with the trust recorded on this machine. */
export async function gateFolderSkills(options: FolderSkillGateOptions): Promise<SkillGateResult & { discovery: SkillDiscovery }> {
  const discovery = await discoverSkills({
    cwd: options.folder,
    customRoots: options.customRoots ?? [],
    dshHome: options.dshHome,
    agentsHome: options.agentsHome,
  }, options.fs ?? nodeSkillFs);
  const store = new HostStore(options.dshHome);
  const recorded = options.recordedTrust ?? await store.skillTrust();
  const accepted = options.acceptedSkills ?? (await store.acceptedDefinitions()).skills;
  return { ...gateSkills(discovery, recorded, accepted), discovery };
}
