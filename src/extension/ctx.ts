import { existsSync, promises as fsp } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { FolderRecord, HostStore } from '../core/node/hostStore';
import { nodePorts, type NodePorts } from '../core/node/ports';
import { probeRow } from '../core/node/probe/probeClient';
import type { TrustMode } from '../core/settings/folderSettings';
import { showErrorWithLogs } from './log';
import { InputSecrets } from './secrets';
import { Configuration } from './settings';

/**
 * The extension's one context for its lifetime: the log, the configuration (read once,
 * refreshed by its one listener), the use cases' ports of the configured DSH home (its host
 * store among them), the input secrets, and the disposables. Features receive it instead of each reading settings, building
 * stores and wording "Show Logs" popups on their own.
 */
export class Ctx {
  readonly config: Configuration;
  readonly secrets: InputSecrets;
  private built: NodePorts | undefined;
  private storeWatcher: { home: string; live: boolean; watcher: vscode.Disposable } | undefined;
  private readonly storeChanged = new vscode.EventEmitter<vscode.Uri>();
  /**
   * Reads of the store kept until the file they read changes, by file path: the host-store
   * watcher or a write through {@link hostStore} drops them. Kept only while that watcher is
   * live for the configured home (else a change outside the editor would go unseen).
   */
  private readonly storeReads = new Map<string, Promise<unknown>>();
  /** The trust mode the setting and the store last agreed on, per DSH home. */
  private agreedTrustMode: { home: string; mode: TrustMode } | undefined;
  /**
   * A file of the host store changed on disk, whoever wrote it (the CLI, DSH recording an
   * approval, this editor). Watching starts with the first `watchHostStore()`.
   */
  readonly onDidChangeHostStore = this.storeChanged.event;
  private readonly declarationChanged = new vscode.EventEmitter<vscode.Uri>();
  /** A folder's `.dsh/declaration.json` was created, changed or deleted (one watcher for every view of it). */
  readonly onDidChangeDeclaration = this.declarationChanged.event;

  constructor(
    private readonly extension: vscode.ExtensionContext,
    readonly log: vscode.LogOutputChannel,
  ) {
    this.config = new Configuration(log);
    this.secrets = new InputSecrets(extension.secrets);
    this.push(this.config);
    this.push(this.storeChanged);
    this.push(this.declarationChanged);
    const declarations = this.push(vscode.workspace.createFileSystemWatcher('**/.dsh/declaration.json'));
    const fire = (uri: vscode.Uri) => this.declarationChanged.fire(uri);
    this.push(declarations.onDidCreate(fire));
    this.push(declarations.onDidChange(fire));
    this.push(declarations.onDidDelete(fire));
    this.push({ dispose: () => this.storeWatcher?.watcher.dispose() });
  }

  get extensionUri(): vscode.Uri {
    return this.extension.extensionUri;
  }

  get globalStorageUri(): vscode.Uri {
    return this.extension.globalStorageUri;
  }

  /**
   * The use cases' ports for the DSH home the settings name now, built once per home: its host
   * store's warnings go to the log, and a write through it drops what was kept of that file.
   * The probe's client is imported directly: the features are loaded lazily already, and a
   * dynamic import would make the bundler wrap each module it reaches in a lazy initializer.
   */
  ports(): NodePorts {
    const { dshHome } = this.config.globalSettings();
    if (this.built?.dshHome !== dshHome) {
      this.built = nodePorts({ dshHome, log: (line) => this.log.warn(line), onWrite: (file) => this.storeReads.delete(file), probeRow });
    }
    return this.built;
  }

  /** The host store of the DSH home the settings name now. */
  hostStore(): HostStore {
    return this.ports().store;
  }

  /** Input ids with a value stored for the folder: in secret storage, or in the host store (where the CLI stores them). */
  async storedInputIds(folderPath: string): Promise<string[]> {
    const host = (await this.hostStore().readFolder(folderPath).catch(() => undefined))?.inputs.keys() ?? [];
    return [...new Set([...(await this.secrets.ids(folderPath)), ...host])].sort();
  }

  /**
   * The host store's trust mode (`ask` while none is stored), read once and kept until its file
   * changes. The status item and the servers view read it on every refresh.
   */
  storedTrustMode(): Promise<TrustMode> {
    const store = this.hostStore();
    return this.keptRead(store, store.trustModeFile, () => store.trustMode());
  }

  /** A folder's record in the host store (inputs stored, approvals), read once and kept until its file changes. */
  storedFolder(folder: string): Promise<FolderRecord> {
    const store = this.hostStore();
    return this.keptRead(store, store.folderFile(folder), () => store.readFolder(folder));
  }

  private keptRead<T>(store: HostStore, file: string, read: () => Promise<T>): Promise<T> {
    if (this.storeWatcher?.home !== store.dshHome || !this.storeWatcher.live) return read();
    const kept = this.storeReads.get(file) as Promise<T> | undefined;
    if (kept) return kept;
    const reading = read();
    this.storeReads.set(file, reading);
    // A failed read is not kept: the next refresh asks again.
    reading.catch(() => this.storeReads.get(file) === reading && this.storeReads.delete(file));
    return reading;
  }

  /**
   * One watcher on the store of the configured DSH home, re-made when the home changes, and once
   * the store's folder exists if it did not when the watcher was made (a watcher of a missing
   * folder may never report; the first export creates it). Cheap to call on every refresh.
   */
  watchHostStore(): void {
    const store = this.hostStore();
    const live = existsSync(store.bridgeDir);
    if (this.storeWatcher?.home === store.dshHome && (this.storeWatcher.live || !live)) return;
    this.storeWatcher?.watcher.dispose();
    this.storeReads.clear(); // kept while no live watcher could tell of a change
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(store.bridgeDir), '{*.json,folders/*.json,sessions/*.json}'));
    const changed = (uri: vscode.Uri) => {
      this.storeReads.clear(); // whichever file it was (a path the watcher reports may be spelled otherwise)
      if (uri.fsPath === store.trustModeFile) void this.trustMode({ readOnly: true }).catch((error) => this.log.error('reading the trust mode failed', error));
      this.storeChanged.fire(uri);
    };
    const subscriptions = [watcher.onDidCreate(changed), watcher.onDidChange(changed), watcher.onDidDelete(changed)];
    // The watcher's events may come late or not at all (a folder made after it, a busy machine):
    // what the store's files hold is also decided by reading their stamps every few seconds.
    // The machine's policy files (managed settings, VS Code's and the DSH side's) change what a plan
    // says too, and no watcher covers them: their stamps are read with the store's.
    const poll = new StoreStamps(store.bridgeDir, () => this.ports().policy.files(), changed);
    this.storeWatcher = { home: store.dshHome, live, watcher: { dispose: () => { for (const s of subscriptions) s.dispose(); watcher.dispose(); poll.dispose(); } } };
  }

  /**
   * The machine's one trust mode: the host store's, which DSH enforces and `dsh-bridge trust`
   * writes too; `dsh.trustMode` is its face in the editor. Whoever changed it last wins: a
   * change of the setting since the two last agreed writes the store; a store changed outside
   * the editor brings the setting in line. When it cannot tell (at start, or in another DSH
   * home) the store wins, so the editor never widens a mode set elsewhere without a change of
   * the setting. A store nobody wrote yet takes the setting's value, unless `readOnly` (the
   * start-up and watcher paths, which run in Restricted Mode too: they write nothing there).
   */
  async trustMode({ readOnly = false } = {}): Promise<TrustMode> {
    const store = this.hostStore();
    const setting = this.config.globalSettings().trustMode;
    const agreed = this.agreedTrustMode?.home === store.dshHome ? this.agreedTrustMode.mode : undefined;
    const stored = await store.storedTrustMode();
    const agree = (mode: TrustMode) => {
      this.agreedTrustMode = { home: store.dshHome, mode };
      return mode;
    };
    if (stored === undefined && readOnly) return setting;
    // A store event (readOnly) with the store as last agreed is no change of the store: an event
    // seen twice (the watcher and the stamps), or one that came before the setting's own update.
    // It decides nothing; the setting's change, if any, is written by its own (not readOnly) call.
    // (Taken for a change of the setting, it wrote the old setting over a mode set outside.)
    if (readOnly && stored !== undefined && stored === agreed) return stored;
    if (stored === undefined || (!readOnly && agreed !== undefined && setting !== agreed)) {
      await store.setTrustMode(setting);
      this.watchHostStore(); // the write may have created the store's folder
      return agree(setting);
    }
    if (stored !== setting) {
      this.log.info(`trust mode: the DSH side's is "${stored}" (${store.trustModeFile}, set outside the editor, e.g. by dsh-bridge trust); dsh.trustMode "${setting}" follows it`);
      agree(stored);
      // "ask" is the default: leave the setting unset rather than writing the default into settings.json.
      await vscode.workspace.getConfiguration('dsh').update('trustMode', stored === 'ask' ? undefined : stored, vscode.ConfigurationTarget.Global);
      return stored;
    }
    return agree(stored);
  }

  /** Hands a disposable to the extension's lifetime. */
  push<T extends vscode.Disposable>(disposable: T): T {
    this.extension.subscriptions.push(disposable);
    return disposable;
  }

  /** An error message with a "Show Logs" action that opens the log. */
  showError(message: string): void {
    void showErrorWithLogs(this.log, message);
  }
}

/**
 * The stamps (inode, size, modification time) of the host store's files the watcher covers, and of
 * the machine's policy files no watcher covers, read again every {@link StoreStamps.EVERY_MS}: a file
 * whose stamp differs (or that appears or goes) is reported as changed. The store's writers replace
 * files by rename, so a new content is a new inode. A few stat calls per poll.
 */
class StoreStamps {
  static readonly EVERY_MS = 2000;
  private stamps: Map<string, string> | undefined;
  private readonly timer: NodeJS.Timeout;
  private busy = false;

  constructor(private readonly bridgeDir: string, private readonly policyFiles: () => string[], private readonly changed: (uri: vscode.Uri) => void) {
    this.timer = setInterval(() => void this.check(), StoreStamps.EVERY_MS);
    this.timer.unref?.();
    void this.check();
  }

  private async check(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const now = await this.read();
      const before = this.stamps;
      this.stamps = now;
      if (!before) return;
      for (const [file, stamp] of now) if (before.get(file) !== stamp) this.changed(vscode.Uri.file(file));
      for (const file of before.keys()) if (!now.has(file)) this.changed(vscode.Uri.file(file));
    } finally {
      this.busy = false;
    }
  }

  private async read(): Promise<Map<string, string>> {
    const stamps = new Map<string, string>();
    const stamp = async (file: string) => {
      const st = await fsp.stat(file, { bigint: true }).catch(() => undefined);
      if (st?.isFile()) stamps.set(file, `${st.ino}:${st.size}:${st.mtimeNs}`);
    };
    for (const dir of [this.bridgeDir, path.join(this.bridgeDir, 'folders'), path.join(this.bridgeDir, 'sessions')]) {
      const names = await fsp.readdir(dir).catch(() => [] as string[]);
      for (const name of names.filter((n) => n.endsWith('.json'))) await stamp(path.join(dir, name));
    }
    for (const file of this.policyFiles()) await stamp(file);
    return stamps;
  }

  dispose(): void {
    clearInterval(this.timer);
  }
}
