/**
 * One skill file read as dsh-skill-filesystem's `parseSkillFile` reads it (front matter between
 * `---` lines, parsed with the same `yaml` package and options DSH uses): what DSH keeps, and a
 * problem for each reason DSH would drop the skill (an error) or ignore one of its fields (a
 * warning), on the exact range.
 */
import * as path from 'node:path';
import { isMap, isPair, isScalar, isSeq, parseDocument, type YAMLError } from 'yaml';
import type { Problem } from '../problems/problems';
import { isRecord } from '../json/jsonValue';
import { LineIndex, type Range } from '../json/text';
import { skillProblem as problem } from './skillCodes';

/** dsh-skill's public skill-name grammar (kebab-case). */
const SKILL_NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Keys DSH refuses outright (the skill is dropped), with the key to use instead. */
const SKILL_CAMELCASE_KEYS: Readonly<Record<string, string>> = {
  disableModelInvocation: 'disable-model-invocation',
  modelInvocable: 'disable-model-invocation',
  userInvocable: 'user-invocable',
};

const SKILL_FLAG_KEYS = ['disable-model-invocation', 'user-invocable'] as const;

export interface SkillInvocation {
  modelInvocable: boolean;
  userInvocable: boolean;
}

/** A skill as DSH keeps it (the summary fields of dsh-skill-filesystem's candidate). */
export interface SkillSummary {
  name: string;
  description: string;
  whenToUse?: string;
  invocation: SkillInvocation;
  metadata?: Record<string, unknown>;
}

export interface SkillAnalysis {
  /** True when DSH keeps the skill (it may still lose a name collision). */
  kept: boolean;
  skill?: SkillSummary;
  /** Range of the `name` value, or of the opening `---` line when there is none. */
  nameRange: Range;
  problems: Problem[];
}

/** DSH's reading of `disable-model-invocation` / `user-invocable`; `null` = not a boolean (drops the skill). */
function frontMatterBoolean(value: unknown): boolean | null {
  if (typeof value === 'boolean') return value;
  if (value === 1 || value === '1') return true;
  if (value === 0 || value === '0') return false;
  if (typeof value === 'string') {
    switch (value.toLowerCase()) {
      case 'true': case 'yes': case 'on': return true;
      case 'false': case 'no': case 'off': return false;
    }
  }
  return null;
}

interface FrontMatter {
  /** Offset of the YAML source (after the opening line) and its end (start of the closing line). */
  start: number;
  end: number;
}

/** DSH's `parseFrontmatter` delimiters: first line exactly `---`, then the next line exactly `---` (CR tolerated). */
function findFrontMatter(raw: string): FrontMatter | { missing: 'no-opening' | 'byte-order-mark' | 'unclosed' } {
  const firstLineEnd = raw.indexOf('\n');
  const firstLine = (firstLineEnd < 0 ? raw : raw.slice(0, firstLineEnd)).replace(/\r$/, '');
  if (firstLineEnd < 0 || firstLine !== '---') {
    return { missing: firstLine === '\uFEFF---' ? 'byte-order-mark' : firstLine === '---' ? 'unclosed' : 'no-opening' };
  }
  const start = firstLineEnd + 1;
  let lineStart = start;
  while (lineStart <= raw.length) {
    const nextNewline = raw.indexOf('\n', lineStart);
    const lineEnd = nextNewline < 0 ? raw.length : nextNewline;
    if (raw.slice(lineStart, lineEnd).replace(/\r$/, '') === '---') return { start, end: lineStart };
    if (nextNewline < 0) break;
    lineStart = nextNewline + 1;
  }
  return { missing: 'unclosed' };
}

/**
 * The body DSH loads for a skill: everything after the closing `---` line, trimmed (as
 * dsh-skill-filesystem's `parseFrontmatter` + `content: body.trim()`); `undefined` without front matter.
 */
export function skillBody(raw: string): string | undefined {
  const fm = findFrontMatter(raw);
  if ('missing' in fm) return undefined;
  const newline = raw.indexOf('\n', fm.end);
  return (newline < 0 ? '' : raw.slice(newline + 1)).trim();
}

/**
 * The string values of a SKILL.md's front matter as DSH reads them where they differ from their
 * text in the file (a YAML escape: `"\u202E"` in the file is a bidi override for DSH), with the
 * offsets of that text: what a scan of the file's text alone does not see. Keys too, at any depth.
 */
export function frontMatterEscapes(raw: string): Array<{ value: string; start: number; end: number }> {
  const fm = findFrontMatter(raw);
  if ('missing' in fm) return [];
  const doc = parseDocument(raw.slice(fm.start, fm.end));
  const out: Array<{ value: string; start: number; end: number }> = [];
  const stack: unknown[] = [doc.contents];
  while (stack.length) {
    const node = stack.pop();
    if (isMap(node) || isSeq(node)) stack.push(...node.items);
    else if (isPair(node)) stack.push(node.key, node.value);
    else if (isScalar(node) && typeof node.value === 'string' && node.range) {
      const [from, to] = node.range;
      if (raw.slice(fm.start + from, fm.start + to) !== node.value) out.push({ value: node.value, start: fm.start + from, end: fm.start + to });
    }
  }
  return out;
}

/**
 * Reads one skill file as dsh-skill-filesystem's `parseSkillFile` does and says why DSH would drop
 * it or ignore part of it. `file` becomes `Problem.file` (skill files may live outside the
 * workspace: callers pass an absolute path).
 */
export function analyzeSkillText(raw: string, file: string): SkillAnalysis {
  const lines = new LineIndex(raw);
  const openingRange = lines.rangeAt(0, raw.search(/\r?\n|$/));
  const result: SkillAnalysis = { kept: false, nameRange: openingRange, problems: [] };
  const fm = findFrontMatter(raw);
  if ('missing' in fm) {
    const flat = path.basename(file) !== 'SKILL.md';
    result.problems.push(flat && fm.missing === 'no-opening'
      ? problem('skill-not-a-skill', file, openingRange)
      : problem('skill-missing-front-matter', file, openingRange, { reason: fm.missing }));
    return result;
  }
  const doc = parseDocument(raw.slice(fm.start, fm.end));
  const yamlRange = (error: YAMLError): Range => {
    const [from, to] = error.pos;
    return lines.rangeAt(fm.start + from, Math.max(0, Math.min(to, fm.end - fm.start) - from));
  };
  if (doc.errors.length > 0) {
    const error = doc.errors[0];
    result.problems.push(problem('skill-invalid-yaml', file, yamlRange(error), { reason: error.code }));
    return result;
  }
  let data: unknown;
  try {
    data = doc.toJS();
  } catch (error) {
    result.problems.push(problem('skill-invalid-yaml', file, lines.rangeAt(fm.start, fm.end - fm.start), { reason: (error as Error).name }));
    return result;
  }
  if (!isRecord(data)) {
    result.problems.push(problem('skill-missing-front-matter', file, openingRange, { reason: 'not-a-mapping' }));
    return result;
  }

  // Ranges of keys and values, from the YAML syntax tree (values themselves come from toJS, as in DSH).
  const keyRanges = new Map<string, Range>();
  const valueRanges = new Map<string, Range>();
  if (isMap(doc.contents)) {
    for (const pair of doc.contents.items) {
      if (!isScalar(pair.key) || !pair.key.range) continue;
      const key = String(pair.key.value);
      const [ks, ke] = pair.key.range;
      keyRanges.set(key, lines.rangeAt(fm.start + ks, ke - ks));
      const value = pair.value as { range?: [number, number, number] } | null;
      // An empty value (`key:`) has an empty range: point at the key instead.
      if (value?.range && value.range[1] > value.range[0]) valueRanges.set(key, lines.rangeAt(fm.start + value.range[0], value.range[1] - value.range[0]));
      else valueRanges.set(key, lines.rangeAt(fm.start + ks, ke - ks));
    }
  }
  const keyRange = (key: string): Range => keyRanges.get(key) ?? openingRange;
  const valueRange = (key: string): Range => valueRanges.get(key) ?? keyRange(key);
  const nonEmptyString = (key: string): string | undefined => {
    const value = data[key];
    return typeof value === 'string' && value.length > 0 ? value : undefined;
  };

  const name = nonEmptyString('name');
  const description = nonEmptyString('description');
  if (Object.hasOwn(data, 'name')) result.nameRange = valueRange('name');
  if (name === undefined) result.problems.push(problem('skill-missing-name', file, Object.hasOwn(data, 'name') ? valueRange('name') : openingRange));
  else if (!SKILL_NAME_PATTERN.test(name)) result.problems.push(problem('skill-invalid-name', file, valueRange('name'), { name }));
  if (description === undefined) {
    result.problems.push(problem('skill-missing-description', file, Object.hasOwn(data, 'description') ? valueRange('description') : openingRange));
  }
  for (const [key, use] of Object.entries(SKILL_CAMELCASE_KEYS)) {
    if (Object.hasOwn(data, key)) result.problems.push(problem('skill-camelcase-key', file, keyRange(key), { key, use }));
  }
  const flags: Partial<Record<(typeof SKILL_FLAG_KEYS)[number], boolean>> = {};
  for (const key of SKILL_FLAG_KEYS) {
    if (!Object.hasOwn(data, key)) continue;
    const value = frontMatterBoolean(data[key]);
    if (value === null) result.problems.push(problem('skill-invalid-flag', file, valueRange(key), { key }));
    else flags[key] = value;
  }
  if (Object.hasOwn(data, 'whenToUse') && nonEmptyString('whenToUse') === undefined) {
    result.problems.push(problem('skill-ignored-field', file, valueRange('whenToUse'), { key: 'whenToUse', expected: 'a non-empty string' }));
  }
  if (Object.hasOwn(data, 'metadata') && !isRecord(data.metadata)) {
    result.problems.push(problem('skill-ignored-field', file, valueRange('metadata'), { key: 'metadata', expected: 'a mapping' }));
  }

  result.kept = !result.problems.some((p) => p.severity === 'error');
  if (result.kept && name !== undefined && description !== undefined) {
    const skill: SkillSummary = {
      name,
      description,
      invocation: { modelInvocable: flags['disable-model-invocation'] !== true, userInvocable: flags['user-invocable'] !== false },
    };
    const whenToUse = nonEmptyString('whenToUse');
    if (whenToUse !== undefined) skill.whenToUse = whenToUse;
    if (isRecord(data.metadata)) skill.metadata = data.metadata;
    result.skill = skill;
  }
  return result;
}
