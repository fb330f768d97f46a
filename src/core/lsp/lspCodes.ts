import { formatMessage, type Severity } from '../problems/problems';
import type { JsonPath, JsonTarget, SettingProblem } from '../settings/settingsFile';

/**
 * Codes, severities and English templates (stable l10n keys; `{name}` filled from `args`).
 * Messages never quote a command, argument or environment value.
 */
export const LSP_PROBLEM_CODES = {
  'lsp-invalid-settings': ['error', '"dsh.lsp.servers" must be an object that maps language server ids to their definitions.'],
  'lsp-invalid-provider-id': ['error', 'A language server id must not be blank.'],
  'lsp-invalid-server': ['error', 'Language server "{server}" must be an object.'],
  'lsp-invalid-type': ['error', '"{key}" of language server "{server}" must be {expected}.'],
  'lsp-missing-command': ['error', 'Language server "{server}" has no command.'],
  'lsp-relative-command': ['error', 'The command of language server "{server}" is a relative path; DSH accepts an absolute path or a bare name found on PATH.'],
  'lsp-command-not-found': ['error', 'The command of language server "{server}" is not an absolute path to an executable and is not found on PATH.'],
  'lsp-missing-extensions': ['error', 'Language server "{server}" maps no file extensions: "extensions" must map at least one extension to a language id.'],
  'lsp-invalid-extension': ['error', 'Extension "{extension}" of language server "{server}" is invalid: DSH routes by the final extension of a file name only, a dot and one segment (".ts", not ".d.ts").'],
  'lsp-blank-language-id': ['error', 'Extension "{extension}" of language server "{server}" maps to a blank language id.'],
  'lsp-extension-conflict': ['error', 'Extension "{extension}" is claimed twice: by "{key}" of language server "{server}" and by "{otherKey}" of language server "{otherServer}".'],
  'lsp-limit-out-of-range': ['error', '"{key}" of language server "{server}" must be an integer from 1 to {max}.'],
  'lsp-limit-not-positive': ['error', '"{key}" of language server "{server}" must be a positive integer.'],
  'lsp-unknown-key': ['warning', '"{key}" is not an option of a DSH language server and is ignored.'],
  'lsp-none-registered': ['error', 'DSH registers none of these {count} language servers while any of them is invalid (invalid: {invalid}).'],
} as const satisfies Record<string, readonly [Severity, string]>;

export type LspProblemCode = keyof typeof LSP_PROBLEM_CODES;

/** A problem in the setting value, located by JSON path; `placeSettingProblems` turns it into a {@link Problem}. */
export type LspSettingProblem = SettingProblem<LspProblemCode>;

export function lspProblem(
  code: LspProblemCode,
  path: JsonPath,
  target: JsonTarget,
  args: Record<string, string | number>,
  server?: string,
  related?: LspSettingProblem['related'],
): LspSettingProblem {
  const [severity, template] = LSP_PROBLEM_CODES[code];
  const out: LspSettingProblem = { code, severity, message: formatMessage(template, args), args, path, target };
  if (server !== undefined) out.server = server;
  if (related?.length) out.related = related;
  return out;
}
