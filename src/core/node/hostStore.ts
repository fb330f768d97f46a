import { TRUST_MODES, type TrustMode } from '../settings/folderSettings';
import * as os from 'node:os';
import * as path from 'node:path';
import * as z from 'zod/mini';
import { exists, StoreFiles, type StoreFilesOptions } from './storeFiles';
import { readSigningKey, signingKey } from './signingKeyFile';
import { FolderRecords } from './folderRecords';
import { ProbeRecords } from './probeRecords';
import { SkillRecords } from './skillRecords';

export { HostStoreError } from './storeFiles';
export type { Approval, FolderRecord } from './folderRecords';
export type { ProbedServerRecord, SlowStartRecord } from './probeRecords';
export type { AcceptedDefinitions } from './skillRecords';

/**
 * The host side of the bridge, under `<dshHome>/bridge/` (never in a workspace): the signing
 * key, the trust mode, and per folder the input values and the approved pins. The DSH plugin
 * reads the same files. Format: docs/declaration.md. Each record kind has its own module over one
 * file primitive (storeFiles.ts); this class is the one door the faces and use cases hold.
 */

/**
 * DSH's own rule (contract section 6): an explicit value, else $DSH_HOME, else ~/.dsh; a blank
 * value counts as unset; `~`, `~/x` and `~\\x` expand against the home folder, as dsh-home-paths does.
 */
export function resolveDshHome(
  explicit?: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
  home = os.homedir(),
  base = process.cwd(),
): string {
  const given = [explicit, env.DSH_HOME].find((v) => v !== undefined && v.trim() !== '');
  if (given === undefined) return path.join(home, '.dsh');
  const expanded = given === '~' ? home : given.startsWith('~/') || given.startsWith('~\\') ? path.join(home, given.slice(2)) : given;
  return path.resolve(base, expanded);
}

const SettingsFile = z.object({ version: z.literal(1), trustMode: z.enum(TRUST_MODES) });

export type HostStoreOptions = StoreFilesOptions;

export class HostStore {
  readonly bridgeDir: string;
  private readonly files: StoreFiles;
  private readonly folders: FolderRecords;
  private readonly probes: ProbeRecords;
  private readonly skills: SkillRecords;

  constructor(readonly dshHome: string, options: HostStoreOptions = {}) {
    this.files = new StoreFiles(dshHome, options);
    this.bridgeDir = this.files.bridgeDir;
    this.probes = new ProbeRecords(this.files);
    this.folders = new FolderRecords(this.files, this.probes);
    this.skills = new SkillRecords(this.files);
  }

  /** The per-user HMAC key; created (mode 0600) on first use. */
  signingKey(): Promise<Buffer> {
    return signingKey(this.files);
  }

  /** The key if it exists; verification never creates one. */
  readSigningKey(): Promise<Buffer | undefined> {
    return readSigningKey(this.files);
  }

  async trustMode(): Promise<TrustMode> {
    return (await this.storedTrustMode()) ?? 'ask';
  }

  /** The mode as stored; undefined while no face has written one (DSH then acts as "ask"). */
  async storedTrustMode(): Promise<TrustMode | undefined> {
    return (await this.files.readJson(this.trustModeFile, SettingsFile))?.trustMode;
  }

  /** The file that holds the machine's trust mode (watched by the editor). */
  get trustModeFile(): string {
    return path.join(this.bridgeDir, 'settings.json');
  }

  async setTrustMode(trustMode: TrustMode): Promise<void> {
    if ((await this.trustMode()) === trustMode && (await exists(this.trustModeFile))) return;
    await this.files.writeJson(this.trustModeFile, { version: 1, trustMode });
  }

  // Per folder: input values, approvals, export count (folderRecords.ts).
  folderFile = (...a: Parameters<FolderRecords['folderFile']>) => this.folders.folderFile(...a);
  readFolder = (...a: Parameters<FolderRecords['readFolder']>) => this.folders.readFolder(...a);
  setInput = (...a: Parameters<FolderRecords['setInput']>) => this.folders.setInput(...a);
  forgetInput = (...a: Parameters<FolderRecords['forgetInput']>) => this.folders.forgetInput(...a);
  approve = (...a: Parameters<FolderRecords['approve']>) => this.folders.approve(...a);
  isApproved = (...a: Parameters<FolderRecords['isApproved']>) => this.folders.isApproved(...a);
  recordExport = (...a: Parameters<FolderRecords['recordExport']>) => this.folders.recordExport(...a);
  exportSeq = (...a: Parameters<FolderRecords['exportSeq']>) => this.folders.exportSeq(...a);
  revokeApprovalsExcept = (...a: Parameters<FolderRecords['revokeApprovalsExcept']>) => this.folders.revokeApprovalsExcept(...a);

  // What probes and first requests learnt of a folder's servers (probeRecords.ts).
  probedServers = (...a: Parameters<ProbeRecords['probedServers']>) => this.probes.probedServers(...a);
  recordProbes = (...a: Parameters<ProbeRecords['recordProbes']>) => this.probes.recordProbes(...a);
  slowStarts = (...a: Parameters<ProbeRecords['slowStarts']>) => this.probes.slowStarts(...a);
  recordSlowStarts = (...a: Parameters<ProbeRecords['recordSlowStarts']>) => this.probes.recordSlowStarts(...a);

  // Skill-root trust and accepted definitions (skillRecords.ts).
  skillTrust = (...a: Parameters<SkillRecords['skillTrust']>) => this.skills.skillTrust(...a);
  trustSkillRoot = (...a: Parameters<SkillRecords['trustSkillRoot']>) => this.skills.trustSkillRoot(...a);
  distrustSkillRoot = (...a: Parameters<SkillRecords['distrustSkillRoot']>) => this.skills.distrustSkillRoot(...a);
  acceptedDefinitions = (...a: Parameters<SkillRecords['acceptedDefinitions']>) => this.skills.acceptedDefinitions(...a);
  acceptTool = (...a: Parameters<SkillRecords['acceptTool']>) => this.skills.acceptTool(...a);
  acceptSkill = (...a: Parameters<SkillRecords['acceptSkill']>) => this.skills.acceptSkill(...a);
}
