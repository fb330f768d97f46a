import * as z from 'zod/mini';
import { ToolChoiceSchema, ToolPinSchema } from './toolsModel';

/** The zod model of `.dsh/declaration.json` (version 1). See docs/declaration.md. */

export const DECLARATION_VERSION = 1;
export const DECLARATION_PATH = '.dsh/declaration.json';
export const DECLARATION_SCHEMA_ID = 'urn:dsh-bridge:declaration:1';
/**
 * `$schema` of the declaration: the schema is written beside it (machine-local like the
 * declaration), so any JSON editor validates it offline; a remote URL would be fetched, or
 * flagged as unloadable, by VS Code.
 */
export const DECLARATION_SCHEMA_REF = './declaration.schema.json';
export const DECLARATION_SCHEMA_PATH = '.dsh/declaration.schema.json';

const templatePart = z.union([
  z.string(),
  z.strictObject({ input: z.string().check(z.minLength(1)) }),
  z.strictObject({ env: z.string().check(z.minLength(1)) }),
]);
/** A plain string is a literal (never scanned again); an array is a template of literal and reference parts. */
const TemplateSchema = z.union([z.string(), z.array(templatePart)]);

const ReconnectSchema = z.strictObject({
  enabled: z.boolean(),
  initialDelayMs: z.int().check(z.minimum(1), z.maximum(2147483647)),
  maxDelayMs: z.int().check(z.minimum(1), z.maximum(2147483647)),
  maxAttempts: z.int().check(z.minimum(1)),
});
export type Reconnect = z.infer<typeof ReconnectSchema>;

export const DSH_DEFAULTS = {
  toolCallTimeoutMs: 60000,
  failOnStartupError: false,
  reconnect: { enabled: true, initialDelayMs: 500, maxDelayMs: 30000, maxAttempts: 10 } as Reconnect,
};

const sha256PinSchema = z.string().check(z.regex(/^sha256:[0-9a-f]{64}$/));
const serverNameSchema = z.string().check(z.regex(/^[A-Za-z0-9_-]{1,32}$/));

/**
 * What DSH may offer of a server's tools: `choice` (the `dsh.tools` choice, every settings layer
 * only narrowing; absent: every tool) and `pins` (raw tool name -> the pin of its definition from
 * the last probe; absent: never probed, tools are offered as the server lists them). Not part of
 * the server's launch `pin`: choosing or re-probing tools does not revoke an approval to start it.
 */
const DeclaredToolsSchema = z.strictObject({
  choice: z.optional(ToolChoiceSchema),
  pins: z.optional(z.record(z.string(), ToolPinSchema)),
});
export type DeclaredTools = z.infer<typeof DeclaredToolsSchema>;

const commonServerFields = {
  name: z.string(),
  serverName: serverNameSchema,
  toolCallTimeoutMs: z.int().check(z.minimum(1), z.maximum(2147483647)),
  failOnStartupError: z.boolean(),
  reconnect: ReconnectSchema,
  inputRefs: z.array(z.string()),
  envRefs: z.array(z.string()),
  /**
   * The file that defines the server, when it is not `source.path` (`.vscode/mcp.json`): `.mcp.json`,
   * `.devcontainer/devcontainer.json`, or the absolute path of the `.code-workspace` file. Covered by the pin.
   */
  source: z.optional(z.string().check(z.minLength(1))),
  pin: sha256PinSchema,
  tools: z.optional(DeclaredToolsSchema),
};

const StdioDeclaredServerSchema = z.strictObject({
  ...commonServerFields,
  transport: z.literal('stdio'),
  command: TemplateSchema,
  args: z.array(TemplateSchema),
  env: z.record(z.string(), TemplateSchema),
  cwd: TemplateSchema,
  envFile: z.optional(TemplateSchema),
  /** Hex SHA-256 of the envFile's bytes at export: its content is signed, a change makes the declaration stale. */
  envFileSha256: z.optional(z.string().check(z.regex(/^[0-9a-f]{64}$/))),
  /** The variables the envFile sets (names only), for the approval review. */
  envFileNames: z.optional(z.array(z.string())),
});

const HttpDeclaredServerSchema = z.strictObject({
  ...commonServerFields,
  transport: z.literal('streamable-http'),
  url: TemplateSchema,
  headers: z.record(z.string(), TemplateSchema),
});

const DeclaredServerSchema = z.discriminatedUnion('transport', [StdioDeclaredServerSchema, HttpDeclaredServerSchema]);
export type StdioDeclaredServer = z.infer<typeof StdioDeclaredServerSchema>;
export type HttpDeclaredServer = z.infer<typeof HttpDeclaredServerSchema>;
export type DeclaredServer = z.infer<typeof DeclaredServerSchema>;

const DeclaredInputSchema = z.strictObject({
  id: z.string(),
  type: z.enum(['promptString', 'pickString', 'command']),
  description: z.string(),
  password: z.boolean(),
});
export type DeclaredInput = z.infer<typeof DeclaredInputSchema>;

const RejectedServerSchema = z.strictObject({ name: z.string(), codes: z.array(z.string()) });
export type RejectedServer = z.infer<typeof RejectedServerSchema>;

const positiveInt = z.int().check(z.minimum(1));
const timerMs = z.int().check(z.minimum(1), z.maximum(2147483647));

/**
 * One entry of `lsp.servers`: `dsh.lsp.servers` normalized as DSH's `dsh-lsp-stdio` row takes it.
 * `env` values are templates: a credential-named variable is a `[{"env": NAME}]` reference.
 */
const DeclaredLspServerSchema = z.strictObject({
  command: z.string().check(z.minLength(1)),
  args: z.array(z.string()),
  env: z.record(z.string(), TemplateSchema),
  /** Keys normalized: lowercase with a leading dot. */
  extensionToLanguage: z.record(z.string().check(z.regex(/^\.[^./\\]+$/)), z.string().check(z.minLength(1))),
  /** Passed to the server as given in the settings (`null` when unset). */
  initializationOptions: z.unknown(),
  configuration: z.unknown(),
  maxMessageBytes: positiveInt,
  maxStderrBytes: positiveInt,
  maxDocumentBytes: positiveInt,
  shutdownTimeoutMs: timerMs,
  killGraceMs: timerMs,
});
export type DeclaredLspServer = z.infer<typeof DeclaredLspServerSchema>;

/** `lsp`: present when `dsh.lsp.servers` is configured; `pin` covers `{servers, registersAll}`. */
const LspSectionSchema = z.strictObject({
  servers: z.record(z.string(), DeclaredLspServerSchema),
  registersAll: z.boolean(),
  pin: sha256PinSchema,
});
export type LspDeclarationSection = z.infer<typeof LspSectionSchema>;

/** DSH's `source` of a file skill root (rank 250 runtime and 600 bundled are not file roots). */
const SkillRootKindSchema = z.enum(['project-dsh', 'project-agents', 'custom', 'user-dsh', 'user-agents']);
export type SkillRootKind = z.infer<typeof SkillRootKindSchema>;
const SkillTrustStateSchema = z.enum(['trusted', 'untrusted', 'changed']);
export type SkillTrustState = z.infer<typeof SkillTrustStateSchema>;

const SkillsDeclarationRootSchema = z.strictObject({
  /** Absolute path of the root. */
  path: z.string().check(z.minLength(1)),
  kind: SkillRootKindSchema,
  rank: positiveInt,
  trust: SkillTrustStateSchema,
  /** `sha256:<hex>` of the root's content, or null when the root is too large to pin (never trusted). */
  pin: z.nullable(sha256PinSchema),
  /** Names of the skills DSH keeps from this root (winners and shadowed), sorted. */
  skills: z.array(z.string()),
});
export type SkillsDeclarationRoot = z.infer<typeof SkillsDeclarationRootSchema>;

/** `skills`: every existing skill root in DSH's order (an empty list: no root exists). */
const SkillsSectionSchema = z.strictObject({ roots: z.array(SkillsDeclarationRootSchema) });
export type SkillsDeclaration = z.infer<typeof SkillsSectionSchema>;

export const DeclarationSchema = z.strictObject({
  $schema: z.string(),
  version: z.literal(DECLARATION_VERSION),
  generator: z.strictObject({ name: z.string(), version: z.string() }),
  folder: z.string(),
  /** `content`: the pin of what the file gives a session (core/mcp/sources.ts sourceContentDigest); freshness compares it, `sha256` is the record of the bytes read. */
  source: z.strictObject({ path: z.string(), sha256: z.string().check(z.regex(/^[0-9a-f]{64}$/)), content: z.optional(z.string().check(z.regex(/^[0-9a-f]{64}$/))) }),
  /**
   * Every other file VS Code would run servers from that the export looked at, with the hex SHA-256
   * of its bytes, or null when it did not exist: any change (an edit, a removal, a new file) makes the declaration stale.
   */
  sources: z.optional(z.array(z.strictObject({
    path: z.string().check(z.minLength(1)), sha256: z.nullable(z.string().check(z.regex(/^[0-9a-f]{64}$/))), content: z.optional(z.string().check(z.regex(/^[0-9a-f]{64}$/))),
  }))),
  /**
   * The effective value of VS Code's `chat.mcp.access` at the export, written when it is not `all`
   * (the default): it decides whether `.mcp.json` is read, so a change of it makes the declaration stale.
   */
  mcpAccess: z.optional(z.enum(['all', 'registry', 'none'])),
  /**
   * The editor policy the export applied (docs/policy.md): `digest` of its server rules
   * (`chat.mcp.allowedServers`, `deniedServers`, `allowManagedServersOnly`), `managed`: the digest
   * of GitHub Copilot's managed MCP rules of every channel, and VS Code's policy file where it was
   * read (`sha256` null: absent). Written when any is there; a change of any makes the declaration
   * stale (DSH still mounts one stale by the managed settings alone: it applies them at mount).
   */
  policy: z.optional(z.strictObject({
    digest: z.optional(sha256PinSchema),
    managed: z.optional(sha256PinSchema),
    file: z.optional(z.strictObject({ path: z.string().check(z.minLength(1)), sha256: z.nullable(z.string().check(z.regex(/^[0-9a-f]{64}$/))) })),
  })),
  /**
   * The settings files the export read the session settings from (`dsh.tools`, `dsh.lsp.servers`,
   * `dsh.skills.customRoots`, `dsh.export.*`): `path` (absolute, or relative to the folder), the
   * `layer` it is, and `sha256:` of each of these settings' value in it (none: it sets none or does
   * not exist). Any change of one of them makes the declaration stale.
   */
  settingsFiles: z.optional(z.array(z.strictObject({
    path: z.string().check(z.minLength(1)),
    layer: z.enum(['user', 'workspace', 'folder']),
    settings: z.record(z.string(), sha256PinSchema),
  }))),
  inputs: z.array(DeclaredInputSchema),
  servers: z.array(DeclaredServerSchema),
  rejected: z.array(RejectedServerSchema),
  lsp: z.optional(LspSectionSchema),
  skills: z.optional(SkillsSectionSchema),
  /** This folder's export count in the host store when it was written; an older one is a rollback. */
  exportSeq: z.optional(z.int().check(z.minimum(1))),
  digest: sha256PinSchema,
  signature: z.optional(z.string()),
});
export type Declaration = z.infer<typeof DeclarationSchema>;
/** The optional sections (lsp, skills), covered by the digest and the signature like the rest. */
export type DeclarationSections = Pick<Declaration, 'lsp' | 'skills' | 'settingsFiles'>;

/** What `verify` says of a folder's declaration: the contract the faces show and the DSH side enforces. */
export type VerifyCode = 'rollback' | 'missing' | 'unreadable' | 'unsigned' | 'bad-signature' | 'tampered' | 'wrong-folder' | 'stale';

export interface VerifyResult {
  ok: boolean;
  /**
   * `editorOnly`: found only through the editor's settings (`chat.mcp.access`), which the DSH side
   * cannot see: the declaration is stale for the editor and the CLI, but DSH still mounts it.
   * `enforcedAtMount`: GitHub Copilot's managed settings changed since the export: stale for every
   * face, yet DSH still mounts it, as it applies the managed settings in force at mount itself.
   * `setting` and `file`: the setting (and the settings file) whose change makes it stale;
   * `changed`: any other file whose change makes it stale (an MCP file, an envFile, VS Code's policy file).
   */
  reasons: Array<{ code: VerifyCode; message: string; editorOnly?: true; enforcedAtMount?: true; setting?: string; file?: string; changed?: string }>;
  declaration?: Declaration;
}
