import type * as vscode from 'vscode';
import type { ChangedConcerns } from '../core/app/settingChanges';
import type { Check, DiagnosticsOwner, FileEvent } from './diagnostics';

/** A settings file a check of a setting reads: a folder's `.vscode/settings.json` or a `.code-workspace`. */
const SETTINGS_FILE = /(\/\.vscode\/settings\.json|\.code-workspace)$/;

/**
 * A check of one setting written in settings files (`dsh.lsp.servers`, `dsh.tools`): the owner
 * runs it (debounced) when the setting changes, a settings file changes on disk (or its open
 * document is reloaded or closed), or folders or trust change; a run that a newer one overtook publishes nothing.
 */
export abstract class SettingsFileCheck implements Check {
  private generation = 0;

  constructor(
    readonly kind: string,
    protected readonly owner: DiagnosticsOwner,
    protected readonly userSettings: vscode.Uri | undefined,
    protected readonly docsUri: (code: string) => vscode.Uri,
    protected readonly log: vscode.LogOutputChannel,
  ) {}

  abstract wants(changed: ChangedConcerns): boolean;

  /** Checks every folder; `isCurrent()` says, after the awaits, whether to publish. */
  protected abstract check(isCurrent: () => boolean): Promise<void>;

  fileChanged(uri: vscode.Uri, event: FileEvent, document?: vscode.TextDocument): void {
    if (!SETTINGS_FILE.test(uri.path)) return;
    // The check reads an open document without unsaved edits, else the file: a change on disk can
    // reach it before the document's reload from disk (an edit that leaves it clean) or its close,
    // and each of those changes what is read.
    if (event === 'disk' || event === 'close' || (event === 'edit' && document?.isDirty === false)) this.refreshAll();
  }

  refreshAll(delay?: number): void {
    this.owner.schedule(this.kind, () => this.run(), (error) => this.log.error(`checking ${this.kind} failed`, error), delay);
  }

  protected run(): Promise<void> {
    const generation = ++this.generation;
    return this.check(() => generation === this.generation);
  }
}
