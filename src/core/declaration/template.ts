/**
 * Values in the declaration. A plain string is a literal, never scanned again. An array is a
 * template whose parts are literal strings or references resolved by the DSH side:
 * `{input: id}` from the host-side input store, `{env: NAME}` from DSH's own environment.
 */
export type TemplatePart = string | { input: string } | { env: string };
export type Template = string | TemplatePart[];

export interface TemplateLookup {
  input(id: string): string | undefined;
  env(name: string): string | undefined;
}

export type RenderResult = { value: string } | { missing: { kind: 'input' | 'env'; name: string } };

export function renderTemplate(template: Template, lookup: TemplateLookup): RenderResult {
  if (typeof template === 'string') return { value: template };
  let value = '';
  for (const part of template) {
    if (typeof part === 'string') {
      value += part;
    } else if ('input' in part) {
      const v = lookup.input(part.input);
      if (v === undefined) return { missing: { kind: 'input', name: part.input } };
      value += v;
    } else {
      const v = lookup.env(part.env);
      if (v === undefined) return { missing: { kind: 'env', name: part.env } };
      value += v;
    }
  }
  return { value };
}

/** Joins parts, merging adjacent literals; a template of one literal is that string. */
export function makeTemplate(parts: TemplatePart[]): Template {
  const merged: TemplatePart[] = [];
  for (const part of parts) {
    const last = merged[merged.length - 1];
    if (typeof part === 'string') {
      if (part === '') continue;
      if (typeof last === 'string') merged[merged.length - 1] = last + part;
      else merged.push(part);
    } else {
      merged.push(part);
    }
  }
  if (merged.length === 0) return '';
  if (merged.length === 1 && typeof merged[0] === 'string') return merged[0];
  return merged;
}

export function templateRefs(template: Template): { inputs: string[]; env: string[] } {
  const inputs: string[] = [];
  const env: string[] = [];
  if (typeof template !== 'string') {
    for (const part of template) {
      if (typeof part === 'string') continue;
      if ('input' in part) inputs.push(part.input);
      else env.push(part.env);
    }
  }
  return { inputs, env };
}

/** The template as one string, each reference written by `reference`. */
function flattenTemplate(template: Template, reference: (part: { input: string } | { env: string }) => string): string {
  if (typeof template === 'string') return template;
  return template.map((p) => (typeof p === 'string' ? p : reference(p))).join('');
}

/** The template with every reference replaced by `placeholder` (for validating shapes). */
export function templateWithPlaceholders(template: Template, placeholder: string): string {
  return flattenTemplate(template, () => placeholder);
}

/** The template as the user wrote it: literal text, references as VS Code variables. */
export function templateText(template: Template): string {
  return flattenTemplate(template, (p) => ('input' in p ? `\${input:${p.input}}` : `\${env:${p.env}}`));
}
