import type { Range } from '../json/text';
import { visibleLine } from '../json/visibleText';

export type Severity = 'error' | 'warning' | 'info';

/**
 * Every code the bridge reports, with its severity and English message template.
 * `{name}` placeholders are filled from a problem's `args`. The editor adapter looks the
 * template up again to translate it, so templates are stable l10n keys.
 * Messages never quote configuration values: a value may be a secret.
 */
export const PROBLEM_CODES = {
  'missing-source': ['error', 'No MCP configuration found at {path}.'],
  'unreadable-source': ['error', 'The MCP configuration could not be read ({reason}).'],
  'not-a-regular-file': ['error', '{path} is not a regular file; only regular files are read.'],
  'path-outside-workspace': ['error', '{path} resolves to a location outside the workspace folder; it is not read.'],
  'file-too-large': ['error', 'The file is {size} bytes; the limit is {limit} bytes. Nothing is exported.'],
  'invalid-json': ['error', 'JSON syntax error: {reason}. A file with syntax errors exports nothing.'],
  'too-deep': ['error', 'The file nests objects or arrays more than {limit} levels deep here; nothing is read from it.'],
  'reserved-key': ['error', 'The key "{key}" is refused: JavaScript gives it a special meaning, so DSH could not be sure to receive it as written.'],
  'duplicate-key': ['error', 'Duplicate key "{key}": only one definition may exist, so that what a reviewer reads is what runs.'],
  'too-many-servers': ['error', 'The file defines {count} servers; the limit is {limit}. Nothing is exported.'],
  'value-too-long': ['error', 'A string here is {size} bytes of UTF-8; the limit is {limit}.'],
  'wrong-root-key': ['warning', '"mcpServers" is the older name of "servers": VS Code runs these servers and moves them into "servers" (rewriting this file), and they are exported the same way. Rename it to "servers".'],
  'wrong-dialect': ['error', '{file} is read in Claude Code\'s format: VS Code takes servers only from "mcpServers" here, so "{key}" is ignored and nothing is exported from this file.'],
  'shadowed-server': ['warning', 'Server "{name}" is also defined in {file}, and that definition takes precedence, as in VS Code; DSH runs one server per name, so this one is not exported.'],
  'declaration-committable': ['warning', '{file} does not ignore {name}: git can commit the declaration, which belongs to this machine (signed with its key, for this folder). Add the rule "{name}".'],
  'duplicate-server': ['warning', 'Server "{name}" is also defined in {file}, which takes the name first: VS Code runs both (chat.mcp.collisionBehavior is "suffix"), but the bridge exports one server per name, so this one is not exported.'],
  'unknown-field': ['warning', 'Unknown field "{key}" is ignored.'],
  'invalid-server': ['error', 'Invalid server entry: {reason}.'],
  'invalid-input': ['error', 'Invalid input definition: {reason}.'],
  'invalid-url': ['error', 'The URL is not valid for DSH: {reason}.'],
  'undefined-input': ['error', 'Input "{id}" is not defined in "inputs".'],
  'unsupported-variable': ['error', 'VS Code resolves {variable} only inside the editor (a command, the editor state, another folder or a setting not set here); DSH cannot, so the server is not exported.'],
  'literal-variable': ['warning', '{variable} is not a VS Code variable: VS Code passes it to the server as written, and so does DSH. For an environment variable, write ${env:NAME}.'],
  'not-resolved-here': ['warning', 'VS Code resolves no variable in .mcp.json: the server receives {variable} as written, and so does DSH. To use an input or a variable, define the server in .vscode/mcp.json.'],
  'unsupported-transport': ['error', 'DSH supports stdio and Streamable HTTP only; {transport} is not supported. Use "type": "http" if the server speaks Streamable HTTP.'],
  'unsupported-auth': ['error', 'DSH cannot perform the OAuth flow VS Code offers; the server is not exported. Use a header with an input instead.'],
  'unsupported-sandbox': ['error', 'DSH has no sandbox: exporting this server would pretend an isolation it does not get. Remove "sandboxEnabled" to export it unsandboxed.'],
  'env-file-unreadable': ['error', 'The envFile cannot be read at export ({reason}): its content is signed into the declaration, so the server is not exported.'],
  'env-file-unpinnable': ['error', 'The envFile path uses ${input:...} or ${env:...}, known only when DSH starts the server: its content cannot be signed at export, so the server is not exported. Write the path literally or relative to the workspace folder.'],
  'dev-ignored': ['info', '"dev" is an editor-only development mode; it is not exported.'],
  'env-null-dropped': ['warning', 'env "{key}": null removes an inherited variable in VS Code, which DSH cannot do; the entry is dropped.'],
  'server-renamed': ['info', 'This server is exported to DSH as "{serverName}" (DSH names allow A-Z, a-z, 0-9, _ and -, at most 32 characters, no "__").'],
  'literal-secret': ['warning', '{field} looks like a credential written into the file. Use an input with "password": true (${input:id}) or ${env:NAME} instead.'],
  'secret-in-args': ['warning', 'Secret input "{id}" is passed as a command-line argument, visible in every process list. Prefer an environment variable if the server can read one (env: {"NAME": "${input:{id}}"}).'],
  'unmasked-secret-input': ['warning', 'Input "{id}" is used for a credential but is not masked. Add "password": true.'],
  'input-controls-url-host': ['warning', 'Input "{id}" decides which host this server connects to; whoever supplies it chooses where your headers go.'],
  'insecure-url': ['warning', 'Plain http:// to a non-loopback host sends everything, headers included, unencrypted. Use https://.'],
  'url-credentials': ['error', 'The URL carries user credentials; they would be stored in the declaration. Use a header with an input instead.'],
  'policy-denied': ['error', 'Server "{name}" is blocked by your organization\'s policy ({setting}: {rule}); it is not exported to DSH. Ask your administrator.'],
  'policy-not-allowed': ['error', 'Server "{name}" is not among the servers your organization allows ({rule}); it is not exported to DSH. Ask your administrator.'],
  'policy-unresolved': ['error', 'Server "{name}" has an input or environment variable in its command or URL, so the policy rule {rule} ({setting}) can only be checked on the value VS Code resolves when it starts the server; the export cannot, so it is not exported to DSH.'],
  'policy-access': ['error', 'MCP servers from workspace files are turned off by {rule}; server "{name}" is not exported to DSH.'],
  'policy-sandbox': ['error', 'Server "{name}" runs locally, and your organization\'s {setting} force the sandbox on ({rule}) without allowBypass; DSH cannot sandbox an MCP server, so it is not exported to DSH. Ask your administrator.'],
  'policy-managed-unreadable': ['error', 'Your organization\'s {setting} cannot be used ({rule}), so server "{name}" is not exported to DSH (a fault blocks every server). Ask your administrator to repair it.'],
  'unpinned-package': ['info', '{launcher} runs whatever version is newest at start; pin a version ({hint}) so DSH runs what you reviewed.'],
} as const satisfies Record<string, readonly [Severity, string]>;

export type ProblemCode = keyof typeof PROBLEM_CODES;

/**
 * A code's wording when its `origin` argument says whose rule it is: a list in the user's own
 * settings is not an organization's, and nobody is to be asked for it.
 */
export const PROBLEM_VARIANTS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'policy-denied': { settings: 'Server "{name}" is blocked by your own settings ({setting}: {rule}); it is not exported to DSH. Remove the rule from your settings if you want it.' },
  'policy-not-allowed': { settings: 'Server "{name}" is not among the servers your own settings allow ({rule}); it is not exported to DSH. Add it to {setting} in your settings if you want it.' },
};

/** The template of a code for these arguments: its variant for `origin`, else its own. */
export function templateFor(code: string, template: string, args: Readonly<Record<string, string | number>>): string {
  const origin = args.origin;
  return typeof origin === 'string' && Object.hasOwn(PROBLEM_VARIANTS, code) && Object.hasOwn(PROBLEM_VARIANTS[code], origin) ? PROBLEM_VARIANTS[code][origin] : template;
}

export interface RelatedInformation {
  /** Path relative to the workspace folder, '/'-separated. */
  file: string;
  range: Range;
  message: string;
}

export interface Problem {
  code: string;
  severity: Severity;
  message: string;
  args: Record<string, string | number>;
  /** Path relative to the workspace folder, '/'-separated. */
  file: string;
  range: Range;
  related?: RelatedInformation[];
  /** Source name of the server the problem belongs to, if any. */
  server?: string;
}

/**
 * A message from its template: each `{name}` is its argument as shown text (hidden characters
 * escaped, on one line), since arguments quote files and servers. Every face words the core's
 * codes through here, so none prints an argument raw.
 */
export function formatMessage(template: string, args: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => (Object.hasOwn(args, key) ? visibleLine(String(args[key])) : whole));
}

export function makeProblem(
  code: ProblemCode,
  file: string,
  range: Range,
  args: Record<string, string | number> = {},
  extra: { related?: RelatedInformation[]; server?: string } = {},
): Problem {
  const [severity, template] = PROBLEM_CODES[code];
  const problem: Problem = { code, severity, message: formatMessage(templateFor(code, template, args), args), args, file, range };
  if (extra.related?.length) problem.related = extra.related;
  if (extra.server !== undefined) problem.server = extra.server;
  return problem;
}
