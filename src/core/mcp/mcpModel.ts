import type { Node } from 'jsonc-parser';
import * as z from 'zod/mini';

/**
 * VS Code's `.vscode/mcp.json` as the bridge reads it (fields from VS Code's sources and
 * docs). Objects are not strict: unknown keys are reported separately as `unknown-field`
 * warnings, with the key's own range.
 */

/**
 * A server entry's shape, checked on the parse tree itself (no plain-object copy, no second pass):
 * each check takes the node of one field (`undefined` when absent) and answers `undefined` when it
 * fits, else where it does not, as the path below that node (`HERE`: the node itself). Nothing is
 * made while an entry fits: the path is put together only for the entry that does not.
 * Fields: VS Code's stdio and remote server entries (`type` is decided before).
 */
type Misfit = ReadonlyArray<string | number>;
type NodeCheck = (node: Node | undefined) => Misfit | undefined;
const HERE: Misfit = Object.freeze([]);

const optional = (check: NodeCheck): NodeCheck => (node) => (node === undefined ? undefined : check(node));
const required = (check: NodeCheck): NodeCheck => (node) => (node === undefined ? HERE : check(node));
const ofType = (type: Node['type']): NodeCheck => (node) => (node?.type === type ? undefined : HERE);
const str = ofType('string');
const bool = ofType('boolean');
const anyOf = (...types: Array<Node['type']>): NodeCheck => (node) => (node && types.includes(node.type) ? undefined : HERE);
const arrayOf = (item: NodeCheck): NodeCheck => (node) => {
  if (node?.type !== 'array') return HERE;
  const items = node.children ?? [];
  for (let i = 0; i < items.length; i++) {
    const bad = item(items[i]);
    if (bad) return [i, ...bad];
  }
  return undefined;
};
/** An object's values (the last of duplicate keys, as a JSON reader keeps). */
const recordOf = (item: NodeCheck): NodeCheck => (node) => {
  if (node?.type !== 'object') return HERE;
  const properties = node.children ?? [];
  for (let i = 0; i < properties.length; i++) {
    const key = properties[i].children?.[0]?.value;
    if (typeof key !== 'string' || !keepsValue(properties, i, key)) continue;
    const bad = item(properties[i].children?.[1]);
    if (bad) return [key, ...bad];
  }
  return undefined;
};
/** An object with these fields (other keys are allowed: they are reported as unknown fields elsewhere). */
const shape = (fields: Record<string, NodeCheck>): NodeCheck => {
  const entries = Object.entries(fields);
  return (node) => {
    if (node?.type !== 'object') return HERE;
    for (const [key, check] of entries) {
      const bad = check(lastValue(node, key));
      if (bad) return [key, ...bad];
    }
    return undefined;
  };
};

function lastValue(node: Node, key: string): Node | undefined {
  const children = node.children ?? [];
  for (let i = children.length - 1; i >= 0; i--) if (children[i].children?.[0]?.value === key) return children[i].children?.[1];
  return undefined;
}

/** True when property `i` holds the value a JSON reader keeps for its key (that of the last property with the key). */
function keepsValue(properties: Node[], i: number, key: string): boolean {
  let last = i;
  for (let j = i + 1; j < properties.length; j++) if (properties[j].children?.[0]?.value === key) last = j;
  return properties[last].children?.[1] === properties[i].children?.[1];
}

/** Fits when one of the checks fits; a union's misfit is the union's own node. */
const union = (...checks: NodeCheck[]): NodeCheck => (node) => (checks.some((c) => c(node) === undefined) ? undefined : HERE);

const devOptions = optional(shape({
  watch: optional(union(str, arrayOf(str))),
  debug: optional(shape({ type: required(str) })),
}));
const gallery = optional(anyOf('boolean', 'string', 'object'));

const STDIO_FIELDS: ReadonlyArray<[string, NodeCheck]> = Object.entries({
  command: required(str),
  args: optional(arrayOf(str)),
  env: optional(recordOf(anyOf('string', 'number', 'null'))),
  envFile: optional(str),
  cwd: optional(str),
  dev: devOptions,
  sandboxEnabled: optional(bool),
  version: optional(str),
  gallery,
});

const REMOTE_FIELDS: ReadonlyArray<[string, NodeCheck]> = Object.entries({
  url: required(str),
  headers: optional(recordOf(str)),
  oauth: optional(shape({ clientId: optional(str), enterpriseManaged: optional(bool) })),
  dev: devOptions,
  version: optional(str),
  gallery,
});

/**
 * The first field of a server entry (an object node) that does not fit its kind: the node that
 * does not fit (undefined when it is missing) and a short reason naming its path (never the
 * value); undefined when the entry fits.
 */
export function serverShapeIssue(node: Node, kind: 'stdio' | 'remote'): { node: Node | undefined; reason: string } | undefined {
  const fields = kind === 'stdio' ? STDIO_FIELDS : REMOTE_FIELDS;
  for (const [key, check] of fields) {
    const field = lastValue(node, key);
    const bad = check(field);
    if (bad) return { node: nodeAt(field, bad), reason: `"${[key, ...bad].join('.')}": Invalid input` };
  }
  return undefined;
}

/** The node at a misfit's path below `node` (the last of duplicate keys). */
function nodeAt(node: Node | undefined, path: Misfit): Node | undefined {
  let current = node;
  for (const segment of path) {
    if (!current) return undefined;
    current = typeof segment === 'number' ? (current.type === 'array' ? current.children?.[segment] : undefined) : current.type === 'object' ? lastValue(current, segment) : undefined;
  }
  return current;
}

export const STDIO_KEYS: ReadonlySet<string> = new Set(['type', 'command', 'args', 'env', 'envFile', 'cwd', 'dev', 'sandboxEnabled', 'version', 'gallery']);
export const REMOTE_KEYS: ReadonlySet<string> = new Set(['type', 'url', 'headers', 'oauth', 'dev', 'version', 'gallery']);
export const ROOT_KEYS: ReadonlySet<string> = new Set(['servers', 'inputs', 'sandbox']);

const PromptStringInput = z.object({
  type: z.literal('promptString'),
  id: z.string(),
  description: z.string(),
  default: z.optional(z.string()),
  password: z.optional(z.boolean()),
});

const PickStringInput = z.object({
  type: z.literal('pickString'),
  id: z.string(),
  description: z.string(),
  options: z.array(z.union([z.string(), z.object({ label: z.optional(z.string()), value: z.string() })])),
  default: z.optional(z.string()),
});

const CommandInput = z.object({
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
