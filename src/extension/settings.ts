import * as os from 'node:os';
import * as vscode from 'vscode';
import type { AnalyzeOptions } from '../core/mcp/analyzeOptions';
import type { ExportSettings, FolderIdentity, SettingsView, TrustMode } from '../core/settings/folderSettings';
import { editorFolderSettings, editorPolicySettings, machineSettings } from '../core/app/folderIdentity';
import { readVscodePolicyFile, VSCODE_POLICY_FILE } from '../core/node/policyFiles';
import { resolveDshHome } from '../core/node/hostStore';
import { changedConcerns, type ChangedConcerns } from '../core/app/settingChanges';
import { codeWorkspaceFile } from './mcpFiles';

/**
 * Settings as the editor sees them, read by the core (core/app/folderIdentity) through its typed
 * settings contract: a value of the wrong shape falls back to its default (and is reported once in
 * the log), so nothing downstream sees an unchecked cast.
 */

export interface FolderSettings extends ExportSettings {
  auto: 'off' | 'onSave';
}

export interface GlobalSettings {
  trustMode: TrustMode;
  dshHome: string;
}

/** What one workspace folder's settings give the features, read together once. */
export interface FolderConfig {
  /** The folder's settings as VS Code resolves them (default, user, workspace and folder layers). */
  view: SettingsView;
  settings: FolderSettings;
  /** The folder and its settings as the use cases take them. */
  identity: FolderIdentity;
  /** What the core needs to analyze the folder's mcp.json. */
  analyzeOptions: AnalyzeOptions;
  /** The MCP policy settings beyond `view` (for verify). */
  policySettings: NonNullable<FolderIdentity['policySettings']>;
  /** `dsh.skills.customRoots` (machine scope: only user or remote settings can set it). */
  customSkillRoots: string[];
}

function settingsView(folder: vscode.WorkspaceFolder | undefined): SettingsView {
  const config = vscode.workspace.getConfiguration(undefined, folder?.uri);
  return (key) => config.get<unknown>(key);
}

/** The policy settings beyond their effective values (see editorPolicySettings), from `get` and `inspect`. */
function policySettingsOf(folder: vscode.WorkspaceFolder): NonNullable<FolderIdentity['policySettings']> {
  const config = vscode.workspace.getConfiguration(undefined, folder.uri);
  return editorPolicySettings((key) => {
    const inspected = config.inspect<unknown>(key);
    return { effective: config.get<unknown>(key), user: inspected?.globalValue, workspace: inspected?.workspaceValue, folder: inspected?.workspaceFolderValue };
  });
}

/**
 * The configuration, read once and kept until it changes: ONE `onDidChangeConfiguration`
 * listener drops what was read (any key can matter: mcp.json may say `${config:...}`) and tells
 * the features which of their concerns changed. Folder trust and the folder list change what
 * VS Code reports too, so they drop it as well.
 */
export class Configuration implements vscode.Disposable {
  private global: GlobalSettings | undefined;
  private readonly folders = new Map<string, FolderConfig>();
  /** Settings already reported invalid since the last change: each is logged once. */
  private readonly reported = new Set<string>();
  private readonly changed = new vscode.EventEmitter<ChangedConcerns>();
  /** Fires after a change that touches one of the extension's settings (`dsh.*`). */
  readonly onDidChange = this.changed.event;
  private readonly disposables: vscode.Disposable[];

  constructor(private readonly log: vscode.LogOutputChannel) {
    this.disposables = [
      this.changed,
      vscode.workspace.onDidChangeConfiguration((e) => {
        this.forget();
        const concerns = changedConcerns((section) => e.affectsConfiguration(section));
        if (concerns.any) this.changed.fire(concerns);
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.forget()),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.forget()),
    ];
    void this.refreshPolicyFile();
  }

  /** VS Code's policy file (Linux), as last read: pinned by the export. VS Code reports a change of it as a configuration change. */
  private policyFile: { path: string; sha256: string | null } | undefined;
  private policyFileRead: Promise<void> | undefined;

  /** Reads VS Code's policy file again (Linux only; elsewhere policies live in the registry or a profile). */
  refreshPolicyFile(): Promise<void> {
    if (process.platform !== 'linux') return Promise.resolve();
    this.policyFileRead = readVscodePolicyFile(VSCODE_POLICY_FILE).then((file) => {
      this.policyFile = { path: file.path, sha256: file.sha256 };
      this.folders.clear();
    }, () => undefined);
    return this.policyFileRead;
  }

  /** Settled once the policy file read in flight (if any) is done: an export waits for it. */
  policyFileReady(): Promise<void> {
    return this.policyFileRead ?? Promise.resolve();
  }

  private forget(): void {
    void this.refreshPolicyFile();
    this.global = undefined;
    this.folders.clear();
    this.reported.clear();
  }

  /** Reports a setting with an invalid value, once until the configuration changes. */
  readonly invalidSetting = (key: string): void => {
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.log.warn(`setting ${key} has an invalid value; its default is used`);
  };

  /** `dsh.trustMode` and the resolved DSH home (`dsh.home`, else `$DSH_HOME`, else `~/.dsh`). */
  globalSettings(): GlobalSettings {
    if (!this.global) {
      const { trustMode, home } = machineSettings(settingsView(undefined), this.invalidSetting);
      this.global = { trustMode, dshHome: resolveDshHome(home) };
    }
    return this.global;
  }

  folder(folder: vscode.WorkspaceFolder): FolderConfig {
    const key = folder.uri.toString();
    let config = this.folders.get(key);
    if (!config) {
      const view = settingsView(folder);
      const workspaceFile = codeWorkspaceFile();
      const policySettings = policySettingsOf(folder);
      const identity: FolderIdentity = {
        folder: folder.uri.fsPath, folderName: folder.name, userHome: os.homedir(), settings: view, invalidSetting: this.invalidSetting,
        policySettings, ...(this.policyFile ? { vscodePolicyFile: this.policyFile } : {}),
        ...(workspaceFile ? { codeWorkspaceFile: workspaceFile } : {}),
      };
      config = { view, identity, policySettings, ...editorFolderSettings(identity, this.invalidSetting) };
      this.folders.set(key, config);
    }
    return config;
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
