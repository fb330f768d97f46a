import type { Ports } from '../core/app/ports';
import {
  gateSessionSkills, gatedSkillNames, loadSessionSkill, sessionSkillCatalog, skillGateBasis, skillRootReason, skillRootsOfRows, skillScanReason,
  type OfferedSkill, type SessionSkillRoots, type SkillLocator, type WithheldSkill,
} from '../core/app/sessionSkills';
import { resolveDshHome } from '../core/node/hostStore';
import { KeptWhileUnchanged } from '../core/node/keptWhileUnchanged';
import type { GatedSkillRoot, SkillGateResult, SkillShadow } from '../core/skills/skillGate';
import type { AgentLike, AgentsService, Ctx, Fiber, Logger } from './types';
import { errorText } from './errors';

/** A withheld root's state in the log's words, by the core's reason code. */
const ROOT_WORDS: Partial<Record<string, string>> = {
  'root-changed': 'changed since it was trusted',
  'root-too-large': 'too large to pin, so it cannot be trusted',
  'root-untrusted': 'not trusted',
};

/** The provider name the gate registers in each session's layer of the skill registry. */
const SKILL_GATE_PROVIDER = 'dsh-bridge-skill-gate';
const SKILL_FILESYSTEM = ['@deepseek-ai', 'dsh-skill-filesystem'].join('/');


/** The slice of `@deepseek-ai/dsh-skill`'s candidate and definition shapes the gate produces. */
interface Candidate {
  name: string;
  description: string;
  whenToUse?: string;
  invocation: { modelInvocable: boolean; userInvocable: boolean };
  provider: string;
  source: string;
  rank: number;
  locator?: SkillLocator;
  resourceBase?: { kind: 'directory'; path: string };
  path?: string;
  metadata?: Record<string, unknown>;
}

interface ProviderControl {
  signal: AbortSignal;
  invalidate(): void;
}

interface SkillsService {
  registerProvider(create: (control: ProviderControl) => { name: string; list(options: { cwd?: string; signal?: AbortSignal }): Promise<unknown>; get(candidate: Candidate, options: { signal?: AbortSignal }): Promise<unknown> }): unknown;
}

interface GateSession {
  agent: AgentLike;
  /** The child fiber of the session's context that holds the provider (set once created). */
  fiber?: Fiber;
  control?: ProviderControl;
  /** What the last `list()` answered from: trust states and pins; a change invalidates the catalog. */
  basis?: string;
  /** Names seen in gated roots (fail-closed answer when a later computation fails). */
  known: Set<string>;
  logged: Set<string>;
  /** The last gate result, kept while nothing it read changed (a step reuses it: core/node/keptWhileUnchanged.ts). */
  kept?: KeptWhileUnchanged<SkillGateResult>;
  /** What the last `list()` withheld (the session record says it). */
  withheld?: SessionSkillWithheld[];
}

/** A skill the gate withheld from a session's catalog, and why: its root (untrusted, changed) or its SKILL.md's scan. */
export interface SessionSkillWithheld {
  name: string;
  root?: string;
  why: 'root' | 'scan';
  /** The root whose skill of that name is offered instead. */
  offeredFrom?: string;
}

/**
 * Skill-root trust enforced in DSH sessions. rc.8's skill registry has no filter hook but is
 * layered: the session's own layer wins a name over the global one, whatever the rank. So for
 * each session (registered at `agent/created`, before any catalog is published) the gate adds a
 * provider in that session's layer that lists, for every name whose DSH winner comes from a
 * project or custom root:
 * - trusted root (host-store pin equals the current content): the same skill, loaded by the
 *   gate, which checks the pin again at load (an edit after the catalog is refused);
 * - untrusted or changed root: the best lower-rank skill of that name from a root that passes
 *   (e.g. the user's own), or a withheld entry with both invocation flags off, which DSH drops
 *   from the catalog, refuses in the `skill` tool and skips for `/name`.
 * A skill whose SKILL.md has an error-level scan finding (core/scan) is withheld the same way,
 * from any root, until the host store records the user's acceptance of that content's pin; the
 * gate scans a file it loads again, so an edit after the catalog is refused.
 * `list()` never throws: a throwing provider is dropped and the filesystem entries would come
 * back, so on any failure it withholds every gated name it knows (fail closed).
 */
export class SkillGate {
  private readonly sessions = new Map<AgentLike, GateSession>();
  /** Told after a session's catalog was listed (its withheld skills may have changed). */
  onCatalog?: (agent: AgentLike) => void;

  constructor(
    private readonly ctx: Ctx,
    private readonly ports: Pick<Ports, 'store' | 'files' | 'env' | 'home' | 'cwd'>,
    private readonly log: Logger,
    /** Where a withheld skill is also said when the DSH log is not shown (a headless run's stderr). */
    private readonly notice?: (line: string) => void,
  ) {}

  /** A warning in the DSH log, and on a headless run's stderr. */
  private warn(line: string): void {
    this.log.warn(line);
    this.notice?.(line);
  }

  /** {@link warn}, once per session for `key` (what the line is about). */
  private warnOnce(session: GateSession, key: string, line: () => string): void {
    if (session.logged.has(key)) return;
    session.logged.add(key);
    this.warn(line());
  }

  /** Adds the session's provider (idempotent). */
  attach(agent: AgentLike): void {
    if (this.sessions.has(agent)) return;
    const session: GateSession = { agent, known: new Set(), logged: new Set() };
    try {
      session.fiber = agent.ctx.plugin({
        name: 'dsh-bridge-skill-gate',
        inject: ['skills'],
        apply: (c: Ctx & { skills: SkillsService }) => {
          c.skills.registerProvider((control) => {
            session.control = control;
            return {
              name: SKILL_GATE_PROVIDER,
              list: (options) => this.list(session, options.cwd),
              get: (candidate) => this.get(session, candidate),
            };
          });
        },
      });
    } catch (error) {
      this.log.warn(`dsh-bridge: session ${agent.id}: cannot gate its skill roots (${errorText(error)})`);
      return;
    }
    this.sessions.set(agent, session);
  }

  /** Sessions whose skill roots are gated now. */
  get size(): number {
    return this.sessions.size;
  }

  async detach(agent: AgentLike): Promise<void> {
    const session = this.sessions.get(agent);
    if (!session) return;
    this.sessions.delete(agent);
    session.kept?.close();
    await Promise.resolve(session.fiber?.dispose()).catch(() => undefined);
  }

  async stop(): Promise<void> {
    await Promise.all([...this.sessions.keys()].map((a) => this.detach(a)));
  }

  /**
   * Before the session's next catalog (in the turn's assembly, ahead of `agent/pre-step`):
   * waits for the provider, and invalidates the catalog when a trust record or a pin changed
   * since the last `list()`.
   */
  async revalidate(agent: AgentLike): Promise<void> {
    const session = this.sessions.get(agent);
    if (!session) return;
    await Promise.resolve(session.fiber).catch(() => undefined);
    if (!session.control || session.basis === undefined) return;
    let basis: string;
    try {
      basis = skillGateBasis(await this.compute(session, this.cwdOf(session)));
    } catch {
      basis = 'failed';
    }
    if (basis !== session.basis) session.control.invalidate();
  }

  /** What the session's last catalog withheld (undefined before its first catalog, or without the gate's session). */
  withheldSkills(agent: AgentLike): readonly SessionSkillWithheld[] | undefined {
    return this.sessions.get(agent)?.withheld;
  }

  private cwdOf(session: GateSession, cwd?: string): string | undefined {
    const own = session.agent.session.header?.cwd;
    return cwd ?? (typeof own === 'string' ? own : undefined);
  }

  /** DSH's skill roots: from the `dsh-skill-filesystem` rows of the host's Loader when there is one (read each time: rows can be reloaded). */
  private roots(): SessionSkillRoots {
    const env = this.ports.env;
    const loader = this.ctx.get('loader') as { entries?(): Iterable<{ options?: { name?: string; disabled?: boolean; config?: unknown }; fiber?: { config?: unknown } }> } | undefined;
    let rows: unknown[] | undefined;
    try {
      rows = typeof loader?.entries === 'function'
        ? [...loader.entries()].filter((e) => e.options?.name === SKILL_FILESYSTEM && !e.options.disabled).map((e) => e.fiber?.config ?? e.options?.config ?? {})
        : undefined;
    } catch {
      rows = undefined; // an unexpected loader shape: DSH's defaults
    }
    return skillRootsOfRows(this.ports, rows, (given) => (given === undefined ? resolveDshHome(undefined, env, this.ports.home, this.ports.cwd) : resolveDshHome(given, env)));
  }

  /** What reaches the session: the one function the session plan and `dsh-bridge skills` decide with. */
  private compute(session: GateSession, cwd: string | undefined): Promise<SkillGateResult> {
    const roots = this.roots();
    const compute = () => gateSessionSkills(this.ports, { cwd, roots });
    session.kept ??= new KeptWhileUnchanged(this.ports.env);
    return session.kept.get(JSON.stringify([cwd ?? null, roots]), compute);
  }

  private async list(session: GateSession, cwd: string | undefined): Promise<Candidate[]> {
    const workspace = this.cwdOf(session, cwd);
    const where = workspace ?? '(no workspace)';
    try {
      const result = await this.compute(session, workspace);
      session.basis = skillGateBasis(result);
      for (const shadow of result.shadows) session.known.add(shadow.name);
      for (const c of result.trusted) session.known.add(c.analysis.skill!.name);
      for (const shadow of result.shadows) this.logScanWithheld(session, { where, workspace }, shadow, result);
      for (const root of result.withheld) this.logWithheld(session, { where, workspace }, root, result);
      const catalog = sessionSkillCatalog(result);
      session.withheld = result.shadows.map((shadow) => ({
        name: shadow.name, root: shadow.withheldRoot, why: shadow.why, ...(shadow.fallback ? { offeredFrom: shadow.fallback.root.path } : {}),
      }));
      this.onCatalog?.(session.agent);
      return catalog.map((entry) => ('offered' in entry ? this.offer(entry) : this.withheld(entry)));
    } catch (error) {
      session.basis = 'failed';
      const line = `dsh-bridge: ${where}: the skill roots cannot be checked (${errorText(error)}): every project and custom skill known to this session is withheld`;
      this.warnOnce(session, line, () => line);
      // Fail closed whatever throws here: a throwing provider is dropped and DSH's own entries come back.
      const names = await Promise.resolve().then(() => gatedSkillNames(this.ports, { cwd: this.cwdOf(session, cwd), roots: this.roots() })).catch(() => []);
      for (const name of names) session.known.add(name);
      session.withheld = [...session.known].sort().map((name) => ({ name, why: 'root' as const }));
      return [...session.known].sort().map((name) => this.withheld({ withheld: name, why: 'root' }));
    }
  }

  /** `where`: the log's name of the session folder; `workspace`: the folder a fix's command names (none without one). */
  private logWithheld(session: GateSession, { where, workspace }: { where: string; workspace: string | undefined }, root: GatedSkillRoot, result: SkillGateResult): void {
    this.warnOnce(session, `${root.path} ${root.gate} ${root.pin ?? ''}`, () => {
      const offered = result.shadows.filter((s) => s.withheldRoot === root.path && s.fallback).map((s) => `"${s.name}" from ${s.fallback!.root.path}`);
      // The core's reason decides the words and the fix together (a changed root too large to pin is too large).
      const { code, fix } = skillRootReason(root, workspace);
      const why = ROOT_WORDS[code] ?? 'not trusted';
      const skills = root.skills.length ? root.skills.map((n) => `"${n}"`).join(', ') : 'none';
      return `dsh-bridge: ${where}: skill root ${root.path} is ${why}: its skills (${skills}) are withheld from session ${session.agent.id}`
        + `${offered.length ? `; offered instead: ${offered.join(', ')}` : ''}`
        + `${fix ? `; to trust it, review it in VS Code (DSH: Review Skill Roots) or run: ${fix.command}` : ''}`;
    });
  }

  /** A skill withheld for its SKILL.md's scan, in the core's reason and fix (once per session and content). */
  private logScanWithheld(session: GateSession, { where, workspace }: { where: string; workspace: string | undefined }, shadow: SkillShadow, result: SkillGateResult): void {
    const why = skillScanReason(result, shadow, workspace);
    if (!why?.fix) return;
    const { fix } = why;
    this.warnOnce(session, `scan ${shadow.file} ${fix.args.pin}`, () => `dsh-bridge: ${where}: skill "${shadow.name}" (${shadow.file}) is withheld from session ${session.agent.id} (reason ${why.code}): its scan found ${why.args.codes}`
      + `${shadow.fallback ? `; offered instead: "${shadow.name}" from ${shadow.fallback.root.path}` : ''}`
      + `; review it (dsh-bridge skills list) and accept this content: ${fix.command}`);
  }

  private offer({ offered: c, directory, gated }: OfferedSkill): Candidate {
    const skill = c.analysis.skill!;
    const out: Candidate = {
      name: skill.name,
      description: skill.description,
      invocation: { ...skill.invocation },
      provider: SKILL_GATE_PROVIDER,
      source: c.root.kind,
      rank: c.root.rank,
      locator: { path: c.file, directory, root: c.root.path, kind: c.root.kind, gated },
      resourceBase: { kind: 'directory', path: directory },
      path: c.file,
    };
    if (skill.whenToUse !== undefined) out.whenToUse = skill.whenToUse;
    if (skill.metadata !== undefined) out.metadata = skill.metadata;
    return out;
  }

  private withheld({ withheld: name, root, why }: WithheldSkill): Candidate {
    return {
      name,
      description: why === 'scan'
        ? 'Withheld by DSH Bridge: its SKILL.md has hidden or model-directed instructions, not accepted on this machine.'
        : `Withheld by DSH Bridge: its skill root${root ? ` ${root.path}` : ''} is not trusted on this machine.`,
      invocation: { modelInvocable: false, userInvocable: false },
      provider: SKILL_GATE_PROVIDER,
      source: root?.kind ?? 'project-dsh',
      rank: root?.rank ?? 0,
    };
  }

  /** Loads a skill the gate offered, checking its gated root's pin and its content's scan again at this moment. */
  private async get(session: GateSession, candidate: Candidate): Promise<unknown> {
    const locator = candidate.locator;
    if (!locator) return undefined;
    try {
      const load = await loadSessionSkill(this.ports, locator, candidate.name);
      if (load.outcome === 'root-changed') {
        session.control?.invalidate();
        this.warn(`dsh-bridge: skill "${candidate.name}" not loaded: its root ${locator.root} changed since it was trusted`);
        return undefined;
      }
      if (load.outcome === 'scan-withheld') {
        session.control?.invalidate();
        this.warn(`dsh-bridge: skill "${candidate.name}" not loaded: its SKILL.md now has hidden or model-directed instructions that are not accepted`);
        return undefined;
      }
      if (load.outcome === 'missing') return undefined;
      const { skill, content } = load;
      const definition: Record<string, unknown> = {
        name: skill.name,
        description: skill.description,
        invocation: skill.invocation,
        source: candidate.source,
        provider: SKILL_GATE_PROVIDER,
        resourceBase: { kind: 'directory', path: locator.directory },
        path: locator.path,
        content,
      };
      if (skill.whenToUse !== undefined) definition.whenToUse = skill.whenToUse;
      if (skill.metadata !== undefined) definition.metadata = skill.metadata;
      return definition;
    } catch (error) {
      this.log.warn(`dsh-bridge: skill "${candidate.name}" not loaded (${errorText(error)})`);
      return undefined;
    }
  }

  /** Sessions that exist when the plugin starts (agents declared in config). */
  attachExisting(): void {
    const agents = this.ctx.get('agents') as AgentsService | undefined;
    for (const agent of agents?.list() ?? []) this.attach(agent);
  }
}
