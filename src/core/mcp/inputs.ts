import { hasLoneSurrogate } from '../json/canonicalJson';
import { forEachString, nodeAtPath, nodeValue, properties, propertyValue, type Node } from '../json/jsonTree';
import type { DeclaredInput, DeclaredServer } from '../declaration/declarationModel';
import { INPUT_KEYS, INPUT_SCHEMAS, firstIssue, type InputDefinition, type InputType } from './mcpModel';
import { LONE_SURROGATE, type SourceProblems } from './sourceProblems';

/** An input of the file's `inputs`, as read: `valid` false when its definition has a problem. */
export interface InputInfo {
  id: string;
  type: InputType | undefined;
  description: string;
  password: boolean;
  valid: boolean;
  node: Node;
}

/** The file's `inputs` by id, each definition checked (problems at the offending node). */
export function readInputs(inputsNode: Node | undefined, report: SourceProblems): Map<string, InputInfo> {
  const inputs = new Map<string, InputInfo>();
  if (!inputsNode) return inputs;
  if (inputsNode.type !== 'array') {
    report.add('invalid-input', report.range(inputsNode), { reason: '"inputs" must be an array' });
    return inputs;
  }
  for (const node of inputsNode.children ?? []) {
    const value = nodeValue(node) as Record<string, unknown>;
    const id = node.type === 'object' && typeof value.id === 'string' ? value.id : undefined;
    if (id === undefined) {
      report.add('invalid-input', report.range(node), { reason: 'an input needs a string "id"' });
      continue;
    }
    // Own keys only: a type of "constructor" or "__proto__" must not reach Object.prototype.
    const type = typeof value.type === 'string' && Object.hasOwn(INPUT_SCHEMAS, value.type) ? (value.type as InputType) : undefined;
    let valid = true;
    if (!type) {
      report.add('invalid-input', report.range(propertyValue(node, 'type') ?? node), { reason: '"type" must be promptString, pickString or command' });
      valid = false;
    } else {
      const issue = firstIssue(INPUT_SCHEMAS[type].safeParse(value));
      if (issue) {
        report.add('invalid-input', report.range(nodeAtPath(node, issue.path) ?? node), { reason: issue.reason });
        valid = false;
      }
      for (const p of properties(node)) {
        if (!INPUT_KEYS[type].has(p.key)) report.add('unknown-field', report.range(p.keyNode), { key: p.key });
      }
    }
    // Input descriptions go into the declaration, which cannot hold an unpaired surrogate.
    let loneSurrogate = false;
    forEachString(node, (s) => {
      if (!loneSurrogate && hasLoneSurrogate(s.value as string)) {
        report.add('invalid-input', report.range(s), { reason: LONE_SURROGATE });
        loneSurrogate = true;
      }
    });
    if (loneSurrogate) valid = false;
    const first = inputs.get(id);
    if (first) {
      report.add('invalid-input', report.range(propertyValue(node, 'id') ?? node), { reason: `the id "${id}" is defined twice` }, {
        related: [{ file: report.file, range: report.range(first.node), message: 'first definition' }],
      });
      first.valid = false;
      continue;
    }
    inputs.set(id, {
      id, type, valid,
      description: typeof value.description === 'string' ? value.description : '',
      password: value.password === true,
      node,
    });
  }
  return inputs;
}

/** The inputs the exported servers use, each once, in the order the servers name them. */
export function referencedInputs(servers: readonly DeclaredServer[], inputs: ReadonlyMap<string, InputInfo>): DeclaredInput[] {
  const referenced: DeclaredInput[] = [];
  const listed = new Set<string>();
  for (const s of servers) {
    for (const id of s.inputRefs) {
      if (listed.has(id)) continue;
      listed.add(id);
      const info = inputs.get(id)!;
      referenced.push({ id, type: info.type!, description: info.description, password: info.password });
    }
  }
  return referenced;
}

/** Every valid input definition by id, each id an own property. */
export function validInputDefinitions(inputs: ReadonlyMap<string, InputInfo>): Record<string, InputDefinition> {
  const definitions: Record<string, InputDefinition> = {};
  for (const info of inputs.values()) {
    if (info.valid) Object.defineProperty(definitions, info.id, { value: nodeValue(info.node), enumerable: true });
  }
  return definitions;
}
