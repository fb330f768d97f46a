/**
 * The ports of the use cases: everything a use case reads or writes outside its arguments comes
 * in through one {@link Ports} object (the host store, file access, the environment, the user's
 * home, the clock, the DSH install, MCP server I/O, the policy files). Each face builds it once
 * (`nodePorts()` in core/node/ports.ts) and hands it to every use case it calls; a test builds
 * its own around a temp DSH home. The use cases import the Node adapters as types only (a lint
 * rule), so no I/O of theirs goes around a port.
 */
import type { DeclarationDir, declarationSchemaText } from '../node/declarationDir';
import type { DeclarationLookup } from '../node/declarationLookup';
import type { DshInstallFacts } from '../node/dshSide';
import type { EnvFileResult } from '../node/envFile';
import type { HostStore } from '../node/hostStore';
import type { RowOptions, RowResult } from '../node/mcpRow';
import type { McpClientConfig } from '../mcp/dshRow';
import type { RowProbe, RowProbeOptions } from '../node/probe/probeClient';
import type { ReadResult } from '../node/reader';
import type { SessionRecords } from '../node/sessionRecords';
import type { readImportSources, readImportTarget, removeImportedOriginals, writeImportTarget } from '../node/importFiles';
import type { VscodePolicyFile } from '../node/policyFiles';
import type { readPortablePair, writePortablePair } from '../node/portableFiles';
import type { DshPolicy } from '../policy/dshPolicy';
import type { ManagedRules } from '../policy/managedSettings';
import type { DeclaredServer } from '../declaration/declarationModel';
import type { TemplateLookup } from '../declaration/template';
import type { CommandResolver } from '../lsp/lspCommand';
import type { SkillFs } from '../skills/skillFileAccess';

/** The host store (`<dshHome>/bridge/`) as the use cases use it. */
export type HostStorePort = Pick<HostStore,
  | 'dshHome' | 'signingKey' | 'readSigningKey' | 'trustMode' | 'readFolder' | 'setInput' | 'approve' | 'recordExport'
  | 'exportSeq' | 'revokeApprovalsExcept' | 'probedServers' | 'recordProbes' | 'skillTrust' | 'acceptedDefinitions' | 'acceptTool' | 'acceptSkill'
  | 'slowStarts' | 'recordSlowStarts'
  | 'trustSkillRoot' | 'inputStoreState' | 'bridgeDir'>;

/** Reading and writing files: always through the confined, size-capped readers and the `.dsh` writer. */
export interface FilePort {
  /** A file of a workspace folder: a regular file whose real path stays inside the folder, at most `maxBytes`. */
  readWorkspaceFile(folder: string, relativePath: string, maxBytes?: number): Promise<ReadResult>;
  /** A regular file anywhere (the `.code-workspace` file), at most `maxBytes`. */
  readRegularFile(file: string, maxBytes: number): Promise<ReadResult>;
  /** The names under `<folder>/.devcontainer` that hold a `devcontainer.json`. */
  devcontainerSubfolders(folder: string): Promise<string[]>;
  /** The real path, or the path resolved when it does not exist. */
  realpath(file: string): Promise<string>;
  /** An envFile as the export pins it and DSH reads it. */
  loadEnvFile(file: string, folder: string): Promise<EnvFileResult>;
  /** The nearest folder at or above `cwd` holding `.dsh/declaration.json` (up to the project root, never above `home`). */
  findDeclarationFolder(cwd: string, home: string): Promise<DeclarationLookup>;
  /** `<folder>/.dsh`, created if needed and held open for confined writes. */
  openDeclarationDir(folder: string): Promise<DeclarationDir>;
  /** The declaration's JSON schema text as shipped (undefined when it cannot be read). */
  declarationSchemaText: typeof declarationSchemaText;
  /** Skill discovery and hashing. */
  readonly skills: SkillFs;
}

/**
 * The import's files: a client's MCP files, `.vscode/mcp.json`, written only as reviewed
 * (`importFiles` of core/node/importFiles.ts). Apart from {@link Ports}: only the faces that import
 * load it (the DSH plugin never does).
 */
export interface ImportFilePort {
  readSources: typeof readImportSources;
  readTarget: typeof readImportTarget;
  writeTarget: typeof writeImportTarget;
  removeOriginals: typeof removeImportedOriginals;
}

/**
 * `.vscode/mcp.json` and `.mcp.json` of a folder, for the move into the portable file
 * (`portableFiles` of core/node/portableFiles.ts): read, and written only as reviewed.
 */
export interface PortableFilePort {
  readPair: typeof readPortablePair;
  writePair: typeof writePortablePair;
}

/** The MCP server policy files of this machine (never a workspace's). */
export interface PolicyPort {
  /** Where VS Code reads its policy file (Linux), when a face names none. */
  readonly vscodePolicyFile: string;
  /** VS Code's policy file: its MCP policies and the digest of its bytes. */
  readVscodePolicyFile(file: string): Promise<VscodePolicyFile>;
  /** The DSH side's policy in force (the administrator's files, then the user's in the DSH home, then the managed settings' channels). */
  readDshPolicy(): Promise<DshPolicy>;
  /** GitHub Copilot's managed settings: each readable channel that sets MCP rules. */
  readManagedSettings(): Promise<ManagedRules[]>;
  /**
   * The machine's policy files these reads open (VS Code's, the DSH side's administrator file, the
   * managed settings' files and macOS plists; not the Windows registry): a face that keeps a plan
   * reads their stamps again, since no event need come when one changes.
   */
  files(): string[];
}

/** The DSH install on this machine (the doctor's facts). */
export interface DshInstallPort {
  inspect(profile: string, bundleMatches?: (installedDir: string) => boolean): DshInstallFacts;
  /** The profiles of the DSH home that load the bridge's bundle, sorted. */
  bridgeProfiles(): string[];
  /** The profile `dsh-bridge dsh install` sets up without --profile (`headless`). */
  readonly defaultProfile: string;
}

/** Starting an MCP server as DSH would: its row (envFile read, cwd resolved now) and one probe of it. */
export interface McpPort {
  buildRow(server: DeclaredServer, folder: string, lookup: TemplateLookup, options?: RowOptions): Promise<RowResult>;
  probeRow(row: McpClientConfig, options: RowProbeOptions): Promise<RowProbe>;
}

export interface Ports {
  /** The DSH home whose `bridge/` store {@link store} is. */
  readonly dshHome: string;
  readonly store: HostStorePort;
  /** What the DSH plugin's sessions were planned and got, per folder (the plugin writes, the faces read). */
  readonly sessions: Pick<SessionRecords, 'list' | 'record'>;
  readonly files: FilePort;
  /** The environment of the process the use case speaks for (DSH's own in the plugin): `${env:}` values, PATH. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The user's home folder: a session's declaration is never looked for above it. */
  readonly home: string;
  /** The working directory relative paths of the environment resolve against (`$DSH_AGENTS_HOME`). */
  readonly cwd: string;
  /** Milliseconds since the epoch. */
  now(): number;
  /** PATH lookup of a language server's command. */
  readonly resolveCommand: CommandResolver;
  readonly dshInstall: DshInstallPort;
  readonly mcp: McpPort;
  readonly policy: PolicyPort;
}
