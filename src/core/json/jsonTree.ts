import { createScanner, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import type { LineIndex, Range } from './text';

export type { Node } from 'jsonc-parser';

export interface ParsedJsonc {
  root: Node | undefined;
  errors: ParseError[];
  /** Set when the text nests deeper than MAX_JSON_DEPTH: nothing was parsed (root undefined). */
  tooDeep?: { offset: number; length: number };
}

/**
 * Deepest nesting of objects and arrays any file of the bridge may have. The parser and every
 * tree walk recurse, so depth is checked first, by a flat scan, before anything recursive runs.
 */
export const MAX_JSON_DEPTH = 64;

/** The first `{` or `[` that opens one level more than `limit`, found without recursion; undefined when none. */
function findTooDeep(text: string, limit = MAX_JSON_DEPTH): { offset: number; length: number } | undefined {
  const scanner = createScanner(text, false);
  let depth = 0;
  for (let token = scanner.scan(); token !== TOKEN_EOF; token = scanner.scan()) {
    if (token === TOKEN_OPEN_BRACE || token === TOKEN_OPEN_BRACKET) {
      if (++depth > limit) return { offset: scanner.getTokenOffset(), length: 1 };
    } else if ((token === TOKEN_CLOSE_BRACE || token === TOKEN_CLOSE_BRACKET) && depth > 0) {
      depth--;
    }
  }
  return undefined;
}

// jsonc-parser's SyntaxKind is a const enum, which isolatedModules cannot read.
const TOKEN_OPEN_BRACE = 1;
const TOKEN_CLOSE_BRACE = 2;
const TOKEN_OPEN_BRACKET = 3;
const TOKEN_CLOSE_BRACKET = 4;
const TOKEN_EOF = 17;

/** Parses JSONC as VS Code reads its configuration files: comments and trailing commas allowed. */
export function parseJsonc(text: string): ParsedJsonc {
  const tooDeep = findTooDeep(text);
  if (tooDeep) return { root: undefined, errors: [], tooDeep };
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

/** The property node of the LAST property with this key (the one a JSON reader keeps). */
function lastProperty(node: Node | undefined, key: string): Node | undefined {
  if (!node || node.type !== 'object' || !node.children) return undefined;
  for (let i = node.children.length - 1; i >= 0; i--) {
    const property = node.children[i];
    if (property.children?.[0]?.value === key) return property;
  }
  return undefined;
}

export function propertyValue(node: Node | undefined, key: string): Node | undefined {
  return lastProperty(node, key)?.children?.[1];
}

export function propertyKeyNode(node: Node | undefined, key: string): Node | undefined {
  return lastProperty(node, key)?.children?.[0];
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
  const children = node.children;
  if (node.type === 'object' && children && children.length > 1) {
    // Small objects (nearly all) are compared pairwise: no Map to allocate and collect.
    const keyOf = (i: number) => children[i].children?.[0];
    if (children.length <= 12) {
      for (let i = 1; i < children.length; i++) {
        const key = keyOf(i)?.value;
        if (typeof key !== 'string') continue;
        for (let j = 0; j < i; j++) {
          if (keyOf(j)?.value === key) {
            out.push({ key, first: keyOf(j)!, duplicate: keyOf(i)!, container: node });
            break;
          }
        }
      }
    } else {
      const seen = new Map<string, Node>();
      for (let i = 0; i < children.length; i++) {
        const keyNode = keyOf(i);
        if (!keyNode || typeof keyNode.value !== 'string') continue;
        const first = seen.get(keyNode.value);
        if (first) out.push({ key: keyNode.value, first, duplicate: keyNode, container: node });
        else seen.set(keyNode.value, keyNode);
      }
    }
  }
  if (children) for (const child of children) if (child.children) findDuplicateKeys(child, out);
  return out;
}

/** A plain JS value of a node; with duplicate keys the last wins, as in JSON.parse. */
export function nodeValue(node: Node | undefined): unknown {
  if (!node) return undefined;
  switch (node.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const property of node.children ?? []) {
        const key = property.children?.[0]?.value;
        if (typeof key !== 'string') continue;
        const value = nodeValue(property.children?.[1]);
        // "__proto__" must become an own property, not the object's prototype.
        if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
        else out[key] = value;
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

// jsonc-parser's SyntaxKind is a const enum, which isolatedModules cannot read.
const COMMA_TOKEN = 5;
const EOF_TOKEN = 17;

/** Offset of the first comma token in [from, to), skipping comments; -1 if none. */
export function commaBetween(text: string, from: number, to: number): number {
  const scanner = createScanner(text, false);
  scanner.setPosition(from);
  for (let kind = scanner.scan(); kind !== EOF_TOKEN && scanner.getTokenOffset() < to; kind = scanner.scan()) {
    if (kind === COMMA_TOKEN) return scanner.getTokenOffset();
  }
  return -1;
}
