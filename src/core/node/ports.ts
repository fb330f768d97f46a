/**
 * The real ports of the use cases (their interface: core/app/ports.ts), built once per face:
 * the CLI per run, the extension per DSH home, the DSH plugin per load. This is the one place a
 * {@link HostStore} is constructed.
 */
import * as os from 'node:os';
import { DeclarationDir, declarationSchemaText } from './declarationDir';
import { findDeclarationFolder } from './declarationLookup';
import { inspectDshInstall } from './dshSide';
import { loadEnvFile } from './envFile';
import { devcontainerSubfolders, realpathOrResolved } from './folderFiles';
import { HostStore, type HostStoreOptions } from './hostStore';
import { buildRow } from './mcpRow';
import { createPathResolver } from './commandPath';
import { readRegularFile, readWorkspaceFile } from './reader';
import { nodeSkillFs } from './skillFs';

export interface NodePortsOptions extends HostStoreOptions {
  dshHome: string;
  /** Default: this process's environment. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Default: os.homedir(). */
  home?: string;
  /** Default: process.cwd(). */
  cwd?: string;
}

export function nodePorts(options: NodePortsOptions) {
  const env = options.env ?? process.env;
  return {
    dshHome: options.dshHome,
    store: new HostStore(options.dshHome, { log: options.log, onWrite: options.onWrite }),
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
    },
    mcp: {
      buildRow,
      // The probe's MCP client is evaluated on the first probe only (the bundler keeps a dynamic import lazy).
      probeRow: async (...args: Parameters<typeof import('./probe/probeClient').probeRow>) => (await import('./probe/probeClient.js')).probeRow(...args),
    },
  };
}

export type NodePorts = ReturnType<typeof nodePorts>;
