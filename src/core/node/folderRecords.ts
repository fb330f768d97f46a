import * as path from 'node:path';
import * as z from 'zod/mini';
import { sha256Hex } from '../json/canonicalJson';
import { removeTempFiles } from './atomicWrite';
import type { ProbeRecords } from './probeRecords';
import { HostStoreError, keyedMap, type StoreFiles } from './storeFiles';

const Approval = z.object({ serverName: z.string(), pin: z.string() });
export type Approval = z.infer<typeof Approval>;
const FolderFile = z.object({
  version: z.literal(1),
  folder: z.string(),
  /** Input id -> value. */
  inputs: keyedMap(z.string()),
  approvals: z.array(Approval),
});
export type FolderRecord = z.infer<typeof FolderFile>;
/** How many exports of a folder wrote a declaration; the newest declaration carries the count. */
const ExportsFile = z.object({ version: z.literal(1), folder: z.string(), exportSeq: z.int().check(z.minimum(1)) });

/**
 * Per folder: its input values and approved pins (`folders/<folder hash>.json`, secret) and its
 * export count (`exports/<folder hash>.json`, kept apart because it holds no secret).
 */
export class FolderRecords {
  constructor(private readonly files: StoreFiles, private readonly probes: ProbeRecords) {}

  folderFile(folder: string): string {
    return path.join(this.files.bridgeDir, 'folders', `${sha256Hex(path.resolve(folder))}.json`);
  }

  async readFolder(folder: string): Promise<FolderRecord> {
    const absolute = path.resolve(folder);
    const record = await this.files.readJson(this.folderFile(absolute), FolderFile);
    if (record && record.folder !== absolute) throw new HostStoreError('folder record does not match its folder');
    return record ?? { version: 1, folder: absolute, inputs: new Map(), approvals: [] };
  }

  private async updateFolder(folder: string, change: (record: FolderRecord) => void): Promise<void> {
    const record = await this.readFolder(folder);
    change(record);
    const file = this.folderFile(folder);
    if (record.inputs.size === 0 && record.approvals.length === 0) {
      await this.files.removeFile(file);
      return;
    }
    // Object.fromEntries defines each key as its own property, `__proto__` included.
    await this.files.writeJson(file, { ...record, inputs: Object.fromEntries(record.inputs) });
  }

  async setInput(folder: string, id: string, value: string): Promise<void> {
    await this.updateFolder(folder, (r) => {
      r.inputs.set(id, value);
    });
  }

  /**
   * Forgets one input value, or all of the folder's when `id` is undefined, and masks the values
   * in the folder's recorded probes (a probe before masking existed may have stored a tool
   * description that quoted one).
   */
  async forgetInput(folder: string, id?: string): Promise<void> {
    const forgotten: string[] = [];
    await this.updateFolder(folder, (r) => {
      if (id === undefined) {
        forgotten.push(...r.inputs.values());
        r.inputs.clear();
      } else if (r.inputs.has(id)) {
        forgotten.push(r.inputs.get(id)!);
        r.inputs.delete(id);
      }
    });
    // A write killed midway leaves a temp copy of the record, input values included: forgotten too.
    const file = this.folderFile(folder);
    await removeTempFiles(path.dirname(file), { abandonedOnly: false, of: path.basename(file) });
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
  async recordExport(folder: string, exported: ReadonlyArray<{ serverName: string; pin: string }>): Promise<number> {
    const absolute = path.resolve(folder);
    const seq = (await this.exportSeq(absolute)) + 1;
    await this.files.writeJson(this.exportsFile(absolute), { version: 1, folder: absolute, exportSeq: seq });
    await this.revokeApprovalsExcept(absolute, exported);
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

  /** Revokes approvals of anything not exported now (an export that left the declaration as it was). */
  async revokeApprovalsExcept(folder: string, exported: ReadonlyArray<{ serverName: string; pin: string }>): Promise<void> {
    const record = await this.readFolder(folder);
    const keep = record.approvals.filter((a) => exported.some((s) => s.serverName === a.serverName && s.pin === a.pin));
    if (keep.length !== record.approvals.length) await this.updateFolder(folder, (r) => { r.approvals = keep; });
  }

  async isApproved(folder: string, serverName: string, pin: string): Promise<boolean> {
    return (await this.readFolder(folder)).approvals.some((a) => a.serverName === serverName && a.pin === pin);
  }
}
