/**
 * The real ports of the use cases (their interface: core/app/ports.ts), built once per face:
 * the CLI per run, the extension per DSH home, the DSH plugin per load. This is the one place a
 * {@link HostStore} is constructed.
 */
import * as os from 'node:os';
import { DeclarationDir, declarationSchemaText } from './declarationDir';
import { findDeclarationFolder } from './declarationLookup';
import { bridgeProfiles, DEFAULT_PROFILE, inspectDshInstall } from './dshSide';
import { loadEnvFile } from './envFile';
import { devcontainerSubfolders, realpathOrResolved } from './folderFiles';
import { HostStore, type HostStoreOptions } from './hostStore';
import { buildRow } from './mcpRow';
import type { McpClientConfig } from '../mcp/dshRow';
import type { RowProbe, RowProbeOptions } from './probe/probeClient';
import { createPathResolver } from './commandPath';
import { readRegularFile, readWorkspaceFile } from './reader';
import { nodeSkillFs } from './skillFs';
import { ADMIN_POLICY_FILE, readDshPolicy, readVscodePolicyFile, VSCODE_POLICY_FILE } from './policyFiles';
import { managedSettingsPaths, readManagedSettings } from './managedSettingsFiles';

export interface NodePortsOptions extends HostStoreOptions {
  dshHome: string;
  /** Default: this process's environment. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Default: os.homedir(). */
  home?: string;
  /** Default: process.cwd(). */
  cwd?: string;
  /**
   * How one row is probed (`probeRow` of ./probe/probeClient, or `probeRowOnDemand` to load it
   * on the first probe); a face that does not probe leaves it out.
   */
  probeRow?: (row: McpClientConfig, options: RowProbeOptions) => Promise<RowProbe>;
  /** One more managed-settings file (the CLI's `--managed-settings`), read besides the machine's channels. */
  managedSettingsFile?: string;
}

export function nodePorts(options: NodePortsOptions) {
  const env = options.env ?? process.env;
  const store = new HostStore(options.dshHome, { log: options.log, onWrite: options.onWrite });
  return {
    dshHome: options.dshHome,
    store,
    sessions: store.sessions,
    files: {
      readWorkspaceFile,
      readRegularFile,
      devcontainerSubfolders,
      realpath: realpathOrResolved,
      loadEnvFile,
      findDeclarationFolder,
      openDeclarationDir: (folder: string) => DeclarationDir.open(folder),
      declarationSchemaText,
      skills: nodeSkillFs,
    },
    env,
    home: options.home ?? os.homedir(),
    cwd: options.cwd ?? process.cwd(),
    now: () => Date.now(),
    resolveCommand: createPathResolver({ env }),
    dshInstall: {
      inspect: (profile: string, bundleMatches?: (installedDir: string) => boolean) => inspectDshInstall(options.dshHome, profile, env.PATH ?? '', bundleMatches),
      bridgeProfiles: () => bridgeProfiles(options.dshHome),
      defaultProfile: DEFAULT_PROFILE,
    },
    mcp: {
      buildRow,
      probeRow: options.probeRow ?? (async (): Promise<RowProbe> => {
        throw new Error('this face does not probe MCP servers');
      }),
    },
    policy: {
      vscodePolicyFile: VSCODE_POLICY_FILE,
      readVscodePolicyFile,
      readDshPolicy: () => readDshPolicy(options.dshHome, env, { extraFile: options.managedSettingsFile }),
      readManagedSettings: () => readManagedSettings({ env, extraFile: options.managedSettingsFile }),
      files: () => [VSCODE_POLICY_FILE, ADMIN_POLICY_FILE, ...managedSettingsPaths({ env, extraFile: options.managedSettingsFile })],
    },
  };
}

export type NodePorts = ReturnType<typeof nodePorts>;
