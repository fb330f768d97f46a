import { problemTemplate } from '../core/app/problemCatalog';
import { formatMessage, type Problem } from '../core/problems/problems';
import { l10n } from './l10nLookup';

/**
 * Words the core's codes and arguments. The core's English templates are the l10n keys; they
 * are looked up without arguments (so VS Code does not format them) and then filled with the
 * core's own `{name}` formatter, which understands templates that contain JSON braces.
 */
export function translate(template: string, args: Record<string, string | number> = {}): string {
  return formatMessage(l10n.t(template), args);
}

export function problemMessage(problem: Problem): string {
  const template = problemTemplate(problem.code, problem.args);
  return template ? translate(template, problem.args) : problem.message;
}

/** Sentences as one message: a space after each, except after a Chinese full stop (Chinese sentences run on). */
export function sentences(parts: readonly string[]): string {
  return parts.reduce((text, part) => (text === '' ? part : /[\u3002\uff01\uff1f\uff1b]$/.test(text) ? `${text}${part}` : `${text} ${part}`), '');
}
