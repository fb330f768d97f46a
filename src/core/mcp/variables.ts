import * as path from 'node:path';
import { makeTemplate, type Template, type TemplatePart } from '../declaration/template';

/** Everything the export may resolve; `resolveConfig` is injected (the editor reads settings, the CLI has none). */
export interface VariableContext {
  folder: string;
  folderName: string;
  userHome: string;
  pathSeparator?: string;
  resolveConfig?: (key: string) => unknown;
}

export interface VariableIssue {
  kind: 'unsupported-variable' | 'undefined-input';
  /** The variable as written, e.g. `${command:x}`. */
  variable: string;
  /** For undefined-input, the input id. */
  id?: string;
  /** Offset and length within the string value. */
  index: number;
  length: number;
}

export interface ResolvedString {
  template: Template;
  issues: VariableIssue[];
}


/**
 * Resolves VS Code variables in one pass, as VS Code does. Folder, home and separator
 * variables and `${config:...}` become literal text; `${input:id}` and `${env:NAME}` stay
 * references; everything that only means something inside the editor is an issue.
 */
export function resolveVariables(value: string, ctx: VariableContext, definedInputs: Pick<ReadonlySet<string>, 'has'>): ResolvedString {
  if (!value.includes('${')) return { template: value, issues: [] }; // most strings have no variable
  const parts: TemplatePart[] = [];
  const issues: VariableIssue[] = [];
  let last = 0;
  // Same matches as VS Code's lazy /\$\{(.*?)\}/g (no nesting, "." stops at line breaks),
  // scanned with indexOf: no match objects on the hot path.
  for (let index = value.indexOf('${'); index >= 0; index = value.indexOf('${', last)) {
    const close = value.indexOf('}', index + 2);
    if (close < 0) break;
    const name = value.slice(index + 2, close);
    if (/[\n\r\u2028\u2029]/.test(name)) {
      // "." does not cross a line break: VS Code's pattern would not match from here.
      parts.push(value.slice(last, index + 1));
      last = index + 1;
      continue;
    }
    const whole = value.slice(index, close + 1);
    parts.push(value.slice(last, index));
    last = close + 1;
    const resolved = resolveOne(name, ctx);
    if (resolved.kind === 'text') {
      parts.push(resolved.text);
    } else if (resolved.kind === 'input') {
      if (!definedInputs.has(resolved.id)) {
        issues.push({ kind: 'undefined-input', variable: whole, id: resolved.id, index, length: whole.length });
      }
      parts.push({ input: resolved.id });
    } else if (resolved.kind === 'env') {
      parts.push({ env: resolved.name });
    } else {
      issues.push({ kind: 'unsupported-variable', variable: whole, index, length: whole.length });
      parts.push(whole);
    }
  }
  parts.push(value.slice(last));
  return { template: makeTemplate(parts), issues };
}

type Resolution =
  | { kind: 'text'; text: string }
  | { kind: 'input'; id: string }
  | { kind: 'env'; name: string }
  | { kind: 'unsupported' };

function resolveOne(name: string, ctx: VariableContext): Resolution {
  const colon = name.indexOf(':');
  const head = colon < 0 ? name : name.slice(0, colon);
  const argument = colon < 0 ? undefined : name.slice(colon + 1);
  switch (head) {
    case 'workspaceFolder':
      if (argument === undefined || argument === ctx.folderName) return { kind: 'text', text: ctx.folder };
      return { kind: 'unsupported' };
    case 'workspaceFolderBasename':
      return argument === undefined ? { kind: 'text', text: path.basename(ctx.folder) } : { kind: 'unsupported' };
    case 'userHome':
      return argument === undefined ? { kind: 'text', text: ctx.userHome } : { kind: 'unsupported' };
    case 'pathSeparator':
    case '/':
      return argument === undefined ? { kind: 'text', text: ctx.pathSeparator ?? path.sep } : { kind: 'unsupported' };
    case 'config': {
      if (!argument || !ctx.resolveConfig) return { kind: 'unsupported' };
      const v = ctx.resolveConfig(argument);
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return { kind: 'text', text: String(v) };
      return { kind: 'unsupported' };
    }
    case 'input':
      return argument ? { kind: 'input', id: argument } : { kind: 'unsupported' };
    case 'env':
      return argument ? { kind: 'env', name: argument } : { kind: 'unsupported' };
    default:
      // ${command:...}, ${cwd}, ${execPath}, editor state (${file}, ...) and bare ${NAME}.
      return { kind: 'unsupported' };
  }
}
