/**
 * `dsh-bridge doctor` and the editor's *Diagnose Setup (Doctor)*: the session plan of a folder
 * (what a DSH session there gets, {@link planSession}) and the facts of the DSH install that runs
 * it (launcher, Node, profile, bundle, hmr row, language-server packages), each with the command
 * that fixes it. The doctor decides nothing about servers itself: it words the plan, and says what
 * `asks` means for the profile (a headless run has no one to answer). Never throws; reads only.
 * Words are English templates (the editor's l10n keys) filled with `{name}` arguments.
 */
import type { SessionRecord } from '../node/sessionRecords';
import { folderSessions, summarizeSession } from './sessions';
import { formatMessage } from '../problems/problems';
import { folderAnalyzeOptions, type FolderIdentity } from '../settings/folderSettings';
import { analyzeFolder } from './folderSources';
import { planSession, unexportedServers, type PlanOutcome, type SessionPlan } from './plan';
import { withheldLine, withheldOf, type WithheldItems } from './planWithheld';
import { byDshPolicy, planFix, planMessage, type PlanArgs, type PlanFixCode, type PlanReason, type PlanReasonCode } from './planReasons';
import type { Ports } from './ports';
import type { SlowStartRecord } from '../node/hostStore';
import type { InputStoreState } from '../node/inputVault';
import type { KeychainProblemKind } from '../node/keychain';

/** How to get the OS keychain for the input values, by why there is none (commands and steps, never translated). */
const KEYCHAIN_FIXES: Partial<Record<KeychainProblemKind, string>> = {
  'turned-off': 'unset DSH_BRIDGE_KEYCHAIN',
  'no-binding': 'npm install dsh-bridge (its dependency @napi-rs/keyring brings the binding for this platform), or use the CLI (the editor has no keychain binding: it stores in VS Code\'s secret storage and these files)',
  'no-service': 'run in a desktop session, or start a Secret Service on the session bus: gnome-keyring-daemon --unlock --components=secrets, its password on stdin (under dbus-run-session where there is no bus)',
  locked: 'unlock the keychain: log in to the desktop session, or unlock its login keyring',
};

export const DOCTOR_MESSAGES = {
  nodeOk: 'Node {version} runs DSH ({node}).',
  nodeOld: 'Node {version} runs DSH ({node}), and DSH rc.8 needs 22.19 or newer.',
  nodeUnknown: 'The Node that runs DSH could not be found or run ({node}).',
  launcherMissing: 'No DSH found: none installed by dsh-bridge, and no dsh on PATH.',
  launcherOk: 'DSH {version} at {command}: its packages match the known-good rc.8 set.',
  launcherVersion: 'DSH at {command} is {version}; the bridge is verified with {want}.',
  launcherPeers: 'DSH at {command}: packages differ from the known-good rc.8 set: {list}.',
  launcherUnchecked: 'DSH at {command}: its install folder is unknown, so its packages were not checked.',
  lspPackagesMissing: 'Profile "{profile}" cannot load the language-server packages ({list}): its sessions get MCP servers but no language server.',
  profileMissing: 'Profile "{profile}" does not exist ({dir}).',
  bundleMissing: 'Profile "{profile}" does not load the bridge bundle dsh-bridge-dsh.',
  bundleOk: 'Profile "{profile}" loads dsh-bridge-dsh {version}.',
  bundleOld: 'Profile "{profile}" loads dsh-bridge-dsh {version}, which differs from this build.',
  hmrOff: 'Profile "{profile}": dsh-headless turns the hmr row off, and the rc.8 launcher then fails ("user patch-layer watching requires the Cordis HMR service").',
  hmrOk: 'Profile "{profile}": the hmr row is on.',
  patchBad: 'Profile "{profile}": cordis.patch.yml is not valid YAML ({error}).',
  declarationOk: 'Declaration {path}: signed with this user\'s key, intact and fresh; servers: {count}.',
  failed: 'The doctor could not finish: {error}.',
  whyNoBundle: 'the profile does not load the bridge',
  policyRefused: 'The DSH policy {file} cannot be used ({rule}): every server is withheld.',
  managedRefused: 'GitHub Copilot\'s managed settings ({channel}: {file}) cannot be used ({rule}): every server is withheld, and none is exported.',
  policyOk: 'DSH policy: {files}.',
  whyLspPackages: 'the profile cannot load the language-server packages',
  asksHeadless: 'DSH asks before it starts, and a headless run has no one to answer: it does not start there',
  serverNotMount: '{server} would not mount: {why}',
  slowStart: '{server}: in the last DSH session here ({at}), the request that started it went without it: it was still starting after {starting} (the request waited {wait}).',
  slowStartUp: '{server}: in the last DSH session here ({at}), the request that started it went without it: it was still starting after {starting} (the request waited {wait}); it was up after {up}.',
  slowStartFix: 'wait longer: startWaitMs in the dsh-bridge row of the profile\'s cordis.patch.yml (a headless run waits up to headlessStartWaitMs, 60 s)',
  mountLate: '{server} (not in the first request of the last session: still starting after {starting})',
  summary: 'Would mount: {mount}; would not: {notMount}.',
  summaryAsks: 'Would mount: {mount}; after DSH asks: {asks}; would not: {notMount}.',
  secretsKeychain: 'Input values: kept in the {keychain}; the folder records in {dir} hold only their ids.',
  secretsFiles: 'Input values: kept in 0600 files in {dir}, which anything that reads your files can read: no OS keychain is used ({why}: {detail}).',
  fix: 'fix: {command}',
  none: 'none',
  lastSession: 'Last DSH session here ({id}, {at}): {tools} in its last request.',
  lastSessionNone: 'No DSH session recorded here yet (the DSH plugin records each session that mounts from this declaration).',
  lastSessionFailed: 'In the last DSH session, {server} failed to start: {why}',
  lastSessionWithheld: 'Not in the last DSH session: {list}.',
  lastSessionBlocked: 'Nothing of the declaration mounted in the last DSH session ({codes}).',
  oneTool: '1 tool',
  tools: '{count} tools',
  oneServer: '1 server',
  servers: '{count} servers',
  oneSkill: '1 skill',
  skills: '{count} skills',
  languageServers: 'the language servers',
  listSeparator: ', ',
  // The user's own servers (core/app/doctorUser.ts), mounted in every session beside the workspace's.
  userHeading: 'Your own MCP servers (your profile\'s mcp.json and Copilot Global), in every DSH session beside the workspace\'s:',
  userNone: 'No user declaration ({path}): none of your own servers reaches DSH.',
  userOk: 'User declaration {path}: signed with this user\'s key, intact and fresh; servers: {count}.',
  userNotExported: 'In your MCP files but not in the user declaration as they are now: {list}.',
  userSummary: 'Your own servers: would mount: {mount}; would not: {notMount}.',
} as const;
export type DoctorMessage = keyof typeof DOCTOR_MESSAGES;

export type DoctorStatus = 'ok' | 'warn' | 'fail';
export type Args = PlanArgs;

/** A fact of the DSH install (what the session plan cannot know). */
export interface DoctorFinding {
  area: 'node' | 'launcher' | 'profile' | 'bundle' | 'hmr' | 'policy' | 'secrets';
  status: DoctorStatus;
  message: DoctorMessage;
  args: Args;
  /** A command line that fixes it (never translated). */
  fix?: string;
  /** What the fix does, as data: `install` (dsh-bridge dsh install), or the plan's fix code. */
  fixCode?: PlanFixCode | 'install';
  /** The fix's arguments (the plan's fix args; `profile` for `install`). */
  fixArgs?: Record<string, string>;
}

/** A reason of the plan that holds for the whole declaration, at the level the doctor gives it. */
export interface PlanFinding {
  status: Exclude<DoctorStatus, 'ok'>;
  reason: PlanReason;
}

function planFindingsOf(plan: SessionPlan): PlanFinding[] {
  return [...plan.blocked.map((reason) => ({ status: 'fail' as const, reason })), ...plan.notes.map((reason) => ({ status: 'warn' as const, reason }))];
}

/**
 * One server (or the language servers, `name: 'lsp'`) as the plan has it. `mount`: it starts in
 * a session of the profile (the plan says `starts`, or `asks` on a profile where someone answers)
 * and the profile can load it.
 */
export interface ServerVerdict {
  name: string;
  serverName: string;
  outcome: PlanOutcome;
  mount: boolean;
  /** The plan's reason code, or the doctor's own when the install stops it (`whyNoBundle`, `whyLspPackages`). */
  why: PlanReasonCode | DoctorMessage;
  args: Args;
  fix?: string;
  /** The last DSH session in the folder: the request that started this server (same pin) went without it, still starting. */
  slowStart?: SlowStartRecord;
  /** What the fix does, as data (a face offers its own command for it): the plan's fix code, or `install`. */
  fixCode?: PlanFixCode | 'install';
  fixArgs?: Record<string, string>;
}

export interface DoctorReport {
  folder: string;
  dshHome: string;
  profile: string;
  /** The profile runs headless (dsh-headless): nobody answers DSH's questions there. */
  headless: boolean;
  /** The facts of the DSH install; what the plan says of the whole declaration is in `planFindings`. */
  findings: DoctorFinding[];
  /** What holds for the folder's whole declaration, with its level: each of the plan's `blocked` fails, each of its `notes` warns. */
  planFindings: PlanFinding[];
  servers: ServerVerdict[];
  plan: SessionPlan;
  /** Everything the plan withholds from a session (servers, tools, skills, language servers), as every face lists it. */
  withheld: WithheldItems;
  /** The folder's last recorded DSH session (core/app/sessions.ts), when there is one. */
  lastSession?: SessionRecord;
  /** No finding failed, nothing blocks the declaration, and every server and the language servers would mount. */
  ok: boolean;
}

export interface DoctorRequest {
  /** The folder (a session's cwd): the plan finds the declaration above it as the plugin does. */
  folder: string;
  /** The DSH profile whose sessions are meant (the CLI's --profile; the default `headless`). */
  profile: string;
  /** The folder's settings as the face sees them (for the servers of a folder not exported yet). */
  identity?: FolderIdentity;
  /**
   * Someone answers DSH's questions where the face's user runs DSH (the editor): a profile that
   * does not exist yet is then not taken as headless. Default false (the CLI: the default profile is headless).
   */
  interactive?: boolean;
  /** Tells whether an installed bundle is this build's (the CLI knows its checkout; the editor does not). */
  bundleMatches?: (installedDir: string) => boolean;
}

export async function doctorReport(ports: Parameters<typeof planSession>[0] & Pick<Ports, 'dshInstall' | 'sessions'>, request: DoctorRequest): Promise<DoctorReport> {
  const { profile } = request;
  // Skills too: the doctor names every skill verify names as withheld.
  const { plan, folder } = await planSession(ports, { cwd: request.folder });
  // What a session goes without, from the plan as verify and the plugin have it (before the doctor adds the unexported servers).
  const withheld = withheldOf(plan);
  try {
    // Nothing exported: name the servers of the folder's own MCP files, so the summary says what is missing.
    if (plan.declaration.state === 'missing') {
      const identity = request.identity ?? { folder: request.folder, folderName: request.folder.split(/[\\/]/).pop() ?? '', userHome: ports.home, settings: () => undefined };
      plan.servers.push(...unexportedServers(await analyzeFolder(ports, folderAnalyzeOptions(identity)), identity.folder));
    }
    // What the plugin recorded of the last sessions' slow starts, where it records them (none when it cannot be read).
    const slowStarts = plan.declaration.folder === undefined ? new Map<string, SlowStartRecord>() : await ports.store.slowStarts(folder).catch(() => new Map<string, SlowStartRecord>());
    const inputStore = await ports.store.inputStoreState().catch((error: unknown): InputStoreState => ({ store: 'files', problem: { kind: 'failed', detail: String(error) } }));
    const report = buildReport(ports, request, profile, plan, slowStarts, withheld);
    report.findings.push(inputStore.store === 'keychain'
      ? { area: 'secrets', status: 'ok', message: 'secretsKeychain', args: { keychain: inputStore.name, dir: ports.store.bridgeDir } }
      : { area: 'secrets', status: 'warn', message: 'secretsFiles', args: { dir: ports.store.bridgeDir, why: inputStore.problem.kind, detail: inputStore.problem.detail }, ...(KEYCHAIN_FIXES[inputStore.problem.kind] ? { fix: KEYCHAIN_FIXES[inputStore.problem.kind] } : {}) });
    const lastSession = (await folderSessions(ports, request.folder)).sessions[0];
    return lastSession ? { ...report, lastSession } : report;
  } catch (error) {
    // Never throws: an unexpected failure is one finding.
    return {
      folder: request.folder, dshHome: ports.dshHome, profile, headless: true, servers: [], plan, withheld, planFindings: planFindingsOf(plan), ok: false,
      findings: [{ area: 'launcher', status: 'fail', message: 'failed', args: { error: error instanceof Error ? error.message : String(error) } }],
    };
  }
}

function buildReport(ports: Pick<Ports, 'dshHome' | 'dshInstall'>, request: DoctorRequest, profile: string, plan: SessionPlan, slowStarts: ReadonlyMap<string, SlowStartRecord>, withheld: WithheldItems): DoctorReport {
  const findings: DoctorFinding[] = [];
  const add = (f: DoctorFinding) => findings.push(f.fix?.startsWith('dsh-bridge dsh install') ? { ...f, fixCode: 'install', fixArgs: { profile } } : f);
  // The DSH that would run, and its Node.
  const install = ports.dshInstall.inspect(profile, request.bundleMatches);
  const installFix = `dsh-bridge dsh install${install.defaultProfile ? '' : ` --profile ${profile}`}`;
  const { launcher, node } = install;
  if (!launcher) add({ area: 'launcher', status: 'fail', message: 'launcherMissing', args: {}, fix: installFix });
  else {
    if (!node?.path || !node.version) add({ area: 'node', status: 'fail', message: 'nodeUnknown', args: { node: node?.path ?? 'node' }, fix: `${installFix} --node /path/to/node` });
    else if (!node.fitsDsh) add({ area: 'node', status: 'fail', message: 'nodeOld', args: { version: node.version, node: node.path }, fix: `${installFix} --node /path/to/node-22.19-or-newer` });
    else add({ area: 'node', status: 'ok', message: 'nodeOk', args: { version: node.version, node: node.path } });
    if (!launcher.nodeModules) add({ area: 'launcher', status: 'warn', message: 'launcherUnchecked', args: { command: launcher.command } });
    else {
      const dshVersion = install.dshVersion ?? 'unknown';
      if (dshVersion !== install.wantedDshVersion) add({ area: 'launcher', status: 'fail', message: 'launcherVersion', args: { command: launcher.command, version: dshVersion, want: install.wantedDshVersion }, fix: installFix });
      else if (install.mismatches.length) {
        const wrong = install.mismatches;
        const list = wrong.slice(0, 6).map((m) => `${m.name} ${m.have ?? 'missing'} (want ${m.want})`).join(', ') + (wrong.length > 6 ? ` and ${wrong.length - 6} more` : '');
        add({ area: 'launcher', status: 'fail', message: 'launcherPeers', args: { command: launcher.command, list }, fix: installFix });
      } else add({ area: 'launcher', status: 'ok', message: 'launcherOk', args: { command: launcher.command, version: dshVersion } });
    }
  }

  // The profile and the bridge bundle in it.
  const state = install.profile;
  let bundleLoaded = false;
  if (!state.exists) add({ area: 'profile', status: 'fail', message: 'profileMissing', args: { profile, dir: state.dir }, fix: installFix });
  else {
    if (install.lspPackagesMissing.length) add({ area: 'profile', status: 'warn', message: 'lspPackagesMissing', args: { profile, list: install.lspPackagesMissing.join(', ') }, fix: installFix });
    if (!state.bundles.includes('dsh-bridge-dsh') || !state.bundleVersion) add({ area: 'bundle', status: 'fail', message: 'bundleMissing', args: { profile }, fix: installFix });
    else {
      bundleLoaded = true;
      if (state.bundleCurrent === false) add({ area: 'bundle', status: 'warn', message: 'bundleOld', args: { profile, version: state.bundleVersion }, fix: installFix });
      else add({ area: 'bundle', status: 'ok', message: 'bundleOk', args: { profile, version: state.bundleVersion } });
    }
    if (state.patchError) add({ area: 'hmr', status: 'fail', message: 'patchBad', args: { profile, error: state.patchError } });
    else if (state.hmrDisabledByBundle && !state.hmrEnabledByUser) add({ area: 'hmr', status: 'fail', message: 'hmrOff', args: { profile }, fix: installFix });
    else add({ area: 'hmr', status: 'ok', message: 'hmrOk', args: { profile } });
  }
  // dsh-headless runs one request with no one to answer DSH's questions; a missing profile is taken as the default, headless.
  const headless = state.exists ? state.bundles.includes('@deepseek-ai/dsh-headless') : request.interactive !== true;

  // The machine's DSH policy files (the plan withholds what they block; a refused file blocks everything).
  // A channel of the managed settings is named as one, not as a DSH policy file.
  for (const file of plan.policy ?? []) {
    if (!file.refused) continue;
    const fix = policyFix(planFix('policy', { workspace: plan.declaration.folder ?? request.folder }));
    if (file.origin === 'managed') add({ area: 'policy', status: 'fail', message: 'managedRefused', args: { channel: file.channel ?? 'file', file: file.file, rule: file.refused }, ...fix });
    else add({ area: 'policy', status: 'fail', message: 'policyRefused', args: { file: file.file, rule: file.refused }, ...fix });
  }
  if (plan.policy?.length && !plan.policy.some((f) => f.refused)) {
    // Codes, not words: `admin`, `user`, `managed file` (the channel of the managed settings).
    const origin = (f: NonNullable<SessionPlan['policy']>[number]) => (f.origin === 'managed' ? `managed ${f.channel ?? 'file'}` : f.origin);
    add({ area: 'policy', status: 'ok', message: 'policyOk', args: { files: plan.policy.map((f) => `${f.file} (${origin(f)})`).join(', ') } });
  }

  // Per server: the plan's outcome, and whether the install lets it mount.
  // What holds for the whole declaration comes first (and the machine's policy: no setup step
  // changes it), then what the install lacks, then the item's own reason.
  const verdict = (name: string, serverName: string, outcome: PlanOutcome, reason: SessionPlan['servers'][number]['reason'], lspRow = false): ServerVerdict => {
    const base = { name, serverName, outcome };
    const ownReason = plan.blocked.length === 0 && reason.code !== 'refused-at-export' && reason.code !== 'not-exported' && !byDshPolicy(reason);
    const installing = { fix: installFix, fixCode: 'install' as const, fixArgs: { profile } };
    if (ownReason && !bundleLoaded && state.exists) return { ...base, mount: false, why: 'whyNoBundle', args: {}, ...installing };
    if (ownReason && lspRow && reason.code !== 'lsp-invalid-entry' && install.lspPackagesMissing.length && state.exists) return { ...base, mount: false, why: 'whyLspPackages', args: {}, ...installing };
    const mount = outcome === 'starts' || (outcome === 'asks' && !headless);
    return { ...base, mount, why: reason.code, args: reason.args, ...(reason.fix ? { fix: reason.fix.command, fixCode: reason.fix.code, fixArgs: reason.fix.args } : {}) };
  };
  const servers = plan.servers.map((s) => {
    const v = verdict(s.name, s.serverName, s.outcome, s.reason);
    const slow = slowStarts.get(s.serverName);
    return v.mount && slow && slow.pin === s.pin ? { ...v, slowStart: slow } : v;
  });
  // The language servers ride in one row with one pin: one verdict, named as `approve` names it.
  const lsp = plan.languageServers;
  if (lsp && lsp.servers.length) servers.push(verdict('lsp', `lsp (${lsp.servers.map((s) => s.id).join(', ')})`, lsp.outcome, lsp.reason, true));

  const ok = findings.every((f) => f.status !== 'fail') && plan.blocked.length === 0 && servers.every((s) => s.mount);
  return { folder: request.folder, dshHome: ports.dshHome, profile, headless, findings, planFindings: planFindingsOf(plan), servers, plan, withheld, ok };
}

type Word = (template: string, args: Args) => string;

const policyFix = (fix: { code: PlanFixCode; args: Record<string, string>; command: string }) => ({ fix: fix.command, fixCode: fix.code, fixArgs: fix.args });

/** Why one server does not mount (or asks), worded: the plan's reason, or the doctor's for the profile. */
export function verdictText(report: Pick<DoctorReport, 'headless'>, s: ServerVerdict, word: Word = formatMessage): string {
  if (s.why in DOCTOR_MESSAGES) return word(DOCTOR_MESSAGES[s.why as DoctorMessage], s.args);
  if (s.outcome === 'asks' && report.headless) return word(DOCTOR_MESSAGES.asksHeadless, {});
  return planMessage({ code: s.why as PlanReasonCode, args: s.args }, word);
}

const STATUS_MARK: Record<DoctorStatus, string> = { ok: '\u2714', warn: '\u26a0', fail: '\u2716' };

/** The install's facts as lines, each with its fix unless `fixes` is false (`doctorLines`, and `doctor --user` without the folder's part). */
export function findingLines(report: Pick<DoctorReport, 'findings'>, word: Word = formatMessage, fixes = true): string[] {
  return report.findings.flatMap((f) => [`${STATUS_MARK[f.status]} ${word(DOCTOR_MESSAGES[f.message], f.args)}`, ...(f.fix && fixes ? [`  ${word(DOCTOR_MESSAGES.fix, { command: f.fix })}`] : [])]);
}

/**
 * The report as English lines (the CLI's text), through `word` so the editor can translate: the
 * install's facts, then what holds for the folder's whole declaration (the plan's `blocked` and
 * `notes`), then the summary per server. `fixes: false` leaves the fixes out (a face that lists each
 * fix once elsewhere: `doctorFixes`).
 */
export function doctorLines(report: DoctorReport, word: Word = formatMessage, fixes = true): string[] {
  const t = (m: DoctorMessage, args: Args = {}) => word(DOCTOR_MESSAGES[m], args);
  const lines = findingLines(report, word, fixes);
  const line = (status: DoctorStatus, text: string, fix?: string) => {
    lines.push(`${STATUS_MARK[status]} ${text}`);
    if (fix && fixes) lines.push(`  ${t('fix', { command: fix })}`);
  };
  const { declaration } = report.plan;
  if (declaration.state === 'verified') line('ok', t('declarationOk', { path: declaration.path ?? '', count: report.plan.servers.filter((s) => s.pin).length }));
  for (const { status, reason: r } of report.planFindings) line(status, planMessage(r, word), r.fix?.command);
  // Each server that would not mount for a reason of its own, on its own line with its fix
  // (what holds for the whole declaration is said once, above).
  if (report.plan.blocked.length === 0) {
    for (const s of report.servers) if (!s.mount) line(s.outcome === 'asks' ? 'warn' : 'fail', t('serverNotMount', { server: s.serverName, why: verdictText(report, s, word) }), s.fix);
  }
  for (const s of report.servers) {
    const slow = s.slowStart;
    if (!slow) continue;
    const args = { server: s.serverName, at: slow.at, starting: seconds(slow.startingMs), wait: seconds(slow.waitMs), up: slow.upAfterMs === undefined ? '' : seconds(slow.upAfterMs) };
    line('warn', t(slow.upAfterMs === undefined ? 'slowStart' : 'slowStartUp', args), t('slowStartFix'));
  }
  // Everything the plan withholds, in the words of every face (tools and skills included).
  const withheld = withheldLine(report.withheld, word);
  if (withheld) lines.push(`\u26a0 ${withheld}`);
  if (report.plan.declaration.state === 'verified') lines.push(...lastSessionLines(report, word));
  return [...lines, '', doctorSummary(report, word, fixes)];
}

/** The folder's last recorded session beside the plan: what its last request carried, what failed and what it went without. */
function lastSessionLines(report: DoctorReport, word: Word): string[] {
  const t = (m: DoctorMessage, args: Args = {}) => word(DOCTOR_MESSAGES[m], args);
  const record = report.lastSession;
  if (!record) return [`\u2139 ${t('lastSessionNone')}`];
  const s = summarizeSession(record, Date.parse(record.updatedAt)); // the doctor says the time itself, not an age
  const count = (n: number, one: DoctorMessage, many: DoctorMessage) => (n === 1 ? t(one) : t(many, { count: n }));
  const lines = [`${s.failed.length || s.blocked.length ? '\u26a0' : '\u2714'} ${t('lastSession', { id: s.id, at: s.updatedAt, tools: count(s.tools, 'oneTool', 'tools') })}`];
  if (s.blocked.length) lines.push(`\u26a0 ${t('lastSessionBlocked', { codes: s.blocked.join(t('listSeparator')) })}`);
  for (const f of s.failed) lines.push(`\u2716 ${t('lastSessionFailed', { server: f.serverName, why: f.why })}`);
  const withheld = [
    s.withheld.servers ? count(s.withheld.servers, 'oneServer', 'servers') : '',
    s.withheld.tools ? count(s.withheld.tools, 'oneTool', 'tools') : '',
    s.withheld.skills ? count(s.withheld.skills, 'oneSkill', 'skills') : '',
    s.withheld.languageServers ? t('languageServers') : '',
  ].filter(Boolean);
  if (withheld.length) lines.push(`\u2139 ${t('lastSessionWithheld', { list: withheld.join(t('listSeparator')) })}`);
  return lines;
}

/** A fix the report names, as data: what it does (`code`; none for advice), its arguments, its command line (the CLI's words), and whose fix it is. */
export interface DoctorFix {
  code?: PlanFixCode | 'install';
  args: Record<string, string>;
  /** The command line (or, for a slow start or a keychain, the advice): the CLI prints it. */
  command: string;
  /** The servers (serverNames) it lets mount; empty for a fix of the install or the whole declaration. */
  servers: string[];
}

/**
 * Every fix of what is wrong, once each (by command line), in report order: a finding's, the
 * whole declaration's, then each server's that would not mount (a server that mounts after DSH
 * asks needs none) or started late. A face words each by its code (the editor runs its own command for it).
 */
export function doctorFixes(report: DoctorReport, word: Word = formatMessage): DoctorFix[] {
  const fixes = new Map<string, DoctorFix>();
  const add = (command: string, code: DoctorFix['code'], args: Record<string, string> = {}, server?: string) => {
    const fix = fixes.get(command) ?? { ...(code ? { code } : {}), args, command, servers: [] };
    if (server !== undefined && !fix.servers.includes(server)) fix.servers.push(server);
    fixes.set(command, fix);
  };
  for (const f of report.findings) if (f.fix) add(f.fix, f.fixCode, f.fixArgs);
  for (const { reason: r } of report.planFindings) if (r.fix) add(r.fix.command, r.fix.code, r.fix.args);
  for (const s of report.servers) {
    if (s.fix && !s.mount && report.plan.blocked.length === 0) add(s.fix, s.fixCode, s.fixArgs, s.serverName);
    if (s.slowStart) add(word(DOCTOR_MESSAGES.slowStartFix, {}), undefined, {}, s.serverName);
  }
  return [...fixes.values()];
}

/** A duration as the doctor says it: `3.2 s`. */
const seconds = (ms: number) => `${(Math.max(0, ms) / 1000).toFixed(1)} s`;

/** The one line per run; `fixes: false` leaves each server's fix out (a face that lists each fix once elsewhere). */
export function doctorSummary(report: DoctorReport, word: Word = formatMessage, fixes = true): string {
  const t = (m: DoctorMessage, args: Args = {}) => word(DOCTOR_MESSAGES[m], args);
  const why = (s: ServerVerdict) => `${verdictText(report, s, word)}${fixes && s.fix ? `; ${t('fix', { command: s.fix })}` : ''}`;
  // Servers with the same reason and fix (a refused declaration) are named together: each reason once.
  const grouped = (list: ServerVerdict[]) => {
    const byWhy = new Map<string, string[]>();
    for (const s of list) byWhy.set(why(s), [...byWhy.get(why(s)) ?? [], s.serverName]);
    return [...byWhy].map(([text, names]) => `${names.join(', ')} (${text})`);
  };
  const named = (s: ServerVerdict) => s.slowStart ? t('mountLate', { server: s.serverName, starting: seconds(s.slowStart.startingMs) }) : s.serverName;
  const mount = report.servers.filter((s) => s.mount && s.outcome === 'starts').map(named);
  const asks = grouped(report.servers.filter((s) => s.mount && s.outcome === 'asks'));
  const notMount = grouped(report.servers.filter((s) => !s.mount));
  const none = t('none');
  return asks.length
    ? t('summaryAsks', { mount: mount.join(', ') || none, asks: asks.join(', '), notMount: notMount.join(', ') || none })
    : t('summary', { mount: mount.join(', ') || none, notMount: notMount.join(', ') || none });
}
