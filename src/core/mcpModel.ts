import * as z from 'zod/mini';

/**
 * VS Code's `.vscode/mcp.json` as the bridge reads it (fields from VS Code's sources and
 * docs). Objects are not strict: unknown keys are reported separately as `unknown-field`
 * warnings, with the key's own range.
 */

const devOptions = z.object({
  watch: z.optional(z.union([z.string(), z.array(z.string())])),
  debug: z.optional(z.object({ type: z.string() })),
});

const gallery = z.optional(z.union([z.boolean(), z.string(), z.record(z.string(), z.unknown())]));

export const StdioServerEntry = z.object({
  type: z.optional(z.literal('stdio')),
  command: z.string(),
  args: z.optional(z.array(z.string())),
  env: z.optional(z.record(z.string(), z.nullable(z.union([z.string(), z.number()])))),
  envFile: z.optional(z.string()),
  cwd: z.optional(z.string()),
  dev: z.optional(devOptions),
  sandboxEnabled: z.optional(z.boolean()),
  version: z.optional(z.string()),
  gallery,
});
export type StdioServerEntry = z.infer<typeof StdioServerEntry>;

export const RemoteServerEntry = z.object({
  type: z.optional(z.enum(['http', 'sse'])),
  url: z.string(),
  headers: z.optional(z.record(z.string(), z.string())),
  oauth: z.optional(z.object({ clientId: z.optional(z.string()), enterpriseManaged: z.optional(z.boolean()) })),
  dev: z.optional(devOptions),
  version: z.optional(z.string()),
  gallery,
});
export type RemoteServerEntry = z.infer<typeof RemoteServerEntry>;

export const STDIO_KEYS: ReadonlySet<string> = new Set(['type', 'command', 'args', 'env', 'envFile', 'cwd', 'dev', 'sandboxEnabled', 'version', 'gallery']);
export const REMOTE_KEYS: ReadonlySet<string> = new Set(['type', 'url', 'headers', 'oauth', 'dev', 'version', 'gallery']);
export const ROOT_KEYS: ReadonlySet<string> = new Set(['servers', 'inputs', 'sandbox']);

export const PromptStringInput = z.object({
  type: z.literal('promptString'),
  id: z.string(),
  description: z.string(),
  default: z.optional(z.string()),
  password: z.optional(z.boolean()),
});

export const PickStringInput = z.object({
  type: z.literal('pickString'),
  id: z.string(),
  description: z.string(),
  options: z.array(z.union([z.string(), z.object({ label: z.optional(z.string()), value: z.string() })])),
  default: z.optional(z.string()),
});

export const CommandInput = z.object({
  type: z.literal('command'),
  id: z.string(),
  command: z.string(),
  description: z.optional(z.string()),
  args: z.optional(z.unknown()),
});

export const INPUT_SCHEMAS = {
  promptString: PromptStringInput,
  pickString: PickStringInput,
  command: CommandInput,
} as const;

export const INPUT_KEYS: Record<keyof typeof INPUT_SCHEMAS, ReadonlySet<string>> = {
  promptString: new Set(['type', 'id', 'description', 'default', 'password']),
  pickString: new Set(['type', 'id', 'description', 'options', 'default']),
  command: new Set(['type', 'id', 'command', 'description', 'args']),
};

export type InputDefinition =
  | z.infer<typeof PromptStringInput>
  | z.infer<typeof PickStringInput>
  | z.infer<typeof CommandInput>;

export type InputType = InputDefinition['type'];

/** First issue of a failed parse, as a path and a short reason (never the value). */
export function firstIssue(result: { success: boolean; error?: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string; code?: string }> } }):
  { path: Array<string | number>; reason: string } | undefined {
  const issue = result.error?.issues[0];
  if (!issue) return undefined;
  const path = issue.path.filter((p): p is string | number => typeof p === 'string' || typeof p === 'number');
  const where = path.length ? `"${path.join('.')}": ` : '';
  return { path, reason: where + issue.message.replace(/^Invalid input: /, '') };
}
