import { inputAccount, KeychainError, keychainProblemOf, openKeychain, type Keychain, type KeychainProblem } from './keychain';

/** Where the input values of this DSH home are kept now, as the doctor says it. */
export type InputStoreState =
  | { readonly store: 'keychain'; readonly name: string }
  | { readonly store: 'files'; readonly problem: KeychainProblem };

/**
 * A folder's input values as the folder record keeps them: values in the file, the ids whose value
 * is in the keychain, and the ids forgotten by a process that could not reach the keychain (the
 * editor, which has no native module): their entries are removed by the next process that can.
 */
export interface StoredInputs {
  readonly fileValues: ReadonlyMap<string, string>;
  readonly keychainIds: readonly string[];
  readonly forgetIds: readonly string[];
}

export interface ResolvedInputs {
  /** Every value that could be read, from the file and the keychain. */
  readonly values: Map<string, string>;
  /** Ids whose value is in the keychain, which cannot be read now (locked, or gone): their servers are withheld with the reason. */
  readonly unreadable: Map<string, KeychainProblem>;
  /** The record as it should be now when values moved from the file into the keychain or forgotten entries were removed (undefined: no change). */
  readonly moved?: StoredInputs;
}

/**
 * The input values of one DSH home's store: in the OS keychain when one answers, else in the
 * folder records (0600 files). Opens the keychain on first use and keeps the answer for the life
 * of the process (a keychain that comes up later is used by the next process).
 */
export class InputVault {
  private opened: Promise<{ ok: true; keychain: Keychain } | { ok: false; problem: KeychainProblem }> | undefined;

  constructor(
    private readonly bridgeDir: string,
    private readonly open: () => ReturnType<typeof openKeychain> = () => openKeychain(),
  ) {}

  private keychain() {
    this.opened ??= this.open();
    return this.opened;
  }

  async state(): Promise<InputStoreState> {
    const k = await this.keychain();
    return k.ok ? { store: 'keychain', name: k.keychain.name } : { store: 'files', problem: k.problem };
  }

  /**
   * The folder's values. Values still in the file move into the keychain when it answers: each is
   * written there and read back before the caller rewrites the record without it, so a move cut
   * anywhere leaves every value in the file, the keychain, or both (the next read finishes it).
   */
  async resolve(folder: string, stored: StoredInputs): Promise<ResolvedInputs> {
    const values = new Map(stored.fileValues);
    const unreadable = new Map<string, KeychainProblem>();
    if (stored.keychainIds.length === 0 && stored.fileValues.size === 0 && stored.forgetIds.length === 0) return { values, unreadable };
    const k = await this.keychain();
    if (!k.ok) {
      for (const id of stored.keychainIds) if (!values.has(id)) unreadable.set(id, k.problem);
      return { values, unreadable };
    }
    let forgetIds = stored.forgetIds;
    try {
      for (const id of forgetIds) await k.keychain.delete(inputAccount(this.bridgeDir, folder, id));
      forgetIds = [];
    } catch {
      // kept for a later process
    }
    for (const id of stored.keychainIds) {
      if (values.has(id)) continue; // still in the file too (a move cut short): the file's copy is the same value
      try {
        const value = await k.keychain.get(inputAccount(this.bridgeDir, folder, id));
        if (value === undefined) unreadable.set(id, { kind: 'failed', detail: 'the keychain has no entry for it (removed outside the bridge?)' });
        else values.set(id, value);
      } catch (error) {
        unreadable.set(id, keychainProblemOf(error));
      }
    }
    const forgot = forgetIds.length < stored.forgetIds.length;
    if (stored.fileValues.size === 0 || unreadable.size) {
      return { values, unreadable, moved: forgot ? { ...stored, forgetIds } : undefined };
    }
    const keychainIds = new Set(stored.keychainIds);
    const fileValues = new Map(stored.fileValues);
    try {
      for (const [id, value] of stored.fileValues) {
        await this.putChecked(k.keychain, folder, id, value);
        keychainIds.add(id);
        fileValues.delete(id);
      }
    } catch {
      // what did not move stays in the file; the doctor says why the keychain fails
    }
    const moved = fileValues.size < stored.fileValues.size || forgot;
    return { values, unreadable, moved: moved ? { fileValues, keychainIds: [...keychainIds], forgetIds } : undefined };
  }

  /** Stores one value: in the keychain when it answers (returns true), else the caller keeps it in the file (false). */
  async put(folder: string, id: string, value: string): Promise<boolean> {
    const k = await this.keychain();
    if (!k.ok) return false;
    try {
      await this.putChecked(k.keychain, folder, id, value);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Removes the values of `ids` from the keychain (an entry that is not there is no failure).
   * Returns the ids it could not remove (no keychain in this process, or it failed): the record
   * keeps them as `forgetIds` for the next process that reaches the keychain.
   */
  async remove(folder: string, ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const k = await this.keychain();
    if (!k.ok) return [...ids];
    const left: string[] = [];
    for (const id of ids) {
      try {
        await k.keychain.delete(inputAccount(this.bridgeDir, folder, id));
      } catch {
        left.push(id);
      }
    }
    return left;
  }

  private async putChecked(keychain: Keychain, folder: string, id: string, value: string): Promise<void> {
    const account = inputAccount(this.bridgeDir, folder, id);
    await keychain.set(account, value);
    if ((await keychain.get(account)) !== value) throw new KeychainError({ kind: 'failed', detail: 'the keychain did not give back the value it was given' });
  }
}

/** The input fields of a folder record, as its file has them. */
export interface RecordInputs {
  inputs: Map<string, string>;
  keychainInputs?: string[];
  forgetInputs?: string[];
}

/** The record after a read moved values (`resolve`): only what that read moved, over the record as it is now (another process may have written since). */
export function applyMove(r: RecordInputs, stored: StoredInputs, moved: StoredInputs): void {
  for (const [id, value] of stored.fileValues) if (!moved.fileValues.has(id) && r.inputs.get(id) === value) r.inputs.delete(id);
  r.keychainInputs = [...new Set([...(r.keychainInputs ?? []), ...moved.keychainIds])];
  r.forgetInputs = (r.forgetInputs ?? []).filter((id) => moved.forgetIds.includes(id) || !stored.forgetIds.includes(id));
}

/** The record after one value was stored (`put`): its id, or its value when no keychain took it. */
export function storeInRecord(r: RecordInputs, id: string, value: string, inKeychain: boolean): void {
  r.forgetInputs = r.forgetInputs?.filter((f) => f !== id);
  if (inKeychain) {
    r.inputs.delete(id);
    r.keychainInputs = [...new Set([...(r.keychainInputs ?? []), id])];
  } else r.inputs.set(id, value); // the file's value wins over an older one in the keychain, which the next move replaces
}

/**
 * The record after `id` (every id when undefined) was forgotten: `removed` are the keychain ids
 * whose entries were removed or are left for later (`left`, see {@link InputVault.remove}).
 * Returns the values the file held.
 */
export function forgetInRecord(r: RecordInputs, id: string | undefined, removed: readonly string[], left: readonly string[]): string[] {
  const forgotten = id === undefined ? [...r.inputs.values()] : r.inputs.has(id) ? [r.inputs.get(id)!] : [];
  if (id === undefined) r.inputs.clear();
  else r.inputs.delete(id);
  r.keychainInputs = r.keychainInputs?.filter((key) => !removed.includes(key));
  if (left.length) r.forgetInputs = [...new Set([...(r.forgetInputs ?? []), ...left])];
  return forgotten;
}
