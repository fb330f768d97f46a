import type * as vscode from 'vscode';
import { inputIndexKey, inputSecretKey } from './decisions';

/**
 * Input values in the extension's secret storage, keyed per workspace folder and input id.
 * An index entry per folder lists the stored ids (SecretStorage cannot list its keys in the
 * VS Code versions this extension supports). Values never leave this class except to the
 * export, which mirrors them into the host-side store.
 */
export class InputSecrets {
  constructor(private readonly storage: vscode.SecretStorage) {}

  private key(folder: string, id: string): string {
    return inputSecretKey(folder, id);
  }

  private indexKey(folder: string): string {
    return inputIndexKey(folder);
  }

  async ids(folder: string): Promise<string[]> {
    const raw = await this.storage.get(this.indexKey(folder));
    if (!raw) return [];
    try {
      const parsed: unknown = JSON.parse(raw);
      return Array.isArray(parsed) ? parsed.filter((x): x is string => typeof x === 'string') : [];
    } catch {
      return [];
    }
  }

  private async setIds(folder: string, ids: string[]): Promise<void> {
    if (ids.length === 0) await this.storage.delete(this.indexKey(folder));
    else await this.storage.store(this.indexKey(folder), JSON.stringify([...new Set(ids)].sort()));
  }

  get(folder: string, id: string): Thenable<string | undefined> {
    return this.storage.get(this.key(folder, id));
  }

  async store(folder: string, id: string, value: string): Promise<void> {
    await this.storage.store(this.key(folder, id), value);
    const ids = await this.ids(folder);
    if (!ids.includes(id)) await this.setIds(folder, [...ids, id]);
  }

  /** Forgets one value, or every value of the folder (`extraIds`: ids known from elsewhere). */
  async forget(folder: string, id?: string, extraIds: string[] = []): Promise<string[]> {
    const known = await this.ids(folder);
    const targets = id === undefined ? [...new Set([...known, ...extraIds])] : [id];
    for (const t of targets) await this.storage.delete(this.key(folder, t));
    await this.setIds(folder, known.filter((k) => !targets.includes(k)));
    return targets;
  }
}
