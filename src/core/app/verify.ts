/**
 * Verify: whether a folder's `.dsh/declaration.json` may be mounted. Readable and well-formed,
 * signed with this user's key, every pin and the digest intact, made for this folder, not older
 * than the folder's last export, and made from the current sources, envFiles, session settings
 * (every settings file the export read) and probed tool pins.
 */
import { timingSafeEqual } from 'node:crypto';
import * as path from 'node:path';
import { canonicalHash, canonicalJson, sha256Hex } from '../json/canonicalJson';
import { DECLARATION_PATH, DeclarationSchema, type Declaration, type VerifyResult } from '../declaration/declarationModel';
import { signDigest } from '../declaration/declaration';
import { lspSectionPinMatches } from '../lsp/lspSection';
import { findDuplicateKeys, parseJsonc } from '../json/jsonTree';
import { declarationReadDotMcp, DOT_MCP_SOURCE, dotMcpDiscoveryOn, effectiveMcpAccess, MCP_ACCESS_SETTING } from '../mcp/sources';
import type { AnalyzeOptions } from '../mcp/analyzeOptions';
import type { SettingsView } from '../settings/folderSettings';
import { editorPolicyDigest, POLICY_SETTING, readEditorPolicy } from '../policy/editorPolicy';
import { managedRulesDigest } from '../policy/managedPolicy';
import { changedSources, managedChannels, policyView } from './folderSources';
import { changedSettingsFiles } from './settingsFiles';
import { probedToolPins } from '../tools/declaredTools';
import type { ProbedServerRecord } from '../node/hostStore';
import type { EnvFileResult } from '../node/envFile';
import { deepFreeze } from '../json/keptByBytes';
import { choiceFor, TOOLS_SETTING, type ToolChoiceAnalysis } from '../tools/toolChoice';
import { choiceIsNarrowing } from '../declaration/toolsModel';
import type { Ports } from './ports';

const MAX_DECLARATION_BYTES = 8 * 1024 * 1024;

type Reason = VerifyResult['reasons'][number];

/** What the text alone says: the declaration, or why it is no declaration at all; and the pins and digest that do not match. */
type Parsed = { declaration: Declaration; intact: Reason[] } | { refused: Reason };

/**
 * The last texts parsed, by the SHA-256 of their bytes: the plan verifies the session's
 * declaration at every model step, and its text rarely changes. Only what follows from the bytes
 * alone is kept (parse, schema, pins, digest); the signature, the folder, the export count and
 * the sources are checked every time. The declaration is frozen: callers share it.
 */
const parsedTexts = new Map<string, Parsed>();
const MAX_PARSED_TEXTS = 8;

function parseDeclaration(bytes: Uint8Array): Parsed {
  const key = sha256Hex(bytes);
  const kept = parsedTexts.get(key);
  if (kept) return kept;
  const parsed = parseText(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  if (parsedTexts.size >= MAX_PARSED_TEXTS) parsedTexts.delete(parsedTexts.keys().next().value!);
  parsedTexts.set(key, parsed);
  return parsed;
}

function parseText(text: string): Parsed {
  const refused = (message: string): Parsed => ({ refused: { code: 'tampered', message } });
  const { root, errors, tooDeep } = parseJsonc(text);
  if (tooDeep) return refused('the declaration nests deeper than any declaration can');
  if (errors.length || !root) return refused('the declaration is not valid JSON');
  if (findDuplicateKeys(root).length) return refused('the declaration has duplicate keys');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return refused('the declaration is not strict JSON');
  }
  const shape = DeclarationSchema.safeParse(json);
  if (!shape.success) return refused('the declaration does not match the schema');
  const declaration = shape.data;
  const { digest, signature: _signature, ...body } = declaration;
  const intact: Reason[] = [];
  for (const server of declaration.servers) {
    // `tools` (choice, tool pins) is outside the launch pin; the digest covers it.
    const { pin, tools: _tools, ...rest } = server;
    if (canonicalHash(rest) !== pin) intact.push({ code: 'tampered', message: `the pin of server "${server.serverName}" does not match its entry` });
  }
  if (declaration.lsp && !lspSectionPinMatches(declaration.lsp)) intact.push({ code: 'tampered', message: 'the pin of the lsp section does not match it' });
  if (canonicalHash(body) !== digest) intact.push({ code: 'tampered', message: 'the digest does not match the document' });
  return { declaration: deepFreeze(declaration), intact };
}

/** What a face knows of the folder's settings (the DSH side knows none of them). */
export interface VerifySettings {
  /** The folder's effective settings: `chat.mcp.access` and the MCP server policy are checked against the export's. */
  settings?: SettingsView;
  /** The policy settings beyond their effective values (see core/policy/editorPolicy). */
  policySettings?: AnalyzeOptions['policySettings'];
  /** VS Code's policy file where the face reads it (default: the policy port's). */
  vscodePolicyFile?: string;
}

/**
 * Checks a folder's declaration (see the module comment). `settings`, when the face knows the
 * folder's settings (the editor, the CLI), also checks that `chat.mcp.access` still chooses the
 * files the export read and that the MCP server policy is the export's; the DSH side, which
 * cannot see VS Code's settings, leaves that out. VS Code's policy file is checked for every face.
 * Never throws.
 */
export async function verifyFolder(ports: Pick<Ports, 'store' | 'files' | 'policy'>, folderPath: string, options: VerifySettings = {}): Promise<VerifyResult> {
  return (await verifyFolderReading(ports, folderPath, options)).verified;
}

/** What verify read on the way, for a caller that needs the same inputs (the session plan reads them once). */
export interface VerifyReads {
  /** The host store's probe record of the declaration's folder (absent: not read). */
  probes?: { folder: string; records: Readonly<Record<string, ProbedServerRecord>> };
  /** Each envFile loaded, by `${file}\0${folder}` as passed to loadEnvFile. */
  envFiles: Map<string, EnvFileResult>;
  /**
   * Servers probed since the export (their recorded tool pins are not the signed ones). Not a
   * reason of verify: a probe never withholds what was exported, the new pins wait for the next
   * export (the plan notes it, `probed-since-export`).
   */
  probedSince?: string[];
}

/** {@link verifyFolder}, with what it read. Never throws. */
export async function verifyFolderReading(ports: Pick<Ports, 'store' | 'files' | 'policy'>, folderPath: string, options: VerifySettings = {}): Promise<{ verified: VerifyResult; reads: VerifyReads }> {
  const reads: VerifyReads = { envFiles: new Map() };
  try {
    return { verified: await verify(ports, path.resolve(folderPath), options, reads), reads };
  } catch (error) {
    return { verified: { ok: false, reasons: [{ code: 'unreadable', message: `the declaration cannot be checked (${error instanceof Error ? error.message : String(error)})` }] }, reads };
  }
}

async function verify(ports: Pick<Ports, 'store' | 'files' | 'policy'>, folder: string, options: VerifySettings, reads: VerifyReads): Promise<VerifyResult> {
  const { settings } = options;
  const fail = (reason: Reason): VerifyResult => ({ ok: false, reasons: [reason] });
  const read = await ports.files.readWorkspaceFile(folder, DECLARATION_PATH, MAX_DECLARATION_BYTES);
  if (!read.ok) {
    if (read.failure.kind === 'missing') return fail({ code: 'missing', message: 'no declaration: export first' });
    return fail({ code: 'unreadable', message: `the declaration cannot be read (${read.failure.kind})` });
  }
  const parsed = parseDeclaration(read.bytes);
  if ('refused' in parsed) return fail(parsed.refused);
  const { declaration } = parsed;
  const reasons: Reason[] = [];

  // Every check below reads its own files: they are read at once (a model step waits for the
  // slowest read, not for their sum), and their reasons are given in this order.
  const [key, realDeclared, realFolder, envFiles, lastSeq, sources, settingsFiles, probes, policyFileChange, managedNow] = await Promise.all([
    declaration.signature ? ports.store.readSigningKey() : undefined,
    ports.files.realpath(declaration.folder),
    ports.files.realpath(folder),
    Promise.all(declaration.servers.map((server) => envFileChange(ports, server, folder, reads))),
    ports.store.exportSeq(declaration.folder).catch(() => undefined),
    changedSources(ports, folder, [declaration.source, ...(declaration.sources ?? [])]),
    changedSettingsFiles(ports, folder, declaration.settingsFiles ?? []),
    probeChanges(ports, declaration, reads),
    // VS Code's policy file is seen by every face on the machine, the DSH side included.
    vscodePolicyFileChange(ports, declaration.policy?.file, options.vscodePolicyFile ?? ports.policy.vscodePolicyFile),
    // GitHub Copilot's managed settings too (the DSH plugin reads the same channels).
    managedChannels(ports.policy).then(managedRulesDigest),
  ]);
  if (!declaration.signature) {
    reasons.push({ code: 'unsigned', message: 'the declaration carries no signature' });
  } else {
    const expected = key ? signDigest(declaration.digest, key) : undefined;
    const { signature } = declaration;
    if (!expected || expected.length !== signature.length || !timingSafeEqual(Buffer.from(expected), Buffer.from(signature))) {
      reasons.push({ code: 'bad-signature', message: key ? 'the signature was not made with this user\'s key' : 'no signing key on this machine' });
    }
  }
  reasons.push(...parsed.intact);
  if (realDeclared !== realFolder) reasons.push({ code: 'wrong-folder', message: 'the declaration was made for another folder' });
  for (const reason of envFiles) if (reason) reasons.push(reason);
  // A declaration older than the folder's last export (restored with an old mcp.json) is refused.
  // Only a declaration signed with this user's key can be a rollback (any other is refused already).
  const signedHere = !reasons.some((r) => r.code === 'bad-signature' || r.code === 'unsigned');
  if (signedHere && lastSeq === undefined) reasons.push({ code: 'rollback', message: 'the host store record of this folder cannot be read, so the declaration cannot be shown to be the newest' });
  else if (signedHere && (declaration.exportSeq ?? 0) < lastSeq!) {
    reasons.push({ code: 'rollback', message: `the declaration is from export ${declaration.exportSeq ?? 0} of this folder; export ${lastSeq} was made since (an old declaration was restored)` });
  }
  // The source and every other file VS Code runs servers from: an edit, a removal or a new file is a change.
  for (const changed of sources) {
    const how = { changed: 'changed since the export', removed: 'was removed since the export', created: 'was created since the export', unreadable: 'can no longer be read' }[changed.now];
    reasons.push({ code: 'stale', changed: changed.path, message: `the source ${changed.path} ${how}` });
  }
  // The settings files of the layers the export read: an edit of a session setting in one of them.
  for (const change of settingsFiles) {
    if ('unreadable' in change) reasons.push({ code: 'stale', file: change.path, message: `the settings file ${change.path} can no longer be read (${change.unreadable})` });
    else {
      for (const setting of change.settings) reasons.push({ code: 'stale', file: change.path, setting, message: `${setting} in ${change.path} changed since the export` });
    }
  }
  // The probed tool pins the export signed: a newer probe waits for the next export (the DSH
  // plugin's gate judges the live tools against the signed pins), so it stales nothing.
  if (probes.length) reads.probedSince = probes;
  if (settings) {
    const now = effectiveMcpAccess(settings(MCP_ACCESS_SETTING));
    const readThen = declarationReadDotMcp(declaration);
    if (dotMcpDiscoveryOn(now) !== readThen) {
      const was = declaration.mcpAccess ?? (readThen ? 'all' : 'none or registry');
      reasons.push({ code: 'stale', editorOnly: true, setting: MCP_ACCESS_SETTING, message: `${MCP_ACCESS_SETTING} is "${now}" now ("${was}" at the export): VS Code ${readThen ? 'no longer reads' : 'now reads'} ${DOT_MCP_SOURCE.path}` });
    }
    const digestNow = editorPolicyDigest(readEditorPolicy(policyView({ resolveConfig: settings, policySettings: options.policySettings })));
    if (digestNow !== declaration.policy?.digest) {
      reasons.push({ code: 'stale', editorOnly: true, setting: 'policy', message: `the editor's MCP server policy (${POLICY_SETTING.allowed}, ${POLICY_SETTING.denied}, ${POLICY_SETTING.managedOnly}) changed since the export` });
    }
  }
  if (policyFileChange) reasons.push({ code: 'stale', changed: policyFileChange.file, message: policyFileChange.message });
  if (managedNow !== declaration.policy?.managed) reasons.push({ code: 'stale', enforcedAtMount: true, setting: 'managed', message: managedChangeMessage(declaration.policy?.managed, managedNow) });
  return { ok: reasons.length === 0, reasons, declaration };
}

/** Why a server's envFile is no longer the one the export pinned, or undefined. */
async function envFileChange(ports: Pick<Ports, 'files'>, server: Declaration['servers'][number], folder: string, reads: VerifyReads): Promise<Reason | undefined> {
  if (server.transport !== 'stdio' || server.envFile === undefined) return undefined;
  if (server.envFileSha256 === undefined || typeof server.envFile !== 'string') {
    return { code: 'stale', changed: String(server.envFile), message: `the envFile of server "${server.serverName}" is not pinned (made by an older export): export again` };
  }
  const envFile = await ports.files.loadEnvFile(server.envFile, folder);
  reads.envFiles.set(`${server.envFile}\0${folder}`, envFile);
  if (!envFile.ok) return { code: 'stale', changed: server.envFile, message: `${envFile.reason} (server "${server.serverName}")` };
  if (envFile.sha256 !== server.envFileSha256) return { code: 'stale', changed: server.envFile, message: `the envFile of server "${server.serverName}" changed since the export` };
  return undefined;
}

/**
 * How `dsh.tools` changed when it alone made the declaration stale (undefined: it did not):
 * `narrowed` when each server's choice now (`choices`, the folder's effective tool choice) leaves
 * out at least what the signed one did. A narrowing needs no review to export (tools are outside
 * the launch pin), so the editor may export it by itself; a widening waits for Export.
 */
export function toolChoiceChange(verified: VerifyResult, choices: ToolChoiceAnalysis): 'narrowed' | 'widened' | undefined {
  const { declaration } = verified;
  if (verified.ok || !declaration || !verified.reasons.every((r) => r.code === 'stale' && r.setting === TOOLS_SETTING)) return undefined;
  return declaration.servers.every((s) => choiceIsNarrowing(choiceFor(choices, s.name), s.tools?.choice, Object.keys(s.tools?.pins ?? {}))) ? 'narrowed' : 'widened';
}

/** Each server (its serverName) whose tool pins from the probe record now differ from the ones the export signed. */
async function probeChanges(ports: Pick<Ports, 'store'>, declaration: Declaration, reads: VerifyReads): Promise<string[]> {
  if (declaration.servers.length === 0) return [];
  // An unreadable record gives no pins, as at the export.
  const probes: Readonly<Record<string, ProbedServerRecord>> = await ports.store.probedServers(declaration.folder).catch(() => ({}));
  reads.probes = { folder: declaration.folder, records: probes };
  const probed: string[] = [];
  for (const server of declaration.servers) {
    const probe = Object.hasOwn(probes, server.serverName) ? probes[server.serverName] : undefined;
    const now = probe ? keptText(probe, server.pin, () => canonicalJson(probedToolPins(server, probes) ?? null)) : 'null';
    if (now !== keptText(server, server.pin, () => canonicalJson(server.tools?.pins ?? null))) probed.push(server.serverName);
  }
  return probed;
}

/**
 * The canonical text of tool pins, kept per frozen object they come from (a declared server of a
 * kept declaration, a probe of a kept probe record) and the launch pin they were taken for: both
 * objects are shared while their file's bytes stay the same, so unchanged pins are not serialized
 * again at every model step.
 */
const pinTexts = new WeakMap<object, { pin: string; text: string }>();

function keptText(of: object, pin: string, text: () => string): string {
  const kept = pinTexts.get(of);
  if (kept?.pin === pin && Object.isFrozen(of)) return kept.text;
  const made = text();
  if (Object.isFrozen(of)) pinTexts.set(of, { pin, text: made });
  return made;
}

/**
 * Whether VS Code's policy file differs from the one the export read: the pinned file changed or
 * went away, or (no pin) a file now exists at `defaultPath`. A message, or undefined.
 */
async function vscodePolicyFileChange(ports: Pick<Ports, 'policy'>, pinned: { path: string; sha256: string | null } | undefined, defaultPath: string): Promise<{ file: string; message: string } | undefined> {
  const file = pinned?.path ?? defaultPath;
  const now = await ports.policy.readVscodePolicyFile(file);
  const was = pinned?.sha256 ?? null;
  if (now.sha256 === was) return undefined;
  const how = was === null ? 'appeared' : now.sha256 === null ? 'was removed' : 'changed';
  return { file, message: `VS Code's policy file ${file} ${how} since the export` };
}

/**
 * Why the managed settings make the declaration stale. A narrowing needs no export to hold (the
 * DSH plugin applies the managed settings in force at mount), a widening does to reach DSH.
 */
function managedChangeMessage(was: string | undefined, now: string | undefined): string {
  const what = was === undefined ? 'GitHub Copilot\'s managed settings set MCP rules now, and none did at the export'
    : now === undefined ? 'GitHub Copilot\'s managed settings set no MCP rules now, and did at the export'
      : 'the MCP rules of GitHub Copilot\'s managed settings changed since the export';
  return `${what}: export again; meanwhile DSH applies the managed settings in force at mount (what they now block is withheld)`;
}

/**
 * What the declaration on disk is, named precisely: a declaration from another user's key or
 * another folder is not "tampered", and says so; `older` is an earlier export restored over a newer one.
 */
export type DeclarationState = 'up-to-date' | 'stale' | 'changed' | 'older' | 'unsigned' | 'other-folder' | 'other-key' | 'missing' | 'invalid';

/** The state, from verify's reasons; the most specific one wins. The editor's status item and views name it. */
export function declarationState(result: { ok: boolean; reasons: ReadonlyArray<{ code: string }> }): DeclarationState {
  if (result.ok) return 'up-to-date';
  const codes = new Set(result.reasons.map((r) => r.code));
  if (codes.has('missing')) return 'missing';
  if (codes.has('unreadable')) return 'invalid';
  if (codes.has('tampered')) return 'changed';
  if (codes.has('unsigned')) return 'unsigned';
  if (codes.has('wrong-folder')) return 'other-folder';
  if (codes.has('bad-signature')) return 'other-key';
  // Only a declaration signed with this user's key can be an older export of theirs.
  if (codes.has('rollback')) return 'older';
  return 'stale';
}

/** What made a declaration stale, grouped as the faces say it (Verify, the status item): from verify's reasons. */
export interface StaleCauses {
  /** Session settings and files whose change DSH sees too (it withholds the declaration until the next export): their names. */
  changed: string[];
  /** VS Code's own settings changed: DSH cannot see them and still mounts the declaration. */
  editor: Array<'access' | 'policy'>;
  /** GitHub Copilot's managed settings changed: DSH still mounts it, applying those in force at mount. */
  managed: boolean;
}

export function staleCauses(reasons: VerifyResult['reasons']): StaleCauses {
  const stale = reasons.filter((r) => r.code === 'stale');
  const editor = [...new Set(stale.filter((r) => r.editorOnly).map((r) => (r.setting === MCP_ACCESS_SETTING ? 'access' as const : 'policy' as const)))];
  // A setting by its name, else the file that changed (or, for a settings file, can no longer be read).
  const changed = [...new Set(stale.filter((r) => !r.editorOnly && !r.enforcedAtMount).flatMap((r) => {
    const name = r.setting ?? r.changed ?? r.file;
    return name === undefined ? [] : [name];
  }))];
  return { changed, editor, managed: stale.some((r) => r.enforcedAtMount) };
}
