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
 *   state and content pin, so the DSH side can refuse an untrusted, changed or unlisted root.
 */
import * as os from 'node:os';
import { canonicalHash } from './canonicalJson';
import { formatMessage, type Problem, type Severity } from './problems';
import { HostStore } from './hostStore';
import { nodeValue, parseJsonc, propertyValue } from './jsonTree';
import {
  createPathResolver, validateLspServers, type CommandResolver, type JsonPath, type LspServerConfig, type LspValidation, type SettingsFileKind,
} from './lsp';
import {
  discoverSkills, nodeSkillFs, resolveAgentsHome, skillTrustState, skillsDeclarationSection, type SkillDiscovery, type SkillFs, type SkillsDeclaration,
} from './skills';

export interface LspDeclarationSection {
  servers: Record<string, LspServerConfig>;
  registersAll: boolean;
  /** `sha256:` + hex SHA-256 of the canonical JSON of `{servers, registersAll}`. */
  pin: string;
}

export interface DeclarationSections {
  lsp?: LspDeclarationSection;
  skills?: SkillsDeclaration;
}

/** The `lsp` section from a validation of `dsh.lsp.servers`. */
export function lspDeclarationSection(validation: Pick<LspValidation, 'servers' | 'registersAll'>): LspDeclarationSection {
  const body = { servers: validation.servers, registersAll: validation.registersAll };
  return { ...body, pin: canonicalHash(body) };
}

/** True when a declaration's `lsp` section is well-formed enough to hash and its pin matches (for verify). */
export function lspSectionPinMatches(section: unknown): boolean {
  if (typeof section !== 'object' || section === null || Array.isArray(section)) return false;
  const { servers, registersAll, pin } = section as Record<string, unknown>;
  if (typeof pin !== 'string' || typeof registersAll !== 'boolean' || typeof servers !== 'object' || servers === null) return false;
  try {
    return canonicalHash({ servers, registersAll }) === pin;
  } catch {
    return false;
  }
}

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
    agentsHome: options.agentsHome ?? resolveAgentsHome(env, homedir),
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

// ---------------------------------------------------------------------------------------------
// Settings layers: VS Code merges an object setting across user, workspace and folder settings.

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function mergeInto(target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(source)) {
    const existing = Object.hasOwn(target, key) ? target[key] : undefined;
    if (isPlainObject(existing) && isPlainObject(value)) mergeInto(existing, value);
    else setOwn(target, key, structuredClone(value));
  }
}

/**
 * The effective value of an object setting from its layers, lowest priority first (default,
 * user, workspace, folder), as VS Code computes it: objects merge key by key, recursively;
 * anything else (arrays included) replaces. `undefined` layers are skipped.
 */
export function mergeSettingLayers(layers: readonly unknown[]): unknown {
  let result: unknown;
  for (const layer of layers) {
    if (layer === undefined) continue;
    if (isPlainObject(result) && isPlainObject(layer)) mergeInto(result, layer);
    else if (isPlainObject(layer)) {
      const fresh: Record<string, unknown> = {};
      mergeInto(fresh, layer);
      result = fresh;
    } else result = structuredClone(layer);
  }
  return result;
}

/**
 * The value of a setting as written in a settings text (the last property with that key, as VS
 * Code reads it; under `settings` in a .code-workspace); `undefined` when it is not there. For
 * Restricted Mode, where VS Code hides a restricted setting's workspace value from extensions.
 */
export function settingValueInText(text: string, kind: SettingsFileKind, settingId: string): unknown {
  const { root } = parseJsonc(text);
  const container = kind === 'code-workspace' ? propertyValue(root, 'settings') : root;
  const node = container?.type === 'object' ? propertyValue(container, settingId) : undefined;
  return node ? nodeValue(node) : undefined;
}

/** Whether `value` (the setting's value in one layer) has the node at `path` (below the setting id). */
export function hasPath(value: unknown, path: JsonPath): boolean {
  let current = value;
  for (const key of path) {
    if (typeof key === 'number') {
      if (!Array.isArray(current) || key >= current.length) return false;
      current = current[key];
    } else {
      if (!isPlainObject(current) || !Object.hasOwn(current, key)) return false;
      current = current[key];
    }
  }
  return true;
}

/**
 * Which layer defines the node at `path` (`[settingId, ...]`): the highest-priority layer whose
 * value has it. `layers` are lowest priority first, as for {@link mergeSettingLayers}; the answer
 * is an index into them, or `undefined`. Where a higher layer replaces a non-object with an
 * object (or the reverse), the lower layer's node is not part of the effective value any more;
 * this picks the highest layer, which is the one that counts.
 */
export function definingLayer(layers: readonly unknown[], path: JsonPath): number | undefined {
  const below = path.slice(1);
  for (let i = layers.length - 1; i >= 0; i--) {
    if (layers[i] !== undefined && hasPath(layers[i], below)) return i;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Trust problems: what DSH does not know about a root (it has no trust step) but the user must.

/** Codes, severities and English templates (stable l10n keys), as in the core's other tables. */
export const SKILL_TRUST_PROBLEM_CODES = {
  'skill-root-changed': ['warning', 'The skill root {root} changed since you trusted it: its skills are not trusted until you review it again (DSH: Review Skill Roots).'],
  'skill-root-too-large': ['warning', 'The skill root {root} is too large to pin (more than 10000 files or 64 MiB), so it cannot be trusted.'],
} as const satisfies Record<string, readonly [Severity, string]>;

export type SkillTrustProblemCode = keyof typeof SKILL_TRUST_PROBLEM_CODES;

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
