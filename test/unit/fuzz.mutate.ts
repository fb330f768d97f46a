/**
 * Mutations of the shipped mcp.json fixtures for the fuzz tests (`*.fuzz.test.ts`): the file is
 * held as a tree whose objects are lists of entries (so duplicate keys and "__proto__" survive),
 * mutated at random places, and printed back as JSON text. CI runs each property with its own
 * number of cases; `npm run fuzz:long` runs every property with DSH_FUZZ_RUNS cases.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { parseTree, type Node } from 'jsonc-parser';

export type Tree = null | boolean | number | string | { arr: Tree[] } | { obj: Array<[string, Tree]> };

const ROOT = path.resolve(__dirname, '../..');

/** The number of cases `npm run fuzz:long` asks for (0: each property's own). */
export const FUZZ_RUNS = Number(process.env.DSH_FUZZ_RUNS) || 0;
const FUZZ_SEED = process.env.DSH_FUZZ_SEED === undefined ? undefined : Number(process.env.DSH_FUZZ_SEED);

/** fast-check's parameters for a property that runs `defaultRuns` cases in CI. */
export function fuzzSettings(defaultRuns: number): fc.Parameters<unknown> {
  return { numRuns: FUZZ_RUNS || defaultRuns, ...(FUZZ_SEED === undefined ? {} : { seed: FUZZ_SEED }), endOnFailure: true };
}

/** Every `.vscode/mcp.json` the repository ships (test fixtures and the example). */
export function fixtureFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (name === 'node_modules') continue;
      if (statSync(full).isDirectory()) walk(full);
      else if (name === 'mcp.json' && path.basename(dir) === '.vscode') out.push(full);
    }
  };
  walk(path.join(ROOT, 'test/fixtures'));
  walk(path.join(ROOT, 'examples'));
  return out.sort();
}

function fromNode(node: Node | undefined): Tree {
  if (!node) return null;
  switch (node.type) {
    case 'object':
      return { obj: (node.children ?? []).map((p) => [String(p.children?.[0]?.value), fromNode(p.children?.[1])] as [string, Tree]) };
    case 'array':
      return { arr: (node.children ?? []).map(fromNode) };
    default:
      return node.value as Tree;
  }
}

export function fixtureTrees(files = fixtureFiles()): Tree[] {
  return files.map((f) => fromNode(parseTree(readFileSync(f, 'utf8'), [], { allowTrailingComma: true })));
}

/** The fixtures of the other files VS Code runs servers from (.mcp.json, dev container, workspace file). */
export function sourceFixtureFiles(): string[] {
  const dir = path.join(ROOT, 'test/fixtures/sources');
  return readdirSync(dir).filter((name) => /\.(json|code-workspace)$/.test(name)).map((name) => path.join(dir, name)).sort();
}

/** JSON text of a tree; JSON.stringify writes a lone surrogate as a \uXXXX escape, which parses back to it. */
export function print(tree: Tree): string {
  // Iterative: a mutation may nest thousands of levels.
  let out = '';
  const stack: Array<Tree | { close: string } | { raw: string }> = [tree];
  while (stack.length) {
    const t = stack.pop()!;
    if (t !== null && typeof t === 'object' && 'close' in t) out += t.close;
    else if (t !== null && typeof t === 'object' && 'raw' in t) out += t.raw;
    else if (t !== null && typeof t === 'object' && 'arr' in t) {
      out += '[';
      stack.push({ close: ']' });
      for (let i = t.arr.length - 1; i >= 0; i--) {
        stack.push(t.arr[i]);
        if (i > 0) stack.push({ raw: ',' });
      }
    } else if (t !== null && typeof t === 'object' && 'obj' in t) {
      out += '{';
      stack.push({ close: '}' });
      for (let i = t.obj.length - 1; i >= 0; i--) {
        stack.push(t.obj[i][1]);
        stack.push({ raw: `${JSON.stringify(t.obj[i][0])}:` });
        if (i > 0) stack.push({ raw: ',' });
      }
    } else out += JSON.stringify(t);
  }
  return out;
}

/** Every container and leaf below `holder.arr[0]`, with a setter that replaces it in its parent. */
function places(holder: { arr: Tree[] }): Array<{ get: () => Tree; set: (t: Tree) => void }> {
  const out: Array<{ get: () => Tree; set: (t: Tree) => void }> = [];
  const visit = (t: Tree, set: (t: Tree) => void, depth: number) => {
    out.push({ get: () => t, set });
    if (depth > 40 || t === null || typeof t !== 'object') return;
    if ('arr' in t) t.arr.forEach((c, i) => visit(c, (n) => { t.arr[i] = n; }, depth + 1));
    else t.obj.forEach((e, i) => visit(e[1], (n) => { t.obj[i] = [e[0], n]; }, depth + 1));
  };
  visit(holder.arr[0], (n) => { holder.arr[0] = n; }, 0);
  return out;
}

/** Names, arguments and descriptions that repaint, reverse or hide what is shown (issue 27). */
function HIDDEN_STRINGS(): string[] {
  return [
    'evil\u001b[2J\u001b[1;1H', 'docs\u202etxt.exe', '\u0007\b\u0000', 'x\r\u001b[2K    node', 'ok\u2066x\u2069', 'a\u200bb', '\u2028', '\u0085\u009b31m',
    'tag\u{e0041}\u{e0042}', '\ufe0f', '--import=data:text/javascript,1\r\u001b[2K', 'a\tb\nc', '\u061c\u200e\u200f',
  ];
}

const SPECIAL_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__'];
const FIELD_KEYS = ['servers', 'inputs', 'command', 'args', 'env', 'envFile', 'cwd', 'url', 'headers', 'type', 'id', 'description', 'password', 'options', 'default'];
const SPECIAL_STRINGS = [
  '\ud800', 'a\udc00b', '\udfff\ud800', 'constructor', '__proto__', 'toString', 'prototype', 'stdio', 'http', 'sse', 'promptString', 'pickString',
  'command', '${input:__proto__}', '${input:constructor}', '${env:__proto__}', '${workspaceFolder}', '${command:x}', '', ' ', '..', '../..', '/etc',
  'npx', '-y', 'x'.repeat(40000),
  // Text that acts on a terminal or a dialog instead of showing: controls, ANSI, bidi, zero-width, tags, separators.
  ...HIDDEN_STRINGS(),
];

const wrongType: fc.Arbitrary<Tree> = fc.oneof(
  fc.constantFrom<Tree>(null, true, false, 0, -1, 1.5, 1e308, '', 'x', { arr: [] }, { obj: [] }, { arr: [null] }, { obj: [['a', 1]] }),
  fc.constantFrom(...SPECIAL_STRINGS),
  fc.string({ unit: 'binary', maxLength: 12 }),
).map((t) => structuredClone(t)); // constantFrom hands out one shared instance; mutations must not reach it

function nest(depth: number, leaf: Tree, asObject: boolean): Tree {
  let t = leaf;
  for (let i = 0; i < depth; i++) t = asObject ? { obj: [['k', t]] } : { arr: [t] };
  return t;
}

type Mutation =
  | { kind: 'replace'; at: number; value: Tree }
  | { kind: 'nest'; at: number; depth: number; asObject: boolean }
  | { kind: 'add-key'; at: number; key: string; value: Tree }
  | { kind: 'rename-key'; at: number; index: number; key: string }
  | { kind: 'duplicate'; at: number; index: number; value: Tree }
  | { kind: 'input-id'; at: number; index: number; id: string };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), value: wrongType }),
  fc.record({ kind: fc.constant('nest' as const), at: fc.nat(), depth: fc.oneof(fc.integer({ min: 1, max: 80 }), fc.constantFrom(200, 3000)), asObject: fc.boolean() }),
  fc.record({ kind: fc.constant('add-key' as const), at: fc.nat(), key: fc.oneof(fc.constantFrom(...SPECIAL_KEYS, ...FIELD_KEYS), fc.string({ unit: 'binary', maxLength: 6 })), value: wrongType }),
  fc.record({ kind: fc.constant('rename-key' as const), at: fc.nat(), index: fc.nat(), key: fc.constantFrom(...SPECIAL_KEYS, ...FIELD_KEYS, '\ud800', 'a\udc00', ...HIDDEN_STRINGS()) }),
  fc.record({ kind: fc.constant('duplicate' as const), at: fc.nat(), index: fc.nat(), value: wrongType }),
  fc.record({ kind: fc.constant('input-id' as const), at: fc.nat(), index: fc.nat(), id: fc.constantFrom(...SPECIAL_KEYS) }),
);

/** Every string of the tree, with a setter (object keys excluded). */
function strings(tree: Tree, visit: (value: string, set: (s: string) => void) => void): void {
  const stack: Array<{ t: Tree; set: (t: Tree) => void; depth: number }> = [{ t: tree, set: () => undefined, depth: 0 }];
  while (stack.length) {
    const { t, set, depth } = stack.pop()!;
    if (typeof t === 'string') visit(t, set);
    else if (t !== null && typeof t === 'object' && depth < 100) {
      if ('arr' in t) t.arr.forEach((c, i) => stack.push({ t: c, set: (n) => { t.arr[i] = n; }, depth: depth + 1 }));
      else t.obj.forEach((e, i) => stack.push({ t: e[1], set: (n) => { t.obj[i] = [e[0], n]; }, depth: depth + 1 }));
    }
  }
}

/**
 * Renames one input of the root's `inputs` to `id` (a name Object.prototype has), with every
 * `${input:...}` reference to it: a consistent file whose input records are keyed by that id.
 */
function renameInput(tree: Tree, index: number, id: string): void {
  if (tree === null || typeof tree !== 'object' || !('obj' in tree)) return;
  const list = tree.obj.find(([key]) => key === 'inputs')?.[1];
  if (list === null || typeof list !== 'object' || !('arr' in list)) return;
  const ids = list.arr.flatMap((input) => (input !== null && typeof input === 'object' && 'obj' in input ? input.obj.filter(([k, v]) => k === 'id' && typeof v === 'string').map(([, v]) => v as string) : []));
  if (ids.length === 0) return;
  const old = ids[index % ids.length];
  strings(tree, (value, set) => {
    if (value === old) set(id);
    else if (value.includes(`\${input:${old}}`)) set(value.split(`\${input:${old}}`).join(`\${input:${id}}`));
  });
}

function apply(tree: Tree, mutations: Mutation[]): Tree {
  const holder = { arr: [tree] };
  for (const m of mutations) {
    const all = places(holder);
    const place = all[m.at % all.length];
    const target = place.get();
    const object = target !== null && typeof target === 'object' && 'obj' in target ? target : undefined;
    switch (m.kind) {
      case 'replace': place.set(m.value); break;
      case 'nest': place.set(nest(m.depth, target, m.asObject)); break;
      case 'add-key': object?.obj.push([m.key, m.value]); break;
      case 'rename-key':
        if (object?.obj.length) {
          const i = m.index % object.obj.length;
          object.obj[i] = [m.key, object.obj[i][1]];
        }
        break;
      case 'duplicate':
        if (object?.obj.length) {
          const i = m.index % object.obj.length;
          // The new value goes before or after the original, so either occurrence can be the odd one.
          object.obj.splice(i + (m.index % 2), 0, [object.obj[i][0], m.value]);
        }
        break;
      case 'input-id': renameInput(holder.arr[0], m.index, m.id); break;
    }
  }
  return holder.arr[0];
}

/** A shipped fixture with 1-6 mutations, as JSON text. */
export function mutatedFixture(trees: Tree[]): fc.Arbitrary<string> {
  return fc.tuple(fc.nat({ max: trees.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 6 }))
    .map(([i, mutations]) => print(apply(structuredClone(trees[i]), mutations)));
}
