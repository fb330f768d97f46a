import { parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import type { LineIndex, Range } from './text';

export type { Node } from 'jsonc-parser';

export interface ParsedJsonc {
  root: Node | undefined;
  errors: ParseError[];
}

/** Parses JSONC as VS Code reads its configuration files: comments and trailing commas allowed. */
export function parseJsonc(text: string): ParsedJsonc {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true });
  return { root, errors };
}

export function describeParseError(error: ParseError): string {
  return printParseErrorCode(error.error).replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

export function nodeRange(lines: LineIndex, node: Node): Range {
  return lines.rangeAt(node.offset, node.length);
}

/** The property nodes of an object, in source order, duplicates included. */
export function properties(node: Node | undefined): Array<{ key: string; keyNode: Node; valueNode: Node | undefined; property: Node }> {
  if (!node || node.type !== 'object' || !node.children) return [];
  const out = [];
  for (const property of node.children) {
    const keyNode = property.children?.[0];
    if (!keyNode || typeof keyNode.value !== 'string') continue;
    out.push({ key: keyNode.value as string, keyNode, valueNode: property.children?.[1], property });
  }
  return out;
}

/** The value node of the LAST property with this key (the one a JSON reader keeps). */
export function propertyValue(node: Node | undefined, key: string): Node | undefined {
  let found: Node | undefined;
  for (const p of properties(node)) if (p.key === key) found = p.valueNode;
  return found;
}

export function propertyKeyNode(node: Node | undefined, key: string): Node | undefined {
  let found: Node | undefined;
  for (const p of properties(node)) if (p.key === key) found = p.keyNode;
  return found;
}

export interface DuplicateKey {
  key: string;
  first: Node;
  duplicate: Node;
  /** The object node holding both. */
  container: Node;
}

/** Every key that occurs more than once in one object, anywhere below `node`. */
export function findDuplicateKeys(node: Node | undefined, out: DuplicateKey[] = []): DuplicateKey[] {
  if (!node) return out;
  if (node.type === 'object') {
    const seen = new Map<string, Node>();
    for (const p of properties(node)) {
      const first = seen.get(p.key);
      if (first) out.push({ key: p.key, first, duplicate: p.keyNode, container: node });
      else seen.set(p.key, p.keyNode);
    }
  }
  for (const child of node.children ?? []) findDuplicateKeys(child, out);
  return out;
}

/** A plain JS value of a node; with duplicate keys the last wins, as in JSON.parse. */
export function nodeValue(node: Node | undefined): unknown {
  if (!node) return undefined;
  switch (node.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const p of properties(node)) {
        Object.defineProperty(out, p.key, { value: nodeValue(p.valueNode), enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    case 'array':
      return (node.children ?? []).map(nodeValue);
    default:
      return node.value;
  }
}

/** Walks every string node (keys included) below `node`. */
export function forEachString(node: Node | undefined, visit: (node: Node) => void): void {
  if (!node) return;
  if (node.type === 'string') visit(node);
  for (const child of node.children ?? []) forEachString(child, visit);
}

/** The node at a path of keys and indices below `node` (last duplicate wins, like nodeValue). */
export function nodeAtPath(node: Node | undefined, path: ReadonlyArray<string | number>): Node | undefined {
  let current = node;
  for (const segment of path) {
    if (!current) return undefined;
    if (typeof segment === 'number') current = current.type === 'array' ? current.children?.[segment] : undefined;
    else current = propertyValue(current, segment);
  }
  return current;
}
