import type { Node } from 'jsonc-parser';
import * as z from 'zod/mini';

/**
 * VS Code's `.vscode/mcp.json` as the bridge reads it (fields from VS Code's sources and
 * docs). Objects are not strict: unknown keys are reported separately as `unknown-field`
 * warnings, with the key's own range.
 */

/**
 * A server entry's shape, checked on the parse tree itself (no plain-object copy, no second pass):
 * each check takes the node of one field (`undefined` when absent) and says whether it fits.
 * Fields: VS Code's stdio and remote server entries (`type` is decided before).
 */
type NodeCheck = (node: Node | undefined, path: Array<string | number>) => Array<string | number> | undefined;

const optional = (check: NodeCheck): NodeCheck => (node, path) => (node === undefined ? undefined : check(node, path));
const required = (check: NodeCheck): NodeCheck => (node, path) => (node === undefined ? path : check(node, path));
const ofType = (type: Node['type']): NodeCheck => (node, path) => (node?.type === type ? undefined : path);
const str = ofType('string');
const bool = ofType('boolean');
const anyOf = (...types: Array<Node['type']>): NodeCheck => (node, path) => (node && types.includes(node.type) ? undefined : path);
const arrayOf = (item: NodeCheck): NodeCheck => (node, path) => {
  if (node?.type !== 'array') return path;
  const items = node.children ?? [];
  for (let i = 0; i < items.length; i++) {
    const bad = item(items[i], [...path, i]);
    if (bad) return bad;
  }
  return undefined;
};
/** An object's values (the last of duplicate keys, as a JSON reader keeps). */
const recordOf = (item: NodeCheck): NodeCheck => (node, path) => {
  if (node?.type !== 'object') return path;
  for (const property of node.children ?? []) {
    const key = property.children?.[0]?.value;
    if (typeof key !== 'string' || lastValue(node, key) !== property.children?.[1]) continue;
    const bad = item(property.children?.[1], [...path, key]);
    if (bad) return bad;
  }
  return undefined;
};
/** An object with these fields (other keys are allowed: they are reported as unknown fields elsewhere). */
const shape = (fields: Record<string, NodeCheck>): NodeCheck => (node, path) => {
  if (node?.type !== 'object') return path;
  for (const [key, check] of Object.entries(fields)) {
    const bad = check(lastValue(node, key), [...path, key]);
    if (bad) return bad;
  }
  return undefined;
};

function lastValue(node: Node, key: string): Node | undefined {
  const children = node.children ?? [];
  for (let i = children.length - 1; i >= 0; i--) if (children[i].children?.[0]?.value === key) return children[i].children?.[1];
  return undefined;
}

/** Fits when one of the checks fits; a union's issue is at the union's own path. */
const union = (...checks: NodeCheck[]): NodeCheck => (node, path) => (checks.some((c) => c(node, path) === undefined) ? undefined : path);

const devOptions = optional(shape({
  watch: optional(union(str, arrayOf(str))),
  debug: optional(shape({ type: required(str) })),
}));
const gallery = optional(anyOf('boolean', 'string', 'object'));

const STDIO_FIELDS: Record<string, NodeCheck> = {
  command: required(str),
  args: optional(arrayOf(str)),
  env: optional(recordOf(anyOf('string', 'number', 'null'))),
  envFile: optional(str),
  cwd: optional(str),
  dev: devOptions,
  sandboxEnabled: optional(bool),
  version: optional(str),
  gallery,
};

const REMOTE_FIELDS: Record<string, NodeCheck> = {
  url: required(str),
  headers: optional(recordOf(str)),
  oauth: optional(shape({ clientId: optional(str), enterpriseManaged: optional(bool) })),
  dev: devOptions,
  version: optional(str),
  gallery,
};

/**
 * The first field of a server entry (an object node) that does not fit its kind, as a path and
 * a short reason (never the value); undefined when the entry fits.
 */
export function serverShapeIssue(node: Node, kind: 'stdio' | 'remote'): { path: Array<string | number>; reason: string } | undefined {
  const fields = kind === 'stdio' ? STDIO_FIELDS : REMOTE_FIELDS;
  for (const [key, check] of Object.entries(fields)) {
    const bad = check(lastValue(node, key), [key]);
    if (bad) return { path: bad, reason: `"${bad.join('.')}": Invalid input` };
  }
  return undefined;
}

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
