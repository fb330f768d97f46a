import * as vscode from 'vscode';
import { HostStore } from '../core/node/hostStore';
import { showErrorWithLogs } from './log';
import { InputSecrets } from './secrets';
import { Configuration } from './settings';

/**
 * The extension's one context for its lifetime: the log, the configuration (read once,
 * refreshed by its one listener), the DSH host store of the configured DSH home, the input
 * secrets, and the disposables. Features receive it instead of each reading settings, building
 * stores and wording "Show Logs" popups on their own.
 */
export class Ctx {
  readonly config: Configuration;
  readonly secrets: InputSecrets;
  private store: HostStore | undefined;

  constructor(
    private readonly extension: vscode.ExtensionContext,
    readonly log: vscode.LogOutputChannel,
  ) {
    this.config = new Configuration(log);
    this.secrets = new InputSecrets(extension.secrets);
    this.push(this.config);
  }

  get extensionUri(): vscode.Uri {
    return this.extension.extensionUri;
  }

  get globalStorageUri(): vscode.Uri {
    return this.extension.globalStorageUri;
  }

  /** The host store of the DSH home the settings name now; its warnings go to the log. */
  hostStore(): HostStore {
    const { dshHome } = this.config.globalSettings();
    if (this.store?.dshHome !== dshHome) this.store = new HostStore(dshHome, { log: (line) => this.log.warn(line) });
    return this.store;
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
