import type { Node } from '../json/jsonTree';
import { templateRefs, type Template } from '../declaration/template';
import type { SourceProblems } from './sourceProblems';
import { resolveVariables, type VariableContext } from './variables';

/** Where a string value of a server came from, for ranges and lint. */
export interface Field {
  kind: 'command' | 'arg' | 'env' | 'envFile' | 'cwd' | 'url' | 'header';
  key?: string;
  node: Node;
  template: Template;
  /** Input ids and env names the template references (computed once, used by lint and refs). */
  refs: { readonly inputs: readonly string[]; readonly env: readonly string[] };
  /** Already reported as a literal secret (one report per value). */
  flagged: boolean;
}

/** Shared by every template without a reference (read only; not frozen: frozen arrays take a slower path in loops). */
export const NO_REFS: Field['refs'] = { inputs: [], env: [] };

/** How the variables of one file's values are resolved. */
export interface TemplateContext {
  readonly report: SourceProblems;
  readonly variables: VariableContext;
  /** The file's input ids (a reference to another one is undefined-input). */
  readonly inputs: Pick<ReadonlySet<string>, 'has'>;
  /** Where undefined-input points to: the file's `inputs`, else its first server map. */
  readonly inputsAnchor: Node | undefined;
}

/** A string field of server `server`: its template, its variables resolved (problems at the variable itself). */
export function templateField(context: TemplateContext, server: string, kind: Field['kind'], valueNode: Node, key: string | undefined): Field {
  const raw = valueNode.value as string;
  if (!raw.includes('${')) return { kind, key, node: valueNode, template: raw, refs: NO_REFS, flagged: false }; // most strings have no variable
  const { report } = context;
  const resolved = resolveVariables(raw, context.variables, context.inputs);
  for (const v of resolved.issues) {
    const at = report.subRange(valueNode, raw, v.index, v.length);
    const variable = v.variable.length > 80 ? `${v.variable.slice(0, 77)}...}` : v.variable;
    if (v.kind === 'undefined-input') {
      const related = context.inputsAnchor ? [{ file: report.file, range: report.range(context.inputsAnchor), message: 'inputs are defined here' }] : undefined;
      report.add('undefined-input', at, { id: v.id! }, { server, related });
    } else {
      report.add(v.kind, at, { variable }, { server });
    }
  }
  return { kind, key, node: valueNode, template: resolved.template, refs: templateRefs(resolved.template), flagged: false };
}
