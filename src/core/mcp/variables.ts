import * as path from 'node:path';
import { makeTemplate, type Template, type TemplatePart } from '../declaration/template';

/** Everything the export may resolve; `resolveConfig` is injected (the editor reads settings, the CLI has none). */
export interface VariableContext {
  folder: string;
  folderName: string;
  userHome: string;
  pathSeparator?: string;
  resolveConfig?: (key: string) => unknown;
  /** Resolve nothing: every `${...}` stays literal text (VS Code's `.mcp.json`, whose servers carry no variable replacement). */
  literalOnly?: boolean;
  /**
   * No workspace folder: the user's own files, whose servers run in every folder. VS Code resolves
   * `${workspaceFolder}` there against the window's folder, which differs per session: unsupported.
   */
  noFolder?: boolean;
}

/**
 * - `unsupported-variable`: a VS Code variable only the editor can resolve (a command, the editor
 *   state, another folder, an unset setting);
 * - `undefined-input`: `${input:id}` with no such input;
 * - `literal-variable`: a name VS Code does not know (e.g. `${HOME}`): VS Code's resolver returns
 *   it unchanged, so the server receives it as written;
 * - `not-resolved-here`: any variable in a file whose servers VS Code starts without resolving (`.mcp.json`).
 */
export interface VariableIssue {
  kind: 'unsupported-variable' | 'undefined-input' | 'literal-variable' | 'not-resolved-here';
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
    if (ctx.literalOnly) {
      issues.push({ kind: 'not-resolved-here', variable: whole, index, length: whole.length });
      parts.push(whole);
      continue;
    }
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
    } else if (resolved.kind === 'unknown') {
      issues.push({ kind: 'literal-variable', variable: whole, index, length: whole.length });
      parts.push(whole);
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
  | { kind: 'unsupported' }
  /** Not a VS Code variable: VS Code's resolver returns it unchanged. */
  | { kind: 'unknown' };

/**
 * The variables VS Code's resolver knows (`variableResolver.ts`); any other name (`${HOME}`,
 * `${API_KEY:-x}`) is returned as written, unless an extension contributes it.
 */
const VSCODE_VARIABLES: ReadonlySet<string> = new Set([
  'env', 'config', 'command', 'input', 'extensionInstallFolder', 'workspaceRoot', 'workspaceFolder', 'cwd',
  'workspaceRootFolderName', 'workspaceFolderBasename', 'userHome', 'lineNumber', 'columnNumber', 'selectedText',
  'file', 'fileWorkspaceFolder', 'fileWorkspaceFolderBasename', 'relativeFile', 'relativeFileDirname', 'fileDirname',
  'fileExtname', 'fileBasename', 'fileBasenameNoExtension', 'fileDirnameBasename', 'execPath', 'execInstallFolder',
  'pathSeparator', '/',
]);

function resolveOne(name: string, ctx: VariableContext): Resolution {
  const colon = name.indexOf(':');
  const head = colon < 0 ? name : name.slice(0, colon);
  const argument = colon < 0 ? undefined : name.slice(colon + 1);
  switch (head) {
    case 'workspaceRoot': // VS Code's older names, resolved the same way
    case 'workspaceFolder':
      if (ctx.noFolder) return { kind: 'unsupported' };
      if (argument === undefined || argument === ctx.folderName) return { kind: 'text', text: ctx.folder };
      return { kind: 'unsupported' };
    case 'workspaceRootFolderName':
    case 'workspaceFolderBasename':
      if (ctx.noFolder) return { kind: 'unsupported' };
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
      // ${command:...}, ${cwd}, ${execPath}, editor state (${file}, ...); a bare ${NAME} stays as written.
      return VSCODE_VARIABLES.has(head) ? { kind: 'unsupported' } : { kind: 'unknown' };
  }
}
