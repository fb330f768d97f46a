/**
 * The session plan: what a DSH session in a folder gets from DSH Bridge, and what it does not,
 * with a reason code, its arguments and the fix for each item. The DSH plugin mounts from it;
 * `dsh-bridge verify`, `dsh-bridge doctor` and the editor show it; nothing else decides.
 *
 * For a session folder (a DSH session's cwd, or the folder an editor or the CLI works in) it finds
 * the declaration as the plugin does (the nearest `.dsh/declaration.json` up to the project root,
 * never above the home), verifies it, and reads the host store (trust mode, approvals, input
 * values, skill-root trust, probed tool pins) and the environment (`${env:}`). Per cargo:
 *
 * - MCP servers: `starts` (trust mode `pinned` and the pin approved), `asks` (DSH asks inside the
 *   turn: mode `ask`, or `pinned` without an approval of this pin) or `withheld` (the machine's DSH
 *   policy, read at every plan, decides first on the launch as it would start); and per server
 *   its tools: the choice and pins of the declaration, the last probe the host store recorded,
 *   each known tool `offered`, `left-out`, `unpinned` or `withheld` (also for hidden or
 *   model-directed instructions the scan finds in its recorded definition, until accepted).
 * - Language servers: one outcome for the `lsp` section (one row, one pin), by the same rules.
 * - Skill roots: each root's trust, the skills withheld (for their root, or for their SKILL.md's
 *   scan until accepted) and what is offered instead.
 *
 * What stays with the plugin is what happens in a session: a user's answer, a failed start and
 * its backoff, a start in flight, a tool already provided by a parent session or a profile row.
 * Never throws.
 */
import * as path from 'node:path';
import { DECLARATION_PATH, type Declaration, type DeclaredServer, type VerifyResult } from '../declaration/declarationModel';
import type { TemplateLookup } from '../declaration/template';
import type { ToolChoice } from '../declaration/toolsModel';
import { LSP_APPROVAL_NAME, toLspStdioConfig } from '../lsp/lspRow';
import { noDeclarationReason } from './noDeclaration';
import { publicToolName } from '../mcp/toolNames';
import type { FolderRecord, ProbedServerRecord } from '../node/hostStore';
import type { RowOptions, RowResult } from '../node/mcpRow';
import type { Analysis } from '../mcp/analysis';
import type { SettingsView, TrustMode } from '../settings/folderSettings';
import type { DshPolicy, DshPolicyOrigin } from '../policy/dshPolicy';
import type { SkillGateResult } from '../skills/skillGate';
import { declarationReasonCode, planFix, reason, scanErrorCodes, type PlanReason } from './planReasons';
import type { Ports } from './ports';
import { defaultSkillRoots, gateSessionSkills, skillRootReason, skillScanReason, type SessionSkillRoots } from './sessionSkills';
import { isToolAccepted, scanRecords, type AcceptedTool, type ServerScan } from '../tools/toolScan';
import { withholds } from '../scan/scan';
import { verifyFolderReading, type VerifySettings } from './verify';
import { dshPolicyOf, policyBlockOf } from './policyWithheld';
import { choiceAllows, toolScanReason } from './liveTools';

export type PlanOutcome = 'starts' | 'asks' | 'withheld';
export type ToolState = 'offered' | 'left-out' | 'unpinned' | 'withheld';

export interface ToolPlan {
  /** The server's raw tool name. */
  name: string;
  /** The name DSH gives it (`mcp__<serverName>__<name>`). */
  publicName: string;
  state: ToolState;
  reason: PlanReason;
}

export interface ServerToolsPlan {
  /** The declaration's `dsh.tools` choice for the server (absent: every tool). */
  choice?: ToolChoice;
  /** The declaration pins the server's tools (from a probe at the export). */
  pinned: boolean;
  /** The last probe the host store recorded: when, how many tools, and whether it ran the declared launch pin. */
  probe?: { probedAt: string; tools: number; current: boolean };
  /** Every tool known by name (pins, choice, the recorded probe), sorted. */
  tools: ToolPlan[];
  /** What happens to a tool the server lists at run time that is not named above. */
  unlisted: { state: ToolState; reason: PlanReason };
}

export interface ServerPlan {
  /** The name in the source file. */
  name: string;
  serverName: string;
  transport?: DeclaredServer['transport'];
  pin?: string;
  /** The file that defines it, when it is not `.vscode/mcp.json`. */
  source?: string;
  outcome: PlanOutcome;
  /** The first reason that decides the outcome (with its fix). */
  reason: PlanReason;
  tools?: ServerToolsPlan;
}

export interface LanguageServersPlan {
  pin: string;
  servers: Array<{ id: string; extensions: string[] }>;
  outcome: PlanOutcome;
  reason: PlanReason;
}

export interface SkillRootPlan {
  path: string;
  kind: string;
  trust: 'trusted' | 'untrusted' | 'changed' | 'not-gated';
  pin: string | null;
  recordedPin: string | null;
  skills: string[];
  reason: PlanReason;
}

export interface SkillsPlan {
  roots: SkillRootPlan[];
  /** Names withheld from the session, with the root that would have won and what is offered instead; `reason` when it is the skill's own scan. */
  withheld: Array<{ name: string; root: string; offeredFrom: string | null; reason?: PlanReason }>;
  /** Set when the roots could not be checked (every project and custom skill is withheld). */
  error?: PlanReason;
}

export interface DeclarationPlan {
  /** `verified`: it mounts (reasons only the editor sees aside); `refused`: it exists and does not verify; `missing`: none was found. */
  state: 'verified' | 'refused' | 'missing';
  /** The folder that holds it (the export's folder), when one was found. */
  folder?: string;
  /** Absolute path of the declaration, when one was found. */
  path?: string;
  /** Every folder looked in, nearest first. */
  looked: string[];
  /** The verify reasons, worded for people (code and message), in the order verify found them. */
  reasons: VerifyResult['reasons'];
  digest?: string;
  exportSeq?: number;
}

/** One DSH policy file in force (docs/policy.md): `refused` says why it cannot be used (then every server is withheld). */
export interface PolicyFilePlan {
  file: string;
  origin: DshPolicyOrigin;
  refused?: string;
  /** Origin `managed`: the channel of the managed settings. */
  channel?: string;
}

export interface SessionPlan {
  /** The session folder asked about. */
  cwd: string;
  trustMode: TrustMode;
  declaration: DeclarationPlan;
  /** The machine's DSH policy files (absent: none). */
  policy?: PolicyFilePlan[];
  /** Why nothing of the declaration mounts (declaration refused or missing, trust mode `deny`, the store unreadable); empty when it mounts. */
  blocked: PlanReason[];
  /** What holds without stopping the mount (reasons only the editor sees, an unreadable folder record). */
  notes: PlanReason[];
  servers: ServerPlan[];
  /** The declaration's language servers (absent: none configured). */
  languageServers?: LanguageServersPlan;
  /** Absent when the request left skills out (`skills: false`). */
  skills?: SkillsPlan;
}

/** The plan with what a face needs besides it: the verified declaration and the skill gate's full result. */
export interface PlannedSession {
  plan: SessionPlan;
  /** The verify result of the declaration found (absent: none found). */
  verified?: VerifyResult;
  /** The declaration whose servers the plan lists (also a refused one that parses). */
  declaration?: Declaration;
  /** The skill gate's result, with the candidates the plugin serves (absent with `skills: false` or on error). */
  skillGate?: SkillGateResult;
  /**
   * The values the plan rendered each row with: the input values stored for the declaration's
   * folder and the environment. Never part of {@link SessionPlan} (it goes out as JSON); the plugin
   * starts its servers with these.
   */
  values: TemplateLookup;
  /** The DSH policy the plan judged by (no layers when it was left unread; absent when the plan failed). */
  dshPolicy?: DshPolicy;
  /**
   * The host store's probe records of `folder` (by serverName) the plan judged by, or verify read
   * (every plan of a declaration with servers); the plugin's tool gate says from them what fixes
   * a tool it withholds for its scan. Absent: not read.
   */
  probes?: Readonly<Record<string, ProbedServerRecord>>;
  /**
   * Where the declaration's servers start and the host store keeps their input values, approvals
   * and slow starts: the declaration's own folder when it mounts (also from a subfolder or a
   * linked path), else the folder it was found in (or the session folder).
   */
  folder: string;
}

export interface PlanRequest {
  /** The session folder: a DSH session's cwd, or the folder the editor or the CLI works in. */
  cwd: string;
  /** The folder's settings as the editor sees them (`chat.mcp.access`, the MCP server policy); reasons found only through them do not stop DSH. */
  settings?: SettingsView;
  /** With `settings`: the policy settings beyond their effective values, and VS Code's policy file (see verifyFolder). */
  verifySettings?: Omit<VerifySettings, 'settings'>;
  /** Skill roots as DSH reads them (the plugin: its filesystem rows); default: DSH's defaults and the declaration's custom roots. */
  skillRoots?: SessionSkillRoots;
  /** false: leave skills out (the plugin's mount step; its skill gate runs the same function apart). */
  skills?: boolean;
  /** Also pin the skill roots that are not gated (the user's own: `dsh-bridge skills` lists every pin). */
  pinEverySkillRoot?: boolean;
  /**
   * false: leave each server's `tools` out (the plugin's mount step: its tool gate judges the live
   * tools of a session). Verify still reads the last probe's record at every plan: a newer probe
   * is a note (`probed-since-export`), never a reason to withhold the declaration.
   */
  tools?: boolean;
  /**
   * The servers running (or starting) in the session asked about, serverName -> pin (the plugin's
   * step): the row of one is not rendered again while the values it was rendered with are the
   * same; the plan's answer for it is the one it gave then.
   */
  running?: ReadonlyMap<string, string>;
  /** false: without a declaration, leave the DSH policy files unread (the plugin's step: there is nothing to judge). */
  policyWithoutDeclaration?: boolean;
}

type PlanPorts = Pick<Ports, 'dshHome' | 'store' | 'files' | 'env' | 'home' | 'cwd' | 'mcp' | 'policy'>;

/** The session plan (see the module comment). Never throws. */
export async function planSession(ports: PlanPorts, request: PlanRequest): Promise<PlannedSession> {
  const cwd = path.resolve(request.cwd);
  try {
    return await plan(ports, { ...request, cwd });
  } catch (error) {
    const failed = reason('plan-failed', { error: errorText(error) });
    return { plan: { cwd, trustMode: 'deny', declaration: { state: 'missing', looked: [], reasons: [] }, blocked: [failed], notes: [], servers: [] }, values: { input: () => undefined, env: () => undefined }, folder: cwd };
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function plan(ports: PlanPorts, request: PlanRequest & { cwd: string }): Promise<PlannedSession> {
  const { cwd } = request;
  const blocked: PlanReason[] = [];
  const notes: PlanReason[] = [];

  // DSH is often started in a subfolder: the nearest declaration up to the project root applies.
  const lookup = await ports.files.findDeclarationFolder(cwd, ports.home);
  // The trust mode is read while the declaration is verified (a step waits for the slower of the two).
  const storedMode = ports.store.trustMode().then((mode) => ({ mode }), (error: unknown) => ({ error }));
  const checked = lookup.folder !== undefined ? await verifyFolderReading(ports, lookup.folder, { ...request.verifySettings, settings: request.settings }) : undefined;
  const verified = checked?.verified;
  const declaration = verified?.declaration;
  // A reason only the editor's settings show does not stop DSH, which cannot see them; nor does a
  // change of the managed settings, which DSH applies at mount itself (below, with the DSH policy).
  const forDsh = verified?.reasons.filter((r) => !r.editorOnly && !r.enforcedAtMount) ?? [];
  const mounts = verified !== undefined && declaration !== undefined && forDsh.length === 0;
  // Where the declaration's servers start and their values are stored (the plugin's `folder`).
  const folder = mounts ? declaration.folder : lookup.folder ?? cwd;
  const declarationPath = lookup.folder !== undefined ? path.join(lookup.folder, DECLARATION_PATH) : undefined;
  const pinnedPolicy = declaration?.policy?.file?.path;
  const exportFix = planFix('export', { workspace: folder, vscodePolicy: pinnedPolicy !== undefined && pinnedPolicy !== ports.policy.vscodePolicyFile ? pinnedPolicy : undefined });

  if (!verified) blocked.push(await noDeclarationReason(ports.files, cwd, ports.home, lookup.looked, exportFix));
  for (const r of forDsh) {
    blocked.push(r.code === 'missing' ? reason('no-declaration', { looked: lookup.looked.join(', ') }, exportFix)
      : reason(declarationReasonCode(r.code), { path: declarationPath ?? '', message: r.message }, exportFix));
  }
  for (const r of verified?.reasons.filter((x) => x.editorOnly) ?? []) {
    notes.push(reason('declaration-stale-in-editor', { path: declarationPath ?? '', message: r.message }, exportFix));
  }
  for (const r of verified?.reasons.filter((x) => x.enforcedAtMount) ?? []) {
    notes.push(reason('declaration-stale-managed', { path: declarationPath ?? '', message: r.message }, exportFix));
  }
  // A probe since the export stales nothing (its new pins wait for the next export): a note with the fix that takes them.
  if (mounts) for (const server of checked?.reads.probedSince ?? []) notes.push(reason('probed-since-export', { server }, exportFix));

  const stored = await storedMode;
  const trustMode: TrustMode = 'mode' in stored ? stored.mode : 'deny';
  if ('error' in stored) blocked.push(reason('store-unreadable', { error: errorText(stored.error) }));
  if (trustMode === 'deny' && !blocked.some((r) => r.code === 'store-unreadable')) blocked.push(reason('trust-deny', {}, planFix('trust-pinned', {})));

  // The machine's own policy, read at every plan (while the folder's record is): a file installed or changed applies at once.
  const policyRead = declaration || request.policyWithoutDeclaration !== false ? dshPolicyOf(ports) : Promise.resolve({ layers: [] });
  let inputs: ReadonlyMap<string, string> = new Map();
  let unreadableInputs: FolderRecord['unreadableInputs'];
  let approvals: ReadonlyArray<{ serverName: string; pin: string }> = [];
  let probes: Readonly<Record<string, ProbedServerRecord>> = {};
  let probesRead = false;
  let acceptedTools: readonly AcceptedTool[] = [];
  if (declaration) {
    try {
      const record = await ports.store.readFolder(folder);
      inputs = record.inputs;
      unreadableInputs = record.unreadableInputs;
      approvals = record.approvals;
    } catch (error) {
      notes.push(reason('folder-record-unreadable', { folder, error: errorText(error) }));
    }
    // Verify read the record a moment ago (of the declaration's folder, which this is when it mounts).
    const read = checked?.reads.probes;
    const readHere = read && path.resolve(read.folder) === path.resolve(folder) ? read.records : undefined;
    if (readHere) [probes, probesRead] = [readHere, true];
    if (request.tools !== false) {
      if (!readHere) [probes, probesRead] = [await ports.store.probedServers(folder).catch(() => ({})), true];
      // Unreadable acceptances accept nothing: a tool with a scan error stays withheld.
      acceptedTools = (await ports.store.acceptedDefinitions().catch(() => undefined))?.tools ?? [];
    }
  }

  const lookupValues: TemplateLookup = {
    input: (id) => inputs.get(id),
    env: (name) => (Object.hasOwn(ports.env, name) ? ports.env[name] : undefined),
  };
  const approvedKeys = new Set(approvals.map((a) => `${a.serverName} ${a.pin}`));
  const approved = (serverName: string, pin: string) => approvedKeys.has(`${serverName} ${pin}`);
  const consent = (name: string, serverName: string, pin: string, approveName: string): Pick<ServerPlan, 'outcome' | 'reason'> => {
    if (trustMode === 'pinned' && approved(serverName, pin)) return { outcome: 'starts', reason: reason('approved') };
    if (trustMode === 'pinned') return { outcome: 'asks', reason: reason('pin-not-approved', { name }, planFix('approve', { name: approveName, workspace: folder })) };
    return { outcome: 'asks', reason: reason('ask-mode', { name }, planFix('trust-pinned', { name: approveName, workspace: folder })) };
  };
  const missingValue = (missing: { kind: 'input' | 'env'; name: string }): PlanReason => (missing.kind === 'input' && unreadableInputs?.has(missing.name)
    ? reason('input-keychain-unreadable', { id: missing.name, problem: unreadableInputs.get(missing.name)!.kind, detail: unreadableInputs.get(missing.name)!.detail }, planFix('inputs-set', { id: missing.name, workspace: folder }))
    : missing.kind === 'input'
    ? reason('input-missing', { id: missing.name, folder }, planFix('inputs-set', { id: missing.name, workspace: folder }))
    : reason('env-missing', { name: missing.name }, planFix('set-env', { name: missing.name })));

  const policy = await policyRead;
  const policyBlock = (server: DeclaredServer): PlanReason | undefined => {
    const block = policyBlockOf(policy, server, lookupValues);
    return block && reason(`dsh-${block.code}`, { file: block.file, origin: block.origin, rule: block.rule, ...(block.channel ? { channel: block.channel } : {}) }, planFix('policy', { workspace: folder }));
  };

  const declared = declaration?.servers ?? [];
  // The recorded definitions scanned together, as the plugin's tool gate scans the mounted ones.
  const scans: ReadonlyMap<string, ServerScan> = request.tools !== false ? scanRecords(probes) : new Map();
  // Values first: a server that cannot start is refused without asking the user. The rows are
  // rendered as the plugin starts them (the envFile read, the cwd resolved now), all at once.
  const realFolder = Promise.resolve(mounts && !blocked.length ? ports.files.realpath(folder) : folder);
  realFolder.catch(() => undefined);
  const rowOptions: RowOptions = { realFolder, envFiles: checked?.reads.envFiles };
  const rows = mounts && !blocked.length
    ? await Promise.all(declared.map((server) => renderedRow(ports, server, folder, lookupValues, rowOptions, request.running?.get(server.serverName) === server.pin)))
    : [];
  const servers: ServerPlan[] = declared.map((server, i) => {
    const entry: ServerPlan = {
      name: server.name, serverName: server.serverName, transport: server.transport, pin: server.pin,
      ...(server.source ? { source: server.source } : {}),
      outcome: 'withheld', reason: blocked[0],
      ...(request.tools !== false ? { tools: toolsPlan(server, Object.hasOwn(probes, server.serverName) ? probes[server.serverName] : undefined, folder, { scan: scans.get(server.serverName), accepted: acceptedTools, records: probes }) } : {}),
    };
    const row = rows[i];
    if (!row) return entry;
    // The machine's policy first: no setup step can change it. On the launch as it would start.
    const withheld = policyBlock(server);
    if (withheld) return { ...entry, reason: withheld };
    if (!row.ok) return { ...entry, reason: row.missing ? missingValue(row.missing) : reason('row-refused', { reason: row.reason }, planFix('check', { workspace: folder })) };
    return { ...entry, ...consent(server.name, server.serverName, server.pin, server.name) };
  });
  for (const rejected of declaration?.rejected ?? []) {
    servers.push({ name: rejected.name, serverName: rejected.name, outcome: 'withheld', reason: reason('refused-at-export', { codes: [...new Set(rejected.codes)].join(', ') }, planFix('check', { workspace: folder })) });
  }

  // The language servers ride in one row with one pin: one outcome, approved as `lsp`.
  let languageServers: LanguageServersPlan | undefined;
  const lsp = declaration?.lsp;
  if (lsp && (!lsp.registersAll || Object.keys(lsp.servers).length > 0)) {
    languageServers = {
      pin: lsp.pin,
      servers: Object.entries(lsp.servers).map(([id, s]) => ({ id, extensions: Object.keys(s.extensionToLanguage) })),
      outcome: 'withheld',
      reason: blocked[0],
    };
    if (mounts && !blocked.length) {
      const row = lsp.registersAll ? toLspStdioConfig(lsp, lookupValues) : undefined;
      if (!lsp.registersAll) languageServers.reason = reason('lsp-invalid-entry', {}, planFix('check', { workspace: folder }));
      else if (row && !row.ok) languageServers.reason = row.missing ? missingValue(row.missing) : reason('row-refused', { reason: row.reason }, planFix('check', { workspace: folder }));
      else Object.assign(languageServers, consent('lsp', LSP_APPROVAL_NAME, lsp.pin, 'lsp'));
    }
  }

  let skills: SkillsPlan | undefined;
  let skillGate: SkillGateResult | undefined;
  if (request.skills !== false) {
    const customRoots = (declaration?.skills?.roots ?? []).filter((r) => r.kind === 'custom').map((r) => r.path);
    try {
      skillGate = await gateSessionSkills(ports, { cwd, roots: request.skillRoots ?? defaultSkillRoots(ports, customRoots), pinEveryRoot: request.pinEverySkillRoot });
      skills = skillsPlan(skillGate, cwd);
    } catch (error) {
      skills = { roots: [], withheld: [], error: reason('skills-unreadable', { error: errorText(error) }) };
    }
  }

  const declarationPlan: DeclarationPlan = {
    state: mounts ? 'verified' : verified && verified.reasons[0]?.code !== 'missing' ? 'refused' : 'missing',
    looked: lookup.looked,
    reasons: verified?.reasons ?? [],
    ...(lookup.folder !== undefined ? { folder: lookup.folder, path: declarationPath } : {}),
    ...(declaration ? { digest: declaration.digest, ...(declaration.exportSeq !== undefined ? { exportSeq: declaration.exportSeq } : {}) } : {}),
  };
  return {
    plan: {
      cwd, trustMode, declaration: declarationPlan,
      ...(policy.layers.length ? { policy: policy.layers.map((l) => ({ file: l.file, origin: l.origin, ...(l.channel ? { channel: l.channel } : {}), ...(l.refused ? { refused: l.refused } : {}) })) } : {}),
      blocked, notes, servers,
      ...(languageServers ? { languageServers } : {}),
      ...(skills ? { skills } : {}),
    },
    ...(verified ? { verified } : {}),
    ...(declaration ? { declaration } : {}),
    ...(skillGate ? { skillGate } : {}),
    values: lookupValues,
    dshPolicy: policy,
    ...(probesRead ? { probes } : {}),
    folder,
  };
}

type LookedUp = Array<{ kind: 'input' | 'env'; name: string; value: string | undefined }>;

/** The last row rendered of each declared server (a frozen entry of a kept declaration): its folder, the values it looked up, the answer. */
const renderedRows = new WeakMap<DeclaredServer, { folder: string; looked: LookedUp; row: RowResult }>();

/**
 * A server's row as the plugin would start it. For a server `running` in the session, the answer
 * last rendered for the same entry in the same folder is kept while every value it looked up is
 * the same (its envFile is pinned and verify compared it; its cwd was resolved when it started,
 * and a start resolves it again).
 */
async function renderedRow(ports: Pick<Ports, 'mcp'>, server: DeclaredServer, folder: string, values: TemplateLookup, options: RowOptions, running: boolean): Promise<RowResult> {
  if (!Object.isFrozen(server)) return ports.mcp.buildRow(server, folder, values, options);
  const kept = renderedRows.get(server);
  if (running && kept?.row.ok && kept.folder === folder && kept.looked.every((v) => values[v.kind](v.name) === v.value)) return kept.row;
  const looked: LookedUp = [];
  const noted = (kind: 'input' | 'env') => (name: string) => {
    const value = values[kind](name);
    looked.push({ kind, name, value });
    return value;
  };
  const row = await ports.mcp.buildRow(server, folder, { input: noted('input'), env: noted('env') }, options);
  renderedRows.set(server, { folder, looked, row });
  return row;
}


/**
 * The servers of a folder's MCP files when nothing was exported (`analysis` of `workspace`, the
 * folder an export would write): each withheld, `not-exported` (or `refused-at-export`, which the
 * export would refuse). Doctor lists them, so a face can say what is missing; the plugin, which has
 * nothing to mount, never reads the sources.
 */
export function unexportedServers(analysis: Pick<Analysis, 'servers' | 'rejected'>, workspace: string): ServerPlan[] {
  return [
    ...analysis.servers.map((server): ServerPlan => ({
      name: server.name, serverName: server.serverName, transport: server.transport, ...(server.source ? { source: server.source } : {}),
      outcome: 'withheld', reason: reason('not-exported', {}, planFix('export', { workspace })),
    })),
    ...analysis.rejected.map((rejected): ServerPlan => ({
      name: rejected.name, serverName: rejected.name, outcome: 'withheld', reason: reason('refused-at-export', { codes: [...new Set(rejected.codes)].join(', ') }, planFix('check', { workspace })),
    })),
  ];
}

/**
 * One server's tools: the choice and pins the declaration signs, what the host store's last probe
 * recorded, and what the plugin's tool gate does with each known tool (the gate judges the live
 * definitions in the session; a definition that changed since its pin is withheld there).
 */
function toolsPlan(server: DeclaredServer, probe: ProbedServerRecord | undefined, folder: string, scanned: { scan?: ServerScan; accepted: readonly AcceptedTool[]; records: Readonly<Record<string, ProbedServerRecord>> }): ServerToolsPlan {
  const { choice, pins } = server.tools ?? {};
  const names = new Set<string>([...Object.keys(pins ?? {}), ...(choice?.only ?? []), ...(choice?.exclude ?? []), ...(probe?.tools.map((t) => t.name) ?? [])]);
  const probeFix = planFix('probe', { name: server.name, workspace: folder });
  const exportFix = planFix('export', { workspace: folder });
  const stateOf = (name: string | undefined): { state: ToolState; reason: PlanReason } => {
    if (!choiceAllows(choice, name)) return { state: 'left-out', reason: reason('tool-left-out') };
    if (!pins) return { state: 'unpinned', reason: reason('tool-unpinned', {}, probeFix) };
    // A probe since the export saw another definition: the session's gate withholds it (changed since pinned) until an export pins it.
    const recorded = name !== undefined && probe?.pin === server.pin ? probe.tools.find((t) => t.name === name) : undefined;
    if (recorded && name !== undefined && Object.hasOwn(pins, name) && recorded.pin.definition !== pins[name].definition) return { state: 'withheld', reason: reason('tool-changed-since-export', {}, exportFix) };
    if (name !== undefined && Object.hasOwn(pins, name)) return { state: 'offered', reason: reason('tool-pinned') };
    return { state: 'withheld', reason: reason('tool-not-pinned', {}, probe ? exportFix : probeFix) };
  };
  // The scan of the recorded definition, for a tool the choice and pins offer: withheld while it has an error the user has not accepted at its pin.
  const scanOf = (name: string, judged: { state: ToolState; reason: PlanReason }): { state: ToolState; reason: PlanReason } => {
    const findings = scanned.scan?.tools.get(name);
    const recorded = probe?.tools.find((t) => t.name === name);
    if (judged.state !== 'left-out' && recorded?.carriesInputs?.length) return { state: 'withheld', reason: reason('tool-carries-secret', { inputs: recorded.carriesInputs.join(', ') }) };
    if (judged.state === 'left-out' || judged.state === 'withheld' || !findings || !recorded || !withholds(findings)) return judged;
    const pin = recorded.pin.definition;
    if (isToolAccepted(scanned.accepted, { folder, serverName: server.serverName, tool: name }, pin)) return { state: judged.state, reason: reason('tool-accepted', { codes: scanErrorCodes(findings) }) };
    return { state: 'withheld', reason: toolScanReason(findings, { serverName: server.serverName, name: server.name, raw: name, pin }, folder, scanned.records) };
  };
  const tools = [...names].sort().map((name) => ({ name, publicName: publicToolName(server.serverName, name), ...scanOf(name, stateOf(name)) }));
  return {
    ...(choice ? { choice } : {}),
    pinned: pins !== undefined,
    ...(probe ? { probe: { probedAt: probe.probedAt, tools: probe.tools.length, current: probe.pin === server.pin } } : {}),
    tools,
    unlisted: stateOf(undefined),
  };
}

function skillsPlan(gate: SkillGateResult, cwd: string): SkillsPlan {
  return {
    roots: gate.roots.map((r) => ({ path: r.path, kind: r.kind, trust: r.gate, pin: r.pin ?? null, recordedPin: r.recordedPin ?? null, skills: r.skills, reason: skillRootReason(r, cwd) })),
    withheld: gate.shadows.map((s) => {
      const entry = { name: s.name, root: s.withheldRoot, offeredFrom: s.fallback?.root.path ?? null };
      const why = skillScanReason(gate, s, cwd);
      return why ? { ...entry, reason: why } : entry;
    }),
  };
}
