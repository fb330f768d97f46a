import * as os from 'node:os';
import * as path from 'node:path';
import { analyzeFolder, verifyFolder } from './export';
import { type VerifyResult } from '../declaration/declarationModel';
import { type DeclaredServer } from '../declaration/declarationModel';
import {
  DEFAULT_PROFILE, DSH_VERSION, findLauncher, inspectProfile, launcherNode, launcherRuleMismatches, lspPackagesUnloadable, nodeFitsDsh, nodeVersion, packageVersion, type ProfileState,
} from '../node/dshSide';
import { LSP_APPROVAL_NAME, lspSectionUsable, toLspStdioConfig } from '../lsp/lspRow';
import { HostStore } from '../node/hostStore';
import { type TrustMode } from '../settings/folderSettings';
import { formatMessage } from '../problems/problems';
import { describeDshBlock, dshPolicyBlock, startIdentity } from '../policy/dshPolicy';
import { readDshPolicy } from '../node/policyFiles';

/**
 * `dsh-bridge doctor` and the editor's *Diagnose Setup (Doctor)*: what stands between a folder's
 * `.vscode/mcp.json` and its servers mounted in a DSH session, each finding with the command that
 * fixes it, and per server "would mount" or "would not (why)". Never throws; reads only.
 * Words are English templates (the editor's l10n keys) filled with `{name}` arguments.
 */

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
  declarationOk: 'Declaration: signed with this user\'s key, intact and fresh; servers: {count}.',
  declarationMissing: 'No declaration in this folder (.dsh/declaration.json).',
  declarationRefused: 'Declaration refused ({code}): {message}.',
  trustAsk: 'Trust mode "ask": DSH asks before each server starts; a headless run has no one to answer, so nothing mounts there.',
  trustPinned: 'Trust mode "pinned": servers whose pin you approved start without asking.',
  trustDeny: 'Trust mode "deny": nothing is mounted.',
  storeUnreadable: 'The bridge store in the DSH home cannot be read: {error}.',
  whyNoBundle: 'the profile does not load the bridge',
  whyDeclaration: 'the declaration is refused ({code})',
  whyNotExported: 'not exported yet (no declaration)',
  whyRejected: 'refused at export ({codes})',
  whyDeny: 'the trust mode is "deny"',
  whyPolicy: 'withheld by the DSH policy: {rule}',
  policyRefused: 'A DSH policy file cannot be used, so every server is withheld: {rule}.',
  policyOk: 'DSH policy: {files}.',
  whyInput: 'input "{id}" has no value stored for this folder',
  whyEnv: 'the environment variable {name} is not set here (DSH needs it in its own environment)',
  whyNotApproved: 'its pin is not approved (pinned mode)',
  whyLspInvalid: 'an entry of dsh.lsp.servers is invalid, and DSH then registers none of them',
  whyLspPackages: 'the profile cannot load the language-server packages',
  whyLspValue: '{reason}',
  whyAsk: 'the trust mode "ask" needs someone to answer (a headless run mounts nothing)',
  summary: 'Would mount: {mount}; would not: {notMount}.',
  fix: 'fix: {command}',
  none: 'none',
} as const;
export type DoctorMessage = keyof typeof DOCTOR_MESSAGES;

export type DoctorStatus = 'ok' | 'warn' | 'fail';
export type Args = Record<string, string | number>;

export interface DoctorFinding {
  area: 'node' | 'launcher' | 'profile' | 'bundle' | 'hmr' | 'declaration' | 'trust' | 'policy';
  status: DoctorStatus;
  message: DoctorMessage;
  args: Args;
  /** A command line that fixes it (never translated). */
  fix?: string;
}

export interface ServerVerdict {
  name: string;
  serverName: string;
  mount: boolean;
  why?: DoctorMessage;
  args?: Args;
  fix?: string;
}

export interface DoctorReport {
  folder: string;
  dshHome: string;
  profile: string;
  findings: DoctorFinding[];
  servers: ServerVerdict[];
  /** Everything would mount and nothing failed. */
  ok: boolean;
}

export interface DoctorOptions {
  folder: string;
  dshHome: string;
  profile?: string;
  env?: Readonly<Record<string, string | undefined>>;
  /** Tells whether an installed bundle is this build's (the CLI knows its checkout; the editor does not). */
  bundleMatches?: (installedDir: string) => boolean;
}

const q = (s: string) => JSON.stringify(s);

export async function doctorReport(options: DoctorOptions): Promise<DoctorReport> {
  try {
    return await buildReport(options);
  } catch (error) {
    // Never throws: an unexpected failure is one finding.
    const profile = options.profile ?? DEFAULT_PROFILE;
    return {
      folder: options.folder, dshHome: options.dshHome, profile, servers: [], ok: false,
      findings: [{ area: 'declaration', status: 'fail', message: 'storeUnreadable', args: { error: error instanceof Error ? error.message : String(error) } }],
    };
  }
}

async function buildReport(options: DoctorOptions): Promise<DoctorReport> {
  const { folder, dshHome } = options;
  const profile = options.profile ?? DEFAULT_PROFILE;
  const env = options.env ?? process.env;
  const findings: DoctorFinding[] = [];
  const add = (f: DoctorFinding) => findings.push(f);
  const ws = `--workspace ${q(folder)}`;
  const profileFlag = profile === DEFAULT_PROFILE ? '' : ` --profile ${profile}`;
  const installFix = `dsh-bridge dsh install${profileFlag}`;

  // The DSH that would run, and its Node.
  const launcher = findLauncher(dshHome, env.PATH ?? '');
  let lspPackagesMissing = false;
  if (!launcher) add({ area: 'launcher', status: 'fail', message: 'launcherMissing', args: {}, fix: installFix });
  else {
    const node = launcherNode(launcher, env.PATH ?? '');
    const version = node ? nodeVersion(node) : undefined;
    if (!node || !version) add({ area: 'node', status: 'fail', message: 'nodeUnknown', args: { node: node ?? 'node' }, fix: `${installFix} --node /path/to/node` });
    else if (!nodeFitsDsh(version)) add({ area: 'node', status: 'fail', message: 'nodeOld', args: { version, node }, fix: `${installFix} --node /path/to/node-22.19-or-newer` });
    else add({ area: 'node', status: 'ok', message: 'nodeOk', args: { version, node } });
    if (!launcher.nodeModules) add({ area: 'launcher', status: 'warn', message: 'launcherUnchecked', args: { command: launcher.command } });
    else {
      const dshVersion = packageVersion(launcher.nodeModules, '@deepseek-ai/dsh') ?? 'unknown';
      const wrong = launcherRuleMismatches(launcher.nodeModules);
      if (dshVersion !== DSH_VERSION) add({ area: 'launcher', status: 'fail', message: 'launcherVersion', args: { command: launcher.command, version: dshVersion, want: DSH_VERSION }, fix: installFix });
      else if (wrong.length) {
        const list = wrong.slice(0, 6).map((m) => `${m.name} ${m.have ?? 'missing'} (want ${m.want})`).join(', ') + (wrong.length > 6 ? ` and ${wrong.length - 6} more` : '');
        add({ area: 'launcher', status: 'fail', message: 'launcherPeers', args: { command: launcher.command, list }, fix: installFix });
      } else add({ area: 'launcher', status: 'ok', message: 'launcherOk', args: { command: launcher.command, version: dshVersion } });
    }
  }

  // The profile and the bridge bundle in it.
  const state: ProfileState = inspectProfile(dshHome, profile, options.bundleMatches);
  let bundleLoaded = false;
  if (!state.exists) add({ area: 'profile', status: 'fail', message: 'profileMissing', args: { profile, dir: state.dir }, fix: installFix });
  else {
    const lspMissing = lspPackagesUnloadable(dshHome, profile);
    if (lspMissing.length) {
      lspPackagesMissing = true;
      add({ area: 'profile', status: 'warn', message: 'lspPackagesMissing', args: { profile, list: lspMissing.join(', ') }, fix: installFix });
    }
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

  // The declaration, the trust mode and the stored values: per server, would it mount?
  const verified: VerifyResult = await verifyFolder(folder, { dshHome });
  const store = new HostStore(dshHome);
  let trust: TrustMode = 'ask';
  let inputs: ReadonlyMap<string, string> = new Map();
  let approvals: Array<{ serverName: string; pin: string }> = [];
  try {
    trust = await store.trustMode();
    const record = await store.readFolder(verified.declaration?.folder ?? folder);
    inputs = record.inputs;
    approvals = record.approvals;
  } catch (error) {
    add({ area: 'trust', status: 'fail', message: 'storeUnreadable', args: { error: error instanceof Error ? error.message : String(error) } });
    trust = 'deny';
  }
  if (verified.ok) add({ area: 'declaration', status: 'ok', message: 'declarationOk', args: { count: verified.declaration!.servers.length } });
  else if (verified.reasons[0]?.code === 'missing') add({ area: 'declaration', status: 'fail', message: 'declarationMissing', args: {}, fix: `dsh-bridge export ${ws}` });
  else for (const r of verified.reasons) add({ area: 'declaration', status: 'fail', message: 'declarationRefused', args: { code: r.code, message: r.message }, fix: `dsh-bridge export ${ws}` });
  add(trust === 'ask'
    ? { area: 'trust', status: 'warn', message: 'trustAsk', args: {}, fix: `dsh-bridge trust pinned && dsh-bridge approve ${ws}` }
    : trust === 'deny' ? { area: 'trust', status: 'fail', message: 'trustDeny', args: {}, fix: 'dsh-bridge trust pinned' } : { area: 'trust', status: 'ok', message: 'trustPinned', args: {} });

  // The DSH side's own policy (administrator's and user's files): what the plugin applies at mount.
  const policy = await readDshPolicy(dshHome, env);
  for (const layer of policy.layers) {
    if (layer.refused) add({ area: 'policy', status: 'fail', message: 'policyRefused', args: { rule: describeDshBlock({ code: 'policy-unreadable', file: layer.file, origin: layer.origin, rule: layer.refused }) } });
  }
  if (policy.layers.length && !policy.layers.some((l) => l.refused)) add({ area: 'policy', status: 'ok', message: 'policyOk', args: { files: policy.layers.map((l) => `${l.file} (${l.origin})`).join(', ') } });

  const servers: ServerVerdict[] = [];
  const declaration = verified.declaration;
  for (const server of declaration?.servers ?? []) servers.push(verdict(server));
  if (!declaration) {
    // Nothing exported (or unreadable): name the servers of the source, so the summary says what is missing.
    const analysis = await analyzeFolder({ folder, folderName: path.basename(folder), userHome: os.homedir() });
    for (const server of analysis.servers) servers.push(verdict(server));
  }
  for (const r of declaration?.rejected ?? []) {
    servers.push({ name: r.name, serverName: r.name, mount: false, why: 'whyRejected', args: { codes: r.codes.join(', ') }, fix: `dsh-bridge check ${ws}` });
  }

  // The language servers ride in one row with one pin: one verdict, named as `approve` names it.
  const lsp = declaration?.lsp;
  if (lsp && Object.keys(lsp.servers).length) servers.push(lspVerdict(lsp));

  function lspVerdict(section: NonNullable<typeof lsp>): ServerVerdict {
    const base = { name: 'lsp', serverName: `lsp (${Object.keys(section.servers).join(', ')})` };
    const not = (why: DoctorMessage, args: Args, fix?: string): ServerVerdict => ({ ...base, mount: false, why, args, fix });
    if (!verified.ok) return not('whyDeclaration', { code: verified.reasons.map((r) => r.code).join(', ') || 'unreadable' }, `dsh-bridge export ${ws}`);
    if (!lspSectionUsable(section)) return not('whyLspInvalid', {}, `dsh-bridge check ${ws}`);
    if (lspPackagesMissing) return not('whyLspPackages', {}, installFix);
    if (!bundleLoaded) return not('whyNoBundle', {}, installFix);
    if (trust === 'deny') return not('whyDeny', {}, 'dsh-bridge trust pinned');
    const row = toLspStdioConfig(section, { input: (id) => inputs.get(id), env: (name) => (Object.hasOwn(env, name) ? env[name] : undefined) });
    if (!row.ok) return not('whyLspValue', { reason: row.reason });
    if (trust === 'ask') return not('whyAsk', {}, `dsh-bridge trust pinned && dsh-bridge approve lsp ${ws}`);
    if (!approvals.some((a) => a.serverName === LSP_APPROVAL_NAME && a.pin === section.pin)) return not('whyNotApproved', {}, `dsh-bridge approve lsp ${ws}`);
    return { ...base, mount: true };
  }

  function verdict(server: DeclaredServer): ServerVerdict {
    const base = { name: server.name, serverName: server.serverName };
    const not = (why: DoctorMessage, args: Args, fix?: string): ServerVerdict => ({ ...base, mount: false, why, args, fix });
    if (!verified.declaration) return not(verified.reasons[0]?.code === 'missing' ? 'whyNotExported' : 'whyDeclaration', { code: verified.reasons.map((r) => r.code).join(', ') }, `dsh-bridge export ${ws}`);
    if (!verified.ok) return not('whyDeclaration', { code: verified.reasons.map((r) => r.code).join(', ') || 'unreadable' }, `dsh-bridge export ${ws}`);
    // The machine's policy first: no setup step can change it.
    const lookup = { input: (id: string) => inputs.get(id), env: (name: string) => (Object.hasOwn(env, name) ? env[name] : undefined) };
    const block = dshPolicyBlock(policy, startIdentity(server, lookup));
    if (block) return not('whyPolicy', { rule: describeDshBlock(block) }, `dsh-bridge policy ${ws}`);
    if (!bundleLoaded) return not('whyNoBundle', {}, installFix);
    if (trust === 'deny') return not('whyDeny', {}, 'dsh-bridge trust pinned');
    const missingInput = server.inputRefs.find((id) => !inputs.has(id));
    if (missingInput) return not('whyInput', { id: missingInput }, `dsh-bridge inputs set ${missingInput} ${ws}`);
    const missingEnv = server.envRefs.find((name) => !Object.hasOwn(env, name) || env[name] === undefined);
    if (missingEnv) return not('whyEnv', { name: missingEnv }, `export ${missingEnv}=...`);
    if (trust === 'ask') return not('whyAsk', {}, `dsh-bridge trust pinned && dsh-bridge approve ${server.name === server.serverName ? server.name : q(server.name)} ${ws}`);
    if (!approvals.some((a) => a.serverName === server.serverName && a.pin === server.pin)) return not('whyNotApproved', {}, `dsh-bridge approve ${q(server.name)} ${ws}`);
    return { ...base, mount: true };
  }

  const ok = findings.every((f) => f.status !== 'fail') && servers.every((s) => s.mount);
  return { folder, dshHome, profile, findings, servers, ok };
}

/** The report as English lines (the CLI's text), through `word` so the editor can translate. */
export function doctorLines(report: DoctorReport, word: (template: string, args: Args) => string = formatMessage): string[] {
  const t = (m: DoctorMessage, args: Args = {}) => word(DOCTOR_MESSAGES[m], args);
  const lines: string[] = [];
  for (const f of report.findings) {
    lines.push(`${{ ok: '\u2714', warn: '\u26a0', fail: '\u2716' }[f.status]} ${t(f.message, f.args)}`);
    if (f.fix) lines.push(`  ${t('fix', { command: f.fix })}`);
  }
  return [...lines, '', doctorSummary(report, word)];
}

export function doctorSummary(report: DoctorReport, word: (template: string, args: Args) => string = formatMessage): string {
  const t = (m: DoctorMessage, args: Args = {}) => word(DOCTOR_MESSAGES[m], args);
  const mount = report.servers.filter((s) => s.mount).map((s) => s.serverName);
  const notMount = report.servers.filter((s) => !s.mount).map((s) => `${s.serverName} (${t(s.why!, s.args)}${s.fix ? `; ${t('fix', { command: s.fix })}` : ''})`);
  return t('summary', { mount: mount.join(', ') || t('none'), notMount: notMount.join(', ') || t('none') });
}
