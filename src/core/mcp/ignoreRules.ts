/**
 * `.dsh/.gitignore` read as git reads it: whether it keeps the declaration out of commits, and the
 * fix when it does not. Pure: text in, decisions and edits out.
 *
 * The rules are gitignore(5) as git's dir.c and wildmatch.c apply them: a UTF-8 BOM is skipped,
 * lines end at LF (a CR before it is dropped), blank lines and `#` lines are skipped, trailing
 * spaces go unless escaped, `!` re-includes, a trailing `/` matches folders only, a pattern with
 * a `/` before its end is anchored to the file's folder and matched with `*` stopping at `/`, any
 * other pattern is matched against the name alone; the last matching pattern decides. Case is
 * compared exactly (git's `core.ignoreCase` off, as on a case-sensitive file system).
 */
import { makeProblem, type Problem } from '../problems/problems';
import { LineIndex, type Range } from '../json/text';
import type { QuickFix } from './quickFixes';

/** The declaration's file name inside `.dsh`, the folder of the `.gitignore` that must ignore it. */
const DECLARATION_NAME = 'declaration.json';
export const IGNORE_FILE = '.dsh/.gitignore';
/** A `.dsh/.gitignore` at most this large is read. */
export const MAX_IGNORE_BYTES = 64 * 1024;

interface Pattern {
  pattern: string;
  negative: boolean;
  mustBeDir: boolean;
  /** No slash before its end: matched against the name alone. */
  baseOnly: boolean;
  /** 0-based line of the pattern in the file, and the line's extent. */
  line: number;
  start: number;
  end: number;
}

/** What the file says of one path: ignored or not, and the line of the pattern that decided (none matched: undefined). */
export interface IgnoreDecision {
  ignored: boolean;
  line?: number;
  /** Offsets of the deciding line in the text. */
  span?: { start: number; end: number };
}

/** Git's trim_trailing_spaces: trailing spaces go, unless the last one is escaped by a backslash. */
function trimTrailingSpaces(line: string): string {
  let lastSpace = -1;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === ' ') {
      if (lastSpace < 0) lastSpace = i;
    } else if (c === '\\') {
      i++;
      if (i >= line.length) return line; // a backslash cannot escape the end of the line
      lastSpace = -1;
    } else {
      lastSpace = -1;
    }
  }
  return lastSpace < 0 ? line : line.slice(0, lastSpace);
}

function parsePatterns(text: string): Pattern[] {
  const out: Pattern[] = [];
  let offset = text.startsWith('\uFEFF') ? 1 : 0;
  let line = 0;
  while (offset <= text.length) {
    const newline = text.indexOf('\n', offset);
    const end = newline < 0 ? text.length : newline;
    let raw = text.slice(offset, end);
    if (raw.endsWith('\r')) raw = raw.slice(0, -1);
    if (raw !== '' && !raw.startsWith('#')) {
      let pattern = trimTrailingSpaces(raw);
      const negative = pattern.startsWith('!');
      if (negative) pattern = pattern.slice(1);
      const mustBeDir = pattern.endsWith('/');
      if (mustBeDir) pattern = pattern.slice(0, -1);
      if (pattern !== '') {
        const baseOnly = !pattern.includes('/');
        out.push({ pattern: !baseOnly && pattern.startsWith('/') ? pattern.slice(1) : pattern, negative, mustBeDir, baseOnly, line, start: offset, end });
      }
    }
    if (newline < 0) break;
    offset = newline + 1;
    line++;
  }
  return out;
}

/**
 * Whether `text`, a `.gitignore`, ignores `relativePath` (relative to the file's folder,
 * '/'-separated). Never throws.
 */
export function gitignoreDecision(text: string, relativePath: string, isDirectory = false): IgnoreDecision {
  const name = relativePath.slice(relativePath.lastIndexOf('/') + 1);
  const patterns = parsePatterns(text);
  for (let i = patterns.length - 1; i >= 0; i--) {
    const p = patterns[i];
    if (p.mustBeDir && !isDirectory) continue;
    const matched = p.baseOnly ? wildmatch(p.pattern, name, false) : wildmatch(p.pattern, relativePath, true);
    if (matched) return { ignored: !p.negative, line: p.line, span: { start: p.start, end: p.end } };
  }
  return { ignored: false };
}

const MATCH = 0;
const NO_MATCH = 1;
const ABORT_ALL = -1;
const ABORT_TO_STARSTAR = -2;

/** git's wildmatch (wildmatch.c), over UTF-16 code units; `pathname` is WM_PATHNAME (`*`, `?` and `[...]` never match `/`). */
function wildmatch(pattern: string, text: string, pathname: boolean): boolean {
  return dowild(pattern, 0, text, 0, pathname) === MATCH;
}

/** POSIX classes as wildmatch tests them (C locale). */
const CLASSES: Record<string, RegExp> = {
  alnum: /[A-Za-z0-9]/, alpha: /[A-Za-z]/, blank: /[ \t]/, cntrl: /[\0-\x1f\x7f]/, digit: /[0-9]/, graph: /[!-~]/,
  lower: /[a-z]/, print: /[ -~]/, punct: /[!-/:-@[-`{-~]/, space: /[ \t\n\v\f\r]/, upper: /[A-Z]/, xdigit: /[0-9A-Fa-f]/,
};

const isGlobSpecial = (c: string | undefined) => c === '*' || c === '?' || c === '[' || c === '\\';

function dowild(p: string, pi: number, t: string, ti: number, pathname: boolean): number {
  for (; pi < p.length; ti++, pi++) {
    let pc: string | undefined = p[pi];
    let tc: string | undefined = t[ti];
    if (tc === undefined && pc !== '*') return ABORT_ALL;
    switch (pc) {
      case '\\':
        pc = p[++pi];
        if (tc !== pc) return NO_MATCH;
        continue;
      default:
        if (tc !== pc) return NO_MATCH;
        continue;
      case '?':
        if (pathname && tc === '/') return NO_MATCH;
        continue;
      case '*': {
        let matchSlash: boolean;
        if (p[++pi] === '*') {
          const prev = pi - 2;
          while (p[++pi] === '*') { /* skip */ }
          if ((prev < 0 || p[prev] === '/') && (pi >= p.length || p[pi] === '/' || (p[pi] === '\\' && p[pi + 1] === '/'))) {
            if (p[pi] === '/' && dowild(p, pi + 1, t, ti, pathname) === MATCH) return MATCH;
            matchSlash = true;
          } else {
            matchSlash = !pathname;
          }
        } else {
          matchSlash = !pathname;
        }
        if (pi >= p.length) {
          // A trailing "**" matches everything; a trailing "*" only while no slash is left.
          if (!matchSlash && t.indexOf('/', ti) >= 0) return NO_MATCH;
          return MATCH;
        } else if (!matchSlash && p[pi] === '/') {
          // One asterisk then a slash: matches up to the next folder.
          const slash = t.indexOf('/', ti);
          if (slash < 0) return NO_MATCH;
          ti = slash;
          break;
        }
        for (;;) {
          if (tc === undefined) break;
          // An asterisk before a literal: skip ahead to that literal.
          if (!isGlobSpecial(p[pi])) {
            const literal = p[pi];
            while ((tc = t[ti]) !== undefined && (matchSlash || tc !== '/')) {
              if (tc === literal) break;
              ti++;
            }
            if (tc !== literal) return matchSlash ? ABORT_ALL : ABORT_TO_STARSTAR;
          }
          const matched = dowild(p, pi, t, ti, pathname);
          if (matched !== NO_MATCH) {
            if (!matchSlash || matched !== ABORT_TO_STARSTAR) return matched;
          } else if (!matchSlash && tc === '/') {
            return ABORT_TO_STARSTAR;
          }
          tc = t[++ti];
        }
        return ABORT_ALL;
      }
      case '[': {
        pc = p[++pi];
        if (pc === '^') pc = '!';
        const negated = pc === '!';
        if (negated) pc = p[++pi];
        let prev: string | undefined;
        let matched = false;
        // The first character (after a "!" or "^") is part of the set, even a "]".
        do {
          if (pc === undefined) return ABORT_ALL;
          if (pc === '\\') {
            pc = p[++pi];
            if (pc === undefined) return ABORT_ALL;
            if (tc === pc) matched = true;
          } else if (pc === '-' && prev !== undefined && p[pi + 1] !== undefined && p[pi + 1] !== ']') {
            pc = p[++pi];
            if (pc === '\\') {
              pc = p[++pi];
              if (pc === undefined) return ABORT_ALL;
            }
            if (tc! <= pc! && tc! >= prev) matched = true;
            pc = undefined; // a range is not the start of the next one
          } else if (pc === '[' && p[pi + 1] === ':') {
            const s = pi + 2;
            for (pi = s; (pc = p[pi]) !== undefined && pc !== ']'; pi++) { /* to the closing ] */ }
            if (pc === undefined) return ABORT_ALL;
            const length = pi - s - 1;
            if (length < 0 || p[pi - 1] !== ':') {
              // No ":]": a plain "[" in the set.
              pi = s - 2;
              pc = '[';
              if (tc === pc) matched = true;
            } else {
              const name = p.slice(s, s + length);
              if (!Object.hasOwn(CLASSES, name)) return ABORT_ALL; // a malformed [:class:]
              if (CLASSES[name].test(tc!)) matched = true;
              pc = undefined;
            }
          } else if (tc === pc) {
            matched = true;
          }
          prev = pc;
          pc = p[++pi];
        } while (pc !== ']');
        if (matched === negated || (pathname && tc === '/')) return NO_MATCH;
        continue;
      }
    }
    // "break" of the one-asterisk-then-slash case: the loop's step consumes the slash.
  }
  return ti < t.length ? NO_MATCH : MATCH;
}

/** Names of the temporary files the export writes in `.dsh` (see atomicWrite), one example each. */
export function exampleTempNames(): string[] {
  return ['declaration.json', 'declaration.schema.json', '.gitignore'].map((target) => `.${target}.1-000000000000.tmp`);
}

/**
 * The `declaration-committable` problem of a `.dsh/.gitignore` that does not ignore the
 * declaration (undefined when it does): on the line that re-includes it, else at the file's start.
 */
export function declarationIgnoreProblem(text: string): Problem | undefined {
  const decision = gitignoreDecision(text, DECLARATION_NAME);
  if (decision.ignored) return undefined;
  const lines = new LineIndex(text);
  const range: Range = decision.span
    ? { start: lines.positionAt(decision.span.start), end: lines.positionAt(text[decision.span.end - 1] === '\r' ? decision.span.end - 1 : decision.span.end) }
    : { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
  return makeProblem('declaration-committable', IGNORE_FILE, range, { file: IGNORE_FILE, name: DECLARATION_NAME });
}

/** Adds the rule that ignores the declaration, as the file's last line (the last match decides). */
export function declarationIgnoreFix(text: string): QuickFix {
  const eol = /\r\n/.test(text) ? '\r\n' : '\n';
  const separator = text === '' || text.endsWith('\n') ? '' : eol;
  return {
    id: 'ignore-declaration',
    title: 'Ignore {name} in {file}',
    args: { name: DECLARATION_NAME, file: IGNORE_FILE },
    edits: [{ offset: text.length, length: 0, content: `${separator}${DECLARATION_NAME}${eol}` }],
    isPreferred: true,
  };
}
