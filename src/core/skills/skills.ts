/**
 * Skill roots as DSH discovers them (`@deepseek-ai/dsh-skill-filesystem` + `@deepseek-ai/dsh-skill`
 * 0.1.0-rc.8, contract section 5), with the diagnostics DSH never shows and the trust pins DSH
 * does not have.
 *
 * - Roots, in DSH's order and ranks: `<projectRoot>/.dsh/skills` 100, `<projectRoot>/.agents/skills`
 *   200, custom roots 300, `<dshHome>/skills` 400 (its `.system` skipped), `<agentsHome>/skills` 500.
 * - Skills one level deep: `<root>/<name>/SKILL.md` or `<root>/<name>.md`, entries in
 *   `localeCompare` order, front matter parsed with the same `yaml` package and options DSH uses.
 * - A skill DSH would silently drop gets an error on its file; a field DSH silently ignores gets a
 *   warning; a skill that loses a name collision gets `skill-shadowed` pointing at the winner.
 * - Trust: a content pin per root ({@link hashSkillRoot}) compared with the pins the user recorded.
 *
 * `test/unit/skills.oracle.test.ts` checks kept/dropped sets and winners against the real packages.
 * File access goes through the {@link SkillFs} the caller passes (`core/node/skillFs.ts` is the
 * real file system); no editor, no DSH runtime.
 */
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { isMap, isPair, isScalar, isSeq, parseDocument, type YAMLError } from 'yaml';
import type { SkillRootKind, SkillsDeclaration, SkillsDeclarationRoot, SkillTrustState } from '../declaration/declarationModel';
import { formatMessage, type Problem, type RelatedInformation, type Severity } from '../problems/problems';
import type { ReadFailure } from '../problems/readFailure';
import { LineIndex, type Range } from '../json/text';
import { scanSkillText, type ScanFinding } from '../scan/scan';
import { SCAN_CODES } from '../scan/scanCodes';

/** DSH's rank of each file root kind (the kinds are part of the declaration model). */
export const SKILL_ROOT_RANKS = {
  'project-dsh': 100,
  'project-agents': 200,
  custom: 300,
  'user-dsh': 400,
  'user-agents': 500,
} as const satisfies Record<SkillRootKind, number>;

/** dsh-skill's public skill-name grammar (kebab-case). */
export const SKILL_NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Keys DSH refuses outright (the skill is dropped), with the key to use instead. */
export const SKILL_CAMELCASE_KEYS: Readonly<Record<string, string>> = {
  disableModelInvocation: 'disable-model-invocation',
  modelInvocable: 'disable-model-invocation',
  userInvocable: 'user-invocable',
};

export const SKILL_FLAG_KEYS = ['disable-model-invocation', 'user-invocable'] as const;

import { SKILL_PROBLEM_CODES, type SkillProblemCode } from './skillCodes';


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

function problem(code: SkillProblemCode, file: string, range: Range, args: Record<string, string | number> = {}, related?: RelatedInformation[]): Problem {
  const [severity, template] = SKILL_PROBLEM_CODES[code];
  const out: Problem = { code, severity, message: formatMessage(template, args), args, file, range };
  if (related?.length) out.related = related;
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** DSH's reading of `disable-model-invocation` / `user-invocable`; `null` = not a boolean (drops the skill). */
export function frontMatterBoolean(value: unknown): boolean | null {
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

/** The scan of a SKILL.md (core/scan): its text, front matter and body, and the front matter as DSH reads it. Never throws. */
export function scanSkillFile(raw: string): ScanFinding[] {
  let escapes: Array<{ value: string; start: number; end: number }> = [];
  try {
    escapes = frontMatterEscapes(raw);
  } catch {
    // YAML DSH cannot read either: the file's text is scanned as it is
  }
  return scanSkillText(raw, escapes);
}

/** A skill file's scan and its pin: what an acceptance binds to (`sha256:` + hex of its text as UTF-8). */
export interface SkillScan {
  findings: ScanFinding[];
  pin: string;
}

/** Scans of recent texts: the DSH plugin discovers the skills at every model step, and a SKILL.md rarely changes. */
const scanCache = new Map<string, SkillScan>();
const SCAN_CACHE_SIZE = 256;

export function scanSkill(raw: string): SkillScan {
  const hit = scanCache.get(raw);
  if (hit) return hit;
  const scan = { findings: scanSkillFile(raw), pin: `sha256:${createHash('sha256').update(raw, 'utf8').digest('hex')}` };
  if (scanCache.size >= SCAN_CACHE_SIZE) scanCache.delete(scanCache.keys().next().value!);
  scanCache.set(raw, scan);
  return scan;
}

/** A skill file's findings as problems on the file, at their exact range. */
function scanProblems(raw: string, file: string, findings: readonly ScanFinding[]): Problem[] {
  if (findings.length === 0) return [];
  const lines = new LineIndex(raw);
  return findings.map((f) => {
    const [severity, template] = SCAN_CODES[f.code];
    return { code: f.code, severity, message: formatMessage(template, f.args), args: f.args, file, range: lines.rangeAt(f.start, f.end - f.start) };
  });
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

// ---------------------------------------------------------------------------------------------
// File access

export type SkillEntryType = 'file' | 'directory' | 'other';

/** What discovery and hashing read, passed in by the caller (`nodeSkillFs` in core/node/skillFs.ts is the real file system). */
export interface SkillFs {
  /** Children with symbolic links followed (a broken link is `other`); `undefined` when the directory is absent. */
  list(dir: string): Promise<Array<{ name: string; type: SkillEntryType }> | undefined>;
  /**
   * UTF-8 text (no BOM stripping, like DSH's readFile); `undefined` when absent. Throws
   * {@link SkillFileRefused} for what is not read: not a regular file, more than `maxBytes`, or
   * (with `within`) a path whose real location leaves that folder.
   */
  readText(file: string, limits?: SkillReadLimits): Promise<string | undefined>;
  readBytes(file: string, limits?: SkillReadLimits): Promise<Uint8Array | undefined>;
  exists(p: string): Promise<boolean>;
  /** Canonical path, for cycle detection while hashing. */
  realpath(p: string): Promise<string>;
}

export interface SkillReadLimits {
  /** The file's real path must stay inside this folder's real path (no link out). */
  within?: string;
  /** Default {@link MAX_SKILL_FILE_BYTES}. */
  maxBytes?: number;
}

/** A SKILL.md is read whole; anything larger is refused before it is read. */
export const MAX_SKILL_FILE_BYTES = 1024 * 1024;

export class SkillFileRefused extends Error {
  constructor(readonly failure: Exclude<ReadFailure, { kind: 'missing' }>) {
    super(failure.kind === 'too-large' ? `it is larger than the limit (${failure.size} bytes)`
      : failure.kind === 'outside-workspace' ? 'it is a link that leaves its skill root'
        : failure.kind === 'not-a-regular-file' ? 'it is not a regular file' : `it cannot be read (${failure.reason})`);
  }
}

// ---------------------------------------------------------------------------------------------
// Roots

export interface SkillRoot {
  path: string;
  kind: SkillRootKind;
  rank: number;
  /** `<dshHome>/skills` skips its `.system` entry. */
  skipSystem: boolean;
}

// The DSH home is resolved in one place, with the host store.

/** `$DSH_AGENTS_HOME` (used as given, even blank) or `~/.agents`, resolved against `base` (the process cwd) as dsh-skill-filesystem does. */
export function resolveAgentsHome(env: Readonly<Record<string, string | undefined>>, homedir: string, base: string): string {
  return path.resolve(base, env.DSH_AGENTS_HOME ?? path.join(homedir, '.agents'));
}

/** Nearest ancestor of `cwd` (itself included) holding `.git`, else `cwd`. */
export async function findProjectRoot(cwd: string, fs: Pick<SkillFs, 'exists'>): Promise<string> {
  let current = path.resolve(cwd);
  for (;;) {
    if (await fs.exists(path.join(current, '.git'))) return current;
    const parent = path.dirname(current);
    if (parent === current) return path.resolve(cwd);
    current = parent;
  }
}

export interface SkillRootOptions {
  /** The session cwd (the workspace folder); also the base of relative custom roots. */
  cwd: string;
  /** `dsh.skills.customRoots`, in order. */
  customRoots?: readonly string[];
  /** Resolved DSH home ({@link resolveDshHome}). */
  dshHome: string;
  /** Resolved agents home ({@link resolveAgentsHome}). */
  agentsHome: string;
}

/** The file roots in DSH's order (ties in rank keep this order). */
export async function skillRoots(options: SkillRootOptions, fs: Pick<SkillFs, 'exists'>): Promise<{ projectRoot: string; roots: SkillRoot[] }> {
  const projectRoot = await findProjectRoot(options.cwd, fs);
  const root = (p: string, kind: SkillRootKind): SkillRoot => ({ path: p, kind, rank: SKILL_ROOT_RANKS[kind], skipSystem: kind === 'user-dsh' });
  const roots = [
    root(path.join(projectRoot, '.dsh/skills'), 'project-dsh'),
    root(path.join(projectRoot, '.agents/skills'), 'project-agents'),
    ...(options.customRoots ?? []).map((p) => root(path.resolve(options.cwd, p), 'custom')),
    root(path.join(options.dshHome, 'skills'), 'user-dsh'),
    root(path.join(options.agentsHome, 'skills'), 'user-agents'),
  ];
  return { projectRoot, roots };
}

// ---------------------------------------------------------------------------------------------
// Discovery

export interface SkillCandidate {
  /** Absolute path of the SKILL.md or flat .md file. */
  file: string;
  /** The directory entry it came from (`<name>` or `<name>.md`). */
  entry: string;
  root: SkillRoot;
  analysis: SkillAnalysis;
  /** Kept and first by (rank, discovery order) for its name: the skill DSH loads. */
  winner: boolean;
  /** For a kept skill that lost its name: the winner's file. */
  shadowedBy?: string;
  /** The scan for hidden instructions (core/scan) and the file's pin. */
  scan: SkillScan;
}

export interface SkillRootReport extends SkillRoot {
  exists: boolean;
  /** Every candidate in DSH's discovery order, dropped ones included. */
  candidates: SkillCandidate[];
  /** A listing failure other than absence (DSH then skips the whole provider). */
  error?: string;
  /** Content pin ({@link hashSkillRoot}); absent when the root does not exist or is too large to hash. */
  pin?: string;
  tooLarge?: boolean;
}

export interface SkillDiscovery {
  projectRoot: string;
  roots: SkillRootReport[];
  /** The skills DSH loads, sorted by name (code points, as dsh-skill sorts its snapshot). */
  winners: SkillCandidate[];
  /** Every problem of every candidate, shadowing included. */
  problems: Problem[];
}

export interface DiscoverOptions extends SkillRootOptions, HashOptions {
  /** Compute each existing root's content pin (default true). */
  hash?: boolean;
}

/**
 * Where a root's files must stay: a root that a repository can fill (project roots) or that sits in
 * a home folder is read without following links out of it; a custom root is the user's own choice
 * in a machine setting, and its links are followed as DSH follows them.
 */
function confinedRoot(root: Pick<SkillRoot, 'path'> & Partial<Pick<SkillRoot, 'kind'>>): string | undefined {
  return root.kind === 'custom' ? undefined : root.path;
}

/** Candidate files of one root in DSH's order: entries by `localeCompare`, directories -> SKILL.md, `*.md` files. */
async function rootEntries(root: SkillRoot, fs: SkillFs): Promise<Array<{ entry: string; file: string }> | undefined> {
  const entries = await fs.list(root.path);
  if (entries === undefined) return undefined;
  const out: Array<{ entry: string; file: string }> = [];
  for (const entry of [...entries].sort((a, b) => a.name.localeCompare(b.name))) {
    if (root.skipSystem && entry.name === '.system') continue;
    const full = path.join(root.path, entry.name);
    if (entry.type === 'directory') out.push({ entry: entry.name, file: path.join(full, 'SKILL.md') });
    else if (entry.type === 'file' && entry.name.endsWith('.md')) out.push({ entry: entry.name, file: full });
  }
  return out;
}

/**
 * Discovers every root and skill as DSH does for a session in `options.cwd`, and decides the
 * winners: among kept skills, lowest rank first, then discovery order; later ones are shadowed.
 */
export async function discoverSkills(options: DiscoverOptions, fs: SkillFs): Promise<SkillDiscovery> {
  const { projectRoot, roots } = await skillRoots(options, fs);
  const reports: SkillRootReport[] = [];
  const ordered: SkillCandidate[] = [];
  const refused: Problem[] = [];
  for (const root of roots) {
    const report: SkillRootReport = { ...root, exists: false, candidates: [] };
    reports.push(report);
    let entries;
    try {
      entries = await rootEntries(root, fs);
    } catch (error) {
      report.exists = true;
      report.error = String((error as Error)?.message ?? error);
      continue;
    }
    if (entries === undefined) continue;
    report.exists = true;
    for (const { entry, file } of entries) {
      let text: string | undefined;
      try {
        text = await fs.readText(file, { within: confinedRoot(root) });
      } catch (error) {
        if (!(error instanceof SkillFileRefused)) throw error;
        refused.push(problem('skill-unreadable', file, { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, { reason: error.message }));
        continue;
      }
      if (text === undefined) continue; // a directory without SKILL.md: DSH skips it silently
      const scan = scanSkill(text);
      const candidate: SkillCandidate = { file, entry, root, analysis: analyzeSkillText(text, file), winner: false, scan };
      candidate.analysis.problems.push(...scanProblems(text, file, scan.findings));
      report.candidates.push(candidate);
      ordered.push(candidate);
    }
    if (options.hash !== false) {
      const content = await hashSkillRoot(root, fs, options);
      if (content.pin !== undefined) report.pin = content.pin;
      if (content.tooLarge) report.tooLarge = true;
    }
  }

  // dsh-skill: a stable sort by rank (discovery order breaks ties), first of each name wins.
  const byRank = ordered.filter((c) => c.analysis.skill).sort((a, b) => a.root.rank - b.root.rank);
  const winners = new Map<string, SkillCandidate>();
  const problems: Problem[] = [];
  for (const candidate of byRank) {
    const name = candidate.analysis.skill!.name;
    const winner = winners.get(name);
    if (!winner) {
      winners.set(name, candidate);
      candidate.winner = true;
      continue;
    }
    candidate.shadowedBy = winner.file;
    candidate.analysis.problems.push(problem('skill-shadowed', candidate.file, candidate.analysis.nameRange, {
      name, kind: candidate.root.kind, rank: candidate.root.rank, winnerKind: winner.root.kind, winnerRank: winner.root.rank,
    }, [{ file: winner.file, range: winner.analysis.nameRange, message: `"${name}" in ${winner.root.path}` }]));
  }
  for (const candidate of ordered) problems.push(...candidate.analysis.problems);
  problems.push(...refused);
  const sortedWinners = [...winners.values()].sort((a, b) => {
    const x = a.analysis.skill!.name;
    const y = b.analysis.skill!.name;
    return x < y ? -1 : x > y ? 1 : 0;
  });
  return { projectRoot, roots: reports, winners: sortedWinners, problems };
}

// ---------------------------------------------------------------------------------------------
// Content pins and trust

export interface HashOptions {
  /** Refuse to pin a root with more files than this (default 10000). */
  maxFiles?: number;
  /** Refuse to pin a root with more bytes than this (default 64 MiB). */
  maxBytes?: number;
}

export interface SkillRootContent {
  /** `sha256:<hex>`; absent when the root does not exist or exceeds the limits. */
  pin?: string;
  files: number;
  bytes: number;
  tooLarge?: boolean;
}

const PIN_HEADER = 'dsh-bridge skill-root v1\n';

function compareUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/**
 * The content pin of a skill root: `sha256:` + hex SHA-256 of this byte stream:
 *
 *     "dsh-bridge skill-root v1\n"
 *     then for every regular file under the root, sorted by the UTF-8 bytes of its path:
 *     <path relative to the root, '/'-separated, UTF-8> "\0" <byte length, decimal> "\0" <hex SHA-256 of the bytes> "\n"
 *
 * Every file counts, not only SKILL.md: a skill's scripts and references are part of what the model
 * is told to use. The walk is recursive and follows symbolic links (DSH follows them too), entering
 * no directory that is already on the current path (a link cycle). A `<dshHome>/skills` root leaves
 * out its top-level `.system`, which DSH skips. Directories, empty ones included, and anything that
 * is neither a file nor a directory contribute nothing. Names are hashed as the file system returns
 * them (no Unicode normalization). An existing empty root pins to the header alone; a root that
 * does not exist has no pin.
 */
export async function hashSkillRoot(root: Pick<SkillRoot, 'path' | 'skipSystem'> & Partial<Pick<SkillRoot, 'kind'>>, fs: SkillFs, options: HashOptions = {}): Promise<SkillRootContent> {
  const maxFiles = options.maxFiles ?? 10_000;
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  const records: Array<{ rel: string; line: string }> = [];
  let bytes = 0;
  let tooLarge = false;

  const walk = async (dir: string, rel: string, onPath: ReadonlySet<string>): Promise<boolean> => {
    const entries = await fs.list(dir);
    if (entries === undefined) return false;
    const real = await fs.realpath(dir);
    const stack = new Set(onPath).add(real);
    for (const entry of entries) {
      if (tooLarge) return true;
      if (rel === '' && root.skipSystem && entry.name === '.system') continue;
      const full = path.join(dir, entry.name);
      const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.type === 'directory') {
        if (stack.has(await fs.realpath(full))) continue;
        await walk(full, childRel, stack);
      } else if (entry.type === 'file') {
        let content: Uint8Array | undefined;
        try {
          content = await fs.readBytes(full, { within: confinedRoot(root), maxBytes: maxBytes - bytes });
        } catch (error) {
          if (!(error instanceof SkillFileRefused)) throw error;
          if (error.failure.kind !== 'too-large') continue; // a FIFO, a device or a link out contributes nothing
          tooLarge = true;
          return true;
        }
        if (content === undefined) continue;
        bytes += content.byteLength;
        if (records.length + 1 > maxFiles || bytes > maxBytes) {
          tooLarge = true;
          return true;
        }
        const digest = createHash('sha256').update(content).digest('hex');
        records.push({ rel: childRel, line: `${childRel}\0${content.byteLength}\0${digest}\n` });
      }
    }
    return true;
  };

  const exists = await walk(root.path, '', new Set());
  if (!exists) return { files: 0, bytes: 0 };
  if (tooLarge) return { files: records.length, bytes, tooLarge: true };
  records.sort((a, b) => compareUtf8(a.rel, b.rel));
  const hash = createHash('sha256').update(PIN_HEADER, 'utf8');
  for (const r of records) hash.update(r.line, 'utf8');
  return { pin: `sha256:${hash.digest('hex')}`, files: records.length, bytes };
}

/** Trust of one root: no record -> untrusted; recorded pin equal to the current one -> trusted; else changed. */
export function skillTrustState(currentPin: string | undefined, recordedPin: string | undefined): SkillTrustState {
  if (recordedPin === undefined) return 'untrusted';
  return currentPin !== undefined && currentPin === recordedPin ? 'trusted' : 'changed';
}

/** Trust of each root, keyed by root path; `recorded` is the host-side store's {rootPath -> pin}. */
export function skillTrustStates(roots: ReadonlyArray<{ path: string; pin?: string }>, recorded: Readonly<Record<string, string>>): Record<string, SkillTrustState> {
  const out: Record<string, SkillTrustState> = {};
  for (const root of roots) out[root.path] = skillTrustState(root.pin, Object.hasOwn(recorded, root.path) ? recorded[root.path] : undefined);
  return out;
}

/**
 * The declaration's `skills` section: every root that exists, in DSH's order, with its trust state
 * and content pin as the user reviewed them.
 */
export function skillsDeclarationSection(discovery: Pick<SkillDiscovery, 'roots'>, recorded: Readonly<Record<string, string>>): SkillsDeclaration {
  const roots: SkillsDeclarationRoot[] = [];
  for (const root of discovery.roots) {
    if (!root.exists) continue;
    const names = root.candidates.flatMap((c) => (c.analysis.skill ? [c.analysis.skill.name] : []));
    roots.push({
      path: root.path,
      kind: root.kind,
      rank: root.rank,
      trust: skillTrustState(root.pin, Object.hasOwn(recorded, root.path) ? recorded[root.path] : undefined),
      pin: root.pin ?? null,
      skills: [...new Set(names)].sort(),
    });
  }
  return { roots };
}
