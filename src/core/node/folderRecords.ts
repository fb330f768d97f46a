import * as path from 'node:path';
import * as z from 'zod/mini';
import { sha256Hex } from '../json/canonicalJson';
import { removeTempFiles } from './atomicWrite';
import type { ProbeRecords } from './probeRecords';
import { HostStoreError, keyedMap, type StoreFiles } from './storeFiles';
import { applyMove, forgetInRecord, storeInRecord, type InputVault, type StoredInputs } from './inputVault';
import type { KeychainProblem } from './keychain';

const Approval = z.object({ serverName: z.string(), pin: z.string() });
export type Approval = z.infer<typeof Approval>;
const FolderFile = z.object({
  version: z.literal(1),
  folder: z.string(),
  /** Input id -> value, for the values kept in this file (no keychain answered when they were stored). */
  inputs: keyedMap(z.string()),
  approvals: z.array(Approval),
  /** The ids whose value is in the OS keychain (src/core/node/keychain.ts). */
  keychainInputs: z.optional(z.array(z.string())),
  /** Ids forgotten by a process without the keychain (the editor): their keychain entries go at the next process with one. */
  forgetInputs: z.optional(z.array(z.string())),
});
type FolderFileRecord = z.infer<typeof FolderFile>;
/** A folder's record as read: `inputs` has every value that could be read, from the file and the keychain. */
export type FolderRecord = FolderFileRecord & {
  /** Ids whose value is in the keychain, which cannot be read now (locked, gone): their servers are withheld with the reason. */
  unreadableInputs?: ReadonlyMap<string, KeychainProblem>;
};
/** How many exports of a folder wrote a declaration; the newest declaration carries the count. */
const ExportsFile = z.object({ version: z.literal(1), folder: z.string(), exportSeq: z.int().check(z.minimum(1)) });

/**
 * Per folder: its input values (in the OS keychain when one answers, see inputVault.ts) and
 * approved pins (`folders/<folder hash>.json`, secret) and its export count
 * (`exports/<folder hash>.json`, kept apart because it holds no secret).
 */
export class FolderRecords {
  constructor(private readonly files: StoreFiles, private readonly probes: ProbeRecords, private readonly vault: InputVault) {}

  folderFile(folder: string): string {
    return path.join(this.files.bridgeDir, 'folders', `${sha256Hex(path.resolve(folder))}.json`);
  }

  /**
   * The folder's record with its input values, those in the keychain included. Values still in the
   * file move into the keychain when one answers (then the file is rewritten without them).
   */
  async readFolder(folder: string): Promise<FolderRecord> {
    const record = await this.readFolderFile(folder);
    const stored: StoredInputs = { fileValues: record.inputs, keychainIds: record.keychainInputs ?? [], forgetIds: record.forgetInputs ?? [] };
    const resolved = await this.vault.resolve(record.folder, stored);
    if (resolved.moved) {
      await this.updateFolder(folder, (r) => applyMove(r, stored, resolved.moved!));
      // A write killed midway leaves a temp copy of the record, values included: it goes with the values.
      await this.removeRecordTemps(folder);
    }
    return { ...record, inputs: resolved.values, ...(resolved.unreadable.size ? { unreadableInputs: resolved.unreadable } : {}) };
  }

  /** The record as its file has it (values kept in the keychain are not in it). */
  private async readFolderFile(folder: string): Promise<FolderFileRecord> {
    const absolute = path.resolve(folder);
    const record = await this.files.readJson(this.folderFile(absolute), FolderFile);
    if (record && record.folder !== absolute) throw new HostStoreError('folder record does not match its folder');
    return record ?? { version: 1, folder: absolute, inputs: new Map(), approvals: [] };
  }

  private async removeRecordTemps(folder: string): Promise<void> {
    const file = this.folderFile(folder);
    await removeTempFiles(path.dirname(file), { abandonedOnly: false, of: path.basename(file) });
  }

  private async updateFolder(folder: string, change: (record: FolderFileRecord) => void): Promise<void> {
    const record = await this.readFolderFile(folder);
    change(record);
    const file = this.folderFile(folder);
    if (!record.keychainInputs?.length) delete record.keychainInputs;
    if (!record.forgetInputs?.length) delete record.forgetInputs;
    if (record.inputs.size === 0 && record.approvals.length === 0 && !record.keychainInputs && !record.forgetInputs) {
      await this.files.removeFile(file);
      return;
    }
    // Object.fromEntries defines each key as its own property, `__proto__` included.
    await this.files.writeJson(file, { ...record, inputs: Object.fromEntries(record.inputs) });
  }

  /** Stores one value: in the keychain when one answers (the file keeps only its id; returns true), else in the file (false). */
  async setInput(folder: string, id: string, value: string): Promise<boolean> {
    const inKeychain = await this.vault.put(path.resolve(folder), id, value);
    await this.updateFolder(folder, (r) => storeInRecord(r, id, value, inKeychain));
    if (inKeychain) await this.removeRecordTemps(folder);
    return inKeychain;
  }

  /**
   * Forgets one input value, or all of the folder's when `id` is undefined, and masks the values
   * in the folder's recorded probes (a probe before masking existed may have stored a tool
   * description that quoted one).
   */
  async forgetInput(folder: string, id?: string): Promise<void> {
    const absolute = path.resolve(folder);
    // The values themselves, the keychain's included, to mask them in the recorded probes.
    const known = (await this.readFolder(absolute).catch(() => undefined))?.inputs ?? new Map<string, string>();
    const forgotten = [...known.entries()].filter(([key]) => id === undefined || key === id).map(([, value]) => value);
    const inKeychain = (await this.readFolderFile(absolute)).keychainInputs?.filter((key) => id === undefined || key === id) ?? [];
    const left = await this.vault.remove(absolute, inKeychain);
    await this.updateFolder(folder, (r) => forgotten.push(...forgetInRecord(r, id, inKeychain, left)));
    // A write killed midway leaves a temp copy of the record, input values included: forgotten too.
    await this.removeRecordTemps(folder);
    await this.probes.maskProbes(folder, forgotten);
  }

  async approve(folder: string, serverName: string, pin: string): Promise<void> {
    await this.updateFolder(folder, (r) => {
      r.approvals = r.approvals.filter((a) => a.serverName !== serverName);
      r.approvals.push({ serverName, pin });
    });
  }

  /**
   * Records an export that writes a new declaration: the folder's export count goes up (the
   * declaration carries it; an older one is refused as a rollback), and approvals of servers
   * that left, or of pins no longer exported, are revoked. Returns the new count.
   */
  async recordExport(folder: string, exported: ReadonlyArray<{ serverName: string; pin: string }>, refused: ReadonlySet<string> = new Set()): Promise<number> {
    const absolute = path.resolve(folder);
    const seq = (await this.exportSeq(absolute)) + 1;
    await this.files.writeJson(this.exportsFile(absolute), { version: 1, folder: absolute, exportSeq: seq });
    await this.revokeApprovalsExcept(absolute, exported, refused);
    return seq;
  }

  /** The folder's export count (0 before its first export). Kept apart from the folder record, which holds secrets. */
  async exportSeq(folder: string): Promise<number> {
    const absolute = path.resolve(folder);
    const record = await this.files.readJson(this.exportsFile(absolute), ExportsFile);
    if (record && record.folder !== absolute) throw new HostStoreError('export record does not match its folder');
    return record?.exportSeq ?? 0;
  }

  private exportsFile(folder: string): string {
    return path.join(this.files.bridgeDir, 'exports', `${sha256Hex(path.resolve(folder))}.json`);
  }

  /**
   * Revokes approvals of anything not exported now (an export that left the declaration as it
   * was). A server still in the source but refused for now (a policy, a bad field) keeps its
   * approval: it is for that pin only, and the same definition allowed again starts as approved.
   */
  async revokeApprovalsExcept(folder: string, exported: ReadonlyArray<{ serverName: string; pin: string }>, refused: ReadonlySet<string> = new Set()): Promise<void> {
    const record = await this.readFolder(folder);
    const keep = record.approvals.filter((a) => exported.some((s) => s.serverName === a.serverName && s.pin === a.pin)
      || (refused.has(a.serverName) && !exported.some((s) => s.serverName === a.serverName)));
    if (keep.length !== record.approvals.length) await this.updateFolder(folder, (r) => { r.approvals = keep; });
  }

  async isApproved(folder: string, serverName: string, pin: string): Promise<boolean> {
    return (await this.readFolder(folder)).approvals.some((a) => a.serverName === serverName && a.pin === pin);
  }
}
