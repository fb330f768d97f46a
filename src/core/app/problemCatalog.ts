import { LSP_PROBLEM_CODES } from '../lsp/lspCodes';
import { PROBLEM_CODES, templateFor, type Severity } from '../problems/problems';
import { SESSION_SETTING_PROBLEM_CODES } from '../settings/sessionSettings';
import { SKILL_PROBLEM_CODES, SKILL_TRUST_PROBLEM_CODES } from '../skills/skillCodes';
import { TOOL_CHOICE_PROBLEM_CODES } from '../tools/toolChoice';
import { PROBE_PROBLEM_CODES } from '../tools/probeProblemCodes';
import { SCAN_CODES } from '../scan/scanCodes';

/** Every problem code the bridge reports, by area, with its severity and English template. */
export const PROBLEM_CATALOG: ReadonlyArray<{ area: string; codes: Record<string, readonly [Severity, string]> }> = [
  { area: 'MCP configuration (.vscode/mcp.json)', codes: PROBLEM_CODES },
  { area: 'Language servers (dsh.lsp.servers)', codes: LSP_PROBLEM_CODES },
  { area: 'Skills (SKILL.md)', codes: SKILL_PROBLEM_CODES },
  { area: 'Skill-root trust', codes: SKILL_TRUST_PROBLEM_CODES },
  { area: 'Tool choice (dsh.tools)', codes: TOOL_CHOICE_PROBLEM_CODES },
  { area: 'Probe and tool pins', codes: PROBE_PROBLEM_CODES },
  { area: 'Hidden instructions (tool definitions, server instructions, SKILL.md)', codes: SCAN_CODES },
  { area: 'Freshness of the declaration (session settings)', codes: SESSION_SETTING_PROBLEM_CODES },
];

const ALL: Record<string, readonly [Severity, string]> = Object.assign({}, ...PROBLEM_CATALOG.map((a) => a.codes));

/** The English template of a code (the l10n key), whatever area it belongs to; with its arguments, the variant they call for. */
export function problemTemplate(code: string, args: Readonly<Record<string, string | number>> = {}): string | undefined {
  return Object.hasOwn(ALL, code) ? templateFor(code, ALL[code][1], args) : undefined;
}

/**
 * The page of the problem codes in the repository's docs/: in Simplified Chinese when the editor
 * is, else in English.
 */
export function problemDocsPath(language: string): string {
  return /^zh-(cn|hans|sg)\b/i.test(language) ? 'docs/problem-codes.zh-cn.md' : 'docs/problem-codes.md';
}

/**
 * The https address of a code's entry: the page of `problemDocsPath` on the repository's main
 * branch, at the code's heading (GitHub's anchor of "### `code`" is the code itself).
 */
export function problemPageUrl(repositoryUrl: string, language: string, code: string): string {
  const repository = repositoryUrl.replace(/^git\+/, '').replace(/\.git$/, '').replace(/#.*$/, '');
  const anchor = /^[a-z0-9-]+$/.test(code) ? `#${code}` : '';
  return `${repository}/blob/main/${problemDocsPath(language)}${anchor}`;
}
